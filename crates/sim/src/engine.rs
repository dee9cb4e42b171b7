//! The simulation engine: locus's scheduling policies carried out by simulated workers
//! in simulated time, over a recorded [`Workload`], on a [`Machine`]'s caches.
//!
//! # One policy, two engines
//! The engine builds the policy with the same `PolicyKind::build` the runtime uses and
//! asks it the same questions at the same points (docs/design.md): `place` for every spawn
//! the runtime would place, `parent_first` at every join where the runtime asks, `search`
//! for every search, `task_started` / `task_finished` with the task's own cost when the
//! policy wants it (its misses: the lines it brought into its core's private caches,
//! its prefetcher's included, as the CATS paper's L2 counter saw them on the Opteron:
//! its SOIDs come close to the tasks' data, Fig. 8). The queues are those the policy's [`Layout`] asks for. What the
//! runtime does around those calls is mirrored step by step:
//! - A worker runs a task's steps; at a `join` it pushes the second half where the
//!   policy places it and runs the first inline (child-first), or places both and waits
//!   (parent-first); then it takes the second half back if it is still where it was put
//!   (popping newer tasks of its own deque and running them, as `take_back` does), or
//!   else waits. A `for_range` pushes every chunk and waits at the sync; where the
//!   runtime carries the loop out flat in blocks of consecutive chunks (the policy
//!   layer's rule, `locus_policy::loop_blocks`), it pushes the blocks instead, each
//!   placed as its first chunk, and the worker that starts a block runs its other
//!   chunks after the first, each as its own task started inline, splitting off the
//!   upper half of what is left while a worker is without work
//!   (`locus_policy::block_split`), as the runtime's `Scope::run_block` does.
//! - A waiting worker searches for work with the policy's plan and runs what it finds
//!   on top of the waiting task (the runtime runs it on the same stack), so the waiting
//!   task resumes only when that work is done.
//! - An idle worker that found nothing sleeps until something changes: a push, or a
//!   task's end (which may free a latch or a squad's busy state). Then it searches again,
//!   after a small pseudo-random delay so that woken workers do not always race in the
//!   same order.
//!
//! # Time
//! Each worker has its own clock. Events are processed in order of time (ties by a
//! sequence number), each event one step of one worker: a slice of a task (at most
//! [`SLICE_LINES`] line accesses, so that workers' accesses interleave finely), a fork,
//! a take-back or a search. A step's effects happen at its start; its cost advances the
//! worker's clock. Costs: accesses as the [`Machine`] serves them and the
//! [`crate::clock`] times them, with the lines each access made the core's prefetcher
//! request ([`Machine::prefetched`]) timed from the access's start (under the default
//! clock a worker's misses overlap up to its fill buffers and queue for memory and
//! link bandwidth, and it waits for all of them at a join, a spawn, a sync and its
//! task's end), declared work at the
//! latency table's IPC, a spawn, and per probe of a queue (within the squad or remote)
//! plus per successful steal; and, where [`SimConfig::policy_costs`] asks, what the
//! runtime pays for the policy's own work ([`crate::calibration`]): each `place` the
//! runtime would ask, each task pushed to a shared queue, each task whose events the
//! policy gets (measured or not), each queued start. Queues are exact (no lost or repeated task, no failed
//! race): each step is atomic.
//!
//! # Determinism
//! No hashing of addresses, no wall clock, no thread: the same workload, machine,
//! policy, latencies and seed give bit-identical results.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;

use locus_policy::{
    block_chunks, block_split, loop_blocks, own_task_scan, pick_shallow, ChunkPlacement, Layout,
    Order, Place, Policy, PolicyFactory, PolicyKind, Probe, SearchCounter, Source, TaskCost,
    TaskInfo, VictimOrder, Victims, WorkerMap,
};
use locus_topo::Topology;
use serde::Serialize;

use crate::calibration::PolicyCosts;
use crate::clock::{ClockCounts, ClockKind, MemoryClock};
use crate::latency::{Latencies, LatencyTable};
use crate::machine::{CoreCounts, Machine, MachineError, Placement};
use crate::trace::{Flow, Slice, StealKind, Timeline, Track};
use locus_task::rng::XorShift64Star;
use locus_task::workload::{Step, Workload};

/// Line accesses a worker makes in one step at most (guess: fine enough that two
/// workers streaming through shared lines interleave, coarse enough to keep the event
/// count low; results change by well under 1% between 64 and 1024 on heat with the
/// serial clock, and by 2% at most between 64 and 256 with the overlapping one: heat
/// 1024x512 ws 7.50 against 7.37 M cycles, cats/ws 0.68 against 0.69; 3072x2048 ws
/// 145 against 144 M, cats/ws 0.97 against 0.98).
pub const SLICE_LINES: u64 = 256;

/// What to simulate besides the workload, machine and policy.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Workers; `None` for one per PU of the machine.
    pub threads: Option<usize>,
    /// Seed of the workers' victim choices and wake-up delays.
    pub seed: u64,
    /// The machine's costs.
    pub latencies: LatencyTable,
    /// The clock that charges memory accesses ([`crate::clock`]).
    pub clock: ClockKind,
    /// Where pages are placed when first touched ([`crate::machine`]).
    pub placement: Placement,
    /// Keep a timeline for [`SimResult::timeline`].
    pub trace: bool,
    /// What the runtime's policy work costs, in cycles ([`crate::calibration`]); zero
    /// charges nothing.
    pub policy_costs: PolicyCosts,
}

impl SimConfig {
    /// The defaults for `topology`: one worker per PU, seed 1, its latency table, the
    /// overlapping clock, first-touch pages, no timeline, the policies' runtime costs
    /// not charged.
    pub fn for_machine(topology: &Topology) -> SimConfig {
        SimConfig {
            threads: None,
            seed: 1,
            latencies: Latencies::defaults_for(topology.name()),
            clock: ClockKind::default(),
            placement: Placement::default(),
            trace: false,
            policy_costs: PolicyCosts::default(),
        }
    }
}

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The machine cannot be modelled.
    #[error(transparent)]
    Machine(#[from] MachineError),
    /// Bad thread count.
    #[error(
        "--threads {threads}: the simulated machine '{machine}' has {pus} PUs; simulate \
         between 1 and {pus} workers (one per PU at most: the simulator does not time-slice)"
    )]
    Threads {
        /// Asked for.
        threads: usize,
        /// The machine.
        machine: String,
        /// Its PUs.
        pus: usize,
    },
    /// The workload has no root task.
    #[error("the workload '{0}' has no task to run")]
    Empty(String),
    /// Every worker waits and no work is left: a bug in the engine or the policy.
    #[error(
        "simulation stalled at cycle {time} with {unfinished} tasks unfinished: every \
         worker waits and no queue the policies' plans look at holds work (a bug)"
    )]
    Stalled {
        /// When.
        time: u64,
        /// Tasks not finished.
        unfinished: usize,
    },
}

/// Counters of one simulated worker. The search's counters (from `steals_squad` to
/// `bulk_tasks`, and `injected`) are [`SearchCounter`]s, with the meaning it gives them
/// in both engines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WorkerCounts {
    /// Tasks run (counted as each starts; the runtime's `tasks`).
    pub tasks: u64,
    /// [`SearchCounter::StealsSquad`].
    pub steals_squad: u64,
    /// [`SearchCounter::StealsRemote`].
    pub steals_remote: u64,
    /// [`SearchCounter::StealsSameNode`].
    pub steals_same_node: u64,
    /// [`SearchCounter::StealsSamePackage`].
    pub steals_same_package: u64,
    /// [`SearchCounter::StealsOtherPackage`].
    pub steals_other_package: u64,
    /// [`SearchCounter::LostSteals`]: none in the simulator.
    pub lost_steals: u64,
    /// [`SearchCounter::EmptyScans`].
    pub empty_scans: u64,
    /// [`SearchCounter::BulkSteals`].
    pub bulk_steals: u64,
    /// [`SearchCounter::BulkTasks`].
    pub bulk_tasks: u64,
    /// Tasks taken back at a join from a shared queue.
    pub taken_back: u64,
    /// [`SearchCounter::Injected`].
    pub injected: u64,
    /// Cycles running tasks' steps.
    pub busy_cycles: u64,
    /// Cycles spent spawning, probing queues and stealing.
    pub sched_cycles: u64,
    /// Searches that found nothing.
    pub empty_searches: u64,
}

impl WorkerCounts {
    fn add(&mut self, o: &WorkerCounts) {
        self.tasks += o.tasks;
        self.steals_squad += o.steals_squad;
        self.steals_remote += o.steals_remote;
        self.steals_same_node += o.steals_same_node;
        self.steals_same_package += o.steals_same_package;
        self.steals_other_package += o.steals_other_package;
        self.lost_steals += o.lost_steals;
        self.empty_scans += o.empty_scans;
        self.bulk_steals += o.bulk_steals;
        self.bulk_tasks += o.bulk_tasks;
        self.taken_back += o.taken_back;
        self.injected += o.injected;
        self.busy_cycles += o.busy_cycles;
        self.sched_cycles += o.sched_cycles;
        self.empty_searches += o.empty_searches;
    }

    /// Adds `by` to `counter`'s field.
    fn bump(&mut self, counter: SearchCounter, by: u64) {
        *self.search_field(counter) += by;
    }

    /// The value of `counter`'s field.
    pub fn search_count(&self, counter: SearchCounter) -> u64 {
        let mut copy = *self;
        *copy.search_field(counter)
    }

    /// The field of `counter`.
    fn search_field(&mut self, counter: SearchCounter) -> &mut u64 {
        match counter {
            SearchCounter::StealsSquad => &mut self.steals_squad,
            SearchCounter::StealsRemote => &mut self.steals_remote,
            SearchCounter::StealsSameNode => &mut self.steals_same_node,
            SearchCounter::StealsSamePackage => &mut self.steals_same_package,
            SearchCounter::StealsOtherPackage => &mut self.steals_other_package,
            SearchCounter::LostSteals => &mut self.lost_steals,
            SearchCounter::EmptyScans => &mut self.empty_scans,
            SearchCounter::BulkSteals => &mut self.bulk_steals,
            SearchCounter::BulkTasks => &mut self.bulk_tasks,
            SearchCounter::Injected => &mut self.injected,
        }
    }
}

/// What a simulation measured.
#[derive(Debug, Clone, Serialize)]
pub struct SimResult {
    /// The policy, as `--policy` spells it.
    pub policy: String,
    /// The machine's name.
    pub machine: String,
    /// The workload, as recorded.
    pub workload: String,
    /// Simulated workers.
    pub workers: usize,
    /// Their squads.
    pub squads: usize,
    /// The seed.
    pub seed: u64,
    /// Where the latencies came from.
    pub latencies: String,
    /// Clock of the simulated cores, GHz.
    pub clock_ghz: f64,
    /// The memory clock (`serial` or `overlap`).
    pub clock: ClockKind,
    /// Where pages went when first touched (`first-touch` or `interleave`).
    pub placement: Placement,
    /// What the memory clock measured: lines through the servers, queueing, stalls.
    pub memory: ClockCounts,
    /// Cycles from the first root's injection to the last task's end.
    pub makespan: u64,
    /// The makespan in seconds at the clock.
    pub seconds: f64,
    /// Memory counters of the whole machine.
    pub total: CoreCounts,
    /// Memory counters per package (socket).
    pub sockets: Vec<CoreCounts>,
    /// Memory counters per core.
    pub cores: Vec<CoreCounts>,
    /// Scheduling counters of the whole pool.
    pub sched: WorkerCounts,
    /// Scheduling counters per worker.
    pub per_worker: Vec<WorkerCounts>,
    /// The policy's own statistics, by name, then the engine's placement counts of loop
    /// chunks (`chunk_same_squad` of `chunk_compared`) where there are two squads or more.
    pub policy_stats: Vec<(String, u64)>,
    /// What the policy decided and why (`--explain`).
    pub explain: String,
    /// The timeline, when [`SimConfig::trace`] asked for one.
    #[serde(skip)]
    pub timeline: Option<Timeline>,
    /// Placement stability of the leaf inter-squad tasks and loop chunks (see
    /// [`locus_policy::placement_stability`]), where there are any.
    pub placement_stability: Option<f64>,
}

impl SimResult {
    /// L3 (shared last-level) misses of the whole machine.
    pub fn l3_misses(&self) -> u64 {
        self.total.misses[2]
    }

    /// A policy statistic by name, 0 if the policy has none of that name.
    pub fn policy_stat(&self, name: &str) -> u64 {
        self.policy_stats
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, v)| *v)
    }
}

/// Runs `workload` on `topology` under `policy`.
///
/// # Errors
/// If the machine cannot be modelled, the thread count does not fit it, or the
/// workload is empty.
pub fn simulate(
    workload: &Workload,
    topology: &Topology,
    policy: PolicyKind,
    config: &SimConfig,
) -> Result<SimResult, SimError> {
    simulate_with(workload, topology, &PolicyFactory::from(policy), config)
}

/// Runs `workload` on `topology` under the policy `factory` builds for the simulated
/// workers: any [`Policy`], not only a [`PolicyKind`]'s.
///
/// # Errors
/// As [`simulate`].
pub fn simulate_with(
    workload: &Workload,
    topology: &Topology,
    factory: &PolicyFactory,
    config: &SimConfig,
) -> Result<SimResult, SimError> {
    let pus = topology.num_pus();
    let threads = config.threads.unwrap_or(pus);
    if threads == 0 || threads > pus {
        return Err(SimError::Threads {
            threads,
            machine: topology.name().to_string(),
            pus,
        });
    }
    if workload.roots().is_empty() {
        return Err(SimError::Empty(workload.name.clone()));
    }
    let mut machine = Machine::new(topology, config.latencies.latencies, workload.pages())?;
    machine.set_placement(config.placement);
    let map = WorkerMap::new(topology, threads);
    let built = factory.build(&map);
    let mut sim = Sim::new(workload, topology, &map, built, config, machine);
    sim.run()?;
    Ok(sim.result(factory.name(), topology, config))
}

/// What a frame of a worker's stack is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Running the task's steps.
    Run,
    /// The first half of a join ran inline; take the second back if it still waits.
    TakeBack { b: u32, place: Place },
    /// Waiting for the task's outstanding children (searching for work meanwhile).
    Wait,
}

/// A task on a worker's stack.
#[derive(Debug, Clone, Copy)]
struct Frame {
    task: u32,
    /// The next step.
    pc: u32,
    /// Bytes of step `pc` already accessed.
    offset: u64,
    mode: Mode,
    /// `task_started` was called: `task_finished` is owed.
    events: bool,
    costed: bool,
    /// Came from a queue: its parent counts it outstanding.
    queued: bool,
    own: TaskCost,
    /// The task heads a block of a loop's chunks: the rest of the block, run after the
    /// task's own steps.
    block: Option<Block>,
}

/// What is left of a block of a flat loop's consecutive chunks (`locus_policy`'s
/// `grain`), run by the worker that runs its first chunk, as the runtime's
/// `Scope::run_block` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    /// The step of the loop's owner that spawns the loop's chunk 0 (chunk `i` is the
    /// task its step `from + i` spawns).
    from: u32,
    /// The next chunk to run.
    next: u32,
    /// One past the block's last chunk.
    end: u32,
}

#[derive(Debug)]
struct Worker {
    clock: u64,
    frames: Vec<Frame>,
    rng: XorShift64Star,
    core: usize,
    package: usize,
    squad: usize,
    idle: bool,
    /// From a search that found nothing until the worker starts a task (the runtime's
    /// idle spell; `idle` is cleared by every wake-up).
    without_work: bool,
    generation: u64,
    counts: WorkerCounts,
}

/// The queues a layout asks for.
#[derive(Debug, Default)]
struct Queues {
    deques: Vec<VecDeque<u32>>,
    inboxes: Vec<VecDeque<u32>>,
    squad: Vec<VecDeque<u32>>,
    central: VecDeque<u32>,
    inter: Vec<VecDeque<u32>>,
    injector: VecDeque<u32>,
}

struct Sim<'w> {
    workload: &'w Workload,
    map: &'w WorkerMap,
    policy: Arc<dyn Policy>,
    layout: Layout,
    lat: Latencies,
    /// The policy's runtime costs charged ([`SimConfig::policy_costs`]).
    costs: PolicyCosts,
    machine: Machine,
    memory: MemoryClock,
    /// The time of the event being processed: no access is made before it.
    now: u64,
    workers: Vec<Worker>,
    queues: Queues,
    /// Children forked and not finished, per task.
    outstanding: Vec<u32>,
    /// Who pushed each task and when (for the timeline and steal flows).
    pushed_by: Vec<u32>,
    pushed_at: Vec<u64>,
    events: BinaryHeap<Reverse<(u64, u64, usize, u64)>>,
    seq: u64,
    next_root: usize,
    done: bool,
    makespan: u64,
    finished_tasks: usize,
    plan: Vec<Probe>,
    trace: Option<TraceBuf>,
    /// Where loop chunks ran, for placement stability; only with two squads or more.
    chunk_placement: Option<ChunkPlacement>,
    /// Per package (`WorkerMap::package_of`), how many of its workers are without
    /// work: the runtime's per-package idle count, which `Victims::Package` reads.
    package_idle: Vec<usize>,
    /// The blocks spawned and not yet started, by the task of their first chunk.
    blocks: BTreeMap<u32, Block>,
}

/// The timeline being recorded.
#[derive(Debug, Default)]
struct TraceBuf {
    slices: Vec<Slice>,
    flows: Vec<Flow>,
    /// Per worker, its last slice (to extend when the same task goes on).
    last: Vec<Option<usize>>,
}

impl<'w> Sim<'w> {
    fn new(
        workload: &'w Workload,
        topology: &Topology,
        map: &'w WorkerMap,
        policy: Arc<dyn Policy>,
        config: &SimConfig,
        machine: Machine,
    ) -> Sim<'w> {
        let n = map.num_workers();
        let layout = policy.layout();
        let squads = map.num_squads();
        let workers: Vec<Worker> = (0..n)
            .map(|w| Worker {
                clock: 0,
                frames: Vec::new(),
                rng: seed_rng(config.seed, w),
                core: topology.pus()[map.pu_of(w)].core,
                package: topology.pus()[map.pu_of(w)].package,
                squad: map.squad_of(w),
                idle: false,
                without_work: false,
                generation: 0,
                counts: WorkerCounts::default(),
            })
            .collect();
        let queues = Queues {
            deques: vec![VecDeque::new(); n],
            inboxes: if layout.inbox.is_some() {
                vec![VecDeque::new(); n]
            } else {
                Vec::new()
            },
            squad: if layout.squad_queues {
                vec![VecDeque::new(); squads]
            } else {
                Vec::new()
            },
            central: VecDeque::new(),
            inter: if layout.inter_pools {
                vec![VecDeque::new(); squads]
            } else {
                Vec::new()
            },
            injector: VecDeque::new(),
        };
        let tasks = workload.tasks().len();
        let memory = MemoryClock::new(
            config.clock,
            &config.latencies.latencies,
            n,
            machine.package_of_node().to_vec(),
            topology.num_packages(),
            machine.line_bytes(),
        );
        Sim {
            workload,
            map,
            policy,
            layout,
            lat: config.latencies.latencies,
            costs: config.policy_costs,
            machine,
            memory,
            now: 0,
            workers,
            queues,
            outstanding: vec![0; tasks],
            pushed_by: vec![u32::MAX; tasks],
            pushed_at: vec![0; tasks],
            events: BinaryHeap::new(),
            seq: 0,
            next_root: 0,
            done: false,
            makespan: 0,
            finished_tasks: 0,
            plan: Vec::with_capacity(8),
            trace: config.trace.then(|| TraceBuf {
                last: vec![None; n],
                ..TraceBuf::default()
            }),
            chunk_placement: (squads > 1).then(ChunkPlacement::new),
            package_idle: vec![0; map.num_packages()],
            blocks: BTreeMap::new(),
        }
    }

    fn run(&mut self) -> Result<(), SimError> {
        self.inject_next_root(0);
        for w in 0..self.workers.len() {
            self.schedule(w);
        }
        while let Some(Reverse((time, _, w, generation))) = self.events.pop() {
            if self.done {
                break;
            }
            if generation != self.workers[w].generation {
                continue;
            }
            self.now = time;
            let worker = &mut self.workers[w];
            worker.clock = worker.clock.max(time);
            self.step(w);
        }
        if !self.done {
            let time = self.workers.iter().map(|w| w.clock).max().unwrap_or(0);
            return Err(SimError::Stalled {
                time,
                unfinished: self.workload.tasks().len() - self.finished_tasks,
            });
        }
        Ok(())
    }

    /// Queues the worker's next step at its clock.
    fn schedule(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        worker.generation += 1;
        self.seq += 1;
        self.events
            .push(Reverse((worker.clock, self.seq, w, worker.generation)));
    }

    /// Something changed at `time`: idle workers look again.
    fn wake_idle(&mut self, time: u64) {
        let spread = u64::from(self.lat.probe_local.max(1));
        for w in 0..self.workers.len() {
            let worker = &mut self.workers[w];
            if !worker.idle {
                continue;
            }
            worker.idle = false;
            let jitter = worker.rng.next_u64() % spread;
            let at = worker.clock.max(time) + jitter;
            worker.clock = at;
            self.schedule(w);
        }
    }

    /// `w` starts a task, or goes on with one whose children have all finished: its
    /// spell without work, if any, ends.
    fn found_work(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        if worker.without_work {
            worker.without_work = false;
            self.package_idle[self.map.package_of(worker.squad)] -= 1;
        }
    }

    fn go_idle(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        worker.idle = true;
        worker.counts.empty_searches += 1;
        if !worker.without_work {
            worker.without_work = true;
            self.package_idle[self.map.package_of(worker.squad)] += 1;
        }
    }

    fn inject_next_root(&mut self, time: u64) {
        match self.workload.roots().get(self.next_root) {
            Some(&root) => {
                self.next_root += 1;
                self.queues.injector.push_back(root);
                self.pushed_at[root as usize] = time;
                self.wake_idle(time);
            }
            None => {
                self.done = true;
                self.makespan = time;
            }
        }
    }

    fn info(&self, task: u32) -> TaskInfo {
        self.workload.tasks()[task as usize].info
    }

    fn step(&mut self, w: usize) {
        let Some(top) = self.workers[w].frames.last().copied() else {
            self.search(w);
            return;
        };
        match top.mode {
            Mode::Run => self.run_steps(w),
            Mode::TakeBack { b, place } => self.take_back(w, b, place),
            Mode::Wait => {
                if self.outstanding[top.task as usize] == 0 {
                    self.found_work(w);
                    self.top(w).mode = Mode::Run;
                    self.schedule(w);
                } else {
                    self.search(w);
                }
            }
        }
    }

    fn top(&mut self, w: usize) -> &mut Frame {
        self.workers[w]
            .frames
            .last_mut()
            .expect("the worker runs a task")
    }

    /// Runs the top task's steps until a fork, a wait, its end, or a slice's worth of
    /// accesses.
    fn run_steps(&mut self, w: usize) {
        let worker = &self.workers[w];
        let core = worker.core;
        let package = worker.package;
        let start = worker.clock;
        let now = self.now;
        let mut frame = *worker.frames.last().expect("a task to run");
        let steps = self.workload.steps(frame.task);
        let mut clock = start;
        let mut budget = SLICE_LINES;
        let line = self.machine.line_bytes();
        let ipc = self.lat.ipc;
        let mut fork = None;
        while (frame.pc as usize) < steps.len() {
            match steps[frame.pc as usize] {
                Step::Read { addr, len } | Step::Write { addr, len } => {
                    let write = matches!(steps[frame.pc as usize], Step::Write { .. });
                    let at = addr + frame.offset;
                    let left = len - frame.offset;
                    // Lines from `at` to the end of the range, at most the budget.
                    let first_line = at / line;
                    let last_line = (addr + len - 1) / line;
                    let lines = (last_line - first_line + 1).min(budget);
                    let end = ((first_line + lines) * line).min(at + left);
                    for l in first_line..first_line + lines {
                        let served = self.machine.access(core, l, write);
                        // The task's measured misses: every line it brought into the
                        // core's private caches, its prefetches' included (module doc).
                        frame.own.misses +=
                            u64::from(served.private_miss) + self.machine.prefetched().len() as u64;
                        let issued = clock;
                        clock = self.memory.charge(w, package, clock, now, l, served);
                        for p in self.machine.prefetched() {
                            self.memory
                                .prefetch(w, package, issued, now, p.line, p.served);
                        }
                    }
                    budget -= lines;
                    if end == addr + len {
                        frame.pc += 1;
                        frame.offset = 0;
                    } else {
                        frame.offset = end - addr;
                    }
                    if budget == 0 {
                        break;
                    }
                }
                Step::Work(n) => {
                    clock += ((n as f64) / ipc).ceil() as u64;
                    frame.own.instructions += n;
                    frame.pc += 1;
                }
                Step::Join(..) | Step::Spawn(_) | Step::Sync => {
                    fork = Some(steps[frame.pc as usize]);
                    break;
                }
            }
        }
        if fork.is_some() || frame.pc as usize >= steps.len() {
            // A dependency point or the task's end: every outstanding line arrives first.
            clock = self.memory.drain(w, clock);
        }
        // What the fork or the end does (pushes, wake-ups, a parent's count) happens at
        // the worker's clock, which may be past the event being processed: it is left to
        // the worker's next event, at that clock, so that every worker sees it in time
        // order (an idle worker woken here would jump to this clock and miss work pushed
        // by others before it).
        let deferred = clock > start && (fork.is_some() || frame.pc as usize >= steps.len());
        if deferred {
            fork = None;
        } else if fork.is_some() {
            frame.pc += 1;
        }
        let ran = clock - start;
        frame.own.nanos += ran;
        let worker = &mut self.workers[w];
        worker.counts.busy_cycles += ran;
        worker.clock = clock;
        *worker.frames.last_mut().expect("still there") = frame;
        self.trace_slice(w, frame.task, start, clock);
        match fork {
            Some(Step::Join(a, b)) => self.join(w, a, b),
            Some(Step::Spawn(c)) if self.layout.loop_plans && self.spawn_planned_loop(w, c) => {}
            Some(Step::Spawn(c)) if self.spawn_loop_in_blocks(w, c) => {}
            Some(Step::Spawn(c)) => {
                self.spend(w, self.lat.spawn);
                self.outstanding[frame.task as usize] += 1;
                self.push(w, c);
                self.schedule(w);
            }
            Some(Step::Sync) => {
                if self.outstanding[frame.task as usize] > 0 {
                    self.top(w).mode = Mode::Wait;
                }
                self.schedule(w);
            }
            _ if deferred || (frame.pc as usize) < steps.len() => self.schedule(w),
            _ if frame.block.is_some() => self.next_in_block(w),
            _ => self.finish(w),
        }
    }

    /// At the first chunk `first` of a parallel loop that the runtime carries out flat
    /// (`Layout::splits_loops` false) and in blocks (`locus_policy::loop_blocks`, after
    /// the policy gave no plan): spawns the loop's blocks, each placed as its first
    /// chunk, and returns true. False, and nothing done, for any other spawn.
    fn spawn_loop_in_blocks(&mut self, w: usize, first: u32) -> bool {
        if self.layout.splits_loops() {
            return false;
        }
        let info = self.info(first);
        let parent = self.top(w).task;
        if info.chunk_index(&self.info(parent)) != Some(0) {
            return false;
        }
        let k = info.loop_chunks as usize;
        let Some(blocks) = loop_blocks(k, self.map, &*self.policy) else {
            return false;
        };
        // The loop's spawns are consecutive steps of the parent, the first just taken.
        let from = self.top(w).pc - 1;
        self.top(w).pc = from + k as u32;
        for b in 0..blocks {
            let chunks = block_chunks(b, blocks, k);
            if chunks.is_empty() {
                continue;
            }
            let block = Block {
                from,
                next: chunks.start as u32 + 1,
                end: chunks.end as u32,
            };
            self.spawn_block(w, parent, chunks.start as u32, block);
        }
        self.schedule(w);
        true
    }

    /// The task of chunk `i` of the loop whose chunk 0 step `from` of `parent` spawns.
    fn chunk_task(&self, parent: u32, from: u32, i: u32) -> u32 {
        match self.workload.steps(parent)[(from + i) as usize] {
            Step::Spawn(c) => c,
            other => unreachable!("a recorded loop spawns its chunks in a row, not {other:?}"),
        }
    }

    /// `w` spawns, for the loop's owner `parent`, the block whose first chunk is `first`
    /// and whose other chunks `block` holds: placed as its first chunk.
    fn spawn_block(&mut self, w: usize, parent: u32, first: u32, block: Block) {
        let task = self.chunk_task(parent, block.from, first);
        self.blocks.insert(task, block);
        self.spend(w, self.lat.spawn);
        self.outstanding[parent as usize] += 1;
        self.push_from(w, parent, task);
    }

    /// The top task of `w`, the head of a block, has run its own steps: runs the block's
    /// next chunk as its own task on top of it (as a task run inline), first splitting
    /// off the upper half of what is left as a block of its own while a worker is
    /// without work (`locus_policy::block_split`), as the runtime's `Scope::run_block`
    /// does; or, with the block done, finishes it.
    fn next_in_block(&mut self, w: usize) {
        let head = self.top(w).task;
        let mut block = self.top(w).block.expect("a block's head");
        if block.next == block.end {
            self.top(w).block = None;
            self.finish(w);
            return;
        }
        let owner = self.workload.tasks()[head as usize]
            .parent
            .expect("a loop's chunk has the loop's owner for parent");
        let looking = self.package_idle.iter().any(|&n| n > 0);
        if let Some(mid) = block_split(block.next, block.end).filter(|_| looking) {
            let upper = Block {
                from: block.from,
                next: mid + 1,
                end: block.end,
            };
            self.spawn_block(w, owner, mid, upper);
            block.end = mid;
        }
        let chunk = self.chunk_task(owner, block.from, block.next);
        block.next += 1;
        self.top(w).block = Some(block);
        self.start(w, chunk, Source::Inline, false);
        self.schedule(w);
    }

    /// At the first chunk `first` of a parallel loop, under a policy that plans loops:
    /// asks for the plan and, if there is one, spawns the whole loop as it says and
    /// returns true. Each lane is one spawn into its worker's inbox, its chunks queued
    /// there in the lane's order (only that worker pops its inbox, oldest first, so it
    /// runs them one after the other as the runtime's lane does); the chunks of no lane
    /// are spawned and placed one by one. False, and nothing done, for any other spawn.
    fn spawn_planned_loop(&mut self, w: usize, first: u32) -> bool {
        let info = self.info(first);
        let parent = self.top(w).task;
        let parent_info = self.info(parent);
        if info.chunk_index(&parent_info) != Some(0) {
            return false;
        }
        let k = info.loop_chunks;
        let Some(plan) = self.policy.plan_loop(w, &parent_info, k) else {
            return false;
        };
        plan.assert_covers(k, self.workers.len(), self.policy.name());
        // The loop's spawns are consecutive steps of the parent, the first just taken.
        let steps = self.workload.steps(parent);
        let from = self.top(w).pc as usize - 1;
        let chunks: Vec<u32> = steps[from..from + k as usize]
            .iter()
            .map(|step| match step {
                Step::Spawn(c) => *c,
                other => unreachable!("a recorded loop spawns its chunks in a row, not {other:?}"),
            })
            .collect();
        self.top(w).pc = (from + k as usize) as u32;
        self.outstanding[parent as usize] += k;
        for (target, lane) in plan.lanes.iter().enumerate() {
            if lane.is_empty() {
                continue;
            }
            self.spend(w, self.lat.spawn);
            let now = self.workers[w].clock;
            for &i in lane {
                let task = chunks[i as usize];
                self.queues.inboxes[target].push_back(task);
                self.pushed_by[task as usize] = w as u32;
                self.pushed_at[task as usize] = now;
            }
        }
        let now = self.workers[w].clock;
        self.wake_idle(now);
        for &i in &plan.rest {
            self.spend(w, self.lat.spawn);
            self.push(w, chunks[i as usize]);
        }
        self.schedule(w);
        true
    }

    /// Scheduler work of `cycles` on worker `w`.
    fn spend(&mut self, w: usize, cycles: u32) {
        let worker = &mut self.workers[w];
        worker.clock += u64::from(cycles);
        worker.counts.sched_cycles += u64::from(cycles);
    }

    /// The top task of `w` joins `a` and `b`.
    fn join(&mut self, w: usize, a: u32, b: u32) {
        let parent = self.top(w).task;
        let parent_info = self.info(parent);
        self.spend(w, self.lat.spawn);
        if self.layout.task_events && self.policy.parent_first(w, &parent_info, &self.info(a)) {
            self.outstanding[parent as usize] += 2;
            self.push(w, a);
            self.push(w, b);
            self.top(w).mode = Mode::Wait;
            self.schedule(w);
            return;
        }
        self.outstanding[parent as usize] += 1;
        let place = self.push(w, b);
        self.top(w).mode = Mode::TakeBack { b, place };
        self.start(w, a, Source::Inline, false);
        self.schedule(w);
    }

    /// Publishes `task`, spawned by `w`'s top task, where the policy places it.
    fn push(&mut self, w: usize, task: u32) -> Place {
        let parent = self.top(w).task;
        self.push_from(w, parent, task)
    }

    /// Publishes `task`, spawned on `w` by `parent_task` (`w`'s top task, or the owner
    /// of the loop whose block `w` runs), where the policy places it.
    fn push_from(&mut self, w: usize, parent_task: u32, task: u32) -> Place {
        let place = if self.layout.always_local {
            Place::Local
        } else {
            let parent = self.info(parent_task);
            let info = self.info(task);
            let place = self.policy.place(w, &parent, &info);
            self.charge_placement(w, place);
            // The runtime stops asking once the policy promises this
            // (`Policy::spawns_stay_local`).
            debug_assert!(
                place == Place::Local || info.is_loop_chunk() || !self.policy.spawns_stay_local(),
                "{} promised that its spawns stay local, and placed {place:?}",
                self.policy.name()
            );
            place
        };
        let q = &mut self.queues;
        match place {
            Place::Local => q.deques[w].push_back(task),
            Place::Worker(t) => q.inboxes[t].push_back(task),
            Place::Squad(s) => q.squad[s].push_back(task),
            Place::Central => q.central.push_back(task),
            Place::InterPool(s) => q.inter[s].push_back(task),
        }
        let now = self.workers[w].clock;
        self.pushed_by[task as usize] = w as u32;
        self.pushed_at[task as usize] = now;
        self.wake_idle(now);
        place
    }

    /// Charges what the runtime pays for a `place` that answered `place`: the call,
    /// unless the policy promised local spawns (the runtime stops asking then), and a
    /// shared queue's push and pop.
    fn charge_placement(&mut self, w: usize, place: Place) {
        let c = self.costs;
        if c.place > 0 && !self.policy.spawns_stay_local() {
            self.spend(w, c.place);
        }
        if c.shared_queue > 0 && place != Place::Local {
            self.spend(w, c.shared_queue);
        }
    }

    /// Charges a task's events, as the runtime pays for them while the policy wants them:
    /// measured (`costed`) or not.
    fn charge_events(&mut self, w: usize, costed: bool) {
        let c = self.costs;
        let cost = if costed {
            c.profiled_task
        } else {
            c.task_event
        };
        if cost > 0 && self.policy.wants_task_events() {
            self.spend(w, cost);
        }
    }

    /// The first half of a join is done: take the second back if it still waits.
    fn take_back(&mut self, w: usize, b: u32, place: Place) {
        let parent = self.top(w).task;
        let found = match place {
            Place::Local => match self.queues.deques[w].pop_back() {
                Some(x) if x == b => true,
                Some(x) => {
                    // A newer task of this worker's deque: run it first, as the runtime's
                    // take-back loop does, then try again.
                    self.start(w, x, Source::OwnSquad, true);
                    self.schedule(w);
                    return;
                }
                None => false,
            },
            Place::InterPool(_) => false,
            Place::Worker(t) => remove(&mut self.queues.inboxes[t], b),
            Place::Squad(s) => remove(&mut self.queues.squad[s], b),
            Place::Central => remove(&mut self.queues.central, b),
        };
        if found {
            if place != Place::Local {
                self.workers[w].counts.taken_back += 1;
            }
            self.outstanding[parent as usize] -= 1;
            self.top(w).mode = Mode::Run;
            self.start(w, b, Source::Inline, false);
        } else {
            self.top(w).mode = Mode::Wait;
        }
        self.schedule(w);
    }

    /// Starts `task` on `w`, on top of whatever it runs.
    fn start(&mut self, w: usize, task: u32, source: Source, queued: bool) {
        let info = self.info(task);
        if let (true, Some(p)) = (info.is_loop_chunk(), &self.chunk_placement) {
            p.started(info.id, self.workers[w].squad);
        }
        let (events, costed) = if self.layout.task_events {
            self.policy.task_started(w, &info, source);
            let costed = self.policy.wants_cost();
            self.charge_events(w, costed);
            (true, costed)
        } else {
            (false, false)
        };
        self.found_work(w);
        // A block's head (spawned by `spawn_block`) runs the rest of its block after it.
        let block = if queued && !self.blocks.is_empty() {
            self.blocks.remove(&task)
        } else {
            None
        };
        let worker = &mut self.workers[w];
        worker.counts.tasks += 1;
        worker.frames.push(Frame {
            task,
            pc: 0,
            offset: 0,
            mode: Mode::Run,
            events,
            costed,
            queued,
            own: TaskCost::default(),
            block,
        });
    }

    /// The top task of `w` has run its last step.
    fn finish(&mut self, w: usize) {
        let frame = self.workers[w].frames.pop().expect("a task to finish");
        let now = self.workers[w].clock;
        let info = self.info(frame.task);
        if frame.events {
            let cost = frame.costed.then(|| TaskCost {
                misses: frame.own.misses,
                bytes: frame.own.misses * self.machine.line_bytes(),
                instructions: frame.own.instructions,
                nanos: (frame.own.nanos as f64 / self.lat.clock_ghz) as u64,
            });
            self.policy.task_finished(w, &info, cost.as_ref());
        }
        self.finished_tasks += 1;
        match self.workload.tasks()[frame.task as usize].parent {
            Some(parent) if frame.queued => self.outstanding[parent as usize] -= 1,
            Some(_) => {}
            None => {
                self.makespan = now;
                self.inject_next_root(now);
            }
        }
        if let Some(t) = &mut self.trace {
            t.last[w] = None;
        }
        self.wake_idle(now);
        self.schedule(w);
    }

    /// One search: the policy's plan, then the injector. Starts what it finds, or idles.
    fn search(&mut self, w: usize) {
        let mut plan = std::mem::take(&mut self.plan);
        plan.clear();
        self.policy.search(w, &mut plan);
        let mut found = None;
        for &probe in &plan {
            if let Some(hit) = self.probe(w, probe) {
                found = Some(hit);
                break;
            }
        }
        self.plan = plan;
        if found.is_none() {
            if let Some(root) = self.queues.injector.pop_front() {
                self.workers[w].counts.bump(SearchCounter::Injected, 1);
                found = Some((root, Source::OwnSquad, None));
            }
        }
        match found {
            Some((task, source, steal)) => {
                if let (Some(kind), Some(t)) = (steal, self.trace.as_mut()) {
                    let from = self.pushed_by[task as usize];
                    if from != u32::MAX {
                        t.flows.push(Flow {
                            task: self.workload.tasks()[task as usize].info.id.0,
                            from_worker: from as usize,
                            to_worker: w,
                            time: self.pushed_at[task as usize],
                            start: self.workers[w].clock,
                            kind,
                        });
                    }
                }
                if self.layout.queued_starts && !self.layout.task_events {
                    // As the runtime: a task a search found, not one a join popped.
                    self.policy.task_started(w, &self.info(task), source);
                    self.spend(w, self.costs.task_event);
                } else if self.layout.queued_starts
                    && self.costs.task_event > 0
                    && !self.policy.wants_task_events()
                {
                    // The runtime's workers report queued starts once the task events
                    // stop; the simulated policy still gets every task's events.
                    self.spend(w, self.costs.task_event);
                }
                self.start(w, task, source, true);
                self.schedule(w);
            }
            None => self.go_idle(w),
        }
    }

    fn probe_cost(&self, w: usize, squad: usize) -> u32 {
        if squad == self.workers[w].squad {
            self.lat.probe_local
        } else {
            self.lat.probe_remote
        }
    }

    /// One probe of a plan: the task found, where from, and the kind of steal if any.
    fn probe(&mut self, w: usize, probe: Probe) -> Option<(u32, Source, Option<StealKind>)> {
        let own_squad = self.workers[w].squad;
        let local = |t: Option<u32>| t.map(|t| (t, Source::OwnSquad, None));
        match probe {
            Probe::OwnDeque => local(self.queues.deques[w].pop_back()),
            Probe::OwnInbox => match self.layout.inbox {
                Some(Order::Fifo) => local(self.queues.inboxes[w].pop_front()),
                Some(Order::Lifo) => local(self.queues.inboxes[w].pop_back()),
                None => None,
            },
            Probe::Steal(victims) => self.steal(w, victims),
            Probe::SquadQueue(s) => {
                self.spend(w, self.probe_cost(w, s));
                local(self.queues.squad[s].pop_back())
            }
            Probe::SquadQueueShallow(s) => {
                self.spend(w, self.probe_cost(w, s));
                // A worker with a task on its stack is waiting inside it.
                let waiting = !self.workers[w].frames.is_empty();
                let scan = own_task_scan(self.map.squad(s).len());
                let (pushed_by, tasks, me) = (&self.pushed_by, self.workload.tasks(), w as u32);
                let at = pick_shallow(
                    &self.queues.squad[s],
                    waiting,
                    scan,
                    |&t| pushed_by[t as usize] == me,
                    |&t| tasks[t as usize].info.level,
                );
                local(at.and_then(|i| self.queues.squad[s].remove(i)))
            }
            Probe::Central => {
                let cost = if self.map.num_squads() > 1 {
                    self.lat.probe_remote
                } else {
                    self.lat.probe_local
                };
                self.spend(w, cost);
                local(self.queues.central.pop_back())
            }
            Probe::InterPool(s) => {
                self.spend(w, self.probe_cost(w, s));
                local(self.queues.inter[s].pop_back())
            }
            Probe::RemoteInterPools => {
                let mut squads = VictimOrder::squads(self.map, own_squad, true);
                while let Some(s) = squads.next(|| self.workers[w].rng.next_u64()) {
                    self.spend(w, self.lat.probe_remote);
                    if let Some(t) = self.queues.inter[s].pop_front() {
                        self.spend(w, self.lat.steal_remote);
                        let source = self.count_steal(w, s);
                        return Some((t, source, Some(StealKind::Remote)));
                    }
                }
                self.workers[w].counts.bump(SearchCounter::EmptyScans, 1);
                None
            }
            Probe::BulkSteal { batch, nearest } => {
                let mut squads = VictimOrder::squads(self.map, own_squad, nearest);
                while let Some(s) = squads.next(|| self.workers[w].rng.next_u64()) {
                    self.spend(w, self.lat.probe_remote);
                    if self.queues.squad[s].is_empty() {
                        continue;
                    }
                    let take = batch.max(1).min(self.queues.squad[s].len());
                    let mut stolen = self.queues.squad[s].drain(..take);
                    let first = stolen.next().expect("the queue was not empty");
                    let rest: Vec<u32> = stolen.collect();
                    // Oldest first into the own queue, as the runtime does.
                    self.queues.squad[own_squad].extend(rest);
                    self.spend(w, self.lat.steal_remote);
                    let source = self.count_steal(w, s);
                    let c = &mut self.workers[w].counts;
                    c.bump(SearchCounter::BulkSteals, 1);
                    c.bump(SearchCounter::BulkTasks, take as u64);
                    if take > 1 {
                        let now = self.workers[w].clock;
                        self.wake_idle(now);
                    }
                    return Some((first, source, Some(StealKind::Bulk)));
                }
                self.workers[w].counts.bump(SearchCounter::EmptyScans, 1);
                None
            }
        }
    }

    /// Counts a steal by `w` from `victim_squad` by its tier, and says where the task
    /// came from ([`SearchCounter::for_steal`]).
    fn count_steal(&mut self, w: usize, victim_squad: usize) -> Source {
        let tier = self.map.tier(self.workers[w].squad, victim_squad);
        let (counters, source) = SearchCounter::for_steal(tier);
        for &c in counters {
            self.workers[w].counts.bump(c, 1);
        }
        source
    }

    /// Steals the oldest task of the first victim with one, in the [`VictimOrder`] of
    /// `victims`, the own package skipped by `Victims::Package` while all of it but `w`
    /// is without work.
    fn steal(&mut self, w: usize, victims: Victims) -> Option<(u32, Source, Option<StealKind>)> {
        let map = self.map;
        let own = self.workers[w].squad;
        let (idle, without_work) = (
            self.package_idle[map.package_of(own)],
            self.workers[w].without_work,
        );
        let mut order = VictimOrder::workers(map, w, victims, || {
            map.others_in_package_idle(own, idle, without_work)
        });
        let mut probed = false;
        while let Some(v) = order.next(|| self.workers[w].rng.next_u64()) {
            probed = true;
            if let Some(found) = self.steal_from(w, v) {
                return Some(found);
            }
        }
        if probed {
            self.workers[w].counts.bump(SearchCounter::EmptyScans, 1);
        }
        None
    }

    /// One probe of `v`'s deque by `w`: its oldest task, if any, stolen and counted.
    fn steal_from(&mut self, w: usize, v: usize) -> Option<(u32, Source, Option<StealKind>)> {
        let squad = self.workers[v].squad;
        self.spend(w, self.probe_cost(w, squad));
        let t = self.queues.deques[v].pop_front()?;
        let source = self.count_steal(w, squad);
        Some(if source == Source::OwnSquad {
            self.spend(w, self.lat.steal_local);
            (t, source, Some(StealKind::Squad))
        } else {
            self.spend(w, self.lat.steal_remote);
            (t, source, Some(StealKind::Remote))
        })
    }

    /// Records that `w` ran `task` from `start` to `end`.
    fn trace_slice(&mut self, w: usize, task: u32, start: u64, end: u64) {
        let Some(t) = self.trace.as_mut() else { return };
        if let Some(i) = t.last[w] {
            let s = &mut t.slices[i];
            if s.task == self.workload.tasks()[task as usize].info.id.0 && s.end == start {
                s.end = end;
                return;
            }
        }
        let spec = &self.workload.tasks()[task as usize];
        let by = self.pushed_by[task as usize];
        let group = if by == u32::MAX {
            self.workers[w].squad
        } else {
            self.workers[by as usize].squad
        };
        t.last[w] = Some(t.slices.len());
        t.slices.push(Slice {
            worker: w,
            start,
            end,
            task: spec.info.id.0,
            level: spec.info.level,
            group: Some(group),
            iteration: spec.iteration,
        });
    }

    fn result(mut self, policy: &str, topology: &Topology, config: &SimConfig) -> SimResult {
        let cores = self.machine.counts().to_vec();
        let mut sockets = vec![CoreCounts::default(); topology.num_packages()];
        let mut total = CoreCounts::default();
        for (core, c) in cores.iter().enumerate() {
            sockets[self.machine.package_of(core)].add(c);
            total.add(c);
        }
        let per_worker: Vec<WorkerCounts> = self.workers.iter().map(|w| w.counts).collect();
        let mut sched = WorkerCounts::default();
        for c in &per_worker {
            sched.add(c);
        }
        let lat = &config.latencies;
        let timeline = self.trace.take().map(|t| Timeline {
            title: format!(
                "{} on {} under {}",
                self.workload.name,
                topology.name(),
                policy
            ),
            clock_ghz: lat.latencies.clock_ghz,
            tracks: (0..self.workers.len())
                .map(|w| Track {
                    worker: w,
                    squad: self.map.squad_of(w),
                    pu: self.map.pu_of(w),
                })
                .collect(),
            slices: t.slices,
            flows: t.flows,
        });
        let mut policy_stats = self.policy.stats();
        if let Some(p) = &self.chunk_placement {
            p.stats(&mut policy_stats);
        }
        SimResult {
            placement_stability: locus_policy::placement_stability(&policy_stats),
            policy: policy.to_string(),
            machine: topology.name().to_string(),
            workload: self.workload.name.clone(),
            workers: self.workers.len(),
            squads: self.map.num_squads(),
            seed: config.seed,
            latencies: lat.source.clone(),
            clock_ghz: lat.latencies.clock_ghz,
            clock: self.memory.kind(),
            placement: config.placement,
            memory: self.memory.counts(),
            makespan: self.makespan,
            seconds: lat.latencies.cycles_to_seconds(self.makespan),
            total,
            sockets,
            cores,
            sched,
            per_worker,
            policy_stats,
            explain: self.policy.explain(),
            timeline,
        }
    }
}

/// Removes `task` from `queue` if it is there.
fn remove(queue: &mut VecDeque<u32>, task: u32) -> bool {
    match queue.iter().rposition(|&t| t == task) {
        Some(i) => {
            queue.remove(i);
            true
        }
        None => false,
    }
}

/// Worker `worker`'s victim generator for the run's `seed`.
fn seed_rng(seed: u64, worker: usize) -> XorShift64Star {
    XorShift64Star::for_worker(seed, worker)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_policy::TaskId;

    /// A simulation of `kind` on two EPYC 7763 packages (16 squads of 16 workers, 8 per
    /// package), not started, handed to `check` with its queues empty.
    fn on_epyc(kind: PolicyKind, seed: u64, check: impl FnOnce(&mut Sim<'_>)) {
        let topology = Topology::preset("epyc-7763-2s").expect("preset");
        let info = TaskInfo {
            id: TaskId(1),
            level: 0,
            loop_chunks: 0,
        };
        let workload =
            Workload::from_parts("one", vec![(info, None, vec![Step::Work(1)])], vec![0])
                .expect("a workload");
        let mut config = SimConfig::for_machine(&topology);
        config.seed = seed;
        let machine = Machine::new(&topology, config.latencies.latencies, workload.pages())
            .expect("a machine");
        let map = WorkerMap::new(&topology, 256);
        let policy = kind.build(&map);
        let mut sim = Sim::new(&workload, &topology, &map, policy, &config, machine);
        check(&mut sim);
    }

    /// The task a probe or steal found (the tests name tasks by where they put them).
    fn took(found: Option<(u32, Source, Option<StealKind>)>) -> u32 {
        found.expect("a task is left").0
    }

    /// The victim order's cases, shared with the runtime's tests
    /// ([`locus_policy::VICTIM_CASES`]), under several seeds.
    #[test]
    fn steals_follow_the_shared_victim_order() {
        for case in locus_policy::VICTIM_CASES {
            for seed in 0..8 {
                on_epyc(PolicyKind::Ws, seed, |sim| {
                    for &v in case.holders {
                        sim.queues.deques[v].push_back(v as u32);
                    }
                    if case.own_package_idle {
                        let package = sim.map.package_workers(sim.workers[case.thief].squad);
                        for &w in package.iter().filter(|&&w| w != case.thief) {
                            sim.go_idle(w);
                        }
                    }
                    let taken: Vec<usize> =
                        std::iter::from_fn(|| sim.steal(case.thief, case.victims))
                            .map(|(t, _, _)| t as usize)
                            .collect();
                    let counts = sim.workers[case.thief].counts;
                    case.check("simulator", &taken, |c| counts.search_count(c));
                });
            }
        }
    }

    #[test]
    fn each_search_counter_is_the_field_of_its_name() {
        for counter in SearchCounter::ALL {
            let mut c = WorkerCounts::default();
            c.bump(counter, 1);
            let json = serde_json::to_value(c).expect("counts serialize");
            let set: Vec<&str> = json
                .as_object()
                .expect("an object")
                .iter()
                .filter(|(_, v)| v.as_u64() == Some(1))
                .map(|(k, _)| k.as_str())
                .collect();
            assert_eq!(set, [counter.name()]);
            assert_eq!(c.search_count(counter), 1);
        }
    }

    #[test]
    fn equally_far_squads_are_tried_from_a_random_start() {
        let mut firsts = Vec::new();
        for seed in 0..16 {
            on_epyc(PolicyKind::Ws, seed, |sim| {
                for s in 1..8 {
                    sim.queues.deques[16 * s].push_back(s as u32);
                }
                firsts.push(took(sim.steal(3, Victims::Remote)));
            });
        }
        firsts.sort_unstable();
        firsts.dedup();
        assert!(firsts.len() >= 4, "first victims' squads: {firsts:?}");
    }

    #[test]
    fn bulk_steals_and_remote_inter_pools_go_nearest_first() {
        on_epyc(PolicyKind::Mts { batch: Some(1) }, 1, |sim| {
            // Squad 9 (package 1) and squad 4 (package 0) hold work; squad 0 steals.
            sim.queues.squad[9].push_back(9);
            sim.queues.squad[4].push_back(4);
            let probe = Probe::BulkSteal {
                batch: 1,
                nearest: true,
            };
            assert_eq!(took(sim.probe(3, probe)), 4);
            assert_eq!(took(sim.probe(3, probe)), 9);
            let c = sim.workers[3].counts;
            assert_eq!((c.steals_same_node, c.steals_other_package), (1, 1));
            assert_eq!((c.bulk_steals, c.steals_remote), (2, 2));
        });
        on_epyc(PolicyKind::Cab(locus_policy::CabInputs::Auto), 1, |sim| {
            sim.queues.inter[9].push_back(9);
            sim.queues.inter[4].push_back(4);
            assert_eq!(took(sim.probe(0, Probe::RemoteInterPools)), 4);
            assert_eq!(took(sim.probe(0, Probe::RemoteInterPools)), 9);
            assert!(sim.probe(0, Probe::RemoteInterPools).is_none());
            let c = sim.workers[0].counts;
            assert_eq!((c.steals_same_node, c.steals_other_package), (1, 1));
            assert_eq!(c.empty_scans, 1);
        });
    }
}
