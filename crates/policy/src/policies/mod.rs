//! The policies of the Qthreads comparison set (Olivier et al., "Scheduling task
//! parallelism on multi-socket multicore systems"), and how to name them.

mod central;
mod mts;
mod rr;
mod ws;

pub use central::Central;
pub use mts::Mts;
pub use rr::RoundRobin;
pub use ws::WorkStealing;

use crate::{Order, Policy, WorkerMap};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The policies locus ships, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// `ws`: work stealing with pinned workers (Cilk-a).
    Ws,
    /// `ws-unpinned`: work stealing with unpinned workers (Cilk).
    WsUnpinned,
    /// `central`: one central LIFO queue (CQ).
    Central,
    /// `rr-fifo`: round robin to per-worker FIFO queues (Q).
    RrFifo,
    /// `rr-lifo`: round robin to per-worker LIFO queues (L).
    RrLifo,
    /// `mts`: a shared LIFO per squad, bulk stealing between squads (MTS).
    Mts {
        /// Tasks moved by one bulk steal; `None` means the thief's squad size.
        chunk: Option<usize>,
    },
}

/// An unknown or malformed policy name.
#[derive(Debug, thiserror::Error)]
#[error("unknown policy '{input}': {reason} (expected one of: {})", PolicyKind::NAMES.join(", "))]
pub struct PolicyError {
    input: String,
    reason: String,
}

impl PolicyKind {
    /// Every policy, in the order reports list them.
    pub const ALL: [PolicyKind; 6] = [
        PolicyKind::Ws,
        PolicyKind::WsUnpinned,
        PolicyKind::Central,
        PolicyKind::RrFifo,
        PolicyKind::RrLifo,
        PolicyKind::Mts { chunk: None },
    ];

    /// The names [`FromStr`] accepts (`mts` also takes `mts:CHUNK`).
    pub const NAMES: [&'static str; 6] =
        ["ws", "ws-unpinned", "central", "rr-fifo", "rr-lifo", "mts"];

    /// Builds the policy for the workers of `map`.
    pub fn build(self, map: &WorkerMap) -> Arc<dyn Policy> {
        match self {
            PolicyKind::Ws => Arc::new(WorkStealing::new(map, true)),
            PolicyKind::WsUnpinned => Arc::new(WorkStealing::new(map, false)),
            PolicyKind::Central => Arc::new(Central),
            PolicyKind::RrFifo => Arc::new(RoundRobin::new(map, Order::Fifo)),
            PolicyKind::RrLifo => Arc::new(RoundRobin::new(map, Order::Lifo)),
            PolicyKind::Mts { chunk } => Arc::new(Mts::new(map, chunk)),
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyKind::Ws => f.write_str("ws"),
            PolicyKind::WsUnpinned => f.write_str("ws-unpinned"),
            PolicyKind::Central => f.write_str("central"),
            PolicyKind::RrFifo => f.write_str("rr-fifo"),
            PolicyKind::RrLifo => f.write_str("rr-lifo"),
            PolicyKind::Mts { chunk: None } => f.write_str("mts"),
            PolicyKind::Mts { chunk: Some(c) } => write!(f, "mts:{c}"),
        }
    }
}

impl FromStr for PolicyKind {
    type Err = PolicyError;

    fn from_str(s: &str) -> Result<PolicyKind, PolicyError> {
        let err = |reason: &str| PolicyError {
            input: s.to_string(),
            reason: reason.to_string(),
        };
        let name = s.trim();
        if let Some(chunk) = name.strip_prefix("mts:") {
            return match chunk.parse::<usize>() {
                Ok(0) => Err(err("the mts chunk must be at least 1")),
                Ok(c) => Ok(PolicyKind::Mts { chunk: Some(c) }),
                Err(_) => Err(err("the mts chunk after ':' must be a positive integer")),
            };
        }
        match name.to_ascii_lowercase().as_str() {
            "ws" | "cilk-a" => Ok(PolicyKind::Ws),
            "ws-unpinned" | "cilk" => Ok(PolicyKind::WsUnpinned),
            "central" | "cq" => Ok(PolicyKind::Central),
            "rr-fifo" | "q" => Ok(PolicyKind::RrFifo),
            "rr-lifo" | "l" => Ok(PolicyKind::RrLifo),
            "mts" => Ok(PolicyKind::Mts { chunk: None }),
            "" => Err(err("the name is empty")),
            _ => Err(err("no policy has this name")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Place, Probe, TaskId, TaskInfo, Victims};

    #[test]
    fn names_round_trip() {
        for kind in PolicyKind::ALL {
            assert_eq!(kind.to_string().parse::<PolicyKind>().unwrap(), kind);
        }
        assert_eq!(
            "mts:3".parse::<PolicyKind>().unwrap(),
            PolicyKind::Mts { chunk: Some(3) }
        );
        assert_eq!("CQ".parse::<PolicyKind>().unwrap(), PolicyKind::Central);
    }

    #[test]
    fn bad_names_are_errors_that_name_the_input() {
        for bad in [
            "",
            "wss",
            "mts:",
            "mts:0",
            "mts:-1",
            "mts:x",
            "rr",
            "ws pinned",
        ] {
            let e = bad.parse::<PolicyKind>().unwrap_err().to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
            assert!(e.contains("ws, ws-unpinned"), "lists the names: {e}");
        }
    }

    fn plan(p: &dyn Policy, w: usize) -> Vec<Probe> {
        let mut v = Vec::new();
        p.search(w, &mut v);
        v
    }

    #[test]
    fn each_policy_decides_as_its_paper_says() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let task = TaskInfo {
            id: TaskId(1),
            level: 3,
        };

        let ws = PolicyKind::Ws.build(&map);
        assert!(ws.layout().always_local && ws.layout().pinned);
        assert_eq!(
            plan(&*ws, 1),
            vec![Probe::OwnDeque, Probe::Steal(Victims::All)]
        );
        assert!(!PolicyKind::WsUnpinned.build(&map).layout().pinned);

        let cq = PolicyKind::Central.build(&map);
        assert!(cq.layout().central && !cq.layout().always_local);
        assert_eq!(cq.place(3, &task), Place::Central);
        assert_eq!(plan(&*cq, 0), vec![Probe::Central]);

        let q = PolicyKind::RrFifo.build(&map);
        assert_eq!(q.layout().inbox, Some(Order::Fifo));
        let dealt: Vec<Place> = (0..5).map(|_| q.place(1, &task)).collect();
        assert_eq!(
            dealt,
            [2, 3, 0, 1, 2].map(Place::Worker).to_vec(),
            "worker 1 deals round robin, starting after itself"
        );
        assert_eq!(plan(&*q, 2), vec![Probe::OwnInbox], "no stealing in Q");
        assert_eq!(
            PolicyKind::RrLifo.build(&map).layout().inbox,
            Some(Order::Lifo)
        );

        let mts = PolicyKind::Mts { chunk: None }.build(&map);
        assert_eq!(mts.place(3, &task), Place::Squad(1));
        assert_eq!(
            plan(&*mts, 3),
            vec![Probe::SquadQueue(1), Probe::BulkSteal { chunk: 2 }]
        );
        let mts7 = PolicyKind::Mts { chunk: Some(7) }.build(&map);
        assert_eq!(
            plan(&*mts7, 0),
            vec![Probe::SquadQueue(0), Probe::BulkSteal { chunk: 7 }]
        );

        // One squad: nothing to steal from remotely.
        let one = WorkerMap::from_squad_sizes(&[3]);
        assert_eq!(
            plan(&*PolicyKind::Mts { chunk: None }.build(&one), 1),
            vec![Probe::SquadQueue(0)]
        );
    }
}
