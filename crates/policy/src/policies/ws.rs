//! `ws`: randomized work stealing (Blumofe and Leiserson; Cilk). Each worker pushes and
//! pops the newest end of its own deque; an idle worker steals the oldest task of a
//! victim chosen at random. Pinned (`ws`, the papers' Cilk-a) or not (`ws-unpinned`).

use crate::{Layout, Policy, Probe, Victims, WorkerId, WorkerMap};

/// Flat randomized work stealing.
#[derive(Debug)]
pub struct WorkStealing {
    pinned: bool,
    alone: bool,
}

impl WorkStealing {
    /// Work stealing over the workers of `map`, pinned or not.
    pub fn new(map: &WorkerMap, pinned: bool) -> WorkStealing {
        WorkStealing {
            pinned,
            alone: map.num_workers() == 1,
        }
    }
}

impl Policy for WorkStealing {
    fn name(&self) -> &'static str {
        if self.pinned {
            "ws"
        } else {
            "ws-unpinned"
        }
    }

    fn layout(&self) -> Layout {
        Layout {
            pinned: self.pinned,
            ..Layout::deques()
        }
    }

    fn search(&self, _worker: WorkerId, plan: &mut Vec<Probe>) {
        plan.push(Probe::OwnDeque);
        if !self.alone {
            plan.push(Probe::Steal(Victims::All));
        }
    }
}
