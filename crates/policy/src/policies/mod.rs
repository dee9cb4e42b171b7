//! The policies of the Qthreads comparison set (Olivier et al., "Scheduling task
//! parallelism on multi-socket multicore systems"), and how to name them.

mod assigned;
pub(crate) mod bitier;
mod cab;
mod cats;
mod central;
mod iteration;
mod mts;
pub(crate) mod online;
mod rr;
mod ws;

pub use assigned::{
    Affinity, Slot, StaticBlocks, TaskSchedule, TaskScheduleError, SCHEDULE_PLACED,
    SCHEDULE_UNKNOWN,
};
pub use bitier::Tier;
pub use cab::{boundary_level, Cab, CabInputs};
pub use cats::{Cats, DEFAULT_CMPI_THRESHOLD};
pub use central::Central;
pub use iteration::{contiguous_counts, contiguous_squad};
pub use mts::Mts;
pub use online::{classify, is_cpu_bound, soid};
pub use rr::RoundRobin;
pub use ws::WorkStealing;

use crate::{Order, Policy, WorkerMap};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The policies locus ships, by name.
#[derive(Debug, Clone, PartialEq)]
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
        batch: Option<usize>,
    },
    /// `cab`: cache-aware bi-tier stealing with the boundary level of Eq. 4 (CAB), with
    /// iteration affinity.
    Cab(CabInputs),
    /// `cab-paper`: CAB as published: leaf inter-squad tasks go to whichever head
    /// takes them.
    CabPaper(CabInputs),
    /// `cats`: cache-aware stealing from the first iteration's profile (CATS), with
    /// iteration affinity and a partition that feeds every squad.
    Cats {
        /// CMPI below which the program is CPU-bound; `None` for the default.
        cmpi_threshold: Option<f64>,
    },
    /// `cats-paper`: CATS as published (Fig. 6's partition, no affinity).
    CatsPaper {
        /// CMPI below which the program is CPU-bound; `None` for the default.
        cmpi_threshold: Option<f64>,
    },
    /// `static`: every parallel loop in blocks of consecutive chunks, one per worker
    /// (OpenMP's `schedule(static)`), the rest work stealing.
    Static,
    /// `affinity`: a schedule made offline from an affinity graph (`locus profile`),
    /// the tasks it does not know work stealing's.
    Affinity(Arc<TaskSchedule>),
}

/// An unknown or malformed policy name.
#[derive(Debug, thiserror::Error)]
#[error("policy '{input}': {reason} (expected one of: {})", PolicyKind::NAMES.join(", "))]
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
        PolicyKind::Mts { batch: None },
    ];

    /// The names [`FromStr`] accepts (`mts` also takes `mts:BATCH`, `cab` and `cab-paper`
    /// take `:B:SIZE` or `:bl=N`, `cats` and `cats-paper` take `:CMPI`; `affinity` is
    /// named here but made with [`PolicyKind::Affinity`] from a loaded schedule).
    pub const NAMES: [&'static str; 12] = [
        "ws",
        "ws-unpinned",
        "central",
        "rr-fifo",
        "rr-lifo",
        "mts",
        "cab",
        "cab-paper",
        "cats",
        "cats-paper",
        "static",
        "affinity",
    ];

    /// Builds the policy for the workers of `map`.
    pub fn build(&self, map: &WorkerMap) -> Arc<dyn Policy> {
        match self {
            PolicyKind::Ws => Arc::new(WorkStealing::new(map, true)),
            PolicyKind::WsUnpinned => Arc::new(WorkStealing::new(map, false)),
            PolicyKind::Central => Arc::new(Central),
            PolicyKind::RrFifo => Arc::new(RoundRobin::new(map, Order::Fifo)),
            PolicyKind::RrLifo => Arc::new(RoundRobin::new(map, Order::Lifo)),
            PolicyKind::Mts { batch } => Arc::new(Mts::new(map, *batch)),
            PolicyKind::Cab(inputs) => Arc::new(Cab::new(map, *inputs, true)),
            PolicyKind::CabPaper(inputs) => Arc::new(Cab::new(map, *inputs, false)),
            PolicyKind::Cats { cmpi_threshold } => Arc::new(Cats::new(
                map,
                cmpi_threshold.unwrap_or(DEFAULT_CMPI_THRESHOLD),
                true,
            )),
            PolicyKind::CatsPaper { cmpi_threshold } => Arc::new(Cats::new(
                map,
                cmpi_threshold.unwrap_or(DEFAULT_CMPI_THRESHOLD),
                false,
            )),
            PolicyKind::Static => Arc::new(StaticBlocks::new(map)),
            PolicyKind::Affinity(schedule) => Arc::new(Affinity::new(map, Arc::clone(schedule))),
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
            PolicyKind::Mts { batch: None } => f.write_str("mts"),
            PolicyKind::Mts { batch: Some(c) } => write!(f, "mts:{c}"),
            PolicyKind::Cab(inputs) => write_cab(f, "cab", inputs),
            PolicyKind::CabPaper(inputs) => write_cab(f, "cab-paper", inputs),
            PolicyKind::Cats { cmpi_threshold } => write_cats(f, "cats", cmpi_threshold),
            PolicyKind::CatsPaper { cmpi_threshold } => write_cats(f, "cats-paper", cmpi_threshold),
            PolicyKind::Static => f.write_str("static"),
            PolicyKind::Affinity(_) => f.write_str("affinity"),
        }
    }
}

fn write_cab(f: &mut fmt::Formatter<'_>, name: &str, inputs: &CabInputs) -> fmt::Result {
    match inputs {
        CabInputs::Auto => f.write_str(name),
        CabInputs::Level(bl) => write!(f, "{name}:bl={bl}"),
        CabInputs::Given {
            branching,
            data_bytes,
        } => write!(f, "{name}:{branching}:{data_bytes}"),
    }
}

fn write_cats(f: &mut fmt::Formatter<'_>, name: &str, threshold: &Option<f64>) -> fmt::Result {
    match threshold {
        None => f.write_str(name),
        Some(t) => write!(f, "{name}:{t}"),
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
        if let Some(batch) = name.strip_prefix("mts:") {
            return match batch.parse::<usize>() {
                Ok(0) => Err(err("the mts batch must be at least 1")),
                Ok(c) => Ok(PolicyKind::Mts { batch: Some(c) }),
                Err(_) => Err(err("the mts batch after ':' must be a positive integer")),
            };
        }
        for (prefix, paper) in [("cab-paper:", true), ("cab:", false)] {
            let Some(args) = name.strip_prefix(prefix) else {
                continue;
            };
            let inputs = parse_cab_inputs(prefix, args).map_err(|r| err(&r))?;
            return Ok(if paper {
                PolicyKind::CabPaper(inputs)
            } else {
                PolicyKind::Cab(inputs)
            });
        }
        for (prefix, paper) in [("cats-paper:", true), ("cats:", false)] {
            let Some(t) = name.strip_prefix(prefix) else {
                continue;
            };
            let cmpi_threshold = match t.parse::<f64>() {
                Ok(t) if t.is_finite() && t >= 0.0 => Some(t),
                _ => {
                    return Err(err(&format!(
                        "the CMPI threshold after '{prefix}' must be a non-negative number"
                    )))
                }
            };
            return Ok(if paper {
                PolicyKind::CatsPaper { cmpi_threshold }
            } else {
                PolicyKind::Cats { cmpi_threshold }
            });
        }
        match name.to_ascii_lowercase().as_str() {
            "ws" | "cilk-a" => Ok(PolicyKind::Ws),
            "ws-unpinned" | "cilk" => Ok(PolicyKind::WsUnpinned),
            "central" | "cq" => Ok(PolicyKind::Central),
            "rr-fifo" | "q" => Ok(PolicyKind::RrFifo),
            "rr-lifo" | "l" => Ok(PolicyKind::RrLifo),
            "mts" => Ok(PolicyKind::Mts { batch: None }),
            "cab" => Ok(PolicyKind::Cab(CabInputs::Auto)),
            "cab-paper" => Ok(PolicyKind::CabPaper(CabInputs::Auto)),
            "cats" => Ok(PolicyKind::Cats {
                cmpi_threshold: None,
            }),
            "cats-paper" => Ok(PolicyKind::CatsPaper {
                cmpi_threshold: None,
            }),
            "static" => Ok(PolicyKind::Static),
            "affinity" => Err(err(
                "affinity follows a schedule file: give it with --schedule FILE \
                 (`locus profile KERNEL --out DIR` writes DIR/schedule.json)",
            )),
            "" => Err(err("the name is empty")),
            _ => Err(err("no policy has this name")),
        }
    }
}

/// What follows `cab:` or `cab-paper:` (`prefix`): `B:SIZE` or `bl=N`; the error is
/// the reason.
fn parse_cab_inputs(prefix: &str, args: &str) -> Result<CabInputs, String> {
    if let Some(bl) = args.strip_prefix("bl=") {
        return match bl.parse::<u32>() {
            Ok(bl) if bl <= 64 => Ok(CabInputs::Level(bl)),
            _ => Err(format!(
                "the boundary level after '{prefix}bl=' must be a whole number from 0 to 64"
            )),
        };
    }
    let (b, size) = args.split_once(':').ok_or_else(|| {
        format!(
            "cab takes {prefix}B:SIZE, e.g. {prefix}2:48MiB (B the branching degree, SIZE the input), \
             or {prefix}bl=N (the boundary level itself)"
        )
    })?;
    let branching = match b.parse::<u32>() {
        Ok(b) if b >= 2 => b,
        _ => {
            return Err(format!(
                "the branching degree B after '{prefix}' must be a whole number of at least 2"
            ))
        }
    };
    let data_bytes =
        locus_topo::parse_size(size).map_err(|e| format!("the input size SIZE {e}"))?;
    if data_bytes == 0 {
        return Err(format!(
            "the input size SIZE after '{prefix}{b}:' is 0; it must be at least 1 byte, e.g. {prefix}{b}:48MiB"
        ));
    }
    Ok(CabInputs::Given {
        branching,
        data_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Place, Probe, TaskId, TaskInfo, Victims};

    #[test]
    fn names_round_trip() {
        for kind in PolicyKind::ALL.into_iter().chain([PolicyKind::Static]) {
            assert_eq!(kind.to_string().parse::<PolicyKind>().unwrap(), kind);
        }
        let e = "affinity".parse::<PolicyKind>().unwrap_err().to_string();
        assert!(e.contains("--schedule FILE"), "{e}");
        assert_eq!(
            "mts:3".parse::<PolicyKind>().unwrap(),
            PolicyKind::Mts { batch: Some(3) }
        );
        assert_eq!("CQ".parse::<PolicyKind>().unwrap(), PolicyKind::Central);
        assert_eq!(
            "cab:2:48MiB".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cab(CabInputs::Given {
                branching: 2,
                data_bytes: 48 << 20
            })
        );
        assert_eq!(
            "cab:bl=4".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cab(CabInputs::Level(4))
        );
        assert_eq!(PolicyKind::Cab(CabInputs::Level(4)).to_string(), "cab:bl=4");
        for name in [
            "cab",
            "cab-paper",
            "cab-paper:bl=3",
            "cab-paper:2:1024",
            "cats",
            "cats-paper",
            "cats-paper:0.5",
        ] {
            assert_eq!(name.parse::<PolicyKind>().unwrap().to_string(), name);
        }
        assert_eq!(
            "cats-paper".parse::<PolicyKind>().unwrap(),
            PolicyKind::CatsPaper {
                cmpi_threshold: None
            }
        );
        assert_eq!(
            "cats:0.01".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cats {
                cmpi_threshold: Some(0.01)
            }
        );
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
            "cab:bl=",
            "cab:bl=x",
            "cab:bl=-1",
            "cab:bl=65",
            "cab-paper:",
            "cab-paper:bl=x",
            "cab-paper:1:1MiB",
            "cab:2:0",
            "cab-paper:4:0KiB",
            "cats-paper:-1",
            "cats-papers",
        ] {
            let e = bad.parse::<PolicyKind>().unwrap_err().to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
            assert!(e.contains("ws, ws-unpinned"), "lists the names: {e}");
        }
    }

    #[test]
    fn a_cab_input_of_no_bytes_is_refused() {
        // It gave a boundary level from the squad count alone, as if the input fit.
        let e = "cab:2:0".parse::<PolicyKind>().unwrap_err().to_string();
        assert!(
            e.contains("the input size SIZE after 'cab:2:' is 0") && e.contains("at least 1 byte"),
            "{e}"
        );
        assert_eq!(
            "cab:2:1".parse::<PolicyKind>().unwrap(),
            PolicyKind::Cab(CabInputs::Given {
                branching: 2,
                data_bytes: 1
            })
        );
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
            loop_chunks: 0,
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
        assert_eq!(cq.place(3, &task, &task), Place::Central);
        assert_eq!(plan(&*cq, 0), vec![Probe::Central]);

        let q = PolicyKind::RrFifo.build(&map);
        assert_eq!(q.layout().inbox, Some(Order::Fifo));
        let dealt: Vec<Place> = (0..5).map(|_| q.place(1, &task, &task)).collect();
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

        let mts = PolicyKind::Mts { batch: None }.build(&map);
        assert_eq!(mts.place(3, &task, &task), Place::Squad(1));
        assert_eq!(
            plan(&*mts, 3),
            vec![Probe::SquadQueue(1), Probe::BulkSteal { batch: 2 }]
        );
        let mts7 = PolicyKind::Mts { batch: Some(7) }.build(&map);
        assert_eq!(
            plan(&*mts7, 0),
            vec![Probe::SquadQueue(0), Probe::BulkSteal { batch: 7 }]
        );

        // One squad: nothing to steal from remotely.
        let one = WorkerMap::from_squad_sizes(&[3]);
        assert_eq!(
            plan(&*PolicyKind::Mts { batch: None }.build(&one), 1),
            vec![Probe::SquadQueue(0)]
        );
    }
}
