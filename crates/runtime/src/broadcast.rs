//! `broadcast`: one closure run on every worker of a pool at once, as an OpenMP team
//! runs a parallel region (its members must be live together: a barrier inside the
//! closure waits for all of them).
//!
//! Each worker gets its share in a queue of its own (`Registry::push_broadcast`), which
//! it looks at first in every search for work, and runs it as a task the policy is not
//! told of (a share is a team member, not a subtree to place); the share is a [`StackJob`] on the
//! caller's stack, so nothing is allocated per worker beyond one vector. The caller
//! waits on every share's latch: on a worker of the pool, running its own share in
//! place and then working while it waits on [`WorkerLatch`]es; on a worker of another
//! pool, working for its own pool while it waits on [`CrossLatch`]es (so a share that
//! sends work back to the caller's pool finds it served, as with `install`); from any
//! other thread, blocking on a [`LockLatch`].
//!
//! # Who may call
//! Anyone. Two broadcasts on one pool at the same time run both, but a worker runs the
//! second's share only when its first share waits or returns; shares that wait for each
//! other (barriers) must therefore not overlap with another broadcast on the same pool.
//! The OpenMP layer runs one team per pool at a time. A worker of another pool that
//! broadcasts here runs its own pool's tasks, broadcast shares among them, while it
//! waits, as [`ThreadPool::install`] from there does.

use crate::job::StackJob;
use crate::latch::{CrossLatch, Latch, LockLatch, WorkerLatch};
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
    /// finished (the lowest worker's if several panic). The caller waits as
    /// [`ThreadPool::install`]'s does: a worker of another pool runs its own pool's
    /// tasks meanwhile.
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

/// The shares of a broadcast over `n` workers, each with a latch from `latch`.
fn shares<'f, F, L>(
    root: &Spawner,
    n: usize,
    op: &'f F,
    latch: impl Fn() -> L,
) -> Vec<StackJob<L, impl FnOnce() + Send + 'f, ()>>
where
    F: Fn(usize) + Sync,
    L: Latch,
{
    (0..n)
        .map(|i| StackJob::new(share_info(root, i), move || op(i), latch()))
        .collect()
}

/// Resumes the first panic of `results` (the lowest worker's), if any.
fn resume_first_panic(results: impl Iterator<Item = std::thread::Result<()>>) {
    let mut first_panic = None;
    for result in results {
        if let Err(p) = result {
            first_panic.get_or_insert(p);
        }
    }
    if let Some(p) = first_panic {
        unwind::resume_unwinding(p);
    }
}

pub(crate) fn broadcast_in<F>(registry: &Arc<Registry>, location: &Location<'_>, op: &F)
where
    F: Fn(usize) + Sync,
{
    let n = registry.num_workers();
    let root = Spawner::of(Spawner::root_info(location));
    match WorkerThread::current() {
        Some(worker) if ptr::eq(&*worker.registry, &**registry) => {
            let jobs = shares(&root, n, op, || {
                WorkerLatch::new(&registry.sleep, worker.index)
            });
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
            resume_first_panic(jobs.into_iter().enumerate().map(|(i, job)| {
                if i == worker.index {
                    own_result.take().unwrap_or(Ok(()))
                } else {
                    unwind::halt_unwinding(|| job.into_result())
                }
            }));
        }
        Some(worker) => {
            // A worker of another pool: it runs its own pool's tasks while the shares
            // run, as `install` from there does (`Registry::in_worker_cross`).
            let jobs = shares(&root, n, op, || {
                CrossLatch::new(&worker.registry, worker.index)
            });
            for (i, job) in jobs.iter().enumerate() {
                // SAFETY: `jobs` stays on this frame until every latch is set (the wait
                // below; the tasks run meanwhile catch their panics, so nothing unwinds
                // past it); each ref is pushed once.
                registry.push_broadcast(i, unsafe { job.as_job_ref() });
            }
            let done = || jobs.iter().all(|j| j.latch.probe());
            if !done() {
                worker.wait_until_cold(done);
            }
            resume_first_panic(
                jobs.into_iter()
                    .map(|job| unwind::halt_unwinding(|| job.into_result())),
            );
        }
        None => {
            let jobs = shares(&root, n, op, LockLatch::new);
            for (i, job) in jobs.iter().enumerate() {
                // SAFETY: `jobs` stays on this frame until every latch is set (the waits
                // below); each ref is pushed once.
                registry.push_broadcast(i, unsafe { job.as_job_ref() });
            }
            for job in &jobs {
                job.latch.wait();
            }
            resume_first_panic(
                jobs.into_iter()
                    .map(|job| unwind::halt_unwinding(|| job.into_result())),
            );
        }
    }
}
