//! `rr-fifo` and `rr-lifo` (Qthreads Q and L): each spawning worker deals new tasks
//! round robin to the inboxes of all workers, starting after itself; a worker only ever
//! takes from its own inbox (no stealing), oldest first (Q) or newest first (L).

use crate::{Layout, Order, Place, Policy, Probe, TaskInfo, WorkerId, WorkerMap};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Round-robin dealing to per-worker queues.
#[derive(Debug)]
pub struct RoundRobin {
    order: Order,
    /// Per spawning worker, the next inbox it deals to. Only that worker touches its
    /// cursor, so `Relaxed` suffices.
    cursors: Vec<CachePadded<AtomicUsize>>,
}

impl RoundRobin {
    /// Round robin over the workers of `map`, each inbox popped in `order`.
    pub fn new(map: &WorkerMap, order: Order) -> RoundRobin {
        let n = map.num_workers();
        let cursors = (0..n)
            .map(|w| CachePadded::new(AtomicUsize::new((w + 1) % n)))
            .collect();
        RoundRobin { order, cursors }
    }
}

impl Policy for RoundRobin {
    fn name(&self) -> &'static str {
        match self.order {
            Order::Fifo => "rr-fifo",
            Order::Lifo => "rr-lifo",
        }
    }

    fn layout(&self) -> Layout {
        Layout {
            inbox: Some(self.order),
            always_local: false,
            ..Layout::deques()
        }
    }

    fn place(&self, spawner: WorkerId, _parent: &TaskInfo, _task: &TaskInfo) -> Place {
        let cursor = &self.cursors[spawner];
        let target = cursor.load(Ordering::Relaxed);
        let next = if target + 1 == self.cursors.len() {
            0
        } else {
            target + 1
        };
        cursor.store(next, Ordering::Relaxed);
        Place::Worker(target)
    }

    fn search(&self, _worker: WorkerId, plan: &mut Vec<Probe>) {
        plan.push(Probe::OwnInbox);
    }
}
