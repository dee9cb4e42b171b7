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
//! runtime. What a workload holds and how its addresses are compacted:
//! [`locus_task::workload`].

use std::cell::RefCell;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::Arc;

use locus::footprint::{self, Access, FootprintSink};
use locus_task::workload::{Step, Workload, WorkloadBuilder};
use locus_task::Spawner;

use crate::{Executor, Params};

/// Why a kernel could not be recorded.
#[derive(Debug, thiserror::Error)]
#[error("recording {what}: {reason}")]
pub struct RecordError {
    what: String,
    reason: String,
}

/// Runs the kernel of `params` once under the [`Recorder`], verifies its result, and
/// returns its task tree.
///
/// # Errors
/// If the kernel panics or its result does not match the serial reference.
pub fn record(params: &Params) -> Result<Workload, RecordError> {
    let name = format!("{} {}", params.kernel(), params);
    let err = |reason: String| RecordError {
        what: name.clone(),
        reason,
    };
    let mut prepared = params.prepare();
    prepared.reset();
    BUILDER.with(|b| *b.borrow_mut() = Some(Recording::default()));
    let ran = footprint::with_thread_sink(Arc::new(RecordSink), || {
        panic::catch_unwind(AssertUnwindSafe(|| prepared.execute(&Recorder)))
    });
    let builder = BUILDER.with(|b| b.borrow_mut().take()).unwrap_or_default();
    if let Err(payload) = ran {
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
            let (a, b) = builder.spawner().join_children();
            let ia = builder.workload.child(parent, a);
            let ib = builder.workload.child(parent, b);
            builder.workload.push(parent, Step::Join(ia, ib));
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
        let location = Location::caller();
        if range.is_empty() {
            return;
        }
        // The loop is a scope of its own: its chunks are the scope's spawns, numbered
        // afresh (as the runtime's `for_range` numbers them).
        let scope = with_builder(|builder| {
            let (parent, made_up) = builder.current_or_root(location);
            (parent, made_up, builder.spawner().new_scope())
        });
        let chunks = u32::try_from(range.len().div_ceil(grain)).unwrap_or(u32::MAX);
        let mut lo = range.start;
        let mut spawner = scope.map(|(_, _, s)| s);
        while lo < range.end {
            let hi = lo + grain.min(range.end - lo);
            let child = scope
                .zip(spawner.as_mut())
                .map(|((parent, _, _), spawner)| {
                    let info = spawner.next_spawn(chunks);
                    with_builder(|builder| {
                        let c = builder.workload.child(parent, info);
                        builder.workload.push(parent, Step::Spawn(c));
                        (c, Spawner::of(info))
                    })
                    .expect("the recording outlives the loop")
                });
            run_task(child, || body(lo..hi));
            lo = hi;
        }
        if let Some((parent, made_up, _)) = scope {
            with_builder(|builder| {
                builder.workload.push(parent, Step::Sync);
                builder.synced(made_up);
            });
        }
    }

    #[track_caller]
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let location = Location::caller();
        let root = with_builder(|builder| builder.stack.is_empty().then(|| builder.root(location)))
            .flatten();
        run_task(root, f)
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
}

impl Recording {
    /// A new root started at `location`, with its spawner.
    fn root(&mut self, location: &Location<'_>) -> (u32, Spawner) {
        let info = Spawner::root_info(location);
        (self.workload.root(info), Spawner::of(info))
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
            self.workload.push(t, step);
        }
    }
}
