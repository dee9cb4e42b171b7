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
    BUILDER.with(|b| *b.borrow_mut() = Some(Builder::default()));
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
}

impl Builder {
    fn new_task(&mut self, info: TaskInfo, parent: Option<u32>) -> u32 {
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
