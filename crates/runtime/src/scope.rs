//! `scope` and `for_range`: any number of spawned tasks that may borrow from the caller,
//! all finished when the scope returns.
//!
//! A scope counts its outstanding spawns in a [`CountLatch`] that starts at one for the
//! scope's own body. Each spawn increments it before the job is published and the job
//! decrements it when done; the body's share is released when the body returns, and the
//! owner then works (or sleeps) until the count reaches zero. The first panic of the
//! body or of any spawn is kept and resumed on the owner after everything has finished.

use crate::job::HeapJob;
use crate::latch::{CountLatch, Latch};
use crate::registry::WorkerThread;
use crate::split::Runs;
use crate::unwind;
use locus_policy::{block_chunks, block_split, loop_blocks, LoopPlan, SpawnOrder, TaskInfo};
use locus_task::Spawner;
use std::any::Any;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::Location;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Arc;

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("pool", &format_args!("{:p}", Arc::as_ptr(&self.registry)))
            .field("owner_task", &self.owner_task.info().id)
            .finish_non_exhaustive()
    }
}

/// What a scope's marker stands for: a spawned body borrowing for `'scope`.
type ScopeBody<'scope> = Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>;

/// A scope for spawning tasks that may borrow anything that outlives `'scope`.
///
/// Made by [`scope`] or [`crate::ThreadPool::scope`].
pub struct Scope<'scope> {
    latch: CountLatch,
    registry: Arc<crate::registry::Registry>,
    /// The task that opened the scope, for ids of spawns made from outside its pool.
    owner_task: Spawner,
    foreign_spawns: AtomicU32,
    panic: AtomicPtr<Box<dyn Any + Send>>,
    /// Invariant in `'scope`, like rayon's scope: spawned closures must outlive it.
    marker: PhantomData<ScopeBody<'scope>>,
}

/// Opens a scope: `op` may spawn tasks with [`Scope::spawn`] that borrow from the
/// caller's stack; `scope` returns once `op` and every spawned task have finished.
///
/// Called from outside a pool, it runs on the global pool. The first panic of `op` or a
/// spawned task is resumed here after all of them have finished.
///
/// ```
/// let mut halves = [0u64; 2];
/// let (lo, hi) = halves.split_at_mut(1);
/// locus::scope(|s| {
///     s.spawn(|_| lo[0] = (0..500u64).sum());
///     s.spawn(|_| hi[0] = (500..1000u64).sum());
/// });
/// assert_eq!(halves[0] + halves[1], 499_500);
/// ```
#[track_caller]
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    match WorkerThread::current() {
        Some(worker) => scope_in(worker, op),
        None => {
            let location = Location::caller();
            crate::pool::global_registry().in_worker(location, |worker| scope_in(worker, op))
        }
    }
}

pub(crate) fn scope_in<'scope, OP, R>(worker: &WorkerThread, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let scope = Scope::open(worker);
    let result = unwind::halt_unwinding(|| op(&scope));
    scope.complete(result)
}

impl<'scope> Scope<'scope> {
    /// A scope owned by `worker`, which waits for it working (`complete`).
    pub(crate) fn open(worker: &WorkerThread) -> Scope<'scope> {
        // The owner's spawns into this scope are numbered from the first again (see
        // `Spawner::new_scope`), so a scope opened in a loop spawns the same ids every time.
        let outer = worker.ctx.get();
        worker.ctx.set(outer.new_scope());
        Scope {
            latch: CountLatch::new(&worker.registry.sleep, worker.index),
            registry: Arc::clone(&worker.registry),
            owner_task: outer,
            foreign_spawns: AtomicU32::new(0),
            panic: AtomicPtr::new(std::ptr::null_mut()),
            marker: PhantomData,
        }
    }

    /// A scope of `registry` owned by a thread that is no worker of it, which blocks
    /// until the spawns are done (rayon's `in_place_scope` from outside); its spawns are
    /// named from a root at `location`.
    pub(crate) fn open_blocking(
        registry: &Arc<crate::registry::Registry>,
        location: &Location<'_>,
    ) -> Scope<'scope> {
        Scope {
            latch: CountLatch::blocking(&registry.sleep),
            registry: Arc::clone(registry),
            owner_task: Spawner::of(Spawner::root_info(location)),
            foreign_spawns: AtomicU32::new(0),
            panic: AtomicPtr::new(std::ptr::null_mut()),
            marker: PhantomData,
        }
    }

    /// Ends the scope whose body gave `result`: waits for every spawn, restores the
    /// owner's task context, and returns the body's value or resumes the first panic.
    /// Called on the thread that opened the scope.
    pub(crate) fn complete<R>(&self, result: std::thread::Result<R>) -> R {
        let result = match result {
            Ok(r) => Some(r),
            Err(p) => {
                self.keep_panic(p);
                None
            }
        };
        // Release the body's share, then wait for the spawns.
        // SAFETY: the latch lives in `self` until the wait below has returned.
        unsafe { Latch::set(&self.latch) };
        if self.latch.is_blocking() {
            self.latch.wait_blocking();
        } else {
            let worker = WorkerThread::current().expect("a scope completes where it opened");
            if !self.latch.probe() {
                worker.wait_until_cold(|| self.latch.probe());
            }
            worker.ctx.set(self.owner_task);
        }
        let panic = self.panic.swap(std::ptr::null_mut(), Ordering::Acquire);
        if !panic.is_null() {
            // SAFETY: a non-null pointer came from `Box::into_raw` in `keep_panic`, and the
            // swap gave it to us alone.
            let panic = unsafe { Box::from_raw(panic) };
            unwind::resume_unwinding(*panic);
        }
        result.expect("the scope body returned, or its panic was kept and resumed above")
    }

    /// The index of the calling worker if it is a worker of this scope's pool.
    pub(crate) fn own_worker(&self) -> Option<usize> {
        WorkerThread::current()
            .filter(|w| std::ptr::eq(&*w.registry, &*self.registry))
            .map(|w| w.index)
    }

    /// Spawns `body` into the scope. It runs before the scope returns, possibly on
    /// another worker, and gets the scope to spawn more.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_as(body, 0);
    }

    /// [`Scope::spawn`] of a task that is a chunk of a parallel loop of `loop_chunks`
    /// chunks (see `locus_policy::TaskInfo::loop_chunks`); 0 for a plain spawn.
    fn spawn_as<BODY>(&self, body: BODY, loop_chunks: u32)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_job(body, Spawned::Next { loop_chunks });
    }

    /// The plan of the policy for a loop of `chunks` chunks that this scope's owner
    /// opens, if the policy deals loops itself (`locus_policy::Layout::loop_plans`) and
    /// the owner runs on a worker of the scope's pool.
    fn loop_plan(&self, chunks: u32) -> Option<Arc<LoopPlan>> {
        let worker = WorkerThread::current()?;
        let registry = &*self.registry;
        if !registry.plans_loops() || !std::ptr::eq(&*worker.registry, registry) {
            return None;
        }
        let plan = registry
            .policy
            .plan_loop(worker.index, &self.owner_task.info(), chunks)?;
        plan.assert_covers(chunks, registry.num_workers(), registry.policy.name());
        Some(plan)
    }

    /// Spawns a loop of `chunks` chunks as `plan` deals it: one job per non-empty lane,
    /// into its worker's inbox, which runs the lane's chunks one after the other; the
    /// chunks of no lane one job each, placed by the policy. Chunk `i` runs as the task
    /// it would be if spawned (the owner's spawn `FIRST_SCOPE_SPAWN + i`), whoever runs it.
    fn spawn_plan(&self, plan: &Arc<LoopPlan>, chunks: u32, run: &'scope (dyn Fn(u32) + Sync)) {
        let owner = self.owner_task;
        let chunk = move |i: u32| owner.loop_chunk(i, chunks);
        for (worker, lane) in plan.lanes.iter().enumerate() {
            if lane.is_empty() {
                continue;
            }
            // A lane is not one of the loop's chunks: an id past them.
            let info = owner.lane(worker, chunks);
            let plan = Arc::clone(plan);
            self.spawn_job(
                move |scope| scope.run_lane(plan.lanes[worker].iter().copied(), chunk, run),
                Spawned::Lane { info, worker },
            );
        }
        for &i in &plan.rest {
            self.spawn_job(move |_| run(i), Spawned::Named(chunk(i)));
        }
    }

    /// Spawns a loop of `chunks` chunks as `blocks` jobs of consecutive chunks
    /// (`locus_policy::block_chunks`; see [`flat_loop`]), each placed by the policy as
    /// its first chunk, the blocks in `order`; spread, the owner runs the first block
    /// itself ([`Scope::spawn_spread`]).
    fn spawn_blocks(
        &self,
        chunks: usize,
        total: u32,
        blocks: usize,
        order: SpawnOrder,
        run: &'scope (dyn Fn(u32) + Sync),
    ) {
        let owner = self.owner_task;
        let chunk = move |i: u32| owner.loop_chunk(i, total);
        let block = |b: usize| {
            let block = block_chunks(b, blocks, chunks);
            (block.start as u32, block.end as u32)
        };
        let mut indices = order.indices(blocks);
        let own = order.owner_runs_first().then(|| indices.next()).flatten();
        for (first, end) in indices.map(block).filter(|(first, end)| first < end) {
            self.spawn_job(
                move |scope| scope.run_block(first..end, chunk, run),
                Spawned::Named(chunk(first)),
            );
        }
        if let Some((first, end)) = own.map(block).filter(|(first, end)| first < end) {
            let worker = WorkerThread::current().expect("a loop's owner runs on a worker");
            worker.run_as_task(chunk(first), true, || {
                self.run_block(first..end, chunk, run)
            });
        }
    }

    /// Spawns a loop of `chunks` chunks, each placed by itself, in
    /// [`SpawnOrder::Spread`] (a search's), and runs its first chunk on the owner once
    /// the others are out, as rayon's caller runs a loop's first leaf: a search whose
    /// only hit lies there must not find that chunk waiting in a queue behind chunks that
    /// end only by the search's stop, each holding a worker (and starting more such
    /// chunks while it waits for its own nested loops).
    fn spawn_spread(&self, chunks: usize, total: u32, run: &'scope (dyn Fn(u32) + Sync)) {
        let owner = self.owner_task;
        let order = SpawnOrder::Spread;
        let mut indices = order.indices(chunks);
        let own = order.owner_runs_first().then(|| indices.next()).flatten();
        for i in indices {
            let i = i as u32;
            self.spawn_job(move |_| run(i), Spawned::Named(owner.loop_chunk(i, total)));
        }
        if let Some(i) = own {
            let i = i as u32;
            let worker = WorkerThread::current().expect("a loop's owner runs on a worker");
            self.run_chunk(worker, owner.loop_chunk(i, total), true, run, i);
        }
    }

    /// Runs a block of a loop, `chunks`: its job is the first chunk (placed, started and
    /// counted as that chunk), so it runs that chunk's body in its own task, then the
    /// others as a lane does. Before each, while a worker of the pool is looking for
    /// work ([`WorkerThread::offers_enough`] of none), the block splits off the upper
    /// half of what is left (`locus_policy::block_split`) as a block of its own, placed
    /// by the policy as its first chunk (lazy splitting, as Tzannes et al.'s lazy binary
    /// splitting, PPoPP 2010, with idle workers as the signal; the simulator splits its
    /// blocks on the same rule): a worker that runs out finds half of someone's block
    /// as a thief finds half of a tree in `ws`, and a loop whose workers stay busy is
    /// placed a block at a time. (Splitting also whenever the own queues were empty made
    /// three times the steals of `ws` on `heat-loop` fine, each moving a chunk's home.)
    fn run_block<C>(&self, chunks: Range<u32>, chunk: C, run: &'scope (dyn Fn(u32) + Sync))
    where
        C: Fn(u32) -> TaskInfo + Copy + Send + 'scope,
    {
        if let Err(p) = unwind::halt_unwinding(|| run(chunks.start)) {
            self.keep_panic(p);
        }
        let worker = WorkerThread::current().expect("a block runs on a worker of its pool");
        let mut end = chunks.end;
        let mut i = chunks.start + 1;
        while i < end {
            if let Some(mid) = block_split(i, end).filter(|_| !worker.offers_enough(0)) {
                let upper = end;
                // Spawned as the loop's owner spawns its blocks, so that the policy sees
                // the chunk's parent it sees for every other chunk of the loop.
                let saved = worker.ctx.replace(self.owner_task);
                self.spawn_job(
                    move |scope| scope.run_block(mid..upper, chunk, run),
                    Spawned::Named(chunk(mid)),
                );
                worker.ctx.set(saved);
                end = mid;
            }
            self.run_chunk(worker, chunk(i), true, run, i);
            i += 1;
        }
    }

    /// Runs a lane: its chunks in order, each as its own task; a chunk's panic is kept
    /// for the owner and the lane goes on, as the other chunks of a loop run on when one
    /// panics.
    fn run_lane(
        &self,
        lane: impl IntoIterator<Item = u32>,
        chunk: impl Fn(u32) -> TaskInfo,
        run: &(dyn Fn(u32) + Sync),
    ) {
        let worker = WorkerThread::current().expect("a lane runs on a worker of its pool");
        for (n, i) in lane.into_iter().enumerate() {
            // The lane's job was counted as a task as it started: it stands for its
            // first chunk, so a loop counts one task per chunk under every policy.
            self.run_chunk(worker, chunk(i), n > 0, run, i);
        }
    }

    /// Runs chunk `i` of a loop here as the task `info`, its panic kept for the owner,
    /// as every chunk that runs without a job of its own does (a block's, a lane's, the
    /// first of a search's loop); `count` as [`WorkerThread::run_as_task`]'s.
    fn run_chunk(
        &self,
        worker: &WorkerThread,
        info: TaskInfo,
        count: bool,
        run: &(dyn Fn(u32) + Sync),
        i: u32,
    ) {
        worker.run_as_task(info, count, || {
            if let Err(p) = unwind::halt_unwinding(|| run(i)) {
                self.keep_panic(p);
            }
        });
    }

    /// Publishes `body` as a job of this scope, named and placed as `how` says.
    fn spawn_job<BODY>(&self, body: BODY, how: Spawned)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.latch.increment();
        let scope_ptr = ScopePtr(self as *const Scope<'scope>);
        let job = HeapJob::new(
            move || {
                // Bind the whole wrapper: a closure capturing only the field would capture
                // a bare raw pointer, which is not `Send`.
                let scope_ptr = scope_ptr;
                // SAFETY: the scope outlives its spawns: it waits for the count latch,
                // which the job sets only after this closure has returned.
                let scope = unsafe { &*scope_ptr.0 };
                if let Err(p) = unwind::halt_unwinding(|| body(scope)) {
                    scope.keep_panic(p);
                }
            },
            &self.latch,
        );
        match (WorkerThread::current(), how) {
            (Some(worker), how) if std::ptr::eq(&*worker.registry, &*self.registry) => {
                let (info, lane) = match how {
                    Spawned::Next { loop_chunks } => {
                        let mut ctx = worker.ctx.get();
                        let info = ctx.next_spawn(loop_chunks);
                        worker.ctx.set(ctx);
                        (info, None)
                    }
                    Spawned::Named(info) => (info, None),
                    Spawned::Lane { info, worker } => (info, Some(worker)),
                };
                // SAFETY: the job borrows only what outlives `'scope`, and the scope
                // waits for it; the ref is pushed once.
                let job = unsafe { job.into_job_ref(info) };
                match lane {
                    Some(target) => self.registry.push_lane(target, job),
                    None => {
                        worker.push(job);
                    }
                }
            }
            (_, how) => {
                // Plans are made only on a worker of this pool (`loop_plan`), so only
                // plain spawns come from outside.
                let loop_chunks = match how {
                    Spawned::Next { loop_chunks } => loop_chunks,
                    Spawned::Named(info) | Spawned::Lane { info, .. } => info.loop_chunks,
                };
                let index = self.foreign_spawns.fetch_add(1, Ordering::Relaxed);
                let info = self.owner_task.foreign_spawn(index, loop_chunks);
                // SAFETY: as above.
                self.registry.inject(unsafe { job.into_job_ref(info) });
            }
        }
    }

    fn keep_panic(&self, panic: Box<dyn Any + Send>) {
        let boxed = Box::into_raw(Box::new(panic));
        // Release pairs with the owner's Acquire swap. Only the first panic is kept.
        if self
            .panic
            .compare_exchange(
                std::ptr::null_mut(),
                boxed,
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_err()
        {
            // SAFETY: we made `boxed` just above and nobody else has seen it.
            drop(unsafe { Box::from_raw(boxed) });
        }
    }
}

/// How a job spawned into a scope is named, and where it goes.
#[derive(Debug, Clone, Copy)]
enum Spawned {
    /// The spawning task's next spawn, a chunk of a loop of `loop_chunks` chunks (0 for
    /// a plain spawn), placed by the policy.
    Next { loop_chunks: u32 },
    /// The task `info` (a loop chunk no lane of its loop's plan holds), placed by the
    /// policy.
    Named(TaskInfo),
    /// A lane of a loop plan, which only `worker` runs.
    Lane { info: TaskInfo, worker: usize },
}

/// A scope pointer a spawned job carries to the worker that runs it.
pub(crate) struct ScopePtr<T>(pub(crate) *const T);
// SAFETY: it points to a `Scope`, which is `Sync` (atomics, an Arc, a latch), and the
// scope outlives every job that carries the pointer.
unsafe impl<T: Sync> Send for ScopePtr<T> {}

/// Calls `body` on consecutive subranges of `range`, each at most `grain` long, as one
/// task per chunk, and returns when all have run. A `grain` of 0 is taken as 1.
///
/// # Numbered like a loop
/// Chunk `i` of `k` is the task it has always been: the `i`-th spawn of the loop (the
/// calling task's spawn `FIRST_SCOPE_SPAWN + i`, as if the loop were a scope spawning its
/// chunks in order), so its task id is the same in every call from the same place (in a
/// loop of the same task, too): loop chunks are recognisable across iterations. Each
/// chunk is marked as one of the loop's chunks (`locus_policy::TaskInfo::loop_chunks`),
/// so a policy may place it (`cab` and `cats` send chunk `i` of `k` to squad `⌊i·m/k⌋`
/// first, then back to the squad that ran it last), and on two squads or more the pool
/// counts how many chunks ran on the same squad as the time before
/// ([`crate::ThreadPool::policy_stats`]).
///
/// # Split like a tree
/// Under a policy that is asked nothing about local spawns (`ws`, `ws-unpinned`; `cab`
/// and `cats` on one squad) the loop splits its range of chunks in halves recursively,
/// at `lo + (hi - lo) / 2`, so a thief takes half of what is left and nothing is
/// allocated per chunk; the same length gives the same tree every time. The interior
/// nodes of that tree are not tasks of their own and no policy hears of them: the job
/// holding chunks `[mid, hi)` runs as chunk `mid` (with its id, counted as one task),
/// splitting off the upper part before it runs chunk `mid`'s body. So the loop's tasks,
/// their ids and the policy's calls are those of the flat loop, which is what the
/// kernels' recorder writes and the simulator runs.
///
/// Under a policy that places spawns, wants task events or deals loops, the loop stays
/// flat: each chunk is spawned from the calling task in order and placed by the policy;
/// a policy that deals loops itself (`static`, `affinity`: `locus_policy::LoopPlan`)
/// gets the whole loop at once instead: each worker's chunks are one job in its inbox,
/// which runs them one after the other in the plan's order (as an OpenMP thread runs its
/// share of a statically scheduled loop), and the chunks no lane holds are spawned as
/// above. Each chunk still runs as its own task, with the id it would have if spawned.
/// (`crate::split` has the whole story.)
///
/// Every chunk runs, also when one panics; the first panic is resumed here after all
/// have finished.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let sum = AtomicU64::new(0);
/// locus::for_range(0..1000, 64, |chunk| {
///     sum.fetch_add(chunk.map(|i| i as u64).sum(), Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 499_500);
/// ```
#[track_caller]
pub fn for_range<F>(range: Range<usize>, grain: usize, body: F)
where
    F: Fn(Range<usize>) + Sync + Send,
{
    if range.is_empty() {
        return;
    }
    let grain = grain.max(1);
    let chunks = range.len().div_ceil(grain);
    let leaf = |i: usize| {
        let lo = range.start + i * grain;
        body(lo..lo + grain.min(range.end - lo));
    };
    crate::split::run_loop(
        Location::caller(),
        chunks,
        SpawnOrder::InOrder,
        leaf,
        |(), ()| (),
    );
}

/// A loop of `chunks` chunks carried out flat on `worker` (see `crate::split`): each
/// chunk spawned from the loop's owner in `order` (a search's spread over the loop, its
/// first chunk run by the owner: [`Scope::spawn_spread`]), or dealt by the policy's loop
/// plan; the chunks' results kept as runs of consecutive chunks and reduced in order once
/// all have run.
///
/// A loop with no plan is spawned in blocks where `locus_policy::loop_blocks` says so
/// (more than `FLAT_LIMIT` chunks; or more than `PLACED_PER_WORKER` chunks per worker
/// on two squads or more with no profile running, where placing each chunk costs more
/// than it buys): each block a job of consecutive chunks placed by the policy as its
/// first chunk, running its chunks one after the other, each as its own task (as a lane
/// of a plan does), splitting off half of what is left where a worker may want it
/// ([`Scope::run_block`]). The policy then places blocks, not chunks: for the bi-tier
/// policies, which send consecutive chunks to one squad, that is the same placement but
/// at the blocks' edges; a round-robin policy deals blocks instead of chunks. The
/// simulator spawns the same loops in the same blocks (`locus_policy`'s `grain`).
pub(crate) fn flat_loop<R, L, Red>(
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
    let runs = Runs::new(worker.registry.num_workers());
    let exact = u32::try_from(chunks).ok();
    let total = exact.unwrap_or(u32::MAX);
    let run = |i: usize| {
        crate::registry::loop_chunk_started();
        let r = leaf(i);
        let worker = WorkerThread::current().expect("a loop's chunk runs on a worker");
        runs.put(worker.index, i, r, reduce);
    };
    let run_planned = |i: u32| run(i as usize);
    let run_planned: &(dyn Fn(u32) + Sync) = &run_planned;
    let run = &run;
    let registry = &*worker.registry;
    scope_in(worker, |s| {
        // A policy that deals loops itself (a static schedule) gets every loop whose
        // chunks can be numbered.
        if let Some(plan) = exact.and_then(|k| s.loop_plan(k)) {
            s.spawn_plan(&plan, total, run_planned);
        } else if let Some(blocks) = loop_blocks(chunks, &registry.map, &*registry.policy) {
            s.spawn_blocks(chunks, total, blocks, order, run_planned);
        } else if order == SpawnOrder::Spread {
            s.spawn_spread(chunks, total, run_planned);
        } else {
            for i in 0..chunks {
                s.spawn_as(move |_| run(i), total);
            }
        }
    });
    runs.reduce(chunks, reduce)
}
