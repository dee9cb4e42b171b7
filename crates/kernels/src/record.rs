//! The recorder: an executor that runs a kernel and writes down its task tree, as a
//! [`Workload`] the simulator runs and the profiler reads.
//!
//! [`record`] runs a kernel once under [`Recorder`], an [`Executor`] that runs every
//! task on the calling thread in serial order (as [`crate::Serial`] does) and listens to
//! the footprints and work the kernel's leaves declare ([`locus::footprint`], through a
//! thread-local sink, so recordings in parallel threads and a process-wide listener do
//! not disturb one another). The result is verified against the kernel's serial
//! reference, so the simulated program is the one the runtime runs, with no second
//! hand-written model.
//!
//! Tasks get their ids and levels from [`Spawner`], the numbering the runtime's `join`,
//! `scope` and `for_range` use, so a task recorded here has the id it has in the
//! runtime. Kernels written with locus's parallel iterators ([`crate::iters`]) start
//! their loops outside the executor: [`Recorder`]'s `install` puts a serial loop
//! executor on the thread ([`locus::iter::hook`]) that records each leaf as the loop's
//! chunk `i`, exactly as [`Recorder`]'s `for_range` records its chunks. What a workload holds and how its addresses are compacted:
//! [`locus_task::workload`].
//!
//! # Bounds
//! A recording holds a record per task and per step, so its memory grows with the
//! input. [`check`] refuses, before anything is prepared, an input whose task tree is
//! known to exceed [`MAX_TASKS`] ([`Params::estimate`]); and the recording itself stops
//! at [`MAX_TASKS`] tasks or [`MAX_STEPS`] steps (a search whose tree the data decides,
//! a kernel declaring more than its size suggests), so that no input records until
//! memory runs out. Either way [`record`] returns an error that
//! [`RecordError::is_limit`] tells apart.

use std::cell::RefCell;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::Arc;

use locus::footprint::{self, Access, FootprintSink};
use locus::iter::hook::{self, LoopExecutor};
use locus_task::workload::{Step, Workload, WorkloadBuilder};
use locus_task::Spawner;

use crate::{Executor, Params};

/// Most tasks one recording holds: 2^24, about 16.8 million. A task takes about 100
/// bytes of records, so 1.6 GiB; the simulator then runs each policy over every task
/// (about a million a second), so a recording this large takes minutes per policy. The
/// defaults record under 100,000 tasks (fib 30: 2.7 million).
pub const MAX_TASKS: u64 = 1 << 24;

/// Most steps (accesses, work and forks) one recording holds: 2^27, about 134 million,
/// 3 GiB at 24 bytes a step. IRREG's large mesh records under 10 million.
pub const MAX_STEPS: u64 = 1 << 27;

/// Why a kernel could not be recorded.
#[derive(Debug, thiserror::Error)]
#[error("recording {what}: {reason}")]
pub struct RecordError {
    what: String,
    reason: String,
    limit: bool,
}

impl RecordError {
    /// Whether the input is too large to record ([`MAX_TASKS`], [`MAX_STEPS`]), rather
    /// than a kernel that failed.
    pub fn is_limit(&self) -> bool {
        self.limit
    }
}

/// The unwinding payload that stops a recording at its bound.
struct Bound {
    tasks: u64,
    steps: u64,
}

/// Refuses an input whose task tree, as [`Params::estimate`] bounds it, holds more than
/// [`MAX_TASKS`] tasks; inputs whose tree the data decides pass (the recording stops
/// itself at the bound).
///
/// # Errors
/// The estimate and the bound, with [`RecordError::is_limit`] true.
pub fn check(params: &Params) -> Result<(), RecordError> {
    match params.estimate().tasks {
        Some(tasks) if tasks > MAX_TASKS => Err(RecordError {
            what: format!("{} {}", params.kernel(), params),
            reason: format!(
                "its task tree holds up to {tasks} tasks, more than the {MAX_TASKS} \
                 the simulator's recorder holds (locus_kernels::record::MAX_TASKS); give \
                 a smaller size, a larger leaf, grain or cutoff, or fewer iterations"
            ),
            limit: true,
        }),
        _ => Ok(()),
    }
}

/// Runs the kernel of `params` once under the [`Recorder`], verifies its result, and
/// returns its task tree.
///
/// # Errors
/// If the input is beyond the recorder's bounds ([`check`], [`MAX_STEPS`]), the kernel
/// panics or its result does not match the serial reference.
pub fn record(params: &Params) -> Result<Workload, RecordError> {
    check(params)?;
    record_within(params, MAX_TASKS, MAX_STEPS)
}

/// [`record`] stopping at `max_tasks` tasks or `max_steps` steps (0: no bound), without
/// the check.
fn record_within(params: &Params, max_tasks: u64, max_steps: u64) -> Result<Workload, RecordError> {
    let name = format!("{} {}", params.kernel(), params);
    let err = |reason: String| RecordError {
        what: name.clone(),
        reason,
        limit: false,
    };
    // The serial reference is computed beside the recorded run, which is not timed,
    // where memory allows: the reference's thread holds its own input and working
    // copies, at most the estimate again, beside the recorder's.
    let room = crate::estimate::available_memory()
        .is_some_and(|a| params.estimate().bytes.saturating_mul(2) <= a.bytes);
    let mut prepared = if room {
        params.prepare_overlapped()
    } else {
        params.prepare()
    };
    prepared.reset();
    let recording = Recording {
        max_tasks,
        max_steps,
        ..Recording::default()
    };
    BUILDER.with(|b| *b.borrow_mut() = Some(recording));
    let ran = footprint::with_thread_sink(Arc::new(RecordSink), || {
        panic::catch_unwind(AssertUnwindSafe(|| prepared.execute(&Recorder)))
    });
    let builder = BUILDER.with(|b| b.borrow_mut().take()).unwrap_or_default();
    if let Err(payload) = ran {
        if let Some(bound) = payload.downcast_ref::<Bound>() {
            return Err(RecordError {
                what: name,
                reason: format!(
                    "stopped at {} tasks and {} steps: the recorder holds at most \
                     {max_tasks} tasks and {max_steps} steps \
                     (locus_kernels::record::MAX_TASKS and MAX_STEPS); give a smaller size",
                    bound.tasks, bound.steps
                ),
                limit: true,
            });
        }
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic".to_string());
        return Err(err(format!("the kernel panicked: {msg}")));
    }
    let outcome = prepared.verify();
    if !outcome.verified {
        return Err(err(format!(
            "the recorded run is wrong: {}",
            outcome.detail
        )));
    }
    // The input, its result and the reference (hundreds of MB for the papers' largest
    // grids) are returned to the system on a thread of their own, so that the caller's
    // simulations need not wait for it; where no thread starts, here.
    let _ = std::thread::Builder::new()
        .name("locus-drop".into())
        .spawn(move || drop(prepared));
    builder.workload.finish(&name).map_err(err)
}

/// An [`Executor`] that records: every task runs on the calling thread in serial order
/// while its forks, accesses and work are written down. Only meaningful inside
/// [`record`]; elsewhere it runs serially and records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recorder;

thread_local! {
    static BUILDER: RefCell<Option<Recording>> = const { RefCell::new(None) };
}

/// Runs `f` on the recording in progress on this thread, if any.
fn with_builder<R>(f: impl FnOnce(&mut Recording) -> R) -> Option<R> {
    BUILDER.with(|b| b.borrow_mut().as_mut().map(f))
}

/// Leaves the task entered last when dropped (also when the task unwinds).
struct Leave;

impl Drop for Leave {
    fn drop(&mut self) {
        with_builder(|b| b.stack.pop());
    }
}

/// Enters task `index`, runs `f`, leaves.
fn run_task<R>(index: Option<(u32, Spawner)>, f: impl FnOnce() -> R) -> R {
    let Some(index) = index else { return f() };
    with_builder(|b| b.stack.push(index));
    let _leave = Leave;
    f()
}

impl Executor for Recorder {
    fn name(&self) -> String {
        "recorder".to_string()
    }

    #[track_caller]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let location = Location::caller();
        let forked = with_builder(|builder| {
            let (parent, made_up) = builder.current_or_root(location);
            let (a, b) = builder
                .spawner_mut()
                .join_children(locus_task::JoinSite::of(location));
            let ia = builder.child(parent, a);
            let ib = builder.child(parent, b);
            builder.push(parent, Step::Join(ia, ib));
            ((ia, Spawner::of(a)), (ib, Spawner::of(b)), made_up)
        });
        let ra = run_task(forked.map(|f| f.0), a);
        let rb = run_task(forked.map(|f| f.1), b);
        if let Some((_, _, made_up)) = forked {
            with_builder(|builder| builder.synced(made_up));
        }
        (ra, rb)
    }

    #[track_caller]
    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        assert!(grain >= 1, "for_range: grain must be at least 1");
        let chunks = range.len().div_ceil(grain);
        record_loop(Location::caller(), chunks, &mut |i| {
            let lo = range.start + i * grain;
            body(lo..range.end.min(lo + grain));
        });
    }

    #[track_caller]
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let location = Location::caller();
        let root = with_builder(|builder| builder.stack.is_empty().then(|| builder.root(location)))
            .flatten();
        hook::with_loop_executor(Arc::new(RecordLoops), || run_task(root, f))
    }
}

/// Runs a loop of `chunks` chunks started at `location` on this thread, `chunk(i)` for
/// each `i` in order, recording chunk `i` as the runtime numbers it: the running task's
/// spawn `FIRST_SCOPE_SPAWN + i` in a fresh scope ([`Spawner::loop_chunk`]), marked as
/// chunk `i` of `chunks`, all synced at the end. A loop started outside any task is
/// the one fork block of a root of its own, its id from `location`. What
/// [`Recorder::for_range`](Executor::for_range) and [`RecordLoops`] both record.
fn record_loop(location: &Location<'_>, chunks: usize, chunk: &mut dyn FnMut(usize)) {
    if chunks == 0 {
        return;
    }
    let scope = with_builder(|builder| {
        let (parent, made_up) = builder.current_or_root(location);
        (parent, made_up, builder.spawner())
    });
    let total = u32::try_from(chunks).unwrap_or(u32::MAX);
    for i in 0..chunks {
        let child = scope.map(|(parent, _, spawner)| {
            // Past `u32::MAX` chunks the numbering wraps, as the runtime's does.
            let info = spawner.loop_chunk(i as u32, total);
            with_builder(|builder| {
                let c = builder.child(parent, info);
                builder.push(parent, Step::Spawn(c));
                (c, Spawner::of(info))
            })
            .expect("the recording outlives the loop")
        });
        run_task(child, || chunk(i));
    }
    if let Some((parent, made_up, _)) = scope {
        with_builder(|builder| {
            builder.push(parent, Step::Sync);
            builder.synced(made_up);
        });
    }
}

/// The serial loop executor [`Recorder::install`](Executor::install) puts on its
/// thread ([`locus::iter::hook`]): a loop of locus's parallel iterators started there
/// outside any pool is recorded as [`Recorder::for_range`](Executor::for_range) records
/// its loops, leaf `i` as chunk `i` ([`record_loop`]).
struct RecordLoops;

impl LoopExecutor for RecordLoops {
    fn run_loop(
        &self,
        location: &'static Location<'static>,
        chunks: usize,
        chunk: &mut dyn FnMut(usize),
    ) {
        record_loop(location, chunks, chunk);
    }
}

/// Listens to the recording thread's declarations.
struct RecordSink;

impl FootprintSink for RecordSink {
    fn record(&self, access: Access, addr: usize, len: usize) {
        let (addr, len) = (addr as u64, len as u64);
        let step = match access {
            Access::Read => Step::Read { addr, len },
            Access::Write => Step::Write { addr, len },
        };
        with_builder(|b| b.declare(step));
    }

    fn work(&self, instructions: u64) {
        with_builder(|b| b.declare(Step::Work(instructions)));
    }
}

/// A recording in progress: the workload written so far and the tasks being run.
#[derive(Debug, Default)]
struct Recording {
    workload: WorkloadBuilder,
    /// The tasks being run, innermost last, each with its spawn numbering.
    stack: Vec<(u32, Spawner)>,
    /// Tasks and steps recorded so far, for the bounds.
    tasks: u64,
    steps: u64,
    /// The bounds ([`MAX_TASKS`], [`MAX_STEPS`]; 0 for none).
    max_tasks: u64,
    max_steps: u64,
}

impl Recording {
    /// Stops the recording (unwinds to [`record`]) past its bounds.
    fn bound(&self) {
        let over = |n: u64, max: u64| max > 0 && n > max;
        if over(self.tasks, self.max_tasks) || over(self.steps, self.max_steps) {
            // `resume_unwind`, not `panic!`: no panic message is printed for a bound.
            panic::resume_unwind(Box::new(Bound {
                tasks: self.tasks,
                steps: self.steps,
            }));
        }
    }

    /// A new root started at `location`, with its spawner.
    fn root(&mut self, location: &Location<'_>) -> (u32, Spawner) {
        let info = Spawner::root_info(location);
        self.tasks += 1;
        self.bound();
        (self.workload.root(info), Spawner::of(info))
    }

    /// A new child of `parent`.
    fn child(&mut self, parent: u32, info: locus_task::TaskInfo) -> u32 {
        self.tasks += 1;
        self.bound();
        self.workload.child(parent, info)
    }

    /// Appends `step` to task `task`'s body.
    fn push(&mut self, task: u32, step: Step) {
        self.steps += 1;
        self.bound();
        self.workload.push(task, step);
    }

    /// The running task, or a new root (made up: `true`) when a fork happens outside
    /// any task; such a root holds that one fork block and is left after it.
    fn current_or_root(&mut self, location: &Location<'_>) -> (u32, bool) {
        match self.stack.last() {
            Some(&(t, _)) => (t, false),
            None => {
                let r = self.root(location);
                self.stack.push(r);
                (r.0, true)
            }
        }
    }

    /// The running task's spawner.
    fn spawner(&self) -> Spawner {
        self.stack.last().expect("a task is running").1
    }

    /// The running task's spawner, to count a spawn with.
    fn spawner_mut(&mut self) -> &mut Spawner {
        &mut self.stack.last_mut().expect("a task is running").1
    }

    /// A fork block ended; if it was a root's, the next tasks are the next iteration.
    /// A made-up root is left here.
    fn synced(&mut self, made_up: bool) {
        if self.stack.len() == 1 {
            self.workload.end_iteration();
        }
        if made_up {
            self.stack.pop();
        }
    }

    fn declare(&mut self, step: Step) {
        // Declarations outside any task (the kernel's set-up) are not part of the program.
        if let Some(&(t, _)) = self.stack.last() {
            self.push(t, step);
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kernel;

    #[test]
    fn the_estimate_bounds_the_tasks_a_recording_holds() {
        let mut inputs: Vec<Params> = Kernel::ALL
            .into_iter()
            .filter(|&k| k != Kernel::Fib)
            .map(Kernel::default_params)
            .collect();
        for (kernel, size) in [
            (Kernel::Fib, "20"),
            (Kernel::Fib, "22,cutoff=9"),
            (Kernel::Heat, "37x29,leaf=1,iters=2"),
            (Kernel::HeatUb, "70x9,leaf=1,iters=2"),
            (Kernel::HeatMoving, "37x29,leaf=1,iters=3,hot=3"),
            (Kernel::Sort, "10007,cutoff=7"),
            (Kernel::Mergesort, "10007,cutoff=7"),
            (Kernel::SorUb, "66x13,leaf=1,iters=2"),
            (Kernel::GeUb, "50,leaf=1"),
            (Kernel::Mandelbrot, "31x17,leaf=1"),
            (Kernel::Fft, "4096,cutoff=1"),
            (Kernel::SpmvCcs, "block:60:6:3,iters=2,grain=1"),
            (Kernel::Spmm, "random:80:4,iters=2,grain=1"),
            (Kernel::Radix, "1000,iters=2,grain=1"),
            (Kernel::Irreg, "300:2000,iters=2,grain=1"),
        ] {
            inputs.push(kernel.parse_size(size).unwrap());
        }
        for params in inputs {
            let recorded = record(&params).unwrap().tasks().len() as u64;
            if let Some(bound) = params.estimate().tasks {
                assert!(
                    recorded <= bound,
                    "{} {params}: recorded {recorded} tasks, estimated at most {bound}",
                    params.kernel()
                );
            }
        }
    }

    #[test]
    fn an_input_beyond_the_recorder_is_refused_before_it_runs() {
        let fib = Kernel::Fib.parse_size("40").unwrap();
        let start = std::time::Instant::now();
        let e = record(&fib).unwrap_err();
        assert!(e.is_limit(), "{e}");
        assert!(start.elapsed().as_secs() < 1, "took {:?}", start.elapsed());
        let text = e.to_string();
        assert!(text.contains(&MAX_TASKS.to_string()), "{text}");
        assert!(check(&Kernel::Fib.parse_size("20").unwrap()).is_ok());
    }

    #[test]
    fn a_recording_stops_at_its_bound() {
        // nqueens's tree is the data's: no estimate, so the recording itself stops.
        let queens = Kernel::Nqueens.parse_size("8,depth=8").unwrap();
        assert_eq!(queens.estimate().tasks, None);
        let e = record_within(&queens, 1000, 0).unwrap_err();
        assert!(e.is_limit(), "{e}");
        assert!(e.to_string().contains("stopped at 1001 tasks"), "{e}");
        let e = record_within(&queens, 0, 500).unwrap_err();
        assert!(e.to_string().contains("and 501 steps"), "{e}");
        // The thread records again afterwards.
        assert!(record_within(&queens, 0, 0).is_ok());
    }
}
