//! The decision contract: the runtime and the simulator ask a policy the same questions
//! at the same points of a program, with the same arguments, and so get the same
//! decisions (docs/design.md, "One policy, two engines").
//!
//! Each kernel (fib with a cutoff, heat, heat-loop, heat-iter, sort, and irreg with a
//! schedule) runs
//! under every policy twice: in a runtime pool of one worker and in the simulator with
//! one worker, on the same machine description, each policy wrapped in
//! [`locus_policy::Logged`]. The two logs of calls must match.
//!
//! What is compared, and what cannot be:
//! - `place`, `parent_first`, `plan_loop`, `task_started` and `task_finished`: every
//!   call, in order, with its arguments and decision; of `task_finished`'s cost only
//!   whether there is one, since the runtime measures a task (declared bytes, wall time)
//!   and the simulator models it (simulated misses and cycles), which is the point of
//!   having two engines.
//! - `search`: the plans of the searches that found work, not how many searches there
//!   were. A real worker also searches when there is nothing to find (before the root is
//!   injected, while it spins down to sleep after the last task, after spurious
//!   wake-ups), and how often depends on the operating system's timing; the simulated
//!   worker searches once per simulated attempt. So each log's searches are folded into
//!   the next call that follows them (the plan of the last one before it, the one that
//!   found the task), and trailing searches are dropped.
//! - `layout` and `wants_cost` decide nothing about a task: the runtime asks them at
//!   set-up and per task event, the simulator once; they are left out.
//! - On one worker there is one squad, where the bi-tier policies (`cab`, `cats` and
//!   their paper forms) reduce to work stealing as docs/design.md requires: like `ws` they
//!   keep every spawn local, want no task events, and are asked searches only, so their
//!   folded logs are empty in both engines; `static` and `affinity` are asked their loop
//!   plans.
//! - More than one worker: the runtime's interleaving of workers is not deterministic
//!   (who steals first is a race), so two runs of the runtime alone do not give one log;
//!   here only one worker is compared. On two squads, where the bi-tier policies decide,
//!   `conformance_squads.rs` compares the decisions task by task instead.

use std::sync::Arc;

use locus::counters::CounterKind;
use locus::ThreadPoolBuilder;
use locus_kernels::{record, Kernel, Locus, Params};
use locus_policy::{Logged, PolicyCall, PolicyFactory, PolicyKind, Probe, TaskCost};
use locus_profile::{
    input_identity, AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile,
    Schedule,
};
use locus_sim::engine::{simulate_with, SimConfig};
use locus_task::workload::Workload;
use locus_topo::Topology;

/// The machine both engines describe: its first PU runs the one worker.
const MACHINE: &str = "opteron-8380";

/// A call as compared: `search` folded into the next call, costs reduced to presence.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Compared {
    /// The plan of the last search before this call, if any.
    searched: Option<Vec<Probe>>,
    call: PolicyCall,
}

/// Folds a log as the module documentation says.
fn compared(calls: Vec<PolicyCall>) -> Vec<Compared> {
    let mut out = Vec::new();
    let mut searched = None;
    for call in calls {
        match call {
            PolicyCall::Search { plan, .. } => searched = Some(plan),
            PolicyCall::Layout(_) | PolicyCall::WantsCost(_) => {}
            PolicyCall::TaskFinished { worker, task, cost } => out.push(Compared {
                searched: searched.take(),
                call: PolicyCall::TaskFinished {
                    worker,
                    task,
                    cost: cost.map(|_| TaskCost::default()),
                },
            }),
            call => out.push(Compared {
                searched: searched.take(),
                call,
            }),
        }
    }
    out
}

/// A factory that wraps `kind`'s policy in a log, and the log's handle.
fn logged(kind: &PolicyKind) -> (PolicyFactory, Arc<std::sync::Mutex<Option<Arc<Logged>>>>) {
    let slot = Arc::new(std::sync::Mutex::new(None));
    let keep = Arc::clone(&slot);
    let kind = kind.clone();
    let factory = PolicyFactory::new(kind.to_string(), move |map| {
        let policy = Arc::new(Logged::new(kind.build(map)));
        *keep.lock().unwrap() = Some(Arc::clone(&policy));
        policy
    });
    (factory, slot)
}

fn take(slot: &std::sync::Mutex<Option<Arc<Logged>>>) -> Vec<PolicyCall> {
    slot.lock()
        .unwrap()
        .as_ref()
        .expect("the engine built its policy")
        .take_calls()
}

/// The runtime's calls: the kernel run once in a pool of `threads` workers.
pub(super) fn runtime_calls(
    params: &Params,
    topology: &Topology,
    kind: &PolicyKind,
    threads: usize,
) -> Vec<PolicyCall> {
    let (factory, slot) = logged(kind);
    let pool = ThreadPoolBuilder::new()
        .topology(topology.clone())
        .num_threads(threads)
        .pin(false)
        .counters(CounterKind::Declared)
        .policy_factory(factory)
        .build()
        .expect("pool builds");
    let mut prepared = params.prepare();
    prepared.reset();
    let locus = Locus::new(pool);
    prepared.execute(&locus);
    let outcome = prepared.verify();
    assert!(outcome.verified, "{kind} on {params}: {}", outcome.detail);
    // The worker is idle now; its searches after the last task are dropped.
    drop(locus);
    take(&slot)
}

/// The simulator's calls on the recorded kernel, `threads` workers.
pub(super) fn sim_calls(
    workload: &Workload,
    topology: &Topology,
    kind: &PolicyKind,
    threads: usize,
) -> Vec<PolicyCall> {
    let (factory, slot) = logged(kind);
    let config = SimConfig {
        threads: Some(threads),
        ..SimConfig::for_machine(topology)
    };
    simulate_with(workload, topology, &factory, &config).expect("the simulation runs");
    take(&slot)
}

/// Every policy, the schedule-following one from `schedule`.
fn every_policy(schedule: Option<&Schedule>) -> Vec<PolicyKind> {
    let mut kinds: Vec<PolicyKind> = PolicyKind::NAMES
        .iter()
        .filter(|&&name| name != "affinity")
        .map(|name| name.parse().expect("a policy name parses"))
        .collect();
    if let Some(schedule) = schedule {
        let tasks = schedule.task_schedule().expect("the schedule converts");
        kinds.push(PolicyKind::Affinity(Arc::new(tasks)));
    }
    kinds
}

/// The schedule for `params` on `threads` workers of the machine, as `locus profile`
/// makes it.
pub(super) fn schedule_for(
    params: &Params,
    kernel: Kernel,
    workload: &Workload,
    topology: &Topology,
    threads: usize,
) -> Schedule {
    let desc = MachineDesc::new(topology, threads).unwrap();
    let input = input_identity(kernel.name(), &params.to_string(), &params.input_files()).unwrap();
    let profile = Profile::from_workload(workload, desc.clone(), &input, 4096).unwrap();
    let graph = AffinityGraph::build(&profile, &GraphOptions::default()).unwrap();
    let partition = Partition::compute(&graph, &desc, &PartitionOptions::default()).unwrap();
    Schedule::new(&desc, &input, &graph, &partition).unwrap()
}

/// Runs `kernel` at `size` in both engines under every policy and compares the calls.
fn conforms(kernel: Kernel, size: &str, with_schedule: bool) {
    let params = kernel.parse_size(size).unwrap();
    let topology = Topology::preset(MACHINE).unwrap();
    let workload = record(&params).unwrap();
    let schedule = with_schedule.then(|| schedule_for(&params, kernel, &workload, &topology, 1));
    let mut asked = 0;
    for kind in every_policy(schedule.as_ref()) {
        let sim = compared(sim_calls(&workload, &topology, &kind, 1));
        let runtime = compared(runtime_calls(&params, &topology, &kind, 1));
        // `ws` and its kin keep every spawn local and want no task events: a search is
        // all they are asked.
        asked += sim.len();
        eprintln!("{kind} on {kernel:?} {size}: {} calls compared", sim.len());
        let first_difference = sim.iter().zip(&runtime).position(|(s, r)| s != r);
        if let Some(i) = first_difference {
            panic!(
                "{kind} on {kernel:?} {size}: call {i} of {} differs:\n  simulator: {:?}\n  runtime:   {:?}",
                sim.len(),
                sim[i],
                runtime[i]
            );
        }
        assert_eq!(
            sim.len(),
            runtime.len(),
            "{kind} on {kernel:?} {size}: the simulator made {} calls, the runtime {}; the next: {:?}",
            sim.len(),
            runtime.len(),
            sim.get(runtime.len()).or(runtime.get(sim.len()))
        );
    }
    assert!(asked > 0, "{kernel:?} {size}: no policy was asked anything");
}

#[test]
fn fib_with_a_cutoff() {
    conforms(Kernel::Fib, "16,cutoff=6", false);
}

#[test]
fn heat() {
    conforms(Kernel::Heat, "34x16,leaf=4,iters=2", false);
}

#[test]
fn heat_loop() {
    conforms(Kernel::HeatLoop, "34x16,leaf=4,iters=2", false);
}

/// heat-loop written with locus's iterators: the runtime runs its leaves as the loop
/// the recorder writes down.
#[test]
fn heat_iter() {
    conforms(Kernel::HeatIter, "34x16,leaf=4,iters=2", false);
}

#[test]
fn sort() {
    conforms(Kernel::Sort, "4096,cutoff=256", false);
}

#[test]
fn irreg_with_a_schedule() {
    conforms(Kernel::Irreg, "40:120,iters=2,grain=8", true);
}
