//! Recorded workloads as plain data: the task tree a program spawns, with each task's
//! declared accesses and work in program order.
//!
//! A [`Workload`] is what the simulator runs and the profiler reads. It is made by the
//! kernels' recorder (`locus_kernels::record`, an executor that runs a kernel serially
//! and listens to its [`crate::footprint`] declarations) through a [`WorkloadBuilder`],
//! or by hand with [`Workload::from_parts`]; neither consumer knows how it was made.
//!
//! # What a workload holds
//! Each [`Task`] has the id and level the runtime would give it (the halves of a
//! `join` are children 0 and 1 of the joining task, the chunks of a `for_range` its
//! spawns 2, 3, ..., per sync block; see [`crate::Spawner`]), so a policy that
//! profiles by task id (CATS) recognises the second iteration as it does in the
//! runtime. Its body is a list of [`Step`]s: accesses, work, and fork points, in the
//! order the code made them. A root is one `install` of the kernel; a root's fork
//! blocks are its iterations (heat's sweeps), numbered in [`Task::iteration`].
//!
//! # Addresses
//! Recorded addresses are the kernel's real virtual addresses, which differ from run to
//! run. [`WorkloadBuilder::finish`] compacts them: the declared bytes fall into objects
//! (maximal runs of touching ranges: an array, as distinct allocations never touch), and
//! the objects are laid out from address 0 in the order the program first touched them,
//! each from the start of a 4 KiB page. Where the allocator put the arrays, and how it
//! aligned them, changes from one run to the next; the compact layout does not, so two
//! recordings of the same input give the same workload, in one process or in two
//! (bit-identical simulations). An object's first byte lands on a line and page
//! boundary, as large allocations do on most systems.

use std::fmt;
use std::ops::Range;

use crate::TaskInfo;

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
        let mut builder = WorkloadBuilder::default();
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
        let workload = builder.flatten(name, false);
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

/// A workload being written down, task by task, in program order.
///
/// Tasks are numbered as they are added ([`WorkloadBuilder::root`],
/// [`WorkloadBuilder::child`]); steps go to a task's body in the order they are pushed.
/// The builder does not know who runs what: the recorder keeps the running tasks and
/// their [`crate::Spawner`]s, and says when a root's fork block (an iteration) ends.
#[derive(Debug, Default)]
pub struct WorkloadBuilder {
    tasks: Vec<Task>,
    bodies: Vec<Vec<Step>>,
    roots: Vec<u32>,
    /// Root fork blocks completed so far: the iteration new tasks belong to.
    iteration: u32,
}

impl WorkloadBuilder {
    /// An empty workload.
    pub fn new() -> WorkloadBuilder {
        WorkloadBuilder::default()
    }

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

    /// Adds a root task, run after the roots added before it; returns its index.
    pub fn root(&mut self, info: TaskInfo) -> u32 {
        let r = self.new_task(info, None);
        self.roots.push(r);
        r
    }

    /// Adds a task spawned by task `parent`; returns its index. The parent forks it
    /// with a [`Step::Join`] or [`Step::Spawn`] pushed to its body.
    pub fn child(&mut self, parent: u32, info: TaskInfo) -> u32 {
        self.new_task(info, Some(parent))
    }

    /// Appends `step` to the body of task `task`.
    pub fn push(&mut self, task: u32, step: Step) {
        self.bodies[task as usize].push(step);
    }

    /// A root's fork block ended: the tasks added from now on are the next iteration.
    pub fn end_iteration(&mut self) {
        self.iteration += 1;
    }

    /// The workload, its addresses compacted (see the module documentation).
    ///
    /// # Errors
    /// As [`Workload::from_parts`], if the tree is malformed.
    pub fn finish(self, name: &str) -> Result<Workload, String> {
        let workload = self.flatten(name, true);
        workload.check()?;
        Ok(workload)
    }

    /// Flattens the bodies and, if `compact`, renumbers the touched pages.
    fn flatten(self, name: &str, compact: bool) -> Workload {
        let WorkloadBuilder {
            mut tasks,
            bodies,
            roots,
            iteration,
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
pub fn lines_covered(addr: u64, len: u64) -> u64 {
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
