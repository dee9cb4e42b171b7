//! Parallel loops: how a loop of `k` chunks runs, for [`crate::for_range`] and the
//! parallel iterators of [`crate::iter`].
//!
//! # Numbered like a loop, split like a tree
//! Chunk `i` of a loop of `k` chunks opened by task `t` is always the task
//! `t.loop_chunk(i, k)` (`locus_task::Spawner::loop_chunk`: `t`'s spawn
//! `FIRST_SCOPE_SPAWN + i`, marked as chunk `i` of `k`), whoever runs it and however the
//! loop is carried out. What differs between policies is how the chunks are generated:
//!
//! - **Tree** (the policy is asked nothing about a loop's chunks: [`Layout::always_local`]
//!   or [`Layout::loops_local`], without [`Layout::task_events`] or
//!   [`Layout::loop_plans`]; `ws`, `ws-unpinned`, `ws:near`, and the bi-tier policies on
//!   one squad, where they reduce to `ws`). The range of chunks is halved recursively,
//!   as rayon's `join`-based bridge does: the worker running `[lo, hi)` pushes
//!   `[mid, hi)` as one job on its own deque and goes on with
//!   `[lo, mid)`, down to one chunk, which it runs; then it takes `[mid, hi)` back, or
//!   waits for the thief that took it. A thief thus takes half of what is left, and no
//!   job is allocated up front (the jobs live on the splitting workers' stacks). The
//!   split is deterministic: `mid = lo + (hi - lo) / 2`, so the same loop length gives
//!   the same tree every time.
//!
//!   The job for `[mid, hi)` *is* chunk `mid`: it carries chunk `mid`'s identity, is
//!   counted as one task when it starts (stolen and executed, or taken back), splits off
//!   the upper part of its range in that identity and ends by running chunk `mid`. So
//!   the interior nodes of the tree are no tasks of their own: the `k` chunks are the
//!   loop's only tasks, each counted once, and the policy, which is asked nothing about
//!   local spawns, sees the loop exactly as before. Each chunk's body runs in its own
//!   task context (`current_task` is the chunk), so tasks it spawns have the ids they
//!   had when the loop was flat.
//! - **Flat** (every other policy: the policy places each spawn, wants task events, or
//!   deals loops itself). Each chunk is spawned from the loop's owner, in order, as its
//!   own job, and placed by the policy one by one (`cab` and `cats` send chunk `i` of
//!   `k` to squad `⌊i·m/k⌋`, round robin deals them); or, under a loop plan (`static`,
//!   `affinity`), dealt in lanes. These policies decide per chunk, so the loop keeps the
//!   form they decide about. Where placing each chunk costs more than it buys (more
//!   than `PLACED_PER_WORKER` chunks per worker on two squads or more, no profile
//!   running: `locus_policy::loop_blocks`, the rule the simulator follows too), the
//!   chunks are spawned in blocks of consecutive chunks, `PLACED_PER_WORKER` per
//!   worker, each placed as its first chunk and split in halves while a worker looks
//!   for work; every chunk still runs as its own task.
//!
//!   A search's loop (a terminal that stops: `find_any`, `any`, `all`, the `try_`
//!   terminals) spawns its jobs spread over the loop instead of in order
//!   (`locus_policy::SpawnOrder::Spread`: 0, the middle, the quarters, ...) and its
//!   owner runs the first job itself, as the tree's owner runs chunk 0 and its thieves
//!   take the far halves: a leaf without a hit may end only by the search's stop, each
//!   such leaf holds a worker, and the chunks that start first must not all lie in one
//!   part of the loop. A worker that waits inside such a leaf (for the nested loops of a
//!   flattening adapter) starts only tasks below it from its squad's queue, never
//!   another leaf of the search (`registry/search.rs`).
//!
//! Either way the policy-visible task tree is the flat one: the loop's owner with `k`
//! children, chunk `i` its spawn `FIRST_SCOPE_SPAWN + i`. That is the tree the kernels'
//! recorder writes and the simulator runs; the simulator generates a loop's chunks
//! flat under every policy (it models no tree split), in the same blocks where the
//! runtime's flat loop takes blocks.
//!
//! # Results
//! A loop may give a result per chunk, reduced in chunk order (`reduce(left, right)`,
//! left holding the lower chunks); the reduction must be associative, the order is
//! kept. In the tree the halves are reduced as they join; flat, the chunks' results wait
//! in one slot each and the owner reduces them in order at the end.
//!
//! # Panics
//! Every chunk runs, also when another panics; the first panic (by chunk order in the
//! tree, by time when flat) is resumed on the caller once all have finished, and the
//! results of the chunks that finished are dropped.

use crate::job::StackJob;
use crate::latch::WorkerLatch;
use crate::registry::WorkerThread;
use crate::unwind;
use locus_policy::SpawnOrder;
use locus_task::Spawner;
use std::panic::Location;
use std::sync::Mutex;

/// Runs chunks `0..chunks` of a loop with `leaf`, each as its own task, potentially in
/// parallel, and returns their results reduced in chunk order (`None` for no chunk).
///
/// Called from outside a pool, it runs on the global pool as a root task whose id comes
/// from `location`; on a thread where a serial loop executor is installed
/// ([`crate::iter::hook`]), that runs the loop instead.
pub(crate) fn run_loop<R, L, Red>(
    location: &'static Location<'static>,
    chunks: usize,
    order: SpawnOrder,
    leaf: L,
    reduce: Red,
) -> Option<R>
where
    R: Send,
    L: Fn(usize) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    if chunks == 0 {
        return None;
    }
    match WorkerThread::current() {
        Some(worker) => Some(loop_in(worker, chunks, order, &leaf, &reduce)),
        None => run_loop_cold(location, chunks, order, &leaf, &reduce),
    }
}

#[cold]
fn run_loop_cold<R, L, Red>(
    location: &'static Location<'static>,
    chunks: usize,
    order: SpawnOrder,
    leaf: &L,
    reduce: &Red,
) -> Option<R>
where
    R: Send,
    L: Fn(usize) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    if let Some(hook) = crate::iter::hook::current() {
        let mut acc = None;
        hook.run_loop(location, chunks, &mut |i| {
            let r = leaf(i);
            acc = Some(match acc.take() {
                Some(a) => reduce(a, r),
                None => r,
            });
        });
        return acc;
    }
    let registry = crate::pool::global_registry();
    Some(registry.in_worker(location, |worker| {
        loop_in(worker, chunks, order, leaf, reduce)
    }))
}

/// The loop on `worker`, the task running there its owner.
fn loop_in<R, L, Red>(
    worker: &WorkerThread,
    chunks: usize,
    order: SpawnOrder,
    leaf: &L,
    reduce: &Red,
) -> R
where
    R: Send,
    L: Fn(usize) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    let owner = worker.ctx.get();
    let total = u32::try_from(chunks).unwrap_or(u32::MAX);
    if worker.registry.splits_loops() {
        // Chunk 0 is run by the owner at the bottom of the tree's left edge.
        worker.count_tasks(1);
        let tree = Tree {
            owner,
            total,
            leaf,
            reduce,
        };
        tree.run(worker, 0, chunks)
    } else {
        crate::scope::flat_loop(worker, chunks, order, leaf, reduce)
    }
}

/// One loop carried out as a tree (see the module documentation).
struct Tree<'a, L, Red> {
    owner: Spawner,
    total: u32,
    leaf: &'a L,
    reduce: &'a Red,
}

impl<L, Red> Clone for Tree<'_, L, Red> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L, Red> Copy for Tree<'_, L, Red> {}

impl<R, L, Red> Tree<'_, L, Red>
where
    R: Send,
    L: Fn(usize) -> R + Sync,
    Red: Fn(R, R) -> R + Sync,
{
    /// Runs chunks `lo..hi` on `worker` (`hi > lo`), in the identity of chunk `lo`.
    fn run(self, worker: &WorkerThread, lo: usize, hi: usize) -> R {
        if hi - lo == 1 {
            return self.chunk(worker, lo);
        }
        let mid = lo + (hi - lo) / 2;
        let upper = self.owner.loop_chunk(mid as u32, self.total);
        let job = StackJob::new(
            upper,
            move || {
                let worker = WorkerThread::current().expect("a loop's job runs on a worker");
                self.run(worker, mid, hi)
            },
            WorkerLatch::new(&worker.registry.sleep, worker.index),
        );
        // SAFETY: `job` stays on this frame until it has run: below we either take it
        // back (then nobody else has it) or wait for its latch.
        let job_ref = unsafe { job.as_job_ref() };
        let place = worker.push_half(job_ref);
        let lower = unwind::halt_unwinding(|| self.run(worker, lo, mid));
        // Kept (`None`: nobody else can have it) or taken back.
        let upper = if place.is_none_or(|place| worker.take_back(&job_ref, place)) {
            worker.count_tasks(1);
            unwind::halt_unwinding(|| job.run_inline())
        } else {
            if !job.latch.probe() {
                worker.wait_until_cold(|| job.latch.probe());
            }
            unwind::halt_unwinding(|| job.into_result())
        };
        match (lower, upper) {
            (Ok(a), Ok(b)) => (self.reduce)(a, b),
            (Err(panic), _) | (Ok(_), Err(panic)) => unwind::resume_unwinding(panic),
        }
    }

    /// Runs chunk `i` in its own task context.
    #[inline]
    fn chunk(self, worker: &WorkerThread, i: usize) -> R {
        let info = self.owner.loop_chunk(i as u32, self.total);
        let _restore = RestoreCtx(worker, worker.ctx.replace(Spawner::of(info)));
        crate::registry::loop_chunk_started();
        (self.leaf)(i)
    }
}

/// Puts a worker's task context back when dropped, also when a chunk unwinds.
struct RestoreCtx<'w>(&'w WorkerThread, Spawner);

impl Drop for RestoreCtx<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.ctx.set(self.1);
    }
}

/// The results of a flat loop's chunks, kept as runs of consecutive chunks per worker
/// and reduced in order once all have run.
///
/// A worker that finishes chunk `i` right after chunk `i - 1` (a lane of a plan, a block
/// of a long loop) folds it into its last run, so a loop's results take memory per run,
/// not per chunk: one run per lane of a static plan, one per block of a long loop.
pub(crate) struct Runs<R> {
    per_worker: Vec<Mutex<Vec<Run<R>>>>,
}

/// The result of chunks `start..end`, reduced in order.
struct Run<R> {
    start: usize,
    end: usize,
    value: R,
}

impl<R> Runs<R> {
    pub(crate) fn new(workers: usize) -> Runs<R> {
        Runs {
            per_worker: (0..workers).map(|_| Mutex::new(Vec::new())).collect(),
        }
    }

    /// Keeps chunk `i`'s result `r`, finished on `worker`.
    pub(crate) fn put(&self, worker: usize, i: usize, r: R, reduce: impl Fn(R, R) -> R) {
        let runs = &self.per_worker[worker];
        let lock = || runs.lock().unwrap_or_else(|e| e.into_inner());
        let last = {
            let mut runs = lock();
            match runs.last() {
                Some(last) if last.end == i => runs.pop(),
                _ => None,
            }
        };
        // The lock is not held while `reduce` runs: it may run a loop whose chunks this
        // worker helps with, which then keep their own results here.
        let run = match last {
            Some(last) => Run {
                start: last.start,
                end: i + 1,
                value: reduce(last.value, r),
            },
            None => Run {
                start: i,
                end: i + 1,
                value: r,
            },
        };
        lock().push(run);
    }

    /// The results of chunks `0..chunks` reduced in chunk order. Every chunk has run (a
    /// chunk's panic is resumed before this is called), so the runs tile the loop.
    pub(crate) fn reduce(self, chunks: usize, reduce: impl Fn(R, R) -> R) -> R {
        let mut runs: Vec<Run<R>> = self
            .per_worker
            .into_iter()
            .flat_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        runs.sort_unstable_by_key(|r| r.start);
        let mut next = 0;
        let mut acc: Option<R> = None;
        for run in runs {
            assert_eq!(
                run.start, next,
                "a loop's chunks ran once each, in runs that tile it"
            );
            next = run.end;
            acc = Some(match acc {
                Some(a) => reduce(a, run.value),
                None => run.value,
            });
        }
        assert_eq!(next, chunks, "every chunk of a loop has run");
        acc.expect("a loop has a chunk")
    }
}
