//! Workloads recorded from the real kernels: the task tree a kernel spawns, with each
//! task's declared accesses and work in program order.
//!
//! [`record`] runs a kernel once under [`Recorder`], an [`Executor`] that runs every
//! task on the calling thread in serial order (as [`locus_kernels::Serial`] does) and
//! listens to the footprints and work the kernel's leaves declare
//! ([`locus::footprint`], through a thread-local sink, so recordings in parallel threads
//! and a process-wide listener do not disturb one another). The result is verified
//! against the kernel's serial reference, so the simulated program is the one the
//! runtime runs, with no second hand-written model.
//!
//! # What a workload holds
//! Each [`Task`] has the id and level the runtime would give it (the halves of a
//! `join` are children 0 and 1 of the joining task, the chunks of a `for_range` its
//! spawns 2, 3, ..., per sync block; see `locus_policy::TaskId`), so a policy that
//! profiles by task id (CATS) recognises the second iteration as it does in the
//! runtime. Its body is a list of [`Step`]s: accesses, work, and fork points, in the
//! order the code made them. A root is one `install` of the kernel; a root's fork
//! blocks are its iterations (heat's sweeps), numbered in [`Task::iteration`].
//!
//! # Bounds
//! A recording holds a record per task and per step, so its memory grows with the
//! input. [`check`] refuses, before anything is prepared, an input whose task tree is
//! known to exceed [`MAX_TASKS`] ([`locus_kernels::Params::estimate`]); and the recording
//! itself stops at [`MAX_TASKS`] tasks or [`MAX_STEPS`] steps (a search whose tree the
//! data decides, a kernel declaring more than its size suggests), so that no input
//! records until memory runs out. Either way [`record`] returns an error that
//! [`RecordError::is_limit`] tells apart.
//!
//! # Addresses
//! Recorded addresses are the kernel's real virtual addresses, which differ from run to
//! run. They are compacted: the declared bytes fall into objects (maximal runs of
//! touching ranges: an array, as distinct allocations never touch), and the objects are
//! laid out from address 0 in the order the program first touched them, each from the
//! start of a 4 KiB page. Where the allocator put the arrays, and how it aligned them,
//! changes from one run to the next; the compact layout does not, so two recordings of
//! the same input give the same workload, in one process or in two (bit-identical
//! simulations). An object's first byte lands on a line and page boundary, as large
//! allocations do on most systems.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::Arc;

use locus::footprint::{self, Access, FootprintSink};
use locus_kernels::{Executor, Params};
use locus_policy::{TaskId, TaskInfo, FIRST_SCOPE_SPAWN};

/// Bytes per page of the compacted address space (and of the simulated NUMA memory).
pub const PAGE_SIZE: u64 = 4096;

/// One thing a task does, in program order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Reads `len` bytes at `addr` (compacted).
    Read {
        /// Start address.
        addr: u64,
        /// Bytes.
        len: u64,
    },
    /// Writes `len` bytes at `addr` (compacted).
    Write {
        /// Start address.
        addr: u64,
        /// Bytes.
        len: u64,
    },
    /// Executes about this many instructions.
    Work(u64),
    /// `join(a, b)`: tasks `a` and `b` (indices into [`Workload::tasks`]) fork here and
    /// the task continues once both have finished.
    Join(u32, u32),
    /// Spawns the task with this index into the current scope (a `for_range` chunk).
    Spawn(u32),
    /// Waits for every task spawned since the last sync (the end of a scope).
    Sync,
}

/// One task of the recorded tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Id and level, as the runtime computes them.
    pub info: TaskInfo,
    /// The spawning task, `None` for a root.
    pub parent: Option<u32>,
    /// The root fork block (iteration) the task belongs to; a root itself is in the
    /// iteration it starts.
    pub iteration: u32,
    steps: Range<u32>,
}

/// A recorded program: tasks, their steps, and the roots run one after another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// What was recorded, e.g. `heat 1024x512,leaf=8,iters=10`.
    pub name: String,
    tasks: Vec<Task>,
    steps: Vec<Step>,
    roots: Vec<u32>,
    pages: u64,
    line_accesses: u64,
    work: u64,
    iterations: u32,
}

impl Workload {
    /// Every task; indices are the ones [`Step::Join`] and [`Step::Spawn`] use.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The steps of task `index`.
    pub fn steps(&self, index: u32) -> &[Step] {
        let r = &self.tasks[index as usize].steps;
        &self.steps[r.start as usize..r.end as usize]
    }

    /// The root tasks, in the order they run.
    pub fn roots(&self) -> &[u32] {
        &self.roots
    }

    /// Pages of the compacted address space (addresses are below `pages * PAGE_SIZE`).
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Cache lines of 64 bytes the steps touch, counted once per step.
    pub fn line_accesses(&self) -> u64 {
        self.line_accesses
    }

    /// Declared instructions, summed.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Root fork blocks (iterations), over all roots.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Builds a workload by hand (tests, synthetic programs): `tasks` as
    /// `(info, parent, steps)` with the steps' addresses already compact, and the roots.
    ///
    /// # Errors
    /// If a step names a task that does not exist or whose parent is not the naming
    /// task, a root has a parent, or a task is forked twice or never.
    pub fn from_parts(
        name: &str,
        tasks: Vec<(TaskInfo, Option<u32>, Vec<Step>)>,
        roots: Vec<u32>,
    ) -> Result<Workload, String> {
        let mut builder = Builder::default();
        for (info, parent, steps) in tasks {
            builder.tasks.push(Task {
                info,
                parent,
                iteration: 0,
                steps: 0..0,
            });
            builder.bodies.push(steps);
        }
        builder.roots = roots;
        let workload = builder.finish(name, false);
        workload.check()?;
        Ok(workload)
    }

    /// Checks the tree: every fork names a child of the forking task, once.
    fn check(&self) -> Result<(), String> {
        let n = self.tasks.len();
        let mut forked = vec![false; n];
        for &r in &self.roots {
            let t = self
                .tasks
                .get(r as usize)
                .ok_or(format!("root {r} does not exist"))?;
            if t.parent.is_some() {
                return Err(format!("root {r} has a parent"));
            }
            if std::mem::replace(&mut forked[r as usize], true) {
                return Err(format!("task {r} is a root twice"));
            }
        }
        for (i, _) in self.tasks.iter().enumerate() {
            for step in self.steps(i as u32) {
                let children: &[u32] = match step {
                    Step::Join(a, b) => &[*a, *b],
                    Step::Spawn(c) => std::slice::from_ref(c),
                    _ => continue,
                };
                for &c in children {
                    let child = self
                        .tasks
                        .get(c as usize)
                        .ok_or(format!("task {i} forks task {c}, which does not exist"))?;
                    if child.parent != Some(i as u32) {
                        return Err(format!("task {i} forks task {c}, whose parent it is not"));
                    }
                    if std::mem::replace(&mut forked[c as usize], true) {
                        return Err(format!("task {c} is forked twice"));
                    }
                }
            }
        }
        match forked.iter().position(|f| !f) {
            Some(i) => Err(format!("task {i} is never forked")),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} tasks, {} iterations, {} line accesses over {} pages, {} instructions",
            self.name,
            self.tasks.len(),
            self.iterations,
            self.line_accesses,
            self.pages,
            self.work
        )
    }
}

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

/// Refuses an input whose task tree, as [`locus_kernels::Params::estimate`] bounds it,
/// holds more than [`MAX_TASKS`] tasks; inputs whose tree the data decides pass (the
/// recording stops itself at the bound).
///
/// # Errors
/// The estimate and the bound, with [`RecordError::is_limit`] true.
pub fn check(params: &Params) -> Result<(), RecordError> {
    match params.estimate().tasks {
        Some(tasks) if tasks > MAX_TASKS => Err(RecordError {
            what: format!("{} {}", params.kernel(), params),
            reason: format!(
                "its task tree holds up to {tasks} tasks, more than the {MAX_TASKS} \
                 the simulator's recorder holds (locus_sim::record::MAX_TASKS); give a \
                 smaller size, a larger leaf, grain or cutoff, or fewer iterations"
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
/// If the kernel panics or its result does not match the serial reference.
pub fn record(params: &Params) -> Result<Workload, RecordError> {
    check(params)?;
    record_within(params, MAX_TASKS, MAX_STEPS)
}

/// [`record`] stopping at `max_tasks` tasks or `max_steps` steps, without the check.
fn record_within(params: &Params, max_tasks: u64, max_steps: u64) -> Result<Workload, RecordError> {
    let name = format!("{} {}", params.kernel(), params);
    let err = |reason: String| RecordError {
        what: name.clone(),
        reason,
        limit: false,
    };
    let mut prepared = params.prepare();
    prepared.reset();
    let builder = Builder {
        max_tasks,
        max_steps,
        ..Builder::default()
    };
    BUILDER.with(|b| *b.borrow_mut() = Some(builder));
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
                     {max_tasks} tasks and {max_steps} steps (locus_sim::record::MAX_TASKS \
                     and MAX_STEPS); give a smaller size",
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
    let workload = builder.finish(&name, true);
    workload.check().map_err(err)?;
    Ok(workload)
}

/// An [`Executor`] that records: every task runs on the calling thread in serial order
/// while its forks, accesses and work are written down. Only meaningful inside
/// [`record`]; elsewhere it runs serially and records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Recorder;

thread_local! {
    static BUILDER: RefCell<Option<Builder>> = const { RefCell::new(None) };
}

/// Runs `f` on the recording in progress on this thread, if any.
fn with_builder<R>(f: impl FnOnce(&mut Builder) -> R) -> Option<R> {
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
fn run_task<R>(index: Option<u32>, f: impl FnOnce() -> R) -> R {
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
            let ia = builder.child(parent, 0, 0);
            let ib = builder.child(parent, 1, 0);
            builder.fork(parent, Step::Join(ia, ib));
            (ia, ib, made_up)
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
        let scope = with_builder(|builder| builder.current_or_root(location));
        let chunks = u32::try_from(range.len().div_ceil(grain)).unwrap_or(u32::MAX);
        let mut lo = range.start;
        let mut spawned = 0;
        while lo < range.end {
            let hi = lo + grain.min(range.end - lo);
            let child = scope.map(|(parent, _)| {
                with_builder(|builder| {
                    let c = builder.child(parent, FIRST_SCOPE_SPAWN + spawned, chunks);
                    builder.fork(parent, Step::Spawn(c));
                    c
                })
                .expect("the recording outlives the loop")
            });
            spawned += 1;
            run_task(child, || body(lo..hi));
            lo = hi;
        }
        if let Some((parent, made_up)) = scope {
            with_builder(|builder| {
                builder.fork(parent, Step::Sync);
                builder.synced(made_up);
            });
        }
    }

    #[track_caller]
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let location = Location::caller();
        let root = with_builder(|builder| {
            if builder.stack.is_empty() {
                Some(builder.root(location))
            } else {
                None
            }
        })
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

/// A recording in progress.
#[derive(Debug, Default)]
struct Builder {
    tasks: Vec<Task>,
    bodies: Vec<Vec<Step>>,
    roots: Vec<u32>,
    /// The tasks being run, innermost last.
    stack: Vec<u32>,
    /// Root fork blocks completed so far: the iteration new tasks belong to.
    iteration: u32,
    /// Steps recorded so far, for the bound.
    steps: u64,
    /// The bound on tasks ([`MAX_TASKS`]; 0 for none: a workload built by hand).
    max_tasks: u64,
    /// The bound on steps ([`MAX_STEPS`]; 0 for none).
    max_steps: u64,
}

impl Builder {
    /// Stops the recording (unwinds to [`record`]) past [`MAX_TASKS`] or [`MAX_STEPS`].
    fn bound(&self) {
        let tasks = self.tasks.len() as u64;
        let over = |n: u64, max: u64| max > 0 && n > max;
        if over(tasks, self.max_tasks) || over(self.steps, self.max_steps) {
            // `resume_unwind`, not `panic!`: no panic message is printed for a bound.
            panic::resume_unwind(Box::new(Bound {
                tasks,
                steps: self.steps,
            }));
        }
    }

    fn new_task(&mut self, info: TaskInfo, parent: Option<u32>) -> u32 {
        self.bound();
        let index = u32::try_from(self.tasks.len()).expect("fewer than 2^32 tasks");
        self.tasks.push(Task {
            info,
            parent,
            iteration: self.iteration,
            steps: 0..0,
        });
        self.bodies.push(Vec::new());
        index
    }

    fn root(&mut self, location: &Location<'_>) -> u32 {
        let info = TaskInfo {
            id: TaskId::root(location),
            level: 0,
            loop_chunks: 0,
        };
        let r = self.new_task(info, None);
        self.roots.push(r);
        r
    }

    /// The running task, or a new root (made up: `true`) when a fork happens outside
    /// any task; such a root holds that one fork block and is left after it.
    fn current_or_root(&mut self, location: &Location<'_>) -> (u32, bool) {
        match self.stack.last() {
            Some(&t) => (t, false),
            None => {
                let r = self.root(location);
                self.stack.push(r);
                (r, true)
            }
        }
    }

    /// A new child of `parent`, its `index`-th spawn; `loop_chunks` as in [`TaskInfo`].
    fn child(&mut self, parent: u32, index: u32, loop_chunks: u32) -> u32 {
        let p = self.tasks[parent as usize].info;
        let info = TaskInfo {
            id: p.id.child(index),
            level: p.level + 1,
            loop_chunks,
        };
        self.new_task(info, Some(parent))
    }

    fn fork(&mut self, parent: u32, step: Step) {
        self.steps += 1;
        self.bound();
        self.bodies[parent as usize].push(step);
    }

    /// A fork block ended; if it was a root's, the next tasks are the next iteration.
    /// A made-up root is left here.
    fn synced(&mut self, made_up: bool) {
        if self.stack.len() == 1 {
            self.iteration += 1;
        }
        if made_up {
            self.stack.pop();
        }
    }

    fn declare(&mut self, step: Step) {
        // Declarations outside any task (the kernel's set-up) are not part of the program.
        if let Some(&t) = self.stack.last() {
            self.steps += 1;
            self.bound();
            self.bodies[t as usize].push(step);
        }
    }

    /// Flattens the bodies and, if `compact`, renumbers the touched pages.
    fn finish(self, name: &str, compact: bool) -> Workload {
        let Builder {
            mut tasks,
            bodies,
            roots,
            iteration,
            ..
        } = self;
        let pages = if compact {
            Pages::of(&bodies)
        } else {
            Pages::identity(&bodies)
        };
        let mut steps = Vec::with_capacity(bodies.iter().map(Vec::len).sum());
        let (mut line_accesses, mut work) = (0u64, 0u64);
        for (task, body) in tasks.iter_mut().zip(bodies) {
            let start = steps.len() as u32;
            for step in body {
                let step = match step {
                    Step::Read { addr, len } => Step::Read {
                        addr: pages.map(addr),
                        len,
                    },
                    Step::Write { addr, len } => Step::Write {
                        addr: pages.map(addr),
                        len,
                    },
                    other => other,
                };
                match step {
                    Step::Read { addr, len } | Step::Write { addr, len } => {
                        line_accesses += lines_covered(addr, len);
                    }
                    Step::Work(n) => work = work.saturating_add(n),
                    _ => {}
                }
                steps.push(step);
            }
            task.steps = start..steps.len() as u32;
        }
        Workload {
            name: name.to_string(),
            tasks,
            steps,
            roots,
            pages: pages.count,
            line_accesses,
            work,
            iterations: iteration.max(1),
        }
    }
}

/// The 64-byte lines `len` bytes at `addr` cover.
pub(crate) fn lines_covered(addr: u64, len: u64) -> u64 {
    if len == 0 {
        return 0;
    }
    (addr + len - 1) / 64 - addr / 64 + 1
}

/// The map from recorded addresses to compact ones.
struct Pages {
    /// The objects (maximal runs of touching declared bytes), sorted by address:
    /// `(first address, end address, compact base)`.
    objects: Vec<(u64, u64, u64)>,
    count: u64,
}

impl Pages {
    /// Lays the objects out from address 0, in the order the program first touched
    /// them, each from the start of a page of its own.
    fn of(bodies: &[Vec<Step>]) -> Pages {
        let mut ranges: Vec<(u64, u64, usize)> = bodies
            .iter()
            .flatten()
            .enumerate()
            .filter_map(|(seen, s)| match *s {
                Step::Read { addr, len } | Step::Write { addr, len } if len > 0 => {
                    Some((addr, addr + len, seen))
                }
                _ => None,
            })
            .collect();
        ranges.sort_unstable();
        let mut objects: Vec<(u64, u64, usize)> = Vec::new();
        for (lo, hi, seen) in ranges {
            match objects.last_mut() {
                Some((_, end, first)) if lo <= *end => {
                    *end = (*end).max(hi);
                    *first = (*first).min(seen);
                }
                _ => objects.push((lo, hi, seen)),
            }
        }
        let mut order: Vec<usize> = (0..objects.len()).collect();
        order.sort_by_key(|&i| objects[i].2);
        let mut base = vec![0; objects.len()];
        let mut count = 0;
        for i in order {
            base[i] = count * PAGE_SIZE;
            count += (objects[i].1 - objects[i].0).div_ceil(PAGE_SIZE);
        }
        Pages {
            objects: objects
                .iter()
                .zip(base)
                .map(|(&(lo, hi, _), b)| (lo, hi, b))
                .collect(),
            count,
        }
    }

    /// No renumbering: addresses given by hand are compact already.
    fn identity(bodies: &[Vec<Step>]) -> Pages {
        let end = bodies
            .iter()
            .flatten()
            .filter_map(|s| match *s {
                Step::Read { addr, len } | Step::Write { addr, len } if len > 0 => {
                    Some((addr + len - 1) / PAGE_SIZE + 1)
                }
                _ => None,
            })
            .max()
            .unwrap_or(0);
        Pages {
            objects: vec![(0, u64::MAX, 0)],
            count: end,
        }
    }

    fn map(&self, addr: u64) -> u64 {
        let i = self.objects.partition_point(|&(lo, _, _)| lo <= addr) - 1;
        let (lo, _, base) = self.objects[i];
        base + (addr - lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_kernels::Kernel;

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
