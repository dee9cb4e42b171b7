//! rayon's pool API beyond `join`, `scope` and `install`: detached spawns ([`spawn`],
//! [`spawn_fifo`]), a worker's yield ([`yield_now`], [`yield_local`]), the calling
//! thread's index and pool size, rayon's [`broadcast`], and the [`ThreadPool`] methods
//! that do the same on a given pool.
//!
//! # Detached spawns
//! A detached spawn is a `'static` job nobody waits for. Its pool counts it in
//! [`Detached`] before publishing it and uncounts it after it has run, and the pool's
//! workers leave only once `terminate` is set *and* that count is zero
//! (`Registry::main_loop`): dropping the handle loses no spawn. The handle's drop waits
//! for none of them either: it joins the workers only when no spawn is outstanding, and
//! otherwise leaves them to finish and exit on their own, as rayon's pool does.
//!
//! A spawn's panic goes to the pool's panic handler
//! ([`crate::ThreadPoolBuilder::panic_handler`]); a pool without one aborts the process,
//! as rayon's does: nobody waits for the spawn to resume the panic on.
//!
//! ## The last spawn after `terminate`
//! A worker leaves when it sees `terminate` and no outstanding spawn; it may have read
//! the count before the last spawn ended, and gone to sleep. The job that takes the
//! count to zero therefore fences (`SeqCst`) and reads `terminate`; seen, it wakes every
//! worker. The drop that sets `terminate` fences in `Sleep::wake_all` before reading the
//! sleepers: of the two fences, the one later in the single `SeqCst` order sees the
//! other's write, so either the job sees `terminate` and wakes the sleepers, or the
//! drop's wake-up (or the sleeper's re-check, fenced by the handshake of
//! `sleep/README.md`) sees the count at zero. Modelled in `tests/loom_detached.rs`.
//!
//! # FIFO spawns
//! [`spawn_fifo`] and [`ScopeFifo::spawn_fifo`] keep rayon's order with rayon's trick:
//! the body goes into a FIFO queue of the spawning worker (per pool, or per scope), and
//! a stand-in job that runs the oldest body of that queue goes onto the worker's own
//! (LIFO) deque. Whoever runs a stand-in, owner or thief, runs the oldest body the
//! spawning worker left, so one worker's FIFO spawns start in the order they were made.
//! From outside the pool the injector is FIFO already.

use crate::job::{HasHeader, Job, JobHeader, JobRef};
use crate::pool::{global, ThreadPool};
use crate::queue::SharedQueue;
use crate::registry::{Registry, WorkerThread};
use crate::scope::{Scope, ScopePtr};
use crate::sleep::Sleep;
use crate::sync::{fence, AtomicBool, AtomicUsize};
use crate::unwind::{self, AbortIfPanic};
use locus_task::Spawner;
use std::any::Any;
use std::fmt;
use std::panic::Location;
use std::ptr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What a pool does with the panic of a detached spawn (see
/// [`crate::ThreadPoolBuilder::panic_handler`]).
pub(crate) type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;

/// A detached spawn's body, boxed, as the FIFO queues hold it.
type Body = Box<dyn FnOnce() + Send>;

/// A pool's detached spawns: how many are outstanding, what their panics go to, and the
/// per-worker FIFO queues of [`spawn_fifo`].
pub(crate) struct Detached {
    /// Spawns published and not yet finished.
    outstanding: AtomicUsize,
    /// Set once, before the workers start.
    pub(crate) panic_handler: Option<PanicHandler>,
    /// Per worker, the bodies of its FIFO spawns not yet started.
    fifos: Box<[SharedQueue<Body>]>,
}

impl Detached {
    /// The state of a pool of `workers` workers, with no panic handler.
    pub(crate) fn new(workers: usize) -> Detached {
        Detached {
            outstanding: AtomicUsize::new(0),
            panic_handler: None,
            fifos: (0..workers).map(|_| SharedQueue::new()).collect(),
        }
    }

    /// Counts a spawn about to be published.
    pub(crate) fn add(&self) {
        self.outstanding.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether no spawn is outstanding. Acquire pairs with the release of `done`'s
    /// decrement: a worker that leaves has seen every spawn's effects.
    pub(crate) fn none_outstanding(&self) -> bool {
        self.outstanding.load(Ordering::Acquire) == 0
    }

    /// Uncounts a finished spawn; the last one after `terminate` wakes every worker
    /// (see the module docs).
    pub(crate) fn done(&self, sleep: &Sleep, terminate: &AtomicBool) {
        if self.outstanding.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Pairs with the fence in `Sleep::wake_all` after `terminate` is set.
            fence(Ordering::SeqCst);
            if terminate.load(Ordering::Relaxed) {
                sleep.wake_all();
            }
        }
    }

    /// Hands a spawn's panic to the handler, or aborts where there is none.
    fn panicked(&self, payload: Box<dyn Any + Send>) {
        match &self.panic_handler {
            Some(handler) => {
                // A panicking handler aborts, as rayon's does.
                let abort = AbortIfPanic;
                handler(payload);
                std::mem::forget(abort);
            }
            None => {
                eprintln!(
                    "locus: a spawned task panicked and the pool has no panic handler; aborting"
                );
                std::process::abort();
            }
        }
    }
}

impl fmt::Debug for Detached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Detached")
            .field("outstanding", &self.outstanding.load(Ordering::Relaxed))
            .field("panic_handler", &self.panic_handler.is_some())
            .finish()
    }
}

/// A detached spawn's job: boxed, frees itself when run, uncounts itself after.
#[repr(C)]
struct DetachedJob<F> {
    header: JobHeader,
    func: F,
}

// SAFETY: `repr(C)` with the header first.
unsafe impl<F> HasHeader for DetachedJob<F> {}

impl<F: FnOnce() + Send + 'static> Job for DetachedJob<F> {
    unsafe fn execute(this: *const (), end: Option<&mut dyn FnMut()>) {
        // SAFETY: made by `spawn_in` from `Box::into_raw`, executed once.
        let job = unsafe { Box::from_raw(this as *mut Self) };
        let worker = WorkerThread::current().expect("a detached spawn runs on a worker");
        let detached = &worker.registry.detached;
        if let Err(p) = unwind::halt_unwinding(job.func) {
            detached.panicked(p);
        }
        if let Some(end) = end {
            end();
        }
        detached.done(&worker.registry.sleep, worker.registry.terminate_flag());
    }
}

/// Publishes `func` as a detached spawn of `registry`: onto the own deque of a worker of
/// that pool (placed by its policy, as the task's next spawn), into the injector from
/// anywhere else (a root named after `location`).
fn spawn_in<F>(registry: &Registry, location: &Location<'_>, func: F)
where
    F: FnOnce() + Send + 'static,
{
    registry.detached.add();
    let mut job = Box::new(DetachedJob {
        header: JobHeader::new(Spawner::root_info(location)),
        func,
    });
    match WorkerThread::current() {
        Some(worker) if ptr::eq(&*worker.registry, registry) => {
            let mut ctx = worker.ctx.get();
            job.header = JobHeader::new(ctx.next_spawn(0));
            worker.ctx.set(ctx);
            // SAFETY: the box lives until its one execution reclaims it; the job owns
            // everything it touches ('static).
            worker.push(unsafe { JobRef::new(Box::into_raw(job)) });
        }
        // SAFETY: as above.
        _ => registry.inject(unsafe { JobRef::new(Box::into_raw(job)) }),
    }
}

/// `spawn_fifo` on `registry` (see the module docs, "FIFO spawns").
fn spawn_fifo_in<F>(registry: &Registry, location: &Location<'_>, func: F)
where
    F: FnOnce() + Send + 'static,
{
    match WorkerThread::current() {
        Some(worker) if ptr::eq(&*worker.registry, registry) => {
            let index = worker.index;
            registry.detached.fifos[index].push(Box::new(func));
            spawn_in(registry, location, move || {
                let worker = WorkerThread::current().expect("a spawn runs on a worker");
                let body = worker.registry.detached.fifos[index]
                    .pop_oldest()
                    .expect("each stand-in has its body in the spawner's FIFO");
                body();
            });
        }
        _ => spawn_in(registry, location, func),
    }
}

/// The registry of the pool the caller runs on, else the global pool's.
fn current_registry() -> &'static Arc<Registry> {
    match WorkerThread::current() {
        Some(worker) => &worker.registry,
        None => global().registry(),
    }
}

/// Runs `func` on the current pool (the global pool outside any), detached: `spawn`
/// returns at once, and nothing waits for `func`. rayon's `rayon::spawn`.
///
/// `func` must own what it touches (`'static`); to wait for spawns that borrow, use
/// [`crate::scope`]. A panic in `func` goes to the pool's panic handler
/// ([`crate::ThreadPoolBuilder::panic_handler`]), or aborts the process where there is
/// none (the global pool has none), as rayon's does. The spawn runs even if the pool's
/// handle is dropped first.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// locus::spawn(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
#[track_caller]
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_in(current_registry(), Location::caller(), func);
}

/// [`spawn`], in first-in first-out order with the other FIFO spawns of the same thread
/// (see the module docs). rayon's `rayon::spawn_fifo`.
#[track_caller]
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_fifo_in(current_registry(), Location::caller(), func);
}

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Yield {
    /// Another job was run.
    Executed,
    /// No job was found to run.
    Idle,
}

/// Runs one pending job of the current pool, found as a waiting worker finds one (a
/// broadcast's share, then the policy's search), if there is any: `Some(Executed)`;
/// `Some(Idle)` if none was found; `None` on a thread of no pool. rayon's
/// `rayon::yield_now`.
pub fn yield_now() -> Option<Yield> {
    WorkerThread::current().map(|w| yielded(w.yield_one(false)))
}

/// [`yield_now`], taking only from the worker's own deque. rayon's
/// `rayon::yield_local`.
pub fn yield_local() -> Option<Yield> {
    WorkerThread::current().map(|w| yielded(w.yield_one(true)))
}

fn yielded(ran: bool) -> Yield {
    if ran {
        Yield::Executed
    } else {
        Yield::Idle
    }
}

/// The index of the calling worker in its pool, `None` on a thread of no pool. rayon's
/// `rayon::current_thread_index` (locus's [`crate::current_worker_index`]).
pub fn current_thread_index() -> Option<usize> {
    crate::current_worker_index()
}

/// The number of workers of the current pool, or of the global pool outside any (which
/// it builds if it is not yet). rayon's `rayon::current_num_threads`.
pub fn current_num_threads() -> usize {
    current_registry().num_workers()
}

/// What a share of a [`broadcast`] is told: which worker runs it, of how many.
#[derive(Debug, Clone, Copy)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    /// Only `broadcast` makes one, and it does not outlive the call (as rayon's).
    marker: std::marker::PhantomData<&'a ()>,
}

impl BroadcastContext<'_> {
    /// The index of the worker running this share.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers, hence of shares.
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Runs `op` on every worker of the current pool (the global pool outside any), all at
/// once, and returns their results in worker order. rayon's `rayon::broadcast`.
#[track_caller]
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    broadcast_collect(current_registry(), Location::caller(), op)
}

fn broadcast_collect<OP, R>(registry: &Arc<Registry>, location: &Location<'_>, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let n = registry.num_workers();
    let results: Vec<std::sync::Mutex<Option<R>>> =
        (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    crate::broadcast::broadcast_in(registry, location, &|index| {
        let ctx = BroadcastContext {
            index,
            num_threads: n,
            marker: std::marker::PhantomData,
        };
        let r = op(ctx);
        *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every worker ran its share")
        })
        .collect()
}

/// A scope whose spawns from one thread start in the order they were made (rayon's
/// `ScopeFifo`): [`scope_fifo`], [`ThreadPool::scope_fifo`].
pub struct ScopeFifo<'scope> {
    base: Scope<'scope>,
    /// Per worker, the bodies of its FIFO spawns into this scope not yet started.
    fifos: Box<[SharedQueue<FifoBody<'scope>>]>,
}

type FifoBody<'scope> = Box<dyn FnOnce(&ScopeFifo<'scope>) + Send + 'scope>;

impl fmt::Debug for ScopeFifo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopeFifo")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// Spawns `body` into the scope, after this thread's earlier FIFO spawns into it.
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        let this = ScopePtr(self as *const ScopeFifo<'scope>);
        match self.base.own_worker() {
            Some(index) => {
                self.fifos[index].push(Box::new(body));
                self.base.spawn(move |_| {
                    let this = this;
                    // SAFETY: the scope outlives its spawns (it waits for them).
                    let scope = unsafe { &*this.0 };
                    let body = scope.fifos[index]
                        .pop_oldest()
                        .expect("each stand-in has its body in the spawner's FIFO");
                    body(scope);
                });
            }
            None => self.base.spawn(move |_| {
                let this = this;
                // SAFETY: as above.
                body(unsafe { &*this.0 });
            }),
        }
    }
}

/// [`crate::scope`] whose spawns from one thread start in the order they were made
/// ([`ScopeFifo::spawn_fifo`]). rayon's `rayon::scope_fifo`.
#[track_caller]
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    let location = Location::caller();
    match WorkerThread::current() {
        Some(worker) => scope_fifo_in(worker, op),
        None => global()
            .registry()
            .in_worker(location, |worker| scope_fifo_in(worker, op)),
    }
}

fn scope_fifo_in<'scope, OP, R>(worker: &WorkerThread, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let scope = ScopeFifo {
        base: Scope::open(worker),
        fifos: (0..worker.registry.num_workers())
            .map(|_| SharedQueue::new())
            .collect(),
    };
    let result = unwind::halt_unwinding(|| op(&scope));
    scope.base.complete(result)
}

/// [`crate::scope`] run on the calling thread, whatever it is: `op` need not be `Send`.
/// Its spawns run on the current pool (the global pool outside any); the caller waits
/// for them there as a `scope` does on a worker of that pool, and blocks otherwise.
/// rayon's `rayon::in_place_scope`.
#[track_caller]
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place_scope_on(current_registry(), Location::caller(), op)
}

/// [`in_place_scope`] whose spawns from one thread start in the order they were made.
/// rayon's `rayon::in_place_scope_fifo`.
#[track_caller]
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place_scope_fifo_on(current_registry(), Location::caller(), op)
}

fn in_place_scope_on<'scope, OP, R>(registry: &Arc<Registry>, location: &Location<'_>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let scope = match WorkerThread::current() {
        Some(worker) if Arc::ptr_eq(&worker.registry, registry) => Scope::open(worker),
        _ => Scope::open_blocking(registry, location),
    };
    let result = unwind::halt_unwinding(|| op(&scope));
    scope.complete(result)
}

fn in_place_scope_fifo_on<'scope, OP, R>(
    registry: &Arc<Registry>,
    location: &Location<'_>,
    op: OP,
) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let base = match WorkerThread::current() {
        Some(worker) if Arc::ptr_eq(&worker.registry, registry) => Scope::open(worker),
        _ => Scope::open_blocking(registry, location),
    };
    let scope = ScopeFifo {
        base,
        fifos: (0..registry.num_workers())
            .map(|_| SharedQueue::new())
            .collect(),
    };
    let result = unwind::halt_unwinding(|| op(&scope));
    scope.base.complete(result)
}

impl ThreadPool {
    /// [`spawn`] on this pool.
    #[track_caller]
    pub fn spawn<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_in(self.registry(), Location::caller(), func);
    }

    /// [`spawn_fifo`] on this pool.
    #[track_caller]
    pub fn spawn_fifo<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_fifo_in(self.registry(), Location::caller(), func);
    }

    /// [`scope_fifo`] on this pool. The caller waits as [`ThreadPool::install`]'s does.
    #[track_caller]
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.registry()
            .in_worker(Location::caller(), |worker| scope_fifo_in(worker, op))
    }

    /// [`in_place_scope`] whose spawns run on this pool.
    #[track_caller]
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        in_place_scope_on(self.registry(), Location::caller(), op)
    }

    /// [`in_place_scope_fifo`] whose spawns run on this pool.
    #[track_caller]
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        in_place_scope_fifo_on(self.registry(), Location::caller(), op)
    }

    /// [`crate::join`] on this pool (rayon's `ThreadPool::join`).
    #[track_caller]
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::join(a, b))
    }

    /// [`yield_now`] if the caller is a worker of this pool; `None` otherwise.
    pub fn yield_now(&self) -> Option<Yield> {
        self.own_worker().map(|w| yielded(w.yield_one(false)))
    }

    /// [`yield_local`] if the caller is a worker of this pool; `None` otherwise.
    pub fn yield_local(&self) -> Option<Yield> {
        self.own_worker().map(|w| yielded(w.yield_one(true)))
    }

    /// The number of workers (rayon's `ThreadPool::current_num_threads`).
    pub fn current_num_threads(&self) -> usize {
        self.num_threads()
    }

    /// rayon's `ThreadPool::broadcast`: `op` on every worker at once, the results in
    /// worker order (see [`ThreadPool::broadcast`] for how it runs).
    #[track_caller]
    pub fn broadcast_each<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        broadcast_collect(self.registry(), Location::caller(), op)
    }

    fn own_worker(&self) -> Option<&'static WorkerThread> {
        WorkerThread::current().filter(|w| Arc::ptr_eq(&w.registry, self.registry()))
    }
}
