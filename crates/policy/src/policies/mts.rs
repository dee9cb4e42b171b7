//! `mts` (Qthreads multi-threaded shepherds): the workers of a squad share one LIFO
//! queue, which keeps them depth-first near serial order on their shared cache. When
//! the squad queue runs dry, the first worker to notice steals a batch of the oldest
//! tasks of a remote squad's queue on behalf of the whole squad (batch = squad size by
//! default, the paper's best setting in its Figure 10); the others wait for the stolen
//! work to appear in their queue instead of stealing too.

use crate::{Layout, Place, Policy, Probe, SquadId, TaskInfo, WorkerId, WorkerMap};

/// Shared LIFO per squad with bulk stealing between squads.
#[derive(Debug)]
pub struct Mts {
    squad_of: Vec<SquadId>,
    batch_of: Vec<usize>,
    single_squad: bool,
}

impl Mts {
    /// MTS over the squads of `map`; `batch` overrides the squad-size batch.
    pub fn new(map: &WorkerMap, batch: Option<usize>) -> Mts {
        let squad_of: Vec<SquadId> = (0..map.num_workers()).map(|w| map.squad_of(w)).collect();
        let batch_of = squad_of
            .iter()
            .map(|&s| batch.unwrap_or(map.squad(s).len()).max(1))
            .collect();
        Mts {
            squad_of,
            batch_of,
            single_squad: map.num_squads() == 1,
        }
    }
}

impl Policy for Mts {
    fn name(&self) -> &'static str {
        "mts"
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
        plan.push(Probe::SquadQueue(self.squad_of[worker]));
        if !self.single_squad {
            plan.push(Probe::BulkSteal {
                batch: self.batch_of[worker],
            });
        }
    }
}
