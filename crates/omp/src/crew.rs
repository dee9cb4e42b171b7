//! Crews: the worker threads that run OpenMP teams beside their encountering threads.
//!
//! A crew is a locus pool of `k` workers that one team of `k + 1` threads leases whole
//! while its region runs: the team's encountering thread is its thread 0, crew worker
//! `i` its thread `i + 1` (`team.rs`). Every worker of the pool is a member, so every
//! place the policy may put a task (a worker's deque or inbox, a squad's queue) is
//! drained by a member of the team that made it, and no other team's task is there.
//!
//! # Life of a crew
//! 1. **Built** on a miss: no free crew has `k` workers. Free crews are retired first,
//!    least recently used first, until the free crews' threads and the new crew's
//!    together are at most the largest crew's asked for so far, so the threads kept are
//!    bounded by the largest team (plus the teams running at once), as libgomp's are.
//!    Building (and retiring) happens with no lock held; a crew that cannot start its
//!    workers ends the process with status 3 ([`cannot_start`]), holding no lock.
//! 2. **Started**: a helper thread of the crew's own (small stack, blocked all its
//!    life) broadcasts the crew loop ([`Crew::serve`]) over the pool. From then on every
//!    worker sits in its share until the crew retires, never in the pool's idle loop.
//!    (A task injected to broadcast from a worker would spare the helper, but the policy
//!    would see it start and never end: a subtree holding its squad busy.)
//! 3. **Leased** by a team: taken out of the free list (the lock is held for the take
//!    only). [`Crew::post`] hands the workers the team's job, which each runs once as
//!    its member and then counts itself out (`left`); [`Crew::wait_left`] waits for all
//!    of them before the job's frame goes. Between posts a worker checks for the next
//!    post a while (spinning, then yielding: [`CHECKS`]), then blocks on the crew's
//!    condition variable, costing no CPU; a post makes the wake-up's system call only
//!    when some worker blocked.
//! 4. **Returned** to the free list (most recently used last).
//! 5. **Retired**: `retire` is posted, every share returns, the helper's broadcast
//!    returns and the helper is joined, the pool's statistics are kept for the
//!    `LOCUS_STATS` report, and the pool is dropped, which joins its workers.
//!
//! # Where the threads run
//! A crew's workers are pinned as its pool's policy and settings say (`LOCUS_PIN`,
//! `OMP_PROC_BIND`, `OMP_PLACES`; under the policies that pin, worker `i` on PU `i`,
//! which the policies' placement assumes). A team's thread 0 that is no locus worker
//! (the initial thread, or a program's own thread) is then kept off its crew's CPUs
//! ([`keep_apart`]): left unpinned, it shared one CPU with a pinned worker whenever the
//! kernel put it there (fib's slow mode: two threads on one CPU, 1.9x the time), as
//! libgomp's threads never do when it pins them. `omp_get_num_procs` answers the CPUs
//! the thread had before ([`num_procs`]).
//!
//! # Threads in use
//! `OMP_THREAD_LIMIT` bounds every team's threads: the workers leased by all teams at
//! once plus one are at most the limit ([`reserve`]), so a team asking past it gets
//! fewer workers (at least none: a team of one).

use crate::sync::{
    fence, AtomicBool, AtomicU64 as PostNumber, AtomicUsize, Condvar, Mutex, UnsafeCell,
};
use locus::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

/// The job a team posts to its crew: `job(i)` runs worker `i`'s member.
type Job = dyn Fn(usize) + Sync;

/// The hand-off between the team that leases a crew and the crew's workers: the team
/// posts a job, each worker takes each post's job once ([`Posts::next`]), runs it and
/// counts itself out ([`Posts::done`]); the team waits for all ([`Posts::all_left`])
/// before it posts again. `retire` ends the workers' loop. The loom model in
/// `src/tests/loom_crew.rs` checks that every worker runs every job once, that none
/// misses a post or the retirement, and that the team sees what they wrote.
///
/// A post takes no lock unless a worker blocked: the team writes the job, then moves
/// `number` (`Release`; a worker that sees it move reads the job after it, `Acquire`),
/// then fences and reads `sleepers`. Between posts a worker checks `number` a while
/// ([`CHECKS`]), then, under the lock, counts itself in `sleepers`, fences, checks
/// `number` again and blocks on the condition variable. The two fences are ordered: if
/// the team's is first, the worker's check sees the post; if the worker's is, the team
/// sees the sleeper, and notifies under the lock, which the worker holds from its count
/// until it blocks. So back-to-back regions pass neither a lock nor a system call
/// between them (a futex wake, even with nobody waiting, costs 244 ns on this machine).
pub(crate) struct Posts<J: Copy> {
    /// Posts made so far: a worker runs the job of each new one once. Written by the
    /// team only.
    number: PostNumber,
    /// The current post's job: written by the team before it moves `number`, and only
    /// once every worker has left the previous post (the contract of `post`), so never
    /// while a worker reads it.
    job: UnsafeCell<Option<J>>,
    /// Workers done with the current post's job.
    left: AtomicUsize,
    /// Workers that counted themselves (under `lock`) as about to block or blocked.
    sleepers: AtomicUsize,
    /// The crew retires: every worker's loop ends.
    retire: AtomicBool,
    /// Held by a worker from its count in `sleepers` until it blocks, and by the team
    /// while it notifies.
    lock: Mutex<()>,
    posted: Condvar,
}

// SAFETY: `job` is written by the team only while no worker reads it, and read only
// after the `Acquire` load of `number` that the write precedes (see the type's docs);
// everything else is atomics and a lock. The job itself is sent to the workers.
unsafe impl<J: Copy + Send> Sync for Posts<J> {}

/// Checks of [`Posts::number`] a worker makes for the next post before it blocks on the
/// condition variable, the first [`SPINS`] spinning, the rest yielding: back-to-back
/// regions then start without a wake-up through the kernel, as libgomp's threads spin
/// before they sleep (`GOMP_SPINCOUNT`). Guess, against `bench/regions.sh` (a wake-up
/// costs several microseconds, a region about one); one under loom, so that its models
/// stay small. None where the crews' workers outnumber the CPUs ([`checks`]).
#[cfg(not(loom))]
const CHECKS: u32 = 2048;
#[cfg(loom)]
const CHECKS: u32 = 1;
/// See [`CHECKS`]. Guess.
const SPINS: u32 = 1024;

/// Workers of every crew built and not retired, this process's.
static WORKERS_ALIVE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The checks a worker makes before it blocks: [`CHECKS`] while the crews' workers and
/// the initial thread fit the CPUs this process may use, else none, as libgomp throttles
/// its spin when it manages more threads than there are CPUs. A spinning or yielding
/// worker there takes the CPU from one with work: 99 workers of a team of 100 on two
/// CPUs, each yielding a thousand times after every region, made a program of a hundred
/// regions run for minutes.
fn checks() -> u32 {
    if cfg!(loom) || WORKERS_ALIVE.load(Ordering::Relaxed) < cpus() {
        CHECKS
    } else {
        0
    }
}

/// The CPUs this process may use, read once, by the thread that builds the first crew
/// ([`build`] asks before it starts any worker): a crew worker pinned to one PU would
/// read one.
fn cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

impl<J: Copy> Posts<J> {
    pub(crate) fn new() -> Posts<J> {
        Posts {
            number: PostNumber::new(0),
            job: UnsafeCell::new(None),
            left: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            retire: AtomicBool::new(false),
            lock: Mutex::new(()),
            posted: Condvar::new(),
        }
    }

    /// A worker's next job, once per post (`seen`: the last post it took), blocking
    /// until there is one; `None` once the crew retires.
    pub(crate) fn next(&self, seen: &mut u64) -> Option<J> {
        for check in 0..checks() {
            if self.number.load(Ordering::Acquire) != *seen {
                return Some(self.take(seen));
            }
            if check < SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // Relaxed: the fence orders it (see the type's docs).
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        // Pairs with the fence in `post`.
        fence(Ordering::SeqCst);
        loop {
            if self.number.load(Ordering::Acquire) != *seen {
                self.sleepers.fetch_sub(1, Ordering::Relaxed);
                drop(guard);
                return Some(self.take(seen));
            }
            if self.retire.load(Ordering::Acquire) {
                self.sleepers.fetch_sub(1, Ordering::Relaxed);
                return None;
            }
            guard = self.posted.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The job of the post after `seen`, which the caller saw `number` reach.
    fn take(&self, seen: &mut u64) -> J {
        *seen += 1;
        // SAFETY: the team wrote the job before it moved `number` to the post seen
        // (`Acquire` above), and writes it again only after this worker has left.
        let job = self.job.with(|job| unsafe { *job });
        job.expect("a post has a job")
    }

    /// A worker is done with the job [`Posts::next`] gave it.
    pub(crate) fn done(&self) {
        // Release: pairs with the `Acquire` in `all_left`, so the team sees what the
        // job wrote (and writes the next job only after this worker read this one).
        self.left.fetch_add(1, Ordering::Release);
    }

    /// Posts `job`; the previous post's workers must all have left.
    pub(crate) fn post(&self, job: J) {
        // Relaxed: the workers read it only after the `Release` below.
        self.left.store(0, Ordering::Relaxed);
        // SAFETY: every worker has left the previous post (the contract), and none
        // reads the job before `number` moves below.
        self.job.with_mut(|slot| unsafe { *slot = Some(job) });
        let number = self.number.load(Ordering::Relaxed) + 1;
        self.number.store(number, Ordering::Release);
        // Pairs with the fence in `next`.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.posted.notify_all();
        }
    }

    /// Whether `workers` workers are done with the current post's job.
    pub(crate) fn all_left(&self, workers: usize) -> bool {
        self.left.load(Ordering::Acquire) == workers
    }

    /// Ends every worker's loop: [`Posts::next`] answers `None` from now on (the
    /// current post's workers must all have left).
    pub(crate) fn retire(&self) {
        self.retire.store(true, Ordering::Release);
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.posted.notify_all();
    }
}

/// A posted job's address, its lifetime erased (see [`Crew::post`]).
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the job is `Sync`, and shared with the workers only while its poster keeps
// it live (`Crew::post`'s contract).
unsafe impl Send for JobPtr {}

/// One crew (see the module docs).
pub(crate) struct Crew {
    pub(crate) pool: ThreadPool,
    posts: Posts<JobPtr>,
    /// Tasks its teams ran at once rather than spawned (`task.rs`, `run_at_once`):
    /// each member adds its own count as it leaves a region.
    pub(crate) run_at_once: AtomicU64,
    /// Tasks of its pool its teams' threads 0 ran while they waited (`Local::helped`),
    /// which the pool's own count leaves out.
    pub(crate) helped: AtomicU64,
    /// The helper thread whose broadcast runs the crew loop; joined at retirement.
    helper: std::sync::Mutex<Option<JoinHandle<()>>>,
    /// Workers that have entered the crew loop ([`Crew::serve`]), which they leave only
    /// at retirement: see [`Crew::all_serving`].
    serving: std::sync::atomic::AtomicUsize,
    /// The crew's number among every crew built in this process, from 1 (see
    /// [`keep_apart`]).
    number: u64,
}

impl Crew {
    /// Workers in the crew.
    #[inline]
    pub(crate) fn workers(&self) -> usize {
        self.pool.num_threads()
    }

    /// Threads the crew keeps: its workers and its helper.
    fn threads(&self) -> usize {
        self.workers() + 1
    }

    /// Whether every worker is in the crew loop: none of them is still in its pool's
    /// own loop, on its way to its broadcast share, where it could take a task of the
    /// team before it is a member of it (`gather` in `team.rs`). Once true, true until
    /// the crew retires: between posts a worker waits in [`Posts::next`], which runs no
    /// task.
    pub(crate) fn all_serving(&self) -> bool {
        // Acquire: pairs with the increment in `serve`.
        self.serving.load(Ordering::Acquire) == self.workers()
    }

    /// The crew loop, run by worker `i` as its broadcast share until the crew retires.
    fn serve(&self, i: usize) {
        // Release: see `all_serving`.
        self.serving.fetch_add(1, Ordering::Release);
        let mut seen = 0;
        while let Some(job) = self.posts.next(&mut seen) {
            // SAFETY: the poster keeps the job live until every worker has counted
            // itself out (`post`'s contract).
            unsafe { (*job.0)(i) };
            self.posts.done();
        }
    }

    /// Hands `job` to every worker, which runs `job(i)` once.
    ///
    /// # Safety
    /// `job` stays live, and the crew leased by the caller, until [`Crew::wait_left`]
    /// returns; the caller calls it before the next post.
    pub(crate) unsafe fn post(&self, job: &(dyn Fn(usize) + Sync + '_)) {
        // SAFETY: a lifetime erased only for the pointer's storage (the contract keeps
        // the job live while workers may read it).
        let job: *const Job = unsafe { std::mem::transmute(job) };
        self.posts.post(JobPtr(job));
    }

    /// Waits until every worker has finished the posted job, running nothing.
    pub(crate) fn wait_left(&self) {
        let n = self.workers();
        crate::wait::outside(|| self.posts.all_left(n));
    }

    /// The crew's `LOCUS_STATS` report (`stats.rs`).
    fn describe(&self) -> String {
        crate::stats::describe(
            &self.pool,
            self.run_at_once.load(Ordering::Relaxed),
            self.helped.load(Ordering::Relaxed),
        )
    }

    /// Adds what a member of a team on this crew counted in the region it leaves: tasks
    /// it ran at once, and tasks of the pool it ran while it is no worker of the pool.
    pub(crate) fn count(&self, at_once: u64, helped: u64) {
        self.run_at_once.fetch_add(at_once, Ordering::Relaxed);
        if helped > 0 {
            self.helped.fetch_add(helped, Ordering::Relaxed);
        }
    }

    /// Wakes worker `index` if it sleeps in the pool (after a fence).
    pub(crate) fn wake(&self, index: usize) {
        locus::raw::wake_in(&self.pool, index);
    }

    /// Wakes every sleeping worker of the crew (after a fence).
    pub(crate) fn wake_all(&self) {
        locus::raw::wake_all_in(&self.pool);
    }

    /// Ends the crew loop, joins the helper, and gives the statistics to keep. The
    /// caller then drops the last reference, which joins the workers.
    fn retire(&self) -> String {
        WORKERS_ALIVE.fetch_sub(self.workers(), Ordering::Relaxed);
        self.posts.retire();
        let helper = self.helper.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(helper) = helper {
            // Its broadcast returns once every share has: the crew loop's end.
            let _ = helper.join();
        }
        self.describe()
    }
}

/// The crews of this process.
struct Crews {
    /// Free crews, least recently used first.
    free: Vec<Arc<Crew>>,
    /// Every crew not retired, free or leased (for the `LOCUS_STATS` report).
    live: Vec<Arc<Crew>>,
    /// The reports of retired crews.
    retired: Vec<String>,
    /// The most workers a crew was asked for.
    largest: usize,
}

static CREWS: std::sync::Mutex<Crews> = std::sync::Mutex::new(Crews {
    free: Vec::new(),
    live: Vec::new(),
    retired: Vec::new(),
    largest: 0,
});

/// Workers leased by all teams now (see [`reserve`]).
static LEASED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn crews() -> std::sync::MutexGuard<'static, Crews> {
    CREWS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Wakes every sleeping worker of every crew not retired (after a fence): for a thread
/// of no team (one of the program's own, calling `omp_fulfill_event`) that completed a
/// task a crew worker may wait for, not knowing which crew.
pub(crate) fn wake_every_crew() {
    for crew in &crews().live {
        crew.wake_all();
    }
}

/// `omp_pause_resource`: retires every free crew, so that its threads end (a later team
/// starts new ones, their `threadprivate` data fresh, as after libgomp's pause). Crews
/// leased by running teams are kept.
pub(crate) fn retire_free() {
    let retire = {
        let mut c = crews();
        let free = std::mem::take(&mut c.free);
        c.live
            .retain(|live| !free.iter().any(|f| Arc::ptr_eq(live, f)));
        free
    };
    for crew in retire {
        let report = crew.retire();
        crews().retired.push(report);
        // The last reference: the pool's drop joins its workers, with no lock held.
        drop(crew);
    }
}

/// A crew leased by one team; returned to the free list when dropped.
pub(crate) struct Lease {
    crew: Arc<Crew>,
}

impl std::ops::Deref for Lease {
    type Target = Crew;
    fn deref(&self) -> &Crew {
        &self.crew
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        LEASED.fetch_sub(self.crew.workers(), Ordering::Relaxed);
        crews().free.push(Arc::clone(&self.crew));
    }
}

/// Up to `wanted` workers within `OMP_THREAD_LIMIT`, counted as leased: how many.
fn reserve(wanted: usize) -> usize {
    let limit = crate::env::thread_limit();
    let mut now = LEASED.load(Ordering::Relaxed);
    loop {
        // The threads of every team at once, plus one initial thread, within the limit.
        let k = wanted.min(limit.saturating_sub(now + 1));
        if k == 0 {
            return 0;
        }
        match LEASED.compare_exchange_weak(now, now + k, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return k,
            Err(v) => now = v,
        }
    }
}

/// A crew of up to `wanted` workers for a team (fewer where `OMP_THREAD_LIMIT` leaves
/// fewer), or `None` for a team of one. Builds one if none is free (see the module
/// docs).
pub(crate) fn lease(wanted: usize) -> Option<Lease> {
    let k = reserve(wanted);
    if k == 0 {
        return None;
    }
    let retire = {
        let mut c = crews();
        c.largest = c.largest.max(k);
        if let Some(at) = c.free.iter().rposition(|crew| crew.workers() == k) {
            let crew = c.free.remove(at);
            drop(c);
            keep_apart(&crew);
            return Some(Lease { crew });
        }
        let mut retire = Vec::new();
        let mut kept: usize = c.free.iter().map(|crew| crew.threads()).sum();
        // The threads kept, the new crew's included, at most the largest crew's.
        while kept + (k + 1) > c.largest + 1 && !c.free.is_empty() {
            let crew = c.free.remove(0);
            kept -= crew.threads();
            c.live.retain(|live| !Arc::ptr_eq(live, &crew));
            retire.push(crew);
        }
        retire
    };
    for crew in retire {
        let report = crew.retire();
        crews().retired.push(report);
        // The last reference: the pool's drop joins its workers, here, with no lock held.
        drop(crew);
    }
    let crew = build(k);
    let first = {
        let mut c = crews();
        c.live.push(Arc::clone(&crew));
        c.live.len() == 1 && c.retired.is_empty()
    };
    if first && crate::env::settings().stats {
        print_at_exit();
    }
    keep_apart(&crew);
    Some(Lease { crew })
}

/// Crews built so far in this process.
static BUILT: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The number of the crew this thread was last kept apart from (0: none).
    static APART: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// The CPUs this thread could use before locus first bound it, and those it is bound
    /// to now (`None`: never bound).
    static BOUND: std::cell::RefCell<Option<(Vec<usize>, Vec<usize>)>> =
        const { std::cell::RefCell::new(None) };
}

/// Keeps the calling thread, thread 0 of a team on `crew`, off the CPUs the crew's
/// workers are pinned to, where it has others: it may run on every CPU it could before
/// locus first bound it but theirs. A thread that is a locus worker (thread 0 of a
/// nested team) keeps its own pinning. Nothing is done while the thread meets the crew
/// it was last kept apart from; where a crew pins nothing, or its workers hold every
/// CPU the thread had, the thread gets those back.
fn keep_apart(crew: &Crew) {
    if APART.with(|a| a.get()) == crew.number || locus::raw::Worker::current().is_some() {
        return;
    }
    APART.with(|a| a.set(crew.number));
    let taken: Vec<usize> = (0..crew.workers())
        .flat_map(|w| crew.pool.worker_cpus(w).iter().copied())
        .collect();
    BOUND.with(|bound| {
        let mut bound = bound.borrow_mut();
        if bound.is_none() {
            match crate::cpus::thread_cpus() {
                Some(had) if !taken.is_empty() => *bound = Some((had.clone(), had)),
                _ => return,
            }
        }
        let Some((had, now)) = bound.as_mut() else {
            return;
        };
        let apart: Vec<usize> = had.iter().copied().filter(|c| !taken.contains(c)).collect();
        let cpus = if apart.is_empty() { had.clone() } else { apart };
        if cpus == *now {
            return;
        }
        if crate::cpus::set_thread_cpus(&cpus) {
            *now = cpus;
        } else {
            cannot_bind(&cpus);
        }
    });
}

/// Says once that a thread 0 could not be bound (it then runs where it did).
fn cannot_bind(cpus: &[usize]) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "locus: could not bind a team's thread 0 to CPUs {}: it runs where it did",
            locus_topo::format_ranges(cpus)
        )
    });
}

/// `omp_get_num_procs`: the CPUs the calling thread may run on, as before locus bound
/// it: a thread 0 kept apart from its crew ([`keep_apart`]) counts those it had; a crew
/// worker those of the process when the first crew was built (libgomp's
/// `gomp_available_cpus` where it binds); any other thread its own.
pub(crate) fn num_procs() -> usize {
    let had = BOUND.with(|b| b.borrow().as_ref().map(|(had, _)| had.len()));
    let n = match had {
        Some(n) => n,
        None if locus::raw::Worker::current().is_some() => *PROCESS_CPUS.get_or_init(own_cpus),
        None => own_cpus(),
    };
    n.max(1)
}

/// The CPUs the calling thread may run on, counted (1 if the kernel does not say).
fn own_cpus() -> usize {
    crate::cpus::thread_cpus().map_or(1, |c| c.len())
}

/// The CPUs of the process as the thread that built the first crew could use them,
/// before any crew was pinned.
static PROCESS_CPUS: OnceLock<usize> = OnceLock::new();

/// Builds and starts a crew of `k` workers; a failure ends the process (status 3).
fn build(k: usize) -> Arc<Crew> {
    cpus();
    PROCESS_CPUS.get_or_init(own_cpus);
    let pool = match builder().num_threads(k).build() {
        Ok(pool) => pool,
        Err(e) => cannot_start(&locus::error_chain(&e)),
    };
    WORKERS_ALIVE.fetch_add(k, Ordering::Relaxed);
    let crew = Arc::new(Crew {
        pool,
        posts: Posts::new(),
        run_at_once: AtomicU64::new(0),
        helped: AtomicU64::new(0),
        helper: std::sync::Mutex::new(None),
        serving: std::sync::atomic::AtomicUsize::new(0),
        number: BUILT.fetch_add(1, Ordering::Relaxed) + 1,
    });
    let serving = Arc::clone(&crew);
    let helper = std::thread::Builder::new()
        .name("locus-crew".into())
        .stack_size(HELPER_STACK)
        .spawn(move || {
            crate::guard::guard("a team's workers", || {
                serving.pool.broadcast(|i| serving.serve(i))
            })
        });
    match helper {
        Ok(helper) => *crew.helper.lock().unwrap_or_else(|e| e.into_inner()) = Some(helper),
        Err(e) => cannot_start(&format!("a crew's helper thread: {e}")),
    }
    crew
}

/// The helper's stack: it only broadcasts and waits. Guess, with room to spare.
const HELPER_STACK: usize = 256 << 10;

/// The pool builder of crews: the `LOCUS_*` settings, `OMP_STACKSIZE` and the pinning
/// `OMP_PROC_BIND`/`OMP_PLACES` ask for. A bad `LOCUS_*` value is bad input (status 2).
fn builder() -> ThreadPoolBuilder {
    let s = crate::env::settings();
    let mut builder = match ThreadPoolBuilder::from_env() {
        Ok(b) => b,
        Err(e) => crate::env::fail(&locus::error_chain(&e)),
    };
    if let Some(stack) = s.stack {
        builder = builder.stack_size(stack);
    }
    if let Some(pinning) = s.pinning {
        builder = builder.pinning(pinning);
    }
    builder
}

/// Team workers could not start: says so and ends the process with status 3, locus's
/// code for a run that could not be made (`crates/cli`). No lock of this library is
/// held by the caller, so the `LOCUS_STATS` report at exit can run.
fn cannot_start(why: &str) -> ! {
    eprintln!("locus: cannot start the OpenMP team's workers: {why}");
    std::process::exit(3)
}

/// The threads of a team without `num_threads` or `OMP_NUM_THREADS`: `LOCUS_NUM_THREADS`,
/// else one per PU of the machine (`LOCUS_TOPOLOGY`'s, else this one's, as far as the
/// process's affinity mask allows), as a locus pool would have.
pub(crate) fn default_threads() -> usize {
    static DEFAULT: OnceLock<usize> = OnceLock::new();
    *DEFAULT.get_or_init(|| {
        // Checks every `LOCUS_*` setting, as building a pool would.
        builder();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if let Some(n) = var("LOCUS_NUM_THREADS").and_then(|v| v.trim().parse().ok()) {
            return n;
        }
        let topology = match var("LOCUS_TOPOLOGY") {
            Some(spec) => locus::Topology::parse_spec(&spec),
            None => locus::Topology::discover(),
        };
        match topology {
            Ok(t) => t.num_pus().clamp(1, locus::MAX_THREADS),
            Err(e) => cannot_start(&locus::error_chain(&e)),
        }
    })
}

/// The reports of every crew so far, retired ones first (`stats.rs`).
pub(crate) fn reports() -> Vec<String> {
    let (mut out, live) = {
        let c = crews();
        (c.retired.clone(), c.live.clone())
    };
    out.extend(live.iter().map(|crew| crew.describe()));
    out
}

/// Registers the report with `atexit`; called once, as the first crew is built.
pub(crate) fn print_at_exit() {
    // SAFETY: `report` is an `extern "C" fn()` that stays loaded until exit (this
    // library is never unloaded: it is the program's libgomp).
    if unsafe { libc::atexit(report) } != 0 {
        eprintln!("locus: could not register the LOCUS_STATS report");
    }
}

extern "C" fn report() {
    crate::guard::guard("the LOCUS_STATS report", || {
        for report in reports() {
            eprint!("{report}");
        }
    });
}
