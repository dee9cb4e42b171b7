//! `join`: run two closures, potentially in parallel, and return both results.
//!
//! The worker pushes the second closure as a job where the policy places it, runs the
//! first itself, and then takes the second back if nobody has started it; otherwise it
//! works on other jobs (or sleeps) until the second's latch is set. Where the worker's
//! joins run as `ws` (under `ws`, and under a bi-tier policy once it keeps its spawns
//! local) and the policy wants no task events, the second closure waits in the worker's
//! frames (`frames.rs`) rather than on its deque, as a [`FrameJob`]: thieves take it
//! from there as from the deque, and a join nobody steals costs the owner no fence, no
//! atomic read-modify-write, no latch, no result slot and no `catch_unwind` (lazy task
//! creation: what a thief needs is written, the rest happens only once one comes). Both
//! closures always run, also when the first panics; a panic of either reaches the
//! caller, the first's if both panic.
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

use crate::job::{FrameJob, StackJob};
use crate::latch::WorkerLatch;
use crate::registry::WorkerThread;
use crate::unwind;
use locus_policy::Source;
use locus_task::{JoinSite, Spawner};
use std::mem;
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

/// `join` on a worker, out of line: the caller's own body then stays small (a `fib` at
/// a leaf saves no registers), and the closures are still inlined here, one copy per
/// call site, the site a constant in it.
///
/// Where the worker's joins run as `ws` (and want no task events), the second half
/// waits in the frames as a [`FrameJob`]: lazy task creation. Until a thief comes the
/// join writes the half's identity, its state word and closure, two words of the frame
/// slot and its tail, and the running task's context; it catches no panic (a guard runs
/// the second half if the first unwinds) and moves no result. Everything else (the
/// result slot, the wake-up, the wait) happens only on the stolen path.
#[inline(never)]
pub(crate) fn join_in<A, B, RA, RB>(worker: &WorkerThread, site: JoinSite, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if !worker.joins_framed() {
        return join_placed(worker, site, a, b);
    }
    let parent = worker.ctx_fields();
    let (info_a, info_b) = parent.join_children(site);
    let job_b = FrameJob::new(info_b, worker.index, b);
    let frames = worker.frames();
    // SAFETY: `job_b` stays on this frame until it has run: below we either take it back
    // (then nobody else has it) or wait until its thief has completed it; the guard does
    // the same when `a` unwinds.
    let Some(slot) = frames.push(unsafe { job_b.as_job_ref() }) else {
        // Frames full (a join nested deeper than they hold): the deque, as any other
        // half. Nothing was published, so the closure is ours to move.
        return join_placed(worker, site, a, job_b.into_func());
    };
    worker.announce_local_work();
    worker.ctx.set(Spawner::of(info_a));
    let guard = FirstUnwinds {
        worker,
        slot,
        job: &job_b,
        parent: &parent,
    };
    let ra = a();
    mem::forget(guard);
    if frames.pop(slot) {
        worker.ctx.set(Spawner::of(info_b));
        worker.count_tasks(2);
        // A panic of `b` unwinds from here directly, the context restored.
        let _restore = RestoreCtx(worker, parent);
        (ra, job_b.run_inline())
    } else {
        worker.ctx.set(parent);
        (ra, join_stolen(worker, slot, &job_b))
    }
}

/// The rest of a join whose second half (`job`, at `slot` of the frames) a thief took:
/// the half's value, or its panic resumed.
#[cold]
#[inline(never)]
fn join_stolen<F: FnOnce() -> R, R>(worker: &WorkerThread, slot: usize, job: &FrameJob<F, R>) -> R {
    match thiefs_result(worker, slot, job) {
        Ok(r) => r,
        Err(panic) => unwind::resume_unwinding(panic),
    }
}

/// Works until the thief of `job` has completed it, then frees `slot` (back at this
/// join with whatever ran meanwhile finished, the thieves' claims up to it end here)
/// and takes the result the thief left.
fn thiefs_result<F: FnOnce() -> R, R>(
    worker: &WorkerThread,
    slot: usize,
    job: &FrameJob<F, R>,
) -> std::thread::Result<R> {
    worker.count_tasks(1);
    if !job.is_done() {
        worker.wait_until_cold(|| job.is_done());
    }
    worker.frames().release(slot);
    // SAFETY: the thief completed the job (seen above); its result is taken once, here.
    unsafe { job.take_result() }
}

/// Armed while a framed join's first half runs; dropped only if it unwinds. Then the
/// second half still runs (here if nobody took it, else its thief's run is waited for),
/// its panic or value is dropped (the first's panic wins), and the parent's context is
/// back before the unwinding goes on. Its drop is inlined into the landing pad and
/// passes the fields on as arguments, so arming it stores nothing: the fields are
/// values the join keeps anyway.
struct FirstUnwinds<'a, F: FnOnce() -> R, R> {
    worker: &'a WorkerThread,
    slot: usize,
    job: &'a FrameJob<F, R>,
    parent: &'a Spawner,
}

impl<F: FnOnce() -> R, R> Drop for FirstUnwinds<'_, F, R> {
    #[inline(always)]
    fn drop(&mut self) {
        first_unwound(self.worker, self.slot, self.job, self.parent);
    }
}

#[cold]
#[inline(never)]
fn first_unwound<F: FnOnce() -> R, R>(
    worker: &WorkerThread,
    slot: usize,
    job: &FrameJob<F, R>,
    parent: &Spawner,
) {
    if worker.frames().pop(slot) {
        worker.ctx.set(Spawner::of(job.info()));
        worker.count_tasks(2);
        drop(unwind::halt_unwinding(|| job.run_inline()));
    } else {
        drop(thiefs_result(worker, slot, job));
    }
    worker.ctx.set(*parent);
}

/// `join` where its halves go where the policy places them (the deque, a shared queue,
/// or nowhere: [`WorkerThread::push_half`]), as a [`StackJob`] waited on through its
/// latch; also a `ws` join nested deeper than the frames hold, and every join of a
/// worker whose policy wants task events ([`join_with_events`]).
#[inline(never)]
fn join_placed<A, B, RA, RB>(worker: &WorkerThread, site: JoinSite, a: A, b: B) -> (RA, RB)
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
    let place = worker.push_join_half(job_b_ref);

    worker.ctx.set(Spawner::of(info_a));
    let result_a = unwind::halt_unwinding(a);

    let ours = match place {
        None => true,
        Some(place) => worker.take_back(&job_b_ref, place),
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
        match result_a {
            Ok(ra) => (ra, job_b.into_result()),
            Err(panic) => unwind::resume_unwinding(panic),
        }
    }
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

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::{PolicyKind, ThreadPoolBuilder};
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::time::{Duration, Instant};

    /// A join whose first half panics while its second half may have been stolen from
    /// the frames (the first waits, up to a bound, for the second to start elsewhere):
    /// either way the second runs exactly once, the first's panic reaches the caller
    /// (also when the stolen second panics too), and the pool goes on.
    #[test]
    fn a_first_half_that_unwinds_waits_for_its_stolen_second() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .policy(PolicyKind::Ws)
            .pin(false)
            .build()
            .unwrap();
        let rounds = if cfg!(miri) { 2 } else { 20 };
        for round in 0..rounds {
            let both_panic = round % 2 == 1;
            let started = AtomicUsize::new(0);
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    crate::join(
                        || {
                            let deadline = Instant::now() + Duration::from_millis(200);
                            while started.load(SeqCst) == 0 && Instant::now() < deadline {
                                std::hint::spin_loop();
                            }
                            panic!("first")
                        },
                        || {
                            started.fetch_add(1, SeqCst);
                            if both_panic {
                                panic!("second");
                            }
                        },
                    )
                })
            }))
            .expect_err("the first half's panic reaches the caller");
            assert_eq!(err.downcast_ref::<&str>(), Some(&"first"), "round {round}");
            assert_eq!(
                started.load(SeqCst),
                1,
                "round {round}: the second ran once"
            );
            let (a, b) = pool.install(|| crate::join(|| 1, || 2));
            assert_eq!((a, b), (1, 2));
        }
    }
}
