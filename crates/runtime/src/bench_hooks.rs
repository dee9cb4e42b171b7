//! The hot path's internals, reachable from `benches/hot_path.rs` and nowhere else.
//!
//! A bench is another crate, and a worker's own deque, its push and pop and its steal
//! are internal (crossbeam's `Worker` behind `WorkerThread`); the public API only
//! reaches them inside a `join`. This module runs the registry's own paths on workers
//! with no threads behind them, so the bench times exactly what a worker does (the
//! policy's fast path, the sleep check, the counters) without a pool's threads around.
//! Hidden from the docs and free to change with the registry: not part of the API.

use crate::job::{JobRef, StackJob};
use crate::latch::LockLatch;
use crate::registry::{Registry, WorkerThread};
use locus_policy::{Place, PolicyKind, Victims, WorkerMap};
use locus_task::{TaskId, TaskInfo};
use locus_topo::Topology;

/// The job that travels through the deques: never run, only pushed, popped and stolen.
type IdleJob = StackJob<LockLatch, fn(), ()>;

/// Two workers of one squad under `ws`, with no threads: `owner` pushes and pops its own
/// deque, `thief` steals from it, both on the calling thread.
pub struct DequeBench {
    // Dropped before `job`: the deques may still hold refs to it, which are never run.
    owner: WorkerThread,
    thief: WorkerThread,
    job_ref: JobRef,
    /// Boxed so that the ref's address stays put when the bench moves.
    _job: Box<IdleJob>,
}

impl std::fmt::Debug for DequeBench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DequeBench").finish_non_exhaustive()
    }
}

impl Default for DequeBench {
    fn default() -> DequeBench {
        DequeBench::new()
    }
}

impl DequeBench {
    /// A `ws` registry of two workers in one squad, no threads started.
    pub fn new() -> DequeBench {
        let map = WorkerMap::from_squad_sizes(&[2]);
        let topology = Topology::parse_spec("1x2").expect("a one-socket, two-core machine");
        let policy = PolicyKind::Ws.build(&map);
        let (registry, mut deques) = Registry::new(policy, map, topology, None);
        let thief_deque = deques.pop().expect("two deques");
        let owner_deque = deques.pop().expect("two deques");
        let owner = WorkerThread::new(std::sync::Arc::clone(&registry), 0, owner_deque);
        let thief = WorkerThread::new(registry, 1, thief_deque);
        let info = TaskInfo {
            id: TaskId(1),
            level: 0,
            loop_chunks: 0,
        };
        let job: Box<IdleJob> = Box::new(StackJob::new(info, || {}, LockLatch::new()));
        // SAFETY: the job is boxed and dropped after both workers (field order), so it
        // neither moves nor goes away while a deque holds its ref, and the ref is never
        // run: `push_pop` takes it back by identity, `steal` hands it back unrun.
        let job_ref = unsafe { job.as_job_ref() };
        DequeBench {
            owner,
            thief,
            job_ref,
            _job: job,
        }
    }

    /// One push on the owner's own deque and its take-back, as every `join` under `ws`
    /// does around its first half. Returns whether the pop found the pushed job.
    #[inline]
    pub fn push_pop(&self) -> bool {
        let place = self.owner.push(self.job_ref);
        debug_assert_eq!(place, Place::Local);
        self.owner.take_back(&self.job_ref, place)
    }

    /// Pushes `n` jobs on the owner's deque (for `steal` to take).
    pub fn fill(&self, n: usize) {
        for _ in 0..n {
            self.owner.push(self.job_ref);
        }
    }

    /// One steal by the thief from the owner's deque, through the path an idle worker's
    /// `Probe::Steal(Victims::All)` takes. Returns whether it took a job.
    #[inline]
    pub fn steal(&self) -> bool {
        match self.thief.steal_one(Victims::All) {
            Some((job, _)) => {
                debug_assert!(job.same(&self.job_ref));
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_pops_and_steals_the_same_job() {
        let bench = DequeBench::new();
        assert!(bench.push_pop(), "the owner takes its job back");
        assert!(!bench.steal(), "nothing to steal once it is back");
        bench.fill(3);
        assert!(bench.steal() && bench.steal() && bench.steal());
        assert!(!bench.steal(), "three pushed, three stolen");
        let stats = bench.owner.registry.stats();
        assert_eq!(
            stats.workers[1].steals_squad, 3,
            "counted as the thief's steals"
        );
    }
}
