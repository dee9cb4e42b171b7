//! `ws`: randomized work stealing (Blumofe and Leiserson; Cilk). Each worker pushes and
//! pops the newest end of its own deque; an idle worker steals the oldest task of a
//! victim chosen at random. Pinned (`ws`, the papers' Cilk-a) or not (`ws-unpinned`).
//!
//! `ws:near` is the same with victims tried nearest first ([`Victims::Nearest`]): the
//! thief's own squad, then the other squads group by group by distance, a random start
//! in each group. Plain `ws` keeps the papers' uniform choice over every worker: it is
//! the baseline of every published comparison the simulator reproduces.

use crate::{Layout, Policy, Probe, Victims, WorkerId, WorkerMap};

/// Flat randomized work stealing.
#[derive(Debug)]
pub struct WorkStealing {
    pinned: bool,
    alone: bool,
    nearest: bool,
}

impl WorkStealing {
    /// Work stealing over the workers of `map`, pinned or not.
    pub fn new(map: &WorkerMap, pinned: bool) -> WorkStealing {
        WorkStealing {
            pinned,
            alone: map.num_workers() == 1,
            nearest: false,
        }
    }

    /// Pinned work stealing whose thieves try victims nearest first (`ws:near`).
    pub fn nearest(map: &WorkerMap) -> WorkStealing {
        WorkStealing {
            nearest: true,
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
        Layout {
            pinned: self.pinned,
            ..Layout::deques()
        }
    }

    fn search(&self, _worker: WorkerId, plan: &mut Vec<Probe>) {
        plan.push(Probe::OwnDeque);
        if !self.alone {
            plan.push(Probe::Steal(if self.nearest {
                Victims::Nearest
            } else {
                Victims::All
            }));
        }
    }
}
