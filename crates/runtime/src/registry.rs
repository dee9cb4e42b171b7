//! The registry: the shared state of one pool (its queues, sleep state, counters and
//! policy) and the worker threads that run on it.
//!
//! # Who touches what
//! - A worker's own deque is pushed and popped only by that worker (crossbeam's
//!   `Worker`); anyone steals through its `Stealer`.
//! - Inboxes, squad queues and the central queue are [`SharedQueue`]s: anyone pushes,
//!   anyone pops, under their lock.
//! - The injector takes roots from threads outside the pool; every worker looks there
//!   after its policy's search plan.
//! - Counters: each worker writes only its own (see `stats.rs`).
//!
//! # The hot path
//! Under a policy whose [`Layout::always_local`] is set (`ws`), a spawn is a push on the
//! worker's own deque and one load in `Sleep::new_work` (no fence: see
//! `sleep/README.md`); no policy call. Other policies are asked where each spawn goes.
//!
//! # Waits across pools
//! A call that runs work on a pool (`install`, `ThreadPool::scope`, `broadcast`) from a
//! thread that is not one of its workers injects a root job and waits for it:
//! - A thread of no pool blocks on a [`LockLatch`]; it has no tasks to run meanwhile.
//! - A worker of another pool A ([`Registry::in_worker_cross`]) waits on a
//!   [`CrossLatch`] and goes on running A's tasks, or sleeping in A, until the job is
//!   done, as a `join` does; setting the latch wakes it in A's sleep state (the
//!   handshake of `sleep/README.md`). A job of A that the other pool waits on therefore
//!   runs, whatever the nesting (`a.install(|| b.install(|| a.install(..)))`) and
//!   however many of A's workers wait in other pools at once. The job lives on the
//!   waiting worker's stack, which the tasks it runs meanwhile grow on top of; a panic
//!   in the job is caught there and resumed on the waiter.
//!
//! What still cannot work, as in rayon (whose `install` documents the same):
//! - The waiting worker's stack is a stack: it returns from its wait only once every
//!   task it took up meanwhile has returned. A task that blocks outside locus (on a
//!   mutex, a channel) while the waiter's caller holds what it waits for deadlocks:
//!   `let g = m.lock(); b.install(..)` on a worker of A, while another task of A takes
//!   `m`, may run that task on the same worker, under the guard. The same holds inside
//!   one pool for any `join`.
//! - A worker that waits by other means than locus's (a channel's `recv`, a condition
//!   variable) runs nothing meanwhile; a job of its pool that the awaited work needs
//!   then needs another worker of that pool.
//! - A long task the waiter took up delays its return after the job it waits on is
//!   done, and each crossing nests a frame: stack depth grows with the nesting, bounded
//!   by the workers' stack size.
//!
//! # Shutdown
//! 1. The `ThreadPool` handle is dropped: `terminate` is set (`Release`) and every
//!    sleeper woken.
//! 2. Each worker, on its next idle check, sees `terminate` (`Acquire`) and no detached
//!    spawn outstanding (`crate::spawn`), and leaves its main loop. No other job can be
//!    outstanding then: every `install`, `join` and `scope` waits for its jobs, and the
//!    handle cannot be dropped while one of them runs. The last detached spawn to end
//!    after `terminate` wakes every worker (`Detached::done`).
//! 3. The handle's drop joins the threads (unless it runs on one of them, or detached
//!    spawns are outstanding: then the workers exit on their own once those are done).
//! 4. The registry is freed with its last reference: the last worker's, or that of a
//!    [`CrossLatch`]'s setter in another pool, which holds it until its wake-up is done.

mod search;

use crate::counters::{CounterSource, Sample, ThreadCounters};
use crate::frames::Frames;
use crate::job::{JobRef, StackJob};
use crate::latch::{CrossLatch, HasSleep, LockLatch};
use crate::pin;
use crate::queue::{Queued, SharedQueue};
use crate::raw::BACKLOG;
use crate::sleep::Sleep;
use crate::stats::{bump, Counters, PoolStats};
use crate::sync::{AtomicBool, AtomicUsize};
use crate::trace::{Event, StealKind, Trace};
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use crossbeam_utils::CachePadded;
use locus_policy::{
    ChunkPlacement, Layout, Place, Policy, Probe, Source, TaskCost, TaskId, TaskInfo, WorkerMap,
};
use locus_task::rng::XorShift64Star;
use locus_task::Spawner;
use locus_topo::Topology;
use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::ptr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Searches that find nothing before a worker sleeps. Guess, checked against the
/// `fib` and `heat` benches: fewer costs wake-ups between a join's halves, more burns
/// CPU that oversubscribed workers need.
const SPIN_ROUNDS: u32 = 64;
/// Of those, the ones before a worker starts yielding its CPU instead of spinning.
const YIELD_AFTER: u32 = 16;

/// The shared state of one pool.
pub(crate) struct Registry {
    pub(crate) policy: Arc<dyn Policy>,
    layout: Layout,
    pub(crate) map: WorkerMap,
    pub(crate) topology: Topology,
    stealers: Box<[Stealer<JobRef>]>,
    /// Per worker, the pending halves of its joins that run as `ws` (`frames.rs`).
    frames: Box<[Frames<JobRef>]>,
    inboxes: Box<[SharedQueue<JobRef>]>,
    squad_queues: Box<[SharedQueue<Queued<JobRef>>]>,
    squad_stealing: Box<[CachePadded<AtomicBool>]>,
    central: SharedQueue<JobRef>,
    /// Bi-tier policies: one inter-squad pool per squad.
    inter_pools: Box<[SharedQueue<JobRef>]>,
    /// Per squad, the heads of all squads, that squad's first: whom to wake for an
    /// inter-squad task (only heads take them).
    heads_from: Box<[Box<[usize]>]>,
    /// Where loop chunks ran, for placement stability; only with two squads or more.
    chunk_placement: Option<ChunkPlacement>,
    /// Where per-task costs come from, for policies that ask for them.
    pub(crate) counter_source: Option<Arc<dyn CounterSource>>,
    injector: Injector<JobRef>,
    /// Per worker, the shares of a broadcast ([`crate::ThreadPool::broadcast`]) only that
    /// worker may run; looked at first in every search for work.
    broadcasts: Box<[SharedQueue<JobRef>]>,
    pub(crate) sleep: Sleep,
    /// Workers searching for work or asleep (between `begin_idle` and `end_idle`): a
    /// hint for `offers_enough`, changed once per idle spell.
    idle: CachePadded<AtomicUsize>,
    /// The same per package where the machine has several (`WorkerMap::package_of`),
    /// for [`locus_policy::Victims::Package`]; empty with one package.
    package_idle: Box<[CachePadded<AtomicUsize>]>,
    counters: Box<[CachePadded<Counters>]>,
    /// Zero of the idle clock (see `stats.rs`).
    epoch: Instant,
    terminate: AtomicBool,
    /// Detached spawns (`crate::spawn`): their count, panic handler and FIFO queues.
    pub(crate) detached: crate::spawn::Detached,
    /// The pool's trace, if it is traced (`trace.rs`); set before the workers start.
    pub(crate) trace: Option<Trace>,
}

/// Where each worker runs, decided by the pool builder.
pub(crate) struct ThreadSpec {
    /// The CPUs to pin to; empty: not pinned.
    pub(crate) cpus: Vec<usize>,
}

impl Registry {
    /// Builds the shared state and the workers' own deques (one per worker, in order).
    pub(crate) fn new(
        policy: Arc<dyn Policy>,
        map: WorkerMap,
        topology: Topology,
        counter_source: Option<Arc<dyn CounterSource>>,
    ) -> (Arc<Registry>, Vec<Worker<JobRef>>) {
        let layout = policy.layout();
        let n = map.num_workers();
        let deques: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let stealers = deques.iter().map(Worker::stealer).collect();
        let inboxes = if layout.inbox.is_some() {
            (0..n).map(|_| SharedQueue::new()).collect()
        } else {
            Box::default()
        };
        let squads = if layout.squad_queues {
            map.num_squads()
        } else {
            0
        };
        let registry = Registry {
            policy,
            layout,
            stealers,
            frames: {
                let asymmetric = crate::frames::asymmetric_fences();
                (0..n).map(|_| Frames::new(asymmetric)).collect()
            },
            inboxes,
            squad_queues: (0..squads).map(|_| SharedQueue::new()).collect(),
            squad_stealing: (0..squads)
                .map(|_| CachePadded::new(AtomicBool::new(false)))
                .collect(),
            central: SharedQueue::new(),
            inter_pools: if layout.inter_pools {
                (0..map.num_squads()).map(|_| SharedQueue::new()).collect()
            } else {
                Box::default()
            },
            heads_from: (0..map.num_squads())
                .map(|s| {
                    (0..map.num_squads())
                        .map(|k| map.head((s + k) % map.num_squads()))
                        .collect()
                })
                .collect(),
            chunk_placement: (map.num_squads() > 1).then(ChunkPlacement::new),
            counter_source,
            injector: Injector::new(),
            broadcasts: (0..n).map(|_| SharedQueue::new()).collect(),
            sleep: Sleep::new(n),
            idle: CachePadded::new(AtomicUsize::new(0)),
            package_idle: match map.num_packages() {
                1 => Box::new([]),
                p => (0..p)
                    .map(|_| CachePadded::new(AtomicUsize::new(0)))
                    .collect(),
            },
            counters: (0..n)
                .map(|_| CachePadded::new(Counters::default()))
                .collect(),
            epoch: Instant::now(),
            terminate: AtomicBool::new(false),
            detached: crate::spawn::Detached::new(n),
            trace: None,
            map,
            topology,
        };
        (Arc::new(registry), deques)
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.map.num_workers()
    }

    /// Whether the policy deals parallel loops itself (`Layout::loop_plans`).
    #[inline]
    pub(crate) fn plans_loops(&self) -> bool {
        self.layout.loop_plans
    }

    /// Whether parallel loops split as a tree here (`crate::split`): the policy is asked
    /// nothing about a loop's chunks (every spawn or every chunk local, no task events,
    /// no loop plans), so the split's jobs are invisible to it.
    #[inline]
    pub(crate) fn splits_loops(&self) -> bool {
        self.layout.splits_loops()
    }

    /// Publishes a loop plan's lane, which only `worker` runs, in its inbox.
    pub(crate) fn push_lane(&self, worker: usize, job: JobRef) {
        self.inboxes[worker].push(job);
        // The pusher is another worker, which must not lose the wake-up: `wake` is fenced.
        self.sleep.wake(worker);
    }

    /// Loop chunk `id` starts on a worker of `squad`.
    fn chunk_started(&self, id: TaskId, squad: usize) {
        if let Some(p) = &self.chunk_placement {
            p.started(id, squad);
        }
    }

    /// The policy's statistics, then the engine's placement counts of loop chunks.
    pub(crate) fn policy_stats(&self) -> Vec<(String, u64)> {
        let mut out = self.policy.stats();
        if let Some(p) = &self.chunk_placement {
            p.stats(&mut out);
        }
        out
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let now = self.clock_ns();
        PoolStats {
            workers: self.counters.iter().map(|c| c.snapshot(now)).collect(),
        }
    }

    /// Nanoseconds since the pool started: the idle clock.
    fn clock_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Asks the workers to leave once idle and wakes them all.
    pub(crate) fn terminate(&self) {
        self.terminate.store(true, Ordering::Release);
        self.sleep.wake_all();
    }

    /// The flag `terminate` sets, for the last detached spawn's check (`crate::spawn`).
    pub(crate) fn terminate_flag(&self) -> &AtomicBool {
        &self.terminate
    }

    /// Publishes a broadcast's share, which only `worker` runs, and wakes it (fenced: the
    /// pusher never drains it itself).
    pub(crate) fn push_broadcast(&self, worker: usize, job: JobRef) {
        self.broadcasts[worker].push(job);
        self.sleep.wake(worker);
    }

    /// Submits a root job from outside the pool.
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.sleep.new_foreign_work(&[]);
    }

    /// Takes a raw task ([`crate::raw::RawTask`]) waiting in the injector or, as a
    /// thief would, at the old end of a worker's deque or a squad's queue, for a thread
    /// that is not a worker of this pool to run ([`crate::raw::help`]). None where the
    /// policy deals tasks to given workers (inboxes, a central queue), or the pool is
    /// traced: a task run off the pool's workers would escape them. Where the policy
    /// takes task events, only from the injector: a task there was never placed by the
    /// policy, which then hears neither its start nor its end (so its bookkeeping,
    /// paired per worker, stays whole), while the tasks it placed stay with the workers
    /// it told. A job of another kind taken first goes back to the injector, where a
    /// worker runs it.
    pub(crate) fn take_raw_task(&self) -> Option<JobRef> {
        let layout = &self.layout;
        if layout.central || layout.inbox.is_some() || self.trace.is_some() {
            return None;
        }
        let raw = |steal: Steal<JobRef>| match steal {
            Steal::Success(job) if job.is::<crate::raw::RawTask>() => Some(Some(job)),
            Steal::Success(job) => {
                self.inject(job);
                Some(None)
            }
            Steal::Retry | Steal::Empty => None,
        };
        let queued = |queue: &SharedQueue<Queued<JobRef>>| match queue.pop_oldest() {
            Some(q) => Steal::Success(q.job),
            None => Steal::Empty,
        };
        let placed = !layout.task_events;
        let sources = std::iter::once(self.injector.steal())
            .chain(self.stealers.iter().filter(|_| placed).map(|s| s.steal()))
            .chain(self.squad_queues.iter().filter(|_| placed).map(queued));
        sources.filter_map(raw).next().flatten()
    }

    /// Runs `op` on a worker of this pool: directly if the caller is one, otherwise as a
    /// root task (id from `location`) that the caller waits for: a worker of another
    /// pool working there meanwhile ([`Registry::in_worker_cross`]), any other thread
    /// blocked.
    pub(crate) fn in_worker<OP, R>(&self, location: &Location<'_>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread) -> R + Send,
        R: Send,
    {
        match WorkerThread::current() {
            Some(worker) if ptr::eq(&*worker.registry, self) => op(worker),
            Some(worker) => self.in_worker_cross(worker, location, op),
            None => self.in_worker_cold(location, op),
        }
    }

    /// `in_worker` from `current`, a worker of another pool: the job is injected here
    /// and `current` runs its own pool's tasks (or sleeps there) until the job's
    /// [`CrossLatch`] wakes it (see the module docs, "Waits across pools").
    #[cold]
    fn in_worker_cross<OP, R>(&self, current: &WorkerThread, location: &Location<'_>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread) -> R + Send,
        R: Send,
    {
        debug_assert!(!ptr::eq(&*current.registry, self));
        let info = Spawner::root_info(location);
        let job = StackJob::new(
            info,
            || {
                let worker = WorkerThread::current().expect("an injected job runs on a worker");
                op(worker)
            },
            CrossLatch::new(&current.registry, current.index),
        );
        // SAFETY: `job` lives on this frame until the wait below returns, which is after
        // the job has run and set its latch: the tasks `current` runs meanwhile catch
        // their panics, so nothing unwinds past this frame while the job is out. The ref
        // is pushed once and run once.
        unsafe { self.inject(job.as_job_ref()) };
        current.wait_until_cold(|| job.latch.probe());
        job.into_result()
    }

    /// `in_worker` from a thread of no pool: it blocks until the job is done.
    #[cold]
    fn in_worker_cold<OP, R>(&self, location: &Location<'_>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread) -> R + Send,
        R: Send,
    {
        let info = Spawner::root_info(location);
        let job = StackJob::new(
            info,
            || {
                let worker = WorkerThread::current().expect("an injected job runs on a worker");
                op(worker)
            },
            LockLatch::new(),
        );
        // SAFETY: `job` lives on this frame until `wait` returns, which is after the
        // job has run and set its latch; the ref is pushed once and run once.
        unsafe { self.inject(job.as_job_ref()) };
        job.latch.wait();
        job.into_result()
    }

    /// The body of a worker thread.
    pub(crate) fn main_loop(
        self: Arc<Registry>,
        index: usize,
        deque: Worker<JobRef>,
        spec: ThreadSpec,
    ) {
        if !spec.cpus.is_empty() {
            if let Err(e) = pin::pin_current_thread(&spec.cpus) {
                tracing::warn!(worker = index, cpus = ?spec.cpus, error = %e, "could not pin worker; it runs unpinned");
            }
        }
        let worker = WorkerThread::new(self, index, deque);
        WORKER.with(|w| w.set(&worker));
        let registry = Arc::clone(&worker.registry);
        let leave =
            || registry.terminate.load(Ordering::Acquire) && registry.detached.none_outstanding();
        worker.work_until(leave, false);
        WORKER.with(|w| w.set(ptr::null()));
    }
}

impl HasSleep for Registry {
    fn sleep(&self) -> &Sleep {
        &self.sleep
    }
}

thread_local! {
    static WORKER: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}

/// Called by a loop chunk's body as it starts (see `scope::for_range`): counts where it
/// runs for placement stability. Done here, in the chunk, rather than in
/// [`WorkerThread::execute`], whose every extra branch costs `fib` (a check there for
/// loop chunks made it 8% slower against rayon).
pub(crate) fn loop_chunk_started() {
    if let Some(worker) = WorkerThread::current() {
        worker
            .registry
            .chunk_started(worker.ctx.get().id, worker.squad);
    }
}

/// A worker thread's own state, reachable from its thread-local pointer.
pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    squad: usize,
    /// Tasks the own squad's queue holds, besides one for each idle worker of the pool,
    /// before a `join`'s half placed there runs at once instead ([`Self::push_half`]): a
    /// task for each worker of the squad, and [`BACKLOG`] at least.
    squad_backlog: usize,
    always_local: bool,
    /// Jobs at this level or deeper are pushed on the own deque without asking the
    /// policy (`Layout::local_from_level`; `u32::MAX` where it asks about every job).
    local_from_level: u32,
    deque: Worker<JobRef>,
    rng: Cell<XorShift64Star>,
    /// The running task, as the parent of its spawns (their ids: `locus_task::Spawner`).
    pub(crate) ctx: Cell<Spawner>,
    /// The policy's search plan, reused between searches. Taken out while in use, so a
    /// nested search (a task run during a search waits in a join) starts a fresh one.
    plan: Cell<Vec<Probe>>,
    /// Buffer for bulk steals, reused like `plan`.
    scratch: Cell<Vec<Queued<JobRef>>>,
    /// This worker's counters in the registry, cached to keep counting one store.
    counters: *const Counters,
    /// This worker's pending join halves in the registry, cached as `counters` is.
    frames: *const Frames<JobRef>,
    /// The policy wants task events (`Layout::task_events`), until it says it no longer
    /// does (`Policy::wants_task_events`, asked after each task end while this is set).
    events: Cell<bool>,
    /// `join` halves go to the own deque without asking the policy: from the start under
    /// `ws` (`Layout::always_local`), and once the policy says they will stay local
    /// (`Policy::spawns_stay_local`, asked when it stops wanting task events).
    joins_local: Cell<bool>,
    /// `joins_local` without `events`: `join` takes the path of `frames.rs`.
    joins_framed: Cell<bool>,
    /// Per-task cost measurement, where the pool has a counter source.
    profiler: Option<RefCell<TaskProfiler>>,
    /// Whether this worker is in an idle spell (counted in the idle counts).
    idle: Cell<bool>,
    /// Whether the pool is traced (`trace.rs`): read once here, tested per task.
    tracing: bool,
    /// A steal not yet traced: when the task left its victim, the victim, and how; the
    /// next `execute`, which runs the stolen task, records it.
    pending_steal: Cell<Option<(u64, usize, StealKind)>>,
    pub(crate) registry: Arc<Registry>,
}

impl WorkerThread {
    /// The state of worker `index` of `registry`, owning `deque` (its own deque from
    /// [`Registry::new`]). Not yet the current worker of any thread.
    pub(crate) fn new(
        registry: Arc<Registry>,
        index: usize,
        deque: Worker<JobRef>,
    ) -> WorkerThread {
        // The pool has a source only where its policy takes task events (`pool.rs`); the
        // counters open at the first task measured.
        let profiler = registry
            .counter_source
            .as_ref()
            .map(|source| RefCell::new(TaskProfiler::new(Arc::clone(source), index)));
        WorkerThread {
            index,
            squad: registry.map.squad_of(index),
            squad_backlog: registry
                .map
                .squad(registry.map.squad_of(index))
                .len()
                .max(BACKLOG),
            always_local: registry.layout.always_local,
            local_from_level: registry.layout.local_from_level.unwrap_or(u32::MAX),
            deque,
            rng: Cell::new(XorShift64Star::for_worker(0, index)),
            ctx: Cell::new(Spawner::default()),
            plan: Cell::new(Vec::with_capacity(4)),
            scratch: Cell::new(Vec::new()),
            counters: &*registry.counters[index],
            frames: &registry.frames[index],
            events: Cell::new(registry.layout.task_events),
            joins_local: Cell::new(registry.layout.always_local),
            joins_framed: Cell::new(
                registry.layout.always_local
                    && !registry.layout.task_events
                    && registry.frames[index].is_usable(),
            ),
            profiler,
            idle: Cell::new(false),
            tracing: registry.trace.is_some(),
            pending_steal: Cell::new(None),
            registry,
        }
    }

    /// The worker running on this thread, if any.
    #[inline]
    pub(crate) fn current() -> Option<&'static WorkerThread> {
        let ptr = WORKER.with(Cell::get);
        // SAFETY: the pointer is set by `main_loop` to a WorkerThread on that thread's
        // stack and cleared before it goes away; only this thread reads it, and every
        // use ends before `main_loop` returns.
        unsafe { ptr.as_ref() }
    }

    #[inline]
    fn counters(&self) -> &Counters {
        // SAFETY: points into `self.registry.counters`, which `self.registry` keeps alive
        // and never reallocates.
        unsafe { &*self.counters }
    }

    /// This worker's pending join halves (`frames.rs`).
    #[inline]
    pub(crate) fn frames(&self) -> &Frames<JobRef> {
        // SAFETY: points into `self.registry.frames`, which `self.registry` keeps alive
        // and never reallocates.
        unsafe { &*self.frames }
    }

    /// Whether this worker's joins run as `ws` (their halves stay with it until
    /// stolen) and report no task events: the joins that take the fenceless path of
    /// `frames.rs`. One flag, so that a join tests one byte.
    #[inline]
    pub(crate) fn joins_framed(&self) -> bool {
        self.joins_framed.get()
    }

    /// The running task's context, read field by field: it was just written so by the
    /// `join` that started the task, and a load of the whole value from those separate
    /// stores would wait for them to reach the cache (store forwarding fails), a stall
    /// on every `join` (`fib` on one worker: 34 ns a join with the whole value, against
    /// 2 for a serial call).
    #[inline(always)]
    pub(crate) fn ctx_fields(&self) -> Spawner {
        let ctx = self.ctx.as_ptr();
        // SAFETY: the cell is this thread's (`WorkerThread` is not `Sync`); no reference
        // into it is live while we read its fields. The level is read volatile so that
        // the compiler does not merge it with the spawn count into one wider load, which
        // would span two stores again.
        let (id, level, spawned) = unsafe {
            (
                (*ctx).id,
                std::ptr::read_volatile(&raw const (*ctx).level),
                (*ctx).spawned(),
            )
        };
        Spawner::from_parts(id, level, spawned)
    }

    /// Counts `n` tasks run by this worker.
    #[inline]
    pub(crate) fn count_tasks(&self, n: u64) {
        bump(&self.counters().tasks, n);
    }

    /// Runs a job taken from a queue (found at `source`), in its own task context.
    #[inline]
    pub(crate) fn execute(&self, job: JobRef, source: Source) {
        // SAFETY: every JobRef in the queues is live until executed and is handed out
        // by exactly one pop or steal, so this is its one execution.
        let info = unsafe { job.info() };
        let saved = self.ctx.replace(Spawner::of(info));
        self.count_tasks(1);

        if self.tracing {
            self.execute_traced(job, source, &info);
        } else if self.events.get() {
            let costed = self.task_begin(&info, source);
            // The policy hears of the end before the job's latch releases its joiner.
            let mut end = || self.task_end(&info, costed);
            // SAFETY: as above. Jobs catch their closures' panics, so this returns.
            unsafe { job.execute_ending(&mut end) };
        } else {
            // SAFETY: as above.
            unsafe { job.execute() };
        }
        self.ctx.set(saved);
    }

    /// `execute`'s body in a traced pool: the task's slice, and the steal that brought it.
    #[cold]
    #[inline(never)]
    fn execute_traced(&self, job: JobRef, source: Source, info: &TaskInfo) {
        let start = self.registry.clock_ns();
        let stolen = self.pending_steal.take();
        if self.events.get() {
            let costed = self.task_begin(info, source);
            let mut end = || self.task_end(info, costed);
            // SAFETY: as in `execute`, whose job this is.
            unsafe { job.execute_ending(&mut end) };
        } else {
            // SAFETY: as in `execute`.
            unsafe { job.execute() };
        }
        let slice = Event::Task {
            start,
            end: self.registry.clock_ns(),
            task: info.id.0,
            level: info.level,
            share: false,
        };
        match (stolen, &self.registry.trace) {
            (Some((time, victim, kind)), Some(trace)) => {
                let steal = Event::Steal {
                    time,
                    start,
                    task: info.id.0,
                    victim: victim as u32,
                    kind,
                };
                // SAFETY: as in `trace_event`.
                unsafe { trace.log(self.index).push_pair(steal, slice) };
            }
            _ => self.trace_event(slice),
        }
    }

    /// Appends `event` to this worker's trace log, if the pool is traced.
    #[inline(never)]
    fn trace_event(&self, event: Event) {
        if let Some(trace) = &self.registry.trace {
            // SAFETY: one `WorkerThread` exists per index of a traced pool (made by
            // `main_loop` on its own thread), and only its thread calls its methods.
            unsafe { trace.log(self.index).push(event) };
        }
    }

    /// Notes, in a traced pool, that the task about to run here was stolen from
    /// `victim` (a worker) now: the next `execute` records the flow.
    #[inline]
    fn note_steal(&self, victim: usize, bulk: bool) {
        if self.tracing {
            let map = &self.registry.map;
            let tier = map.tier(self.squad, map.squad_of(victim));
            let kind = if bulk {
                StealKind::Bulk(tier)
            } else {
                StealKind::One(tier)
            };
            self.pending_steal
                .set(Some((self.registry.clock_ns(), victim, kind)));
        }
    }

    /// Records, in a traced pool, the policy's placement of `job`.
    #[inline]
    fn note_placed(&self, job: &JobRef, place: Place, at_once: bool) {
        if self.tracing {
            // SAFETY: the job was just made by this worker; it is read before it is
            // published or run (the callers note before `publish`).
            let task = unsafe { job.info() }.id.0;
            self.trace_event(Event::Placed {
                time: self.registry.clock_ns(),
                task,
                place,
                at_once,
            });
        }
    }

    /// Runs `f` here and now as the task `info` (a loop chunk run by its lane, or by the
    /// block of a long loop it belongs to), in its own task context, with the task events
    /// a job gets, as a task run inline ([`Source::Inline`]: no job of its own was
    /// placed or queued); `count` counts it as a task.
    /// `f` must not unwind: the caller catches its panics.
    pub(crate) fn run_as_task(&self, info: TaskInfo, count: bool, f: impl FnOnce()) {
        let saved = self.ctx.replace(Spawner::of(info));
        if count {
            self.count_tasks(1);
        }
        let start = self.tracing.then(|| self.registry.clock_ns());
        if self.events.get() {
            let costed = self.task_begin(&info, Source::Inline);
            f();
            self.task_end(&info, costed);
        } else {
            f();
        }
        if let Some(start) = start {
            self.trace_event(Event::Task {
                start,
                end: self.registry.clock_ns(),
                task: info.id.0,
                level: info.level,
                share: false,
            });
        }
        self.ctx.set(saved);
    }

    /// Tells the policy that queued job `job`, found at `source`, starts here
    /// (`Layout::queued_starts`).
    #[inline(never)]
    fn queued_start(&self, job: &JobRef, source: Source) {
        // SAFETY: the job was just taken from a queue and is not yet executed, so it is
        // live (see `execute`).
        let info = unsafe { job.info() };
        self.registry.policy.task_started(self.index, &info, source);
    }

    /// Whether the policy wants task events (a policy with [`Layout::task_events`], until
    /// it says it no longer does).
    #[inline]
    pub(crate) fn events(&self) -> bool {
        self.events.get()
    }

    /// Tells the policy `task` starts here; returns whether its cost is being measured
    /// (pass that to [`WorkerThread::task_end`]).
    #[inline(never)]
    pub(crate) fn task_begin(&self, task: &TaskInfo, source: Source) -> bool {
        let policy = &self.registry.policy;
        policy.task_started(self.index, task, source);
        match &self.profiler {
            Some(profiler) if policy.wants_cost() => {
                profiler.borrow_mut().begin(self.registry.clock_ns());
                true
            }
            Some(profiler) if !profiler.borrow().is_retired() => {
                self.retire_profiler();
                false
            }
            _ => false,
        }
    }

    /// The policy asks for no more costs (for good: `Policy::wants_cost`), whether or not
    /// it still wants task events (a partitioned `cats`): this worker's counters close,
    /// and the source stops what it costs the process (`declared`'s listener, which
    /// made every footprint declaration of a partitioned loop kernel cost what a profiled
    /// one does: `spmv-crs` fine under `cats`, 7x `ws`'s instructions per chunk).
    #[cold]
    #[inline(never)]
    fn retire_profiler(&self) {
        if let Some(profiler) = &self.profiler {
            profiler.borrow_mut().retire();
        }
        if let Some(source) = &self.registry.counter_source {
            source.release();
        }
    }

    /// Tells the policy `task` finished here, with its own cost if it was measured.
    #[inline(never)]
    pub(crate) fn task_end(&self, task: &TaskInfo, costed: bool) {
        let cost = match &self.profiler {
            Some(profiler) if costed => Some(profiler.borrow_mut().end(self.registry.clock_ns())),
            _ => None,
        };
        self.registry
            .policy
            .task_finished(self.index, task, cost.as_ref());
        self.end_events_if_unwanted();
    }

    /// Stops this worker's task events if the policy no longer wants them (asked after
    /// each task end, and in each round of an idle search, so that a worker that runs
    /// nothing more still closes its counters).
    fn end_events_if_unwanted(&self) {
        let policy = &self.registry.policy;
        if !policy.wants_task_events() {
            // For good: this worker's joins take their fast path from now on, and its
            // queued starts are reported instead where the layout asks for them.
            self.events.set(false);
            // The policy runs as ws for good: so do this worker's joins.
            self.joins_local.set(policy.spawns_stay_local());
            self.joins_framed
                .set(policy.spawns_stay_local() && self.frames().is_usable());
            // And no task of this worker is measured again, nor of any other: the
            // source may stop what it costs the process (`declared`'s listener).
            self.retire_profiler();
        }
    }

    /// See [`crate::raw::offers_enough`]: the own deque, and the own squad's queue
    /// where the policy places tasks there (`mts`), against `tasks`.
    #[inline]
    pub(crate) fn offers_enough(&self, tasks: usize) -> bool {
        let mut waiting = self.deque.len();
        if waiting < tasks && !self.always_local {
            if let Some(queue) = self.registry.squad_queues.get(self.squad) {
                waiting += queue.len_hint();
            }
        }
        waiting >= tasks && self.registry.idle.load(Ordering::Relaxed) == 0
    }

    /// Publishes a spawned job where the policy places it, and returns the place.
    #[inline]
    pub(crate) fn push(&self, job: JobRef) -> Place {
        if self.places_locally(&job) {
            self.push_local(job)
        } else {
            self.push_placed(job)
        }
    }

    /// Publishes the second half of a `join` (or of a loop's split) as [`Self::push`]
    /// does, or keeps it: `None` where the policy places it in this worker's own squad's
    /// shared queue and that queue already holds a task for each of the squad's workers
    /// ([`BACKLOG`] at least) more than the pool has idle workers. The caller then runs
    /// it itself after the first half, as it would have after taking it back: lazy task
    /// creation, as the OpenMP layer's tasks run at once (`locus-omp`'s `task.rs`).
    /// Under `mts` every half went through the queue's lock twice, once to publish and
    /// once to take back, and fib without a cutoff took 2.5x `ws`'s time (`locus bench
    /// fib --policy ws,mts --machine 2x1 --threads 2`). Counting the idle workers in,
    /// rather than asking for none (the OpenMP layer's rule, [`Self::offers_enough`]),
    /// keeps the rule working where some workers are always looking, as on a pool larger
    /// than its machine (`locus bench fib --policy ws,mts --machine opteron-8380 --reps
    /// 5`, 16 workers over 2 cores: 43 ms with the OpenMP layer's rule, 16 with this
    /// one, `ws` 10 in the same runs). The policy still places
    /// the half (what it notes stays right: the half runs in the squad it chose), but
    /// never hears of its start.
    #[inline]
    pub(crate) fn push_half(&self, job: JobRef) -> Option<Place> {
        if self.places_locally(&job) {
            Some(self.push_local(job))
        } else {
            self.push_placed_half(job)
        }
    }

    /// Publishes a `join`'s second half: to the own deque where the worker's joins stay
    /// local, else as [`Self::push_half`] does.
    #[inline]
    pub(crate) fn push_join_half(&self, job: JobRef) -> Option<Place> {
        if self.joins_local.get() {
            Some(self.push_local(job))
        } else {
            self.push_half(job)
        }
    }

    /// Whether `job` goes to the own deque without asking the policy: every job under
    /// `ws`, and the levels a bi-tier policy keeps in its squads.
    #[inline]
    fn places_locally(&self, job: &JobRef) -> bool {
        // SAFETY: the job was just made by this worker and is not yet published (the
        // `&&` reads it only where some levels are placed locally without asking).
        self.always_local
            || (self.local_from_level != u32::MAX
                && unsafe { job.info() }.level >= self.local_from_level)
    }

    #[inline]
    fn push_local(&self, job: JobRef) -> Place {
        self.deque.push(job);
        self.announce_local_work();
        Place::Local
    }

    /// After publishing work this worker will drain itself (its deque, its frames):
    /// wakes a sleeper, if any, without the fence (`Sleep::new_work`).
    #[inline]
    pub(crate) fn announce_local_work(&self) {
        self.registry.sleep.new_work(&[]);
    }

    #[inline(never)]
    fn push_placed(&self, job: JobRef) -> Place {
        let place = self.place(&job);
        self.note_placed(&job, place, false);
        self.publish(job, place);
        place
    }

    #[inline(never)]
    fn push_placed_half(&self, job: JobRef) -> Option<Place> {
        let place = self.place(&job);
        if place == Place::Squad(self.squad)
            && self.registry.squad_queues[self.squad].len_hint()
                >= self.squad_backlog + self.registry.idle.load(Ordering::Relaxed)
        {
            bump(&self.counters().run_at_once, 1);
            self.note_placed(&job, place, true);
            return None;
        }
        self.note_placed(&job, place, false);
        self.publish(job, place);
        Some(place)
    }

    /// Where the policy places `job`, a job this worker has just made.
    #[inline]
    fn place(&self, job: &JobRef) -> Place {
        let parent = self.ctx.get().info();
        // SAFETY: the job was just made by this worker and is not yet published.
        let info = unsafe { job.info() };
        self.registry.policy.place(self.index, &parent, &info)
    }

    /// Publishes `job` at `place`, waking whoever should take it.
    #[inline]
    fn publish(&self, job: JobRef, place: Place) {
        let registry = &*self.registry;
        match place {
            Place::Local => {
                self.push_local(job);
            }
            Place::Worker(target) => {
                registry.inboxes[target].push(job);
                registry.sleep.wake(target);
            }
            Place::Squad(squad) => {
                registry.squad_queues[squad].push(Queued {
                    job,
                    by: self.index,
                    // SAFETY: the job is not yet published.
                    level: unsafe { job.info() }.level,
                });
                if squad == self.squad {
                    registry.sleep.new_work(registry.map.squad(squad));
                } else {
                    // Another squad's work (a loop chunk sent home): it should start
                    // there, not wait for this worker to steal it back, so the wake-up
                    // must not be lost.
                    registry.sleep.new_foreign_work(registry.map.squad(squad));
                }
            }
            Place::Central => {
                registry.central.push(job);
                registry.sleep.new_work(&[]);
            }
            Place::InterPool(squad) => {
                registry.inter_pools[squad].push(job);
                // Only heads take inter-squad tasks and the pusher may not be one, so
                // the wake-up must not be lost: the fenced kind.
                registry.sleep.new_foreign_work(&registry.heads_from[squad]);
            }
        }
    }

    /// At a join: takes `job` back if it still waits where it was placed. For a local
    /// placement this pops the own deque, running whatever newer jobs sit above it; that
    /// path is inline because every `join` under `ws` takes it.
    #[inline]
    pub(crate) fn take_back(&self, job: &JobRef, place: Place) -> bool {
        if let Place::Local = place {
            while let Some(top) = self.deque.pop() {
                if top.same(job) {
                    return true;
                }
                self.execute(top, Source::OwnSquad);
            }
            return false;
        }
        self.take_back_shared(job, place)
    }

    #[cold]
    #[inline(never)]
    fn take_back_shared(&self, job: &JobRef, place: Place) -> bool {
        let registry = &*self.registry;
        let found = match place {
            // Inter-squad tasks are taken by squad heads only, through their plans.
            Place::Local | Place::InterPool(_) => return false,
            Place::Worker(target) => registry.inboxes[target].take_back(|q| q.same(job)),
            Place::Squad(squad) => registry.squad_queues[squad]
                .take_back(|q| q.job.same(job))
                .map(|q| q.job),
            Place::Central => registry.central.take_back(|q| q.same(job)),
        }
        .is_some();
        if found {
            bump(&self.counters().taken_back, 1);
        }
        found
    }

    /// At a raw wait (`raw::wait_until`): under a policy that places every job locally
    /// (`ws`), runs the own deque's newest jobs until `done` holds, as `take_back` does at
    /// a join, without asking the policy for a plan; whether `done` holds. Under other
    /// policies, and once the deque is empty, the caller goes on to `wait_until_cold`.
    #[inline]
    pub(crate) fn run_own_until(&self, done: &impl Fn() -> bool) -> bool {
        if !self.always_local {
            return false;
        }
        while !done() {
            match self.deque.pop() {
                Some(job) => self.execute(job, Source::OwnSquad),
                None => return false,
            }
        }
        true
    }

    /// One job for rayon's `yield_now` (`local`: `yield_local`, the own deque only),
    /// found as a waiting worker finds one; whether one ran.
    pub(crate) fn yield_one(&self, local: bool) -> bool {
        if local {
            return match self.deque.pop() {
                Some(job) => {
                    self.execute(job, Source::OwnSquad);
                    true
                }
                None => false,
            };
        }
        if let Some(job) = self.take_broadcast() {
            self.run_share(job);
            return true;
        }
        match self.find_work(true) {
            Some((job, source)) => {
                self.execute(job, source);
                true
            }
            None => false,
        }
    }

    /// Works (or sleeps) until `done` holds: the wait of a join, scope or raw wait whose
    /// jobs run elsewhere (the idle loop of a worker is `work_until` not waiting).
    #[cold]
    pub(crate) fn wait_until_cold(&self, done: impl Fn() -> bool) {
        self.work_until(done, true);
    }

    /// Works (or sleeps) until `done` holds; `waiting`: inside a task (its join, scope
    /// or raw wait), not the worker's idle loop, which some probes tell apart
    /// ([`Probe::SquadQueueShallow`]).
    fn work_until(&self, done: impl Fn() -> bool, waiting: bool) {
        let mut rounds = 0;
        let mut idle_since: Option<u64> = None;
        while !done() {
            if let Some(job) = self.take_broadcast() {
                if let Some(start) = idle_since.take() {
                    self.end_idle(start);
                }
                self.run_share(job);
                rounds = 0;
                continue;
            }
            if let Some((job, source)) = self.find_work(waiting) {
                if let Some(start) = idle_since.take() {
                    self.end_idle(start);
                }
                // `Layout::queued_starts` reports what a search finds, not what a join pops
                // from the own deque (`take_back`): that is the path every `ws` join
                // takes, and it stays untouched. While this worker reports task events,
                // `execute` reports the start itself.
                if self.registry.layout.queued_starts && !self.events.get() {
                    self.queued_start(&job, source);
                }
                self.execute(job, source);
                rounds = 0;
                continue;
            }
            if idle_since.is_none() {
                idle_since = Some(self.begin_idle());
            }
            // A profile may have ended since this worker's last task.
            if self.events.get() {
                self.end_events_if_unwanted();
            }
            rounds += 1;
            if rounds < YIELD_AFTER {
                std::hint::spin_loop();
            } else if rounds < SPIN_ROUNDS {
                std::thread::yield_now();
            } else {
                let stay_awake = || done() || self.has_work();
                let count = || bump(&self.counters().sleeps, 1);
                let slept_from = self.tracing.then(|| self.registry.clock_ns());
                self.registry.sleep.sleep(self.index, stay_awake, count);
                if let Some(start) = slept_from {
                    let end = self.registry.clock_ns();
                    self.trace_event(Event::Idle {
                        start,
                        end,
                        sleep: true,
                    });
                }
                rounds = 0;
            }
        }
        if let Some(start) = idle_since {
            self.end_idle(start);
        }
    }

    /// A share of a broadcast waiting for this worker, if any (looked at first in every
    /// search).
    fn take_broadcast(&self) -> Option<JobRef> {
        let queue = &self.registry.broadcasts[self.index];
        if queue.is_empty() {
            return None;
        }
        queue.pop_oldest()
    }

    /// Runs a broadcast's share in its own task context, counted as a task but not told
    /// to the policy: a share lasts as long as the broadcast (an OpenMP team's member),
    /// and a bi-tier policy that counted it as a subtree would keep its squad busy for
    /// all that time, refusing the tasks the shares spawn.
    fn run_share(&self, job: JobRef) {
        // SAFETY: a share is live until its latch is set, which its execution does, and
        // each is popped once.
        let info = unsafe { job.info() };
        let saved = self.ctx.replace(Spawner::of(info));
        self.count_tasks(1);
        let start = self.tracing.then(|| self.registry.clock_ns());
        // SAFETY: as above; shares catch their closures' panics.
        unsafe { job.execute() };
        if let Some(start) = start {
            self.trace_event(Event::Task {
                start,
                end: self.registry.clock_ns(),
                task: info.id.0,
                level: info.level,
                share: true,
            });
        }
        self.ctx.set(saved);
    }

    /// Starts an idle spell: publishes its start so snapshots count it while it lasts.
    fn begin_idle(&self) -> u64 {
        self.registry.idle.fetch_add(1, Ordering::Relaxed);
        if let Some(count) = self.package_idle() {
            count.fetch_add(1, Ordering::Relaxed);
        }
        self.idle.set(true);
        let start = self.registry.clock_ns();
        self.counters()
            .idle_since
            .store(start + 1, Ordering::Relaxed);
        start
    }

    /// Ends the idle spell begun at `start`: adds it, then clears the published start
    /// (Release: a snapshot that sees the clear also sees the addition).
    fn end_idle(&self, start: u64) {
        self.registry.idle.fetch_sub(1, Ordering::Relaxed);
        if let Some(count) = self.package_idle() {
            count.fetch_sub(1, Ordering::Relaxed);
        }
        self.idle.set(false);
        let c = self.counters();
        let end = self.registry.clock_ns();
        bump(&c.idle_ns, end.saturating_sub(start));
        c.idle_since.store(0, Ordering::Release);
        if self.tracing {
            self.trace_event(Event::Idle {
                start,
                end,
                sleep: false,
            });
        }
    }

    /// This worker's package's idle count, where the machine has several packages.
    #[inline]
    fn package_idle(&self) -> Option<&AtomicUsize> {
        let counts = &self.registry.package_idle;
        (!counts.is_empty()).then(|| &*counts[self.registry.map.package_of(self.squad)])
    }
}

/// One task being measured on a worker: where its counters and clock stood when it
/// started, and what the tasks nested inside it (run by this worker while it waited)
/// have used, which is not its own.
struct Frame {
    start: Sample,
    started_ns: u64,
    nested: Sample,
    nested_ns: u64,
}

/// A worker's per-task cost measurement: its thread's counters and a stack of the tasks
/// being measured, innermost last (tasks nest on a worker's stack, so a stack suffices).
pub(crate) struct TaskProfiler {
    source: Arc<dyn CounterSource>,
    worker: usize,
    counters: Opened,
    frames: Vec<Frame>,
}

/// Where a worker's counters stand: opened at the first task measured, closed for good
/// when the policy asks for no more costs.
enum Opened {
    Not,
    Open(Box<dyn ThreadCounters>),
    Closed,
}

impl TaskProfiler {
    /// Measuring through `source` on worker `worker`'s thread, from its first task.
    fn new(source: Arc<dyn CounterSource>, worker: usize) -> TaskProfiler {
        TaskProfiler {
            source,
            worker,
            counters: Opened::Not,
            frames: Vec::new(),
        }
    }

    /// The policy will ask for no more costs on this worker: the counters close now (a
    /// `declared` source then stops listening to the process's declarations once no
    /// thread measures), and the tasks still open end with no cost, which the policy
    /// no longer reads.
    fn retire(&mut self) {
        self.counters = Opened::Closed;
        self.frames.clear();
    }

    /// Whether [`TaskProfiler::retire`] has closed the counters.
    fn is_retired(&self) -> bool {
        matches!(self.counters, Opened::Closed)
    }

    fn read(&mut self) -> Sample {
        if let Opened::Not = self.counters {
            self.counters = match self.source.open_thread() {
                Ok(counters) => Opened::Open(counters),
                Err(e) => {
                    tracing::warn!(worker = self.worker, error = %e, "could not open this worker's counters; its tasks report no cost");
                    Opened::Closed
                }
            };
        }
        match &mut self.counters {
            Opened::Open(counters) => counters.read(),
            Opened::Not | Opened::Closed => Sample::default(),
        }
    }

    fn begin(&mut self, now_ns: u64) {
        let start = self.read();
        self.frames.push(Frame {
            start,
            started_ns: now_ns,
            nested: Sample::default(),
            nested_ns: 0,
        });
    }

    /// The innermost task's own cost: what the counters moved since it began, less what
    /// its nested tasks used; that whole movement is charged to the enclosing task's
    /// nested share.
    fn end(&mut self, now_ns: u64) -> TaskCost {
        let Some(frame) = self.frames.pop() else {
            return TaskCost::default();
        };
        let total = self.read().delta(&frame.start);
        let total_ns = now_ns.saturating_sub(frame.started_ns);
        if let Some(outer) = self.frames.last_mut() {
            outer.nested = add(&outer.nested, &total);
            outer.nested_ns = outer.nested_ns.saturating_add(total_ns);
        }
        let own = total.delta(&frame.nested);
        TaskCost {
            misses: own.private_llc_misses,
            bytes: own.bytes,
            instructions: own.instructions,
            nanos: total_ns.saturating_sub(frame.nested_ns),
        }
    }
}

/// Field-wise saturating sum of two samples.
fn add(a: &Sample, b: &Sample) -> Sample {
    Sample {
        private_llc_misses: a.private_llc_misses.saturating_add(b.private_llc_misses),
        instructions: a.instructions.saturating_add(b.instructions),
        cycles: a.cycles.saturating_add(b.cycles),
        bytes: a.bytes.saturating_add(b.bytes),
    }
}
