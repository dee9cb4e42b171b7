//! The bi-tier machinery shared by CAB and CATS (Chen et al.): the DAG is split into an
//! inter-socket tier, whose tasks move between squads, and an intra-socket tier, whose
//! tasks stay in the squad that runs their leaf inter-socket task.
//!
//! - Inter-socket tasks (at and above the leaf inter-socket tasks) are generated
//!   parent-first into the spawning squad's inter-socket pool, so that other squads'
//!   heads can take them; intra-socket tasks child-first onto the worker's own deque.
//! - The stealing protocol of CAB's Algorithm I: a worker looks at its own deque, then
//!   (while its squad is busy) its squad peers' deques; the head of a squad that is not
//!   busy looks at its squad's inter-socket pool, then steals from the inter-socket
//!   pools of other squads, from a random start.
//! - `busy_state`: a squad is busy from the start of a leaf inter-socket task to its end,
//!   and a busy squad takes no inter-socket task, so it runs at most one leaf
//!   inter-socket subtree at a time. A head that waits inside a `join` searches with the
//!   same plan, so a busy squad's waiting head does not start a second subtree.
//!
//! The busy state of a squad is set and cleared by the worker that runs its leaf
//! inter-socket task (the head that took it), so `Relaxed` stores suffice for the
//! protocol; plans read it with `Relaxed` loads and may be one search late, which costs
//! a search, not the invariant (the head itself is the only worker that starts inter
//! tasks for the squad). The instrumentation counter (`running_leaves`) uses
//! read-modify-writes, so a violation is counted even if the protocol had a hole.

use crate::{Layout, Place, Probe, SquadId, Victims, WorkerId, WorkerMap};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// The tier of a task in a partitioned DAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Above the leaf inter-socket tasks: generated parent-first, may move between squads.
    Inter,
    /// A leaf inter-socket task: the root of a subtree that runs in one squad.
    LeafInter,
    /// Below a leaf inter-socket task: generated child-first, stays in its squad.
    Intra,
}

impl Tier {
    /// Whether tasks of this tier go to an inter-socket pool.
    pub fn is_inter(self) -> bool {
        !matches!(self, Tier::Intra)
    }
}

/// Squads, heads and busy states of a bi-tier policy, with its statistics.
#[derive(Debug)]
pub(crate) struct BiTier {
    squad_of: Vec<SquadId>,
    heads: Vec<WorkerId>,
    llc: Vec<Option<u64>>,
    single_worker: bool,
    busy: Box<[CachePadded<AtomicBool>]>,
    /// Leaf inter-socket tasks running per squad: instrumentation of the invariant.
    running_leaves: Box<[CachePadded<AtomicU32>]>,
    violations: AtomicU64,
    inter_taken: Box<[AtomicU64]>,
    busy_refusals: Box<[AtomicU64]>,
}

impl BiTier {
    pub(crate) fn new(map: &WorkerMap) -> BiTier {
        let squads = map.num_squads();
        BiTier {
            squad_of: (0..map.num_workers()).map(|w| map.squad_of(w)).collect(),
            heads: (0..squads).map(|s| map.head(s)).collect(),
            llc: (0..squads).map(|s| map.llc_size(s)).collect(),
            single_worker: map.num_workers() == 1,
            busy: (0..squads)
                .map(|_| CachePadded::new(AtomicBool::new(false)))
                .collect(),
            running_leaves: (0..squads)
                .map(|_| CachePadded::new(AtomicU32::new(0)))
                .collect(),
            violations: AtomicU64::new(0),
            inter_taken: (0..squads).map(|_| AtomicU64::new(0)).collect(),
            busy_refusals: (0..squads).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The queues and calls a bi-tier policy needs: inter-socket pools, every spawn
    /// placed by the policy, task events.
    pub(crate) fn layout() -> Layout {
        Layout {
            always_local: false,
            inter_pools: true,
            task_events: true,
            ..Layout::deques()
        }
    }

    pub(crate) fn num_squads(&self) -> usize {
        self.heads.len()
    }

    /// The shared cache size of the squads: the smallest last-level cache any squad
    /// has, or `None` if the topology describes none.
    pub(crate) fn shared_cache(&self) -> Option<u64> {
        self.llc.iter().flatten().copied().min()
    }

    /// Plain work stealing: before a partition exists, or where there is one squad.
    pub(crate) fn ws_plan(&self, plan: &mut Vec<Probe>) {
        plan.push(Probe::OwnDeque);
        if !self.single_worker {
            plan.push(Probe::Steal(Victims::All));
        }
    }

    /// CAB's Algorithm I for `worker`.
    pub(crate) fn plan(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        let squad = self.squad_of[worker];
        plan.push(Probe::OwnDeque);
        plan.push(Probe::Steal(Victims::Squad));
        if self.heads[squad] != worker {
            return;
        }
        if self.busy[squad].load(Ordering::Relaxed) {
            self.busy_refusals[squad].fetch_add(1, Ordering::Relaxed);
            return;
        }
        plan.push(Probe::InterPool(squad));
        if self.num_squads() > 1 {
            plan.push(Probe::RemoteInterPools);
        }
    }

    /// Where a task of `tier` spawned on `spawner` goes.
    pub(crate) fn place(&self, spawner: WorkerId, tier: Tier) -> Place {
        if tier.is_inter() {
            Place::InterPool(self.squad_of[spawner])
        } else {
            Place::Local
        }
    }

    /// A task of `tier` starts on `worker`.
    pub(crate) fn started(&self, worker: WorkerId, tier: Tier) {
        let squad = self.squad_of[worker];
        if tier.is_inter() {
            self.inter_taken[squad].fetch_add(1, Ordering::Relaxed);
        }
        if tier == Tier::LeafInter {
            if self.running_leaves[squad].fetch_add(1, Ordering::Relaxed) != 0 {
                self.violations.fetch_add(1, Ordering::Relaxed);
            }
            self.busy[squad].store(true, Ordering::Relaxed);
        }
    }

    /// A task of `tier` finished on `worker`.
    pub(crate) fn finished(&self, worker: WorkerId, tier: Tier) {
        if tier == Tier::LeafInter {
            let squad = self.squad_of[worker];
            self.running_leaves[squad].fetch_sub(1, Ordering::Relaxed);
            self.busy[squad].store(false, Ordering::Relaxed);
        }
    }

    /// Statistics by name: inter-socket tasks taken and busy refusals per squad, and
    /// the invariant's violations (always 0 unless the protocol is broken).
    pub(crate) fn stats(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for (s, n) in self.inter_taken.iter().enumerate() {
            out.push((format!("inter_tasks_squad{s}"), n.load(Ordering::Relaxed)));
        }
        for (s, n) in self.busy_refusals.iter().enumerate() {
            out.push((format!("busy_refusals_squad{s}"), n.load(Ordering::Relaxed)));
        }
        out.push((
            "leaf_subtree_overlaps".to_string(),
            self.violations.load(Ordering::Relaxed),
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_idle_squads_head_looks_at_inter_pools() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map);
        let plan = |w| {
            let mut v = Vec::new();
            bt.plan(w, &mut v);
            v
        };
        assert_eq!(
            plan(2),
            vec![
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::InterPool(1),
                Probe::RemoteInterPools
            ]
        );
        assert_eq!(
            plan(3),
            vec![Probe::OwnDeque, Probe::Steal(Victims::Squad)],
            "not the head"
        );
        bt.started(2, Tier::LeafInter);
        assert_eq!(
            plan(2),
            vec![Probe::OwnDeque, Probe::Steal(Victims::Squad)],
            "busy: no second subtree"
        );
        assert_eq!(bt.place(3, Tier::LeafInter), Place::InterPool(1));
        assert_eq!(bt.place(3, Tier::Intra), Place::Local);
        bt.finished(2, Tier::LeafInter);
        assert_eq!(plan(2).len(), 4, "idle again");
        let stats = bt.stats();
        assert!(stats.contains(&("busy_refusals_squad1".to_string(), 1)));
        assert!(stats.contains(&("inter_tasks_squad1".to_string(), 1)));
        assert!(stats.contains(&("leaf_subtree_overlaps".to_string(), 0)));
        // Two leaf subtrees at once in one squad are counted.
        bt.started(0, Tier::LeafInter);
        bt.started(1, Tier::LeafInter);
        assert!(bt
            .stats()
            .contains(&("leaf_subtree_overlaps".to_string(), 1)));
    }
}
