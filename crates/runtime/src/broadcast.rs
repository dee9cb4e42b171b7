//! `broadcast`: one closure run on every worker of a pool at once, as an OpenMP team
//! runs a parallel region (its members must be live together: a barrier inside the
//! closure waits for all of them).
//!
//! Each worker gets its share in a queue of its own (`Registry::push_broadcast`), which
//! it looks at first in every search for work, and runs it as a task the policy is not
//! told of (a share is a team member, not a subtree to place); the share is a [`StackJob`] on the
//! caller's stack, so nothing is allocated per worker beyond one vector. The caller
//! waits on every share's latch: blocking on a [`LockLatch`] from outside the pool, or,
//! on a worker of the pool, running its own share in place and then working while it
//! waits on [`WorkerLatch`]es.
//!
//! # Who may call
//! Anyone. Two broadcasts on one pool at the same time run both, but a worker runs the
//! second's share only when its first share waits or returns; shares that wait for each
//! other (barriers) must therefore not overlap with another broadcast on the same pool.
//! The OpenMP layer runs one team per pool at a time.

use crate::job::StackJob;
use crate::latch::{LockLatch, WorkerLatch};
use crate::registry::{Registry, WorkerThread};
use crate::unwind;
use crate::ThreadPool;
use locus_policy::TaskInfo;
use locus_task::Spawner;
use std::panic::Location;
use std::ptr;
use std::sync::Arc;

impl ThreadPool {
    /// Runs `op(i)` on every worker `i` of the pool, all at the same time, and returns
    /// when every call has returned. A panic of any call is resumed here after all have
    /// finished (the lowest worker's if several panic).
    ///
    /// Worker `i`'s share runs as task `i` spawned by a root named after the call site,
    /// so its id is the same every time the same line broadcasts.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = locus::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let seen = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];
    /// let arrived = AtomicUsize::new(0);
    /// pool.broadcast(|i| {
    ///     seen[i].fetch_add(1, Ordering::Relaxed);
    ///     // Every worker runs its share at the same time: a barrier works.
    ///     arrived.fetch_add(1, Ordering::SeqCst);
    ///     while arrived.load(Ordering::SeqCst) < 3 {
    ///         std::hint::spin_loop();
    ///     }
    /// });
    /// assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
    /// ```
    #[track_caller]
    pub fn broadcast<F>(&self, op: F)
    where
        F: Fn(usize) + Sync,
    {
        broadcast_in(self.registry(), Location::caller(), &op);
    }
}

/// The task of worker `i`'s share.
fn share_info(root: &Spawner, i: usize) -> TaskInfo {
    root.loop_chunk(i as u32, 0)
}

fn broadcast_in<F>(registry: &Arc<Registry>, location: &Location<'_>, op: &F)
where
    F: Fn(usize) + Sync,
{
    let n = registry.num_workers();
    let root = Spawner::of(Spawner::root_info(location));
    match WorkerThread::current() {
        Some(worker) if ptr::eq(&*worker.registry, &**registry) => {
            let jobs: Vec<_> = (0..n)
                .map(|i| {
                    StackJob::new(
                        share_info(&root, i),
                        move || op(i),
                        WorkerLatch::new(&registry.sleep, worker.index),
                    )
                })
                .collect();
            for (i, job) in jobs.iter().enumerate() {
                if i != worker.index {
                    // SAFETY: `jobs` is not moved or dropped until every share pushed
                    // here has set its latch (the wait below); each ref is pushed once.
                    registry.push_broadcast(i, unsafe { job.as_job_ref() });
                }
            }
            let own = &jobs[worker.index];
            // The caller's own share, as the others run theirs (`run_share`): in its own
            // task context, not told to the policy.
            let saved = worker
                .ctx
                .replace(Spawner::of(share_info(&root, worker.index)));
            worker.count_tasks(1);
            let mut own_result = Some(unwind::halt_unwinding(|| own.run_inline()));
            worker.ctx.set(saved);
            let others_done = || {
                jobs.iter()
                    .enumerate()
                    .all(|(i, j)| i == worker.index || j.latch.probe())
            };
            if !others_done() {
                worker.wait_until_cold(others_done);
            }
            let mut first_panic = None;
            for (i, job) in jobs.into_iter().enumerate() {
                let result = if i == worker.index {
                    own_result.take().unwrap_or(Ok(()))
                } else {
                    unwind::halt_unwinding(|| job.into_result())
                };
                if let Err(p) = result {
                    first_panic.get_or_insert(p);
                }
            }
            if let Some(p) = first_panic {
                unwind::resume_unwinding(p);
            }
        }
        _ => {
            let jobs: Vec<_> = (0..n)
                .map(|i| StackJob::new(share_info(&root, i), move || op(i), LockLatch::new()))
                .collect();
            for (i, job) in jobs.iter().enumerate() {
                // SAFETY: `jobs` stays on this frame until every latch is set (the waits
                // below); each ref is pushed once.
                registry.push_broadcast(i, unsafe { job.as_job_ref() });
            }
            for job in &jobs {
                job.latch.wait();
            }
            let mut first_panic = None;
            for job in jobs {
                if let Err(p) = unwind::halt_unwinding(|| job.into_result()) {
                    first_panic.get_or_insert(p);
                }
            }
            if let Some(p) = first_panic {
                unwind::resume_unwinding(p);
            }
        }
    }
}
