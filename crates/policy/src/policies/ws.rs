//! `ws`: randomized work stealing (Blumofe and Leiserson; Cilk). Each worker pushes and
//! pops the newest end of its own deque; an idle worker steals the oldest task of a
//! victim chosen at random. Pinned (`ws`, the papers' Cilk-a) or not (`ws-unpinned`).
//!
//! `ws:near` is work stealing that keeps a tree's parts near where they were dealt.
//! Where the machine has several squads:
//!
//! - the top of every tree is dealt to squads by position ([`TopDeal::every_root`]):
//!   the halves of the joins down to the depth where every squad has a subtree go to
//!   the shared queue of squad `⌊i·m/2^d⌋`, the same in every iteration, so each squad
//!   starts on the same part of the tree, and of the data, each time. A dealt task
//!   waits in its squad's queue, where that squad's workers look after their own deque,
//!   and where its joiner takes it back as from its deque. Nothing else is placed:
//!   other spawns and every loop's chunks go on the spawner's deque, and the runtime
//!   asks nothing below the dealt levels and still splits loops as a tree
//!   ([`Layout::local_from_level`], [`Layout::loops_local`]); no task events are asked
//!   for. So fine-grained programs keep ws's fast path: fib 27 on a described machine
//!   of two squads (`locus bench fib --size 27,cutoff=0 --machine 2x1 --threads 2`,
//!   under `valgrind --tool=cachegrind`) runs 1.03x `ws`'s instructions, against 4.4x
//!   when every spawn was placed and every start reported;
//! - thieves try the own package first, then the other packages nearest first
//!   ([`Victims::Package`]).
//!
//! Plain `ws` keeps the papers' uniform choice over every worker: it is the baseline of
//! every published comparison the simulator reproduces.
//!
//! Why both (docs/results.md, "Nearest squads first"): a steal order alone keeps steals
//! near but not the data, since which part of a tree a package runs is decided anew in
//! every iteration by whichever thief reaches the tree's top first; own squad first,
//! then the rest by distance, halved the other-package steals of simulated heat
//! 6144x4096 on epyc-7763-2s (`locus sim heat --size 6144x4096,leaf=16,iters=10
//! --policy ws,ws:near --machine epyc-7763-2s`) but moved as many interconnect bytes as
//! `ws`, and split fine-grained trees inside a squad first (`locus sim fib --size
//! 30,cutoff=0 --policy ws,ws:near --machine epyc-7763-2s`: 2.87x `ws`'s time). The
//! deal keeps each part in its package; stealing own package first keeps the rest there
//! without splitting trees inside a squad.

use crate::policies::deal::TopDeal;
use crate::{Layout, Place, Policy, Probe, SquadId, TaskInfo, Victims, WorkerId, WorkerMap};

/// Flat randomized work stealing.
#[derive(Debug)]
pub struct WorkStealing {
    pinned: bool,
    alone: bool,
    nearest: bool,
    /// `ws:near` on a machine of several squads: the tops of trees dealt to squads.
    deal: Option<TopDeal>,
    /// Each worker's squad, whose queue its searches look at (`ws:near` only).
    squad_of: Vec<SquadId>,
}

impl WorkStealing {
    /// Work stealing over the workers of `map`, pinned or not.
    pub fn new(map: &WorkerMap, pinned: bool) -> WorkStealing {
        WorkStealing {
            pinned,
            alone: map.num_workers() == 1,
            nearest: false,
            deal: None,
            squad_of: Vec::new(),
        }
    }

    /// Pinned work stealing that deals the top of every tree to squads and steals own
    /// package first (`ws:near`; see the module documentation).
    pub fn nearest(map: &WorkerMap) -> WorkStealing {
        let squads = map.num_squads();
        WorkStealing {
            nearest: true,
            deal: (squads > 1).then(|| TopDeal::every_root(squads)),
            squad_of: (0..map.num_workers()).map(|w| map.squad_of(w)).collect(),
            ..WorkStealing::new(map, true)
        }
    }
}

impl Policy for WorkStealing {
    fn name(&self) -> &'static str {
        if self.nearest {
            "ws:near"
        } else if self.pinned {
            "ws"
        } else {
            "ws-unpinned"
        }
    }

    fn layout(&self) -> Layout {
        let dealt = self.deal.is_some();
        Layout {
            pinned: self.pinned,
            squad_queues: dealt,
            always_local: !dealt,
            loops_local: dealt,
            local_from_level: self.deal.as_ref().map(TopDeal::first_local_level),
            ..Layout::deques()
        }
    }

    fn place(&self, _spawner: WorkerId, parent: &TaskInfo, task: &TaskInfo) -> Place {
        match self.deal.as_ref().and_then(|d| d.place(parent, task)) {
            Some(squad) => Place::Squad(squad),
            None => Place::Local,
        }
    }

    fn stats(&self) -> Vec<(String, u64)> {
        match &self.deal {
            Some(deal) => vec![("tasks_dealt".to_string(), deal.dealt())],
            None => Vec::new(),
        }
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        plan.push(Probe::OwnDeque);
        if self.deal.is_some() {
            plan.push(Probe::SquadQueue(self.squad_of[worker]));
        }
        if !self.alone {
            plan.push(Probe::Steal(if self.nearest {
                Victims::Package
            } else {
                Victims::All
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::join_halves as halves;
    use crate::TaskId;

    fn plan(p: &dyn Policy, w: usize) -> Vec<Probe> {
        let mut v = Vec::new();
        p.search(w, &mut v);
        v
    }

    #[test]
    fn ws_near_deals_the_top_of_every_iteration_to_the_same_squads() {
        let map = WorkerMap::from_squad_sizes(&[2, 2, 2, 2]);
        let near = WorkStealing::nearest(&map);
        let root = TaskInfo {
            id: TaskId(11),
            level: 0,
            loop_chunks: 0,
        };
        for iteration in 0..3 {
            // The engines place second halves; a first half runs where its spawner
            // runs (child-first), its position known from its sibling's id.
            let (a, b) = halves(&root);
            assert!(!near.parent_first(0, &root, &a));
            assert_eq!(near.place(0, &root, &b), Place::Squad(2), "{iteration}");
            let (aa, ab) = halves(&a);
            let (ba, bb) = halves(&b);
            assert!(!near.parent_first(0, &a, &aa));
            assert!(!near.parent_first(4, &b, &ba));
            assert_eq!(near.place(0, &a, &ab), Place::Squad(1));
            assert_eq!(near.place(4, &b, &bb), Place::Squad(3));
            // Below the dealt depth, and a scope's spawns (a loop's chunks among
            // them), the spawner's deque.
            let (aaa, aab) = halves(&aa);
            assert!(!near.parent_first(0, &aa, &aaa));
            assert_eq!(near.place(0, &aa, &aab), Place::Local);
            let chunk = root.id.child(crate::FIRST_SCOPE_SPAWN);
            let chunk = TaskInfo {
                id: chunk,
                level: 1,
                loop_chunks: 4,
            };
            assert_eq!(near.place(0, &root, &chunk), Place::Local);
        }
        // Dealt tasks wait in squad queues, which their squads' workers look at after
        // their own deques.
        assert_eq!(
            plan(&near, 6),
            [
                Probe::OwnDeque,
                Probe::SquadQueue(3),
                Probe::Steal(Victims::Package)
            ]
        );
        let layout = near.layout();
        assert!(layout.squad_queues && layout.loops_local && !layout.task_events);
        // Two levels dealt: level 3 and below are pushed without asking.
        assert_eq!(layout.local_from_level, Some(3));
        assert_eq!(near.stats(), [("tasks_dealt".to_string(), 9)]);
    }

    #[test]
    fn ws_near_on_one_squad_is_ws() {
        let map = WorkerMap::from_squad_sizes(&[4]);
        let near = WorkStealing::nearest(&map);
        let ws = WorkStealing::new(&map, true);
        assert_eq!(near.layout(), ws.layout());
        assert!(near.stats().is_empty());
    }
}
