//! `mts` (Qthreads multi-threaded shepherds): the workers of a squad share one queue,
//! which keeps them near serial order on their shared cache. When the squad queue runs
//! dry, the first worker to notice steals a batch of the oldest tasks of a remote
//! squad's queue on behalf of the whole squad (batch = squad size by default, the
//! paper's best setting in its Figure 10); the others wait for the stolen work to appear
//! in their queue instead of stealing too.
//!
//! `mts-paper` pops the squad queue newest first, as the paper does. `mts` takes the
//! shallow end instead ([`Probe::SquadQueueShallow`]): an idle worker takes the oldest
//! task when it roots a larger subtree than the newest, as a work-stealing thief does,
//! so that a squad mate no longer takes the smallest task there is and a fine-grained
//! tree is not shared piece by piece (simulated fib 30 without cutoff: 1.67x ws's time
//! on xeon-x7550 under `mts-paper`).

use crate::{Layout, Place, Policy, Probe, SquadId, TaskInfo, WorkerId, WorkerMap};

/// Shared queue per squad with bulk stealing between squads.
#[derive(Debug)]
pub struct Mts {
    squad_of: Vec<SquadId>,
    batch_of: Vec<usize>,
    single_squad: bool,
    paper: bool,
}

impl Mts {
    /// MTS over the squads of `map`; `batch` overrides the squad-size batch; `paper`:
    /// the squad queue popped newest first, as published.
    pub fn new(map: &WorkerMap, batch: Option<usize>, paper: bool) -> Mts {
        let squad_of: Vec<SquadId> = (0..map.num_workers()).map(|w| map.squad_of(w)).collect();
        let batch_of = squad_of
            .iter()
            .map(|&s| batch.unwrap_or(map.squad(s).len()).max(1))
            .collect();
        Mts {
            squad_of,
            batch_of,
            single_squad: map.num_squads() == 1,
            paper,
        }
    }
}

impl Policy for Mts {
    fn name(&self) -> &'static str {
        if self.paper {
            "mts-paper"
        } else {
            "mts"
        }
    }

    fn layout(&self) -> Layout {
        Layout {
            squad_queues: true,
            always_local: false,
            ..Layout::deques()
        }
    }

    fn place(&self, spawner: WorkerId, _parent: &TaskInfo, _task: &TaskInfo) -> Place {
        Place::Squad(self.squad_of[spawner])
    }

    fn search(&self, worker: WorkerId, plan: &mut Vec<Probe>) {
        let squad = self.squad_of[worker];
        plan.push(if self.paper {
            Probe::SquadQueue(squad)
        } else {
            Probe::SquadQueueShallow(squad)
        });
        if !self.single_squad {
            plan.push(Probe::BulkSteal {
                batch: self.batch_of[worker],
            });
        }
    }
}
