//! Raw tasks: the door for task layers written over locus in another shape than
//! `join`/`scope` (the OpenMP library, `crates/omp`), whose tasks are records they
//! allocate, name and count themselves.
//!
//! - [`RawTask`] is the first field of such a record: the runtime's job header (the
//!   task's identity, which the policy sees) and the function that runs the record.
//! - [`spawn`] publishes a record from a worker of a pool where the policy places it,
//!   exactly as a `scope`'s spawn is placed; it runs once, on some worker of that pool.
//! - [`wait_until`] is how such a layer waits for its own counts: on a worker it runs
//!   other tasks (or sleeps) until the condition holds, as a `join` does (under `ws`
//!   popping its own deque first, as a join takes its second half back); elsewhere it
//!   spins and yields, as [`spin_until`] does everywhere (for a wait in which the
//!   caller must not run a task).
//! - [`offers_enough`] (and [`Worker::offers_enough`], for a layer that keeps its
//!   thread's [`Worker`]): whether the calling worker already has enough tasks queued
//!   for thieves, with none of its pool's workers idle, so that a layer may run a new
//!   task at once instead of spawning it.
//! - [`wake`] and [`wake_all`]: whoever makes a waited-for condition true must call one
//!   of them afterwards, so that a waiter that went to sleep sees it. Both begin with a
//!   `SeqCst` fence that pairs with the sleeper's (the handshake of `sleep/README.md`):
//!   a waiter either sees the condition in its last check before sleeping, or is woken.
//!   The write that makes the condition true must itself be `SeqCst` (or be followed by
//!   the fence these functions issue, which it is).

use crate::job::{HasHeader, Job, JobHeader, JobRef};
use crate::registry::WorkerThread;
use locus_policy::TaskInfo;

/// The first field of a task record made outside the runtime: `#[repr(C)]` records put
/// it first, so that a pointer to the record is a pointer to its `RawTask`.
#[repr(C)]
#[derive(Debug)]
pub struct RawTask {
    header: JobHeader,
    run: unsafe fn(*mut RawTask),
}

impl RawTask {
    /// A task named `info`, run by `run` (given the pointer that was spawned).
    pub const fn new(info: TaskInfo, run: unsafe fn(*mut RawTask)) -> RawTask {
        RawTask {
            header: JobHeader::new(info),
            run,
        }
    }
}

// SAFETY: `repr(C)` with the header first.
unsafe impl HasHeader for RawTask {}

impl Job for RawTask {
    unsafe fn execute(this: *const (), end: Option<&mut dyn FnMut()>) {
        let task = this as *mut RawTask;
        // SAFETY: `this` came from `spawn`, whose contract keeps the record live and
        // runs it once; `run` was given by the record's maker for exactly this call.
        unsafe { ((*task).run)(task) };
        // The record counted itself done in `run` (its layer's own counts): its end
        // reaches the policy after that.
        if let Some(end) = end {
            end();
        }
    }
}

/// Why a raw task could not be spawned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotOnWorker;

impl std::fmt::Display for NotOnWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "raw tasks are spawned from a worker of a locus pool")
    }
}

impl std::error::Error for NotOnWorker {}

/// Publishes `task` on the calling worker's pool, where the policy places it. Fails,
/// leaving `task` untouched, when the caller is no worker of a pool.
///
/// # Safety
/// `task` must point to a live `RawTask` that stays live, and is not touched by the
/// caller, until its `run` function is called with it; the record must be safe to run
/// on another thread. Each record is spawned at most once per run.
pub unsafe fn spawn(task: *mut RawTask) -> Result<(), NotOnWorker> {
    let worker = WorkerThread::current().ok_or(NotOnWorker)?;
    // SAFETY: forwarded from the caller: live until run, run once.
    let job = unsafe { JobRef::new(task.cast_const()) };
    worker.push(job);
    Ok(())
}

/// Waits until `done()` holds: on a worker of a pool, running that pool's tasks (or
/// sleeping) meanwhile; elsewhere spinning, then yielding. Whoever makes `done` true
/// must call [`wake`] or [`wake_all`] afterwards (see the module docs).
pub fn wait_until(done: impl Fn() -> bool) {
    if done() {
        return;
    }
    match WorkerThread::current() {
        Some(worker) => {
            if !worker.run_own_until(&done) {
                worker.wait_until_cold(done);
            }
        }
        None => spin_until(done),
    }
}

/// Waits until `done()` holds, running nothing meanwhile, on a worker too: spins a
/// little, then yields the CPU between checks. For short waits in which the caller must
/// not run a task (a team member entering its region before any of the region's code);
/// needs no [`wake`].
pub fn spin_until(done: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < 64 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Runs the calling worker's own newest tasks until `done()` holds, under a policy
/// that places every task locally (`ws`; the first probe of its plan); whether `done()`
/// holds. Never sleeps, so a layer can call it before publishing itself as a waiter
/// and calling [`wait_until`]. Under other policies, or off a worker, it only checks.
pub fn run_own_until(done: impl Fn() -> bool) -> bool {
    if done() {
        return true;
    }
    match WorkerThread::current() {
        Some(worker) => worker.run_own_until(&done),
        None => false,
    }
}

/// Tasks a worker offers thieves from which a new task runs at once on its thread
/// instead of being spawned: a plain OpenMP task (`locus-omp`) where its own deque (under
/// `mts` its squad's queue) holds as many, with no worker of its pool idle
/// ([`offers_enough`]); a `join`'s second half that the policy places in the own squad's
/// queue where that queue holds as many, or one for each worker of the squad if more,
/// besides one for each idle worker of the pool (the runtime's joins).
///
/// Measured for the OpenMP layer at 2 threads, runs interleaved, with
/// `crates/omp/bench/fib.c` built by `gcc -O2 -fopenmp` and run as `locus run --policy
/// ws --threads 2 -- ./fib 30 5`, and `mergesort.c` changed to print each of its 5
/// runs, run with `4000000 4096`: fib 30 without a cutoff, best of 5, 18.0-18.2 ms at
/// 2, 18.2-18.5 at 3, 19.1-19.4 at 4, 49 at 8 (fib's deque seldom holds more; 62 ms
/// spawning every task); mergesort 4M with cutoff 4096, each of 5 runs, 0.21-0.22 s at
/// 3 and 4 as when every task was spawned, but 0.24-0.27 in most runs at 2: a thief's
/// steal leaves one task, the next spawn comes from deep in a subtree run at once, and
/// the thieves are left small tasks while the large rest waits unspawned.
pub const BACKLOG: usize = 3;

/// Whether the calling worker already offers thieves enough: at least `tasks` tasks
/// wait in its own deque, where its pool's other workers steal them (or, under `mts`,
/// in its squad's queue, where its mates take them and other squads steal them in
/// bulk), and no worker of the pool is searching for work or asleep. A layer may then
/// run a new task at once instead of spawning it (lazy task creation), and spawn again
/// once thieves have taken some. `false` off a worker. Tasks placed elsewhere
/// (inter-squad pools, inboxes, the central queue) are not counted. A hint, read
/// without synchronising with the thieves.
#[inline]
pub fn offers_enough(tasks: usize) -> bool {
    WorkerThread::current().is_some_and(|worker| worker.offers_enough(tasks))
}

/// The calling thread's worker, as a handle a layer keeps in its own per-thread state
/// while the thread runs its pool's work, to ask [`Worker::offers_enough`] without a
/// thread-local lookup of its own. It cannot leave its thread (not `Send`).
#[derive(Debug, Clone, Copy)]
pub struct Worker(*const WorkerThread);

impl Worker {
    /// The calling thread's worker; `None` off a worker.
    #[inline]
    pub fn current() -> Option<Worker> {
        WorkerThread::current().map(|w| Worker(w))
    }

    /// [`offers_enough`] of this worker.
    ///
    /// # Safety
    /// Called on the thread that got the handle, while that thread still runs its
    /// pool's work (inside a task or a broadcast it runs): the worker lives on that
    /// thread's stack until the thread leaves its pool.
    #[inline]
    pub unsafe fn offers_enough(self, tasks: usize) -> bool {
        // SAFETY: the caller's contract keeps the worker live.
        unsafe { (*self.0).offers_enough(tasks) }
    }
}

/// Wakes worker `index` of the calling worker's pool if it sleeps (after a fence; see
/// the module docs). Does nothing off a worker or for an index past the pool.
pub fn wake(index: usize) {
    if let Some(worker) = WorkerThread::current() {
        if index < worker.registry.num_workers() {
            worker.registry.sleep.wake(index);
        }
    }
}

/// Wakes every sleeping worker of the calling worker's pool (after a fence).
pub fn wake_all() {
    if let Some(worker) = WorkerThread::current() {
        worker.registry.sleep.wake_all();
    }
}

/// Publishes `task` on `pool` from any thread, through the pool's injector (where every
/// worker looks after its policy's search plan), and wakes a sleeping worker: for a
/// layer whose task-making thread is not a worker of the pool that runs its tasks (an
/// OpenMP team's encountering thread). The policy places the task's own spawns.
///
/// # Safety
/// As for [`spawn`]: `task` stays live and untouched until its `run` function is called
/// with it, is safe to run on another thread, and is published once.
pub unsafe fn inject(pool: &crate::ThreadPool, task: *mut RawTask) {
    // SAFETY: forwarded from the caller: live until run, run once.
    let job = unsafe { JobRef::new(task.cast_const()) };
    pool.registry().inject(job);
}

/// Runs on the calling thread one raw task of `pool` that no worker has started: one
/// [`inject`] published, or one a worker offers thieves. Returns whether one ran. For a
/// thread that waits on the pool's tasks without being one of its workers (an OpenMP
/// team's thread 0), so that it works while it waits, as a thief would. Runs nothing
/// where the pool's policy deals tasks to given workers, or the pool is traced (a task
/// run off the pool's workers would escape them), and only injected tasks where the
/// policy takes task events (the policy placed none of those, and hears nothing of
/// the ones run here).
pub fn help(pool: &crate::ThreadPool) -> bool {
    match pool.registry().take_raw_task() {
        Some(job) => {
            // SAFETY: `take_raw_task` handed this ref out once, by a steal from the
            // queue where it was published; the record stays live until it runs.
            unsafe { job.execute() };
            true
        }
        None => false,
    }
}

/// [`wake`] for worker `index` of `pool`, from any thread (after a fence).
pub fn wake_in(pool: &crate::ThreadPool, index: usize) {
    let registry = pool.registry();
    if index < registry.num_workers() {
        registry.sleep.wake(index);
    }
}

/// [`wake_all`] for `pool`, from any thread (after a fence).
pub fn wake_all_in(pool: &crate::ThreadPool) {
    pool.registry().sleep.wake_all();
}
