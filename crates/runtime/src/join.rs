//! `join`: run two closures, potentially in parallel, and return both results.
//!
//! The worker pushes the second closure as a job where the policy places it, runs the
//! first itself, and then takes the second back if nobody has started it; otherwise it
//! works on other jobs (or sleeps) until the second's latch is set. Where the worker's
//! joins run as `ws` (under `ws`, and under a bi-tier policy once it keeps its spawns
//! local), the second closure waits in the worker's frames (`frames.rs`) rather than on
//! its deque: thieves take it from there as from the deque, and a join nobody steals
//! costs the owner no fence and no atomic read-modify-write. Both closures always run, also when the first panics; a panic of
//! either reaches the caller, the first's if both panic.
//!
//! Taking back also applies to the queues of the non-stealing policies (an inbox, a
//! squad queue, the central queue). Qthreads gives each task a stack of its own, so a
//! task waiting at a join costs it nothing; locus runs tasks on the worker's stack, and
//! a worker that ran unrelated queued work at every join could nest without bound under
//! FIFO order. Taking back its own half bounds the nesting to what work stealing has.
//!
//! Where the policy places the second half in the worker's own squad's queue and that
//! queue already holds enough for the idle workers and more, the half is not queued at
//! all: the worker runs it after the first (`WorkerThread::push_half`), without the
//! queue's lock. Where the policy has said that it runs as `ws` for good
//! (`Policy::spawns_stay_local`), the half goes to the own deque without asking it.

use crate::job::StackJob;
use crate::latch::WorkerLatch;
use crate::registry::WorkerThread;
use crate::unwind;
use locus_policy::Source;
use locus_task::{JoinSite, Spawner};
use std::panic::Location;

/// Runs `a` and `b`, potentially in parallel, and returns `(a(), b())`.
///
/// Called from outside a pool, it runs on the global pool (see [`crate::global`]).
/// Both closures always run. If either panics, the panic is resumed here after both
/// have finished; if both panic, `a`'s.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
#[track_caller]
#[inline]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let site = JoinSite::of(Location::caller());
    match WorkerThread::current() {
        Some(worker) => join_in(worker, site, a, b),
        None => join_cold(Location::caller(), site, a, b),
    }
}

#[cold]
fn join_cold<A, B, RA, RB>(location: &Location<'_>, site: JoinSite, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    crate::pool::global_registry().in_worker(location, |worker| join_in(worker, site, a, b))
}

/// Puts the parent's task context back when dropped, also when `b` unwinds.
struct RestoreCtx<'w>(&'w WorkerThread, Spawner);

impl Drop for RestoreCtx<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.ctx.set(self.1);
    }
}

/// `join` on a worker. Inlined always, as `join` is: the caller's body then holds the
/// whole fast path, so a recursive caller (fib) recurses through itself with its
/// closures inlined here, and the join site is a constant in it.
#[inline(always)]
pub(crate) fn join_in<A, B, RA, RB>(worker: &WorkerThread, site: JoinSite, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if worker.events() {
        return join_with_events(worker, site, a, b);
    }
    let parent = worker.ctx.get();
    let (info_a, info_b) = parent.join_children(site);

    let job_b = StackJob::new(
        info_b,
        b,
        WorkerLatch::new(&worker.registry.sleep, worker.index),
    );
    // SAFETY: `job_b` stays on this frame until it has run: below we either take it back
    // (then nobody else has it) or wait for its latch.
    let job_b_ref = unsafe { job_b.as_job_ref() };
    // Frames full (a join nested deeper than they hold): the deque, as any other half.
    let framed = if worker.joins_stay_local() {
        worker.frames().push(job_b_ref)
    } else {
        None
    };
    let half = match framed {
        Some(slot) => {
            worker.announce_local_work();
            Half::Framed(slot)
        }
        None => match worker.push_join_half(job_b_ref) {
            Some(place) => Half::Placed(place),
            None => Half::Kept,
        },
    };

    worker.ctx.set(Spawner::of(info_a));
    let result_a = unwind::halt_unwinding(a);

    let ours = match half {
        Half::Framed(slot) => worker.frames().pop(slot),
        Half::Kept => true,
        Half::Placed(place) => worker.take_back(&job_b_ref, place),
    };
    if ours {
        worker.ctx.set(Spawner::of(info_b));
        worker.count_tasks(2);
        match result_a {
            // The common case: run `b` here; a panic of `b` unwinds from here directly.
            Ok(ra) => {
                let _restore = RestoreCtx(worker, parent);
                (ra, job_b.run_inline())
            }
            // `a` panicked: `b` still runs, and `a`'s panic wins over any of `b`'s.
            Err(panic) => {
                let _ = unwind::halt_unwinding(|| job_b.run_inline());
                worker.ctx.set(parent);
                unwind::resume_unwinding(panic)
            }
        }
    } else {
        worker.ctx.set(parent);
        worker.count_tasks(1);
        if !job_b.latch.probe() {
            worker.wait_until_cold(|| job_b.latch.probe());
        }
        if let Half::Framed(slot) = half {
            // Back at this join with whatever ran meanwhile finished: the thieves'
            // claims up to this slot end here.
            worker.frames().release(slot);
        }
        match result_a {
            Ok(ra) => (ra, job_b.into_result()),
            Err(panic) => unwind::resume_unwinding(panic),
        }
    }
}

/// Where a `join`'s second half waits while the first runs.
#[derive(Clone, Copy)]
enum Half {
    /// In the worker's frames, at this slot (`frames.rs`): joins that run as `ws`.
    Framed(usize),
    /// Nowhere: nobody else can take it ([`WorkerThread::push_half`]).
    Kept,
    /// Published where the policy placed it.
    Placed(locus_policy::Place),
}

/// `join` under a policy that wants task events (the bi-tier policies): every half is
/// reported to the policy as it starts and finishes, and where the policy says so the
/// first half is generated parent-first (placed like the second, both run from the
/// queues while this worker waits, working as its plan allows). Both halves' panics are
/// caught here, so a started task is always reported finished.
#[inline(never)]
fn join_with_events<A, B, RA, RB>(worker: &WorkerThread, site: JoinSite, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let parent = worker.ctx.get();
    let (info_a, info_b) = parent.join_children(site);
    let sleep = &worker.registry.sleep;
    let job_b = StackJob::new(info_b, b, WorkerLatch::new(sleep, worker.index));
    // SAFETY: `job_b` stays on this frame until it has run (taken back and run here,
    // or its latch waited for below).
    let job_b_ref = unsafe { job_b.as_job_ref() };
    let parent_first = worker
        .registry
        .policy
        .parent_first(worker.index, &parent.info(), &info_a);

    if parent_first {
        let job_a = StackJob::new(info_a, a, WorkerLatch::new(sleep, worker.index));
        // SAFETY: as for `job_b`: this frame waits for its latch below.
        let job_a_ref = unsafe { job_a.as_job_ref() };
        worker.push(job_a_ref);
        worker.push(job_b_ref);
        if !(job_a.latch.probe() && job_b.latch.probe()) {
            worker.wait_until_cold(|| job_a.latch.probe() && job_b.latch.probe());
        }
        let ra = unwind::halt_unwinding(|| job_a.into_result());
        let rb = unwind::halt_unwinding(|| job_b.into_result());
        return match (ra, rb) {
            (Ok(ra), Ok(rb)) => (ra, rb),
            (Err(panic), _) | (Ok(_), Err(panic)) => unwind::resume_unwinding(panic),
        };
    }

    let place = worker.push(job_b_ref);
    worker.ctx.set(Spawner::of(info_a));
    worker.count_tasks(1);
    let costed = worker.task_begin(&info_a, Source::Inline);
    let result_a = unwind::halt_unwinding(a);
    worker.task_end(&info_a, costed);
    worker.ctx.set(parent);

    let result_b = if worker.take_back(&job_b_ref, place) {
        worker.ctx.set(Spawner::of(info_b));
        worker.count_tasks(1);
        let costed = worker.task_begin(&info_b, Source::Inline);
        let rb = unwind::halt_unwinding(|| job_b.run_inline());
        worker.task_end(&info_b, costed);
        worker.ctx.set(parent);
        rb
    } else {
        if !job_b.latch.probe() {
            worker.wait_until_cold(|| job_b.latch.probe());
        }
        unwind::halt_unwinding(|| job_b.into_result())
    };
    match (result_a, result_b) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(panic), _) | (Ok(_), Err(panic)) => unwind::resume_unwinding(panic),
    }
}
