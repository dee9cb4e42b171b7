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
//! - With iteration affinity ([`Affinity`]), a leaf inter-socket task goes to the pool
//!   of its home squad instead of the spawner's, and the tasks above it are unfolded
//!   child-first by whoever runs them (they only spawn), so the pools hold leaves only;
//!   a head steals from remote pools once its squad has started all its own leaves.
//!
//! The busy state of a squad is set and cleared by the worker that runs its leaf
//! inter-socket task (the head that took it), so `Relaxed` stores suffice for the
//! protocol; plans read it with `Relaxed` loads and may be one search late, which costs
//! a search, not the invariant (the head itself is the only worker that starts inter
//! tasks for the squad). The instrumentation counter (`running_leaves`) uses
//! read-modify-writes, so a violation is counted even if the protocol had a hole.

use crate::policies::affinity::Affinity;
use crate::{Layout, Place, Probe, SquadId, TaskInfo, Victims, WorkerId, WorkerMap};
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
    pub(crate) affinity: Affinity,
}

impl BiTier {
    /// The bi-tier state for the squads of `map`, with iteration affinity or
    /// paper-faithful.
    pub(crate) fn new(map: &WorkerMap, affinity: bool) -> BiTier {
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
            affinity: Affinity::new(squads, affinity),
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
        if self.num_squads() > 1 && self.affinity.may_steal_remote(squad) {
            plan.push(Probe::RemoteInterPools);
        }
    }

    /// The squad of `worker`.
    pub(crate) fn squad_of(&self, worker: WorkerId) -> SquadId {
        self.squad_of[worker]
    }

    /// Where `task`, of `tier` and spawned on `spawner`, goes. With affinity a leaf
    /// inter-socket task goes home (`first` gives the home of a leaf never seen), the
    /// tasks above it stay with the spawner; paper-faithful, both go to the spawner's
    /// squad's pool.
    pub(crate) fn place(
        &self,
        spawner: WorkerId,
        task: &TaskInfo,
        tier: Tier,
        first: impl FnOnce() -> SquadId,
    ) -> Place {
        match tier {
            Tier::Intra => Place::Local,
            Tier::LeafInter if self.affinity.enabled() => {
                Place::InterPool(self.affinity.spawn(task.id, first))
            }
            Tier::Inter if self.affinity.enabled() => Place::Local,
            Tier::LeafInter | Tier::Inter => Place::InterPool(self.squad_of[spawner]),
        }
    }

    /// Whether a join whose first half is of `tier` is generated parent-first: always
    /// for leaf inter-socket tasks (both halves go to pools), for the inter-socket tasks
    /// above them only when paper-faithful.
    pub(crate) fn parent_first(&self, tier: Tier) -> bool {
        match tier {
            Tier::LeafInter => true,
            Tier::Inter => !self.affinity.enabled(),
            Tier::Intra => false,
        }
    }

    /// `task`, of `tier`, starts on `worker`.
    pub(crate) fn started(&self, worker: WorkerId, task: &TaskInfo, tier: Tier) {
        let squad = self.squad_of[worker];
        if tier.is_inter() {
            self.inter_taken[squad].fetch_add(1, Ordering::Relaxed);
        }
        if tier == Tier::LeafInter {
            self.affinity.started(task.id, squad);
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

    /// A line for `--explain` on where leaf inter-socket tasks go.
    pub(crate) fn affinity_line(&self) -> &'static str {
        if self.affinity.enabled() {
            "iteration affinity: a leaf inter-socket task goes back to the squad that ran it last \
             (first: subtree i of k to squad floor(i*m/k)); heads steal other squads' leaves \
             once their own have started\n"
        } else {
            "paper-faithful: leaf inter-socket tasks wait in the spawner's squad's pool for \
             whichever head takes them first\n"
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
        self.affinity.stats(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_idle_squads_head_looks_at_inter_pools() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map, false);
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
        let leaf = TaskInfo {
            id: crate::TaskId(9),
            level: 2,
        };
        bt.started(2, &leaf, Tier::LeafInter);
        assert_eq!(
            plan(2),
            vec![Probe::OwnDeque, Probe::Steal(Victims::Squad)],
            "busy: no second subtree"
        );
        assert_eq!(
            bt.place(3, &leaf, Tier::LeafInter, || 0),
            Place::InterPool(1),
            "paper-faithful: the spawner's squad"
        );
        assert_eq!(bt.place(3, &leaf, Tier::Intra, || 0), Place::Local);
        bt.finished(2, Tier::LeafInter);
        assert_eq!(plan(2).len(), 4, "idle again");
        let stats = bt.stats();
        assert!(stats.contains(&("busy_refusals_squad1".to_string(), 1)));
        assert!(stats.contains(&("inter_tasks_squad1".to_string(), 1)));
        assert!(stats.contains(&("leaf_subtree_overlaps".to_string(), 0)));
        // Two leaf subtrees at once in one squad are counted.
        bt.started(0, &leaf, Tier::LeafInter);
        bt.started(1, &leaf, Tier::LeafInter);
        assert!(bt
            .stats()
            .contains(&("leaf_subtree_overlaps".to_string(), 1)));
    }

    #[test]
    fn with_affinity_leaves_go_home_and_remote_steals_wait() {
        let map = WorkerMap::from_squad_sizes(&[2, 2]);
        let bt = BiTier::new(&map, true);
        let leaf = |id| TaskInfo {
            id: crate::TaskId(id),
            level: 1,
        };
        let inter = leaf(1);
        assert_eq!(bt.place(0, &inter, Tier::Inter, || 1), Place::Local);
        assert!(!bt.parent_first(Tier::Inter) && bt.parent_first(Tier::LeafInter));
        assert_eq!(
            bt.place(0, &leaf(2), Tier::LeafInter, || 1),
            Place::InterPool(1),
            "the first home, not the spawner's squad"
        );
        let mut plan = Vec::new();
        bt.plan(2, &mut plan);
        assert_eq!(
            plan,
            vec![
                Probe::OwnDeque,
                Probe::Steal(Victims::Squad),
                Probe::InterPool(1)
            ],
            "squad 1's leaf is still to start: no remote steals"
        );
        plan.clear();
        bt.plan(0, &mut plan);
        assert_eq!(
            plan.last(),
            Some(&Probe::RemoteInterPools),
            "squad 0 has none"
        );
        bt.started(2, &leaf(2), Tier::LeafInter);
        bt.finished(2, Tier::LeafInter);
        plan.clear();
        bt.plan(2, &mut plan);
        assert_eq!(plan.last(), Some(&Probe::RemoteInterPools));
    }
}
