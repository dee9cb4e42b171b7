//! The decision contract on two squads, where the locality policies decide: the runtime
//! and the simulator, each on eight workers in two squads of the same machine, must get
//! the same decision for each task (docs/design.md, "One policy, two engines").
//!
//! Which worker runs what is a race in the runtime, so the logs of calls
//! ([`locus_policy::Logged`]) are not compared in order, as `conformance.rs` does on one
//! worker, but task by task: for each task id and each time it recurs (the same ids come
//! back in every iteration of a program), where it was placed (`place`), whether it was
//! generated parent-first (`parent_first`), and the plan of each loop it opened
//! (`plan_loop`). Both engines must ask about the same tasks, and:
//! - a parent-first answer and a loop plan must be equal;
//! - a placement must be of the same kind (own deque, a worker's inbox, a squad's queue,
//!   an inter-squad pool, the central queue), and name the same worker or squad in one
//!   of the ways a policy can name it: the same index, the spawner's own (its squad or
//!   itself), a worker as far after the spawner (`rr-fifo`'s cursors start after their
//!   worker, and which worker runs a program's root is a race in the runtime), the squad that last ran the task (from the engine's own `task_started`
//!   calls: `cab`'s and `cats`'s homes), the squad the task was first placed in, or the
//!   squad where it started after its first placement (`mts`'s homes). Which of these a
//!   policy meant is its business; a squad named in none of the same ways is a
//!   different decision.
//!
//! The policies, on `heat` and its loop form (and `irreg` with a schedule for
//! `affinity`), on `opteron-8380` with a sixteenth of its caches (as `locus sim matrix
//! --quick` uses it) cut to two packages: `cab` with a given boundary level, `cats`
//! after its profiling iteration, `mts` once its homes exist (its second iteration),
//! `static` and `affinity`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use locus_kernels::{record, Kernel};
use locus_policy::{LoopPlan, Place, PolicyCall, PolicyKind, TaskInfo, WorkerMap};
use locus_task::workload::Workload;
use locus_topo::Topology;

use super::conformance::{runtime_calls, schedule_for, sim_calls};

/// Two packages of `locus sim matrix --quick`'s machine: two squads of four workers.
const MACHINE: &str = "pack:2 numa:1 l3:1(size=384KiB linesize=64 ways=48) \
     l2:4(size=32KiB linesize=64 ways=16) l1d:1(size=4KiB linesize=64 ways=2) \
     l1i:1(size=4KiB linesize=64 ways=2) core:1 pu:1";
const THREADS: usize = 8;

/// A task as the policy saw it: id, level, and chunk count.
type Task = (u64, u32, u32);

fn task(info: &TaskInfo) -> Task {
    (info.id.0, info.level, info.loop_chunks)
}

/// What is decided about a task, and the how-many-th time its id is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Question {
    Place(Task, usize),
    ParentFirst(Task, usize),
    PlanLoop(Task, u32, usize),
}

/// One way of naming the worker or squad of a placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Named {
    Nothing,
    Index(usize),
    Spawner,
    /// A worker by how far after the spawner it comes (a round-robin cursor's start).
    AfterSpawner(usize),
    LastRun,
    FirstPlaced,
    FirstHome,
}

/// A decision, with every way its worker or squad can be named.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    Place(&'static str, BTreeSet<Named>),
    ParentFirst(bool),
    PlanLoop(Option<LoopPlan>),
}

impl Answer {
    fn agrees(&self, other: &Answer) -> bool {
        match (self, other) {
            (Answer::Place(a, x), Answer::Place(b, y)) => a == b && !x.is_disjoint(y),
            _ => self == other,
        }
    }
}

/// The decisions of one engine's log, by question.
fn decisions(calls: &[PolicyCall], map: &WorkerMap) -> BTreeMap<Question, Answer> {
    let mut asked: HashMap<(u8, Task), usize> = HashMap::new();
    let mut nth = |kind: u8, t: Task| {
        let n = asked.entry((kind, t)).or_insert(0);
        *n += 1;
        *n - 1
    };
    let mut last_run: HashMap<u64, usize> = HashMap::new();
    // Per task: its first placement's squad, then where it started before it was placed
    // again, and how many times it was placed.
    let mut first_home: HashMap<u64, (usize, usize)> = HashMap::new();
    let mut first_placed: HashMap<u64, usize> = HashMap::new();
    let mut out = BTreeMap::new();
    for call in calls {
        match call {
            PolicyCall::Place {
                spawner,
                task: t,
                place,
                ..
            } => {
                let id = t.id.0;
                let (kind, squad, worker) = match *place {
                    Place::Local => ("local", None, None),
                    Place::Central => ("central", None, None),
                    Place::Worker(w) => ("worker", None, Some(w)),
                    Place::Squad(s) => ("squad queue", Some(s), None),
                    Place::InterPool(s) => ("inter-squad pool", Some(s), None),
                };
                let mut named = BTreeSet::from([Named::Nothing]);
                if let Some(w) = worker {
                    let n = map.num_workers();
                    named = BTreeSet::from([
                        Named::Index(w),
                        Named::AfterSpawner((w + n - *spawner) % n),
                    ]);
                    if w == *spawner {
                        named.insert(Named::Spawner);
                    }
                }
                if let Some(s) = squad {
                    named = BTreeSet::from([Named::Index(s)]);
                    // Only an earlier placement or start names a squad: the first
                    // placement of a task is compared by its index.
                    let first = first_placed.get(&id).copied();
                    first_placed.entry(id).or_insert(s);
                    let home = first_home.get(&id).map(|h| h.0);
                    first_home.entry(id).or_insert((s, 0)).1 += 1;
                    for (is, how) in [
                        (map.squad_of(*spawner) == s, Named::Spawner),
                        (last_run.get(&id) == Some(&s), Named::LastRun),
                        (first == Some(s), Named::FirstPlaced),
                        (home == Some(s), Named::FirstHome),
                    ] {
                        if is {
                            named.insert(how);
                        }
                    }
                }
                let q = Question::Place(task(t), nth(0, task(t)));
                out.insert(q, Answer::Place(kind, named));
            }
            PolicyCall::ParentFirst {
                task: t,
                parent_first,
                ..
            } => {
                let q = Question::ParentFirst(task(t), nth(1, task(t)));
                out.insert(q, Answer::ParentFirst(*parent_first));
            }
            PolicyCall::PlanLoop {
                parent,
                chunks,
                plan,
                ..
            } => {
                let q = Question::PlanLoop(task(parent), *chunks, nth(2, task(parent)));
                out.insert(q, Answer::PlanLoop(plan.clone()));
            }
            PolicyCall::TaskStarted {
                worker, task: t, ..
            } => {
                let squad = map.squad_of(*worker);
                last_run.insert(t.id.0, squad);
                if let Some(home) = first_home.get_mut(&t.id.0).filter(|h| h.1 == 1) {
                    home.0 = squad;
                }
            }
            _ => {}
        }
    }
    out
}

/// Runs `kernel` at `size` in both engines under each policy of `kinds` (the schedule
/// of `affinity` made for the machine) and compares their decisions; each policy must
/// have decided something beyond keeping tasks local, so that the comparison is not
/// vacuous.
fn conforms(kernel: Kernel, size: &str, kinds: &[&str], with_schedule: bool) {
    let params = kernel.parse_size(size).unwrap();
    let topology = Topology::parse_spec(MACHINE).unwrap();
    let workload = record(&params).unwrap();
    let mut kinds: Vec<PolicyKind> = kinds.iter().map(|k| k.parse().unwrap()).collect();
    if with_schedule {
        let schedule = schedule_for(&params, kernel, &workload, &topology, THREADS);
        let tasks = schedule.task_schedule().expect("the schedule converts");
        kinds.push(PolicyKind::Affinity(Arc::new(tasks)));
    }
    for kind in kinds {
        let sim = agreed(kernel, size, &kind, &workload, &topology);
        let placed = sim
            .values()
            .filter(|a| !matches!(a, Answer::Place("local", _) | Answer::PlanLoop(None)))
            .count();
        eprintln!("{kind} on {kernel:?} {size}: {placed} decisions not local");
        assert!(placed > 0, "{kind} on {kernel:?} {size}: nothing decided");
    }
}

/// The decisions of both engines under `kind` on `kernel` at `size` (recorded as
/// `workload`), checked to agree question by question; the simulator's.
fn agreed(
    kernel: Kernel,
    size: &str,
    kind: &PolicyKind,
    workload: &Workload,
    topology: &Topology,
) -> BTreeMap<Question, Answer> {
    let params = kernel.parse_size(size).unwrap();
    let map = WorkerMap::new(topology, THREADS);
    assert_eq!(map.num_squads(), 2);
    let sim = decisions(&sim_calls(workload, topology, kind, THREADS), &map);
    let runtime = decisions(&runtime_calls(&params, topology, kind, THREADS), &map);
    eprintln!(
        "{kind} on {kernel:?} {size}: {} decisions compared",
        sim.len()
    );
    for (q, s) in &sim {
        let r = runtime.get(q);
        assert!(
            r.is_some_and(|r| s.agrees(r)),
            "{kind} on {kernel:?} {size}: {q:?}\n  simulator: {s:?}\n  runtime:   {r:?}"
        );
    }
    let only_runtime: Vec<_> = runtime.keys().filter(|q| !sim.contains_key(q)).collect();
    assert!(
        only_runtime.is_empty(),
        "{kind} on {kernel:?} {size}: asked in the runtime only: {:?}",
        &only_runtime[..only_runtime.len().min(5)]
    );
    sim
}

#[test]
fn heat_under_the_locality_policies() {
    conforms(
        Kernel::Heat,
        "256x128,leaf=8,iters=3",
        &["cab:bl=2", "cats", "mts"],
        false,
    );
}

#[test]
fn heat_loop_under_the_loop_policies() {
    conforms(
        Kernel::HeatLoop,
        "256x128,leaf=8,iters=3",
        &["cab:bl=2", "cats", "mts", "static"],
        false,
    );
}

#[test]
fn irreg_with_a_schedule() {
    conforms(Kernel::Irreg, "40:120,iters=2,grain=8", &[], true);
}

/// A loop of more than `PLACED_PER_WORKER` (8) chunks per worker on two squads, where
/// both engines spawn the loop in blocks of consecutive chunks
/// (`locus_policy::loop_blocks`), each placed as its first chunk: heat-loop with 2-row
/// leaves, loops of 127 chunks on 8 workers, 64 blocks of one or two chunks. A block of two never
/// splits (one chunk is left after its first), so both engines place exactly the same
/// blocks, and the placements must agree block by block: on the same squad under `cab`
/// and `cats` (after their profile, during which each chunk is placed by itself), `mts`
/// and `rr-fifo`. Under `ws` the runtime splits the loop as a tree
/// (`Layout::splits_loops`) and neither engine asks the policy about a chunk.
#[test]
fn blocks_of_a_long_loop_under_the_placing_policies() {
    const SIZE: &str = "256x64,leaf=2,iters=3";
    const CHUNKS: u32 = 127;
    let params = Kernel::HeatLoop.parse_size(SIZE).unwrap();
    let topology = Topology::parse_spec(MACHINE).unwrap();
    let workload = record(&params).unwrap();
    let loop_chunk = |q: &Question| matches!(q, Question::Place((_, _, k), _) if *k == CHUNKS);
    for name in ["cab", "cats", "mts", "rr-fifo", "ws"] {
        let kind: PolicyKind = name.parse().unwrap();
        let sim = agreed(Kernel::HeatLoop, SIZE, &kind, &workload, &topology);
        let placed = sim.keys().filter(|q| loop_chunk(q)).count();
        eprintln!("{name}: {placed} placements of the loops' chunks");
        if name == "ws" {
            assert_eq!(placed, 0, "ws is asked about no chunk");
        } else {
            // Five loops (two of first touch, three sweeps): those of a profile place
            // each chunk, the others their 64 blocks, and at least one is in blocks.
            let profiled = (placed - 5 * 64) / (CHUNKS as usize - 64);
            assert!(
                profiled < 5 && placed == profiled * CHUNKS as usize + (5 - profiled) * 64,
                "{name}: {placed} placements of the loop's chunks, not 64 blocks a loop"
            );
        }
    }
}
