//! The policies' runtime costs ([`locus_sim::calibration`]) as the engine charges them:
//! each where the runtime pays it, nothing when they are zero.

use locus_policy::{PolicyKind, TaskId, TaskInfo};
use locus_sim::calibration::{Calibration, PolicyCosts};
use locus_sim::engine::{simulate, SimConfig, SimResult};
use locus_task::workload::{Step, Workload};
use locus_topo::Topology;

/// A root joining two leaves, each joining two leaves that write a page each.
fn tree() -> Workload {
    let task = |id, level| TaskInfo {
        id: TaskId(id),
        level,
        loop_chunks: 0,
    };
    let leaf = |page: u64| {
        vec![
            Step::Write {
                addr: page * 4096,
                len: 4096,
            },
            Step::Work(5000),
        ]
    };
    Workload::from_parts(
        "two levels",
        vec![
            (task(1, 0), None, vec![Step::Join(1, 2)]),
            (task(2, 1), Some(0), vec![Step::Join(3, 4)]),
            (task(3, 1), Some(0), vec![Step::Join(5, 6)]),
            (task(4, 2), Some(1), leaf(0)),
            (task(5, 2), Some(1), leaf(1)),
            (task(6, 2), Some(2), leaf(2)),
            (task(7, 2), Some(2), leaf(3)),
        ],
        vec![0],
    )
    .expect("a workload")
}

fn run(kind: PolicyKind, machine: &str, threads: usize, costs: PolicyCosts) -> SimResult {
    let topology = Topology::parse_spec(machine).expect("a machine");
    let config = SimConfig {
        threads: Some(threads),
        policy_costs: costs,
        ..SimConfig::for_machine(&topology)
    };
    simulate(&tree(), &topology, kind, &config).expect("it runs")
}

const COSTS: PolicyCosts = PolicyCosts {
    place: 100,
    task_event: 1_000,
    profiled_task: 10_000,
    shared_queue: 100_000,
};

#[test]
fn a_policy_is_charged_only_for_what_it_does() {
    // mts alone in one squad reports no task events and no queued starts.
    let events = PolicyCosts {
        task_event: 1_000,
        profiled_task: 10_000,
        ..PolicyCosts::default()
    };
    let mts = PolicyKind::Mts { batch: None };
    let off = run(mts.clone(), "2x1", 1, PolicyCosts::default());
    let on = run(mts, "2x1", 1, events);
    assert_eq!((off.makespan, off.sched), (on.makespan, on.sched));
}

#[test]
fn ws_pays_nothing_more() {
    let off = run(PolicyKind::Ws, "2x2", 4, PolicyCosts::default());
    let on = run(PolicyKind::Ws, "2x2", 4, COSTS);
    assert_eq!((off.makespan, off.sched), (on.makespan, on.sched));
}

#[test]
fn mts_pays_a_place_and_a_shared_queue_per_join() {
    // One worker: every half is pushed to the squad's queue and taken back from it.
    let off = run(
        PolicyKind::Mts { batch: None },
        "2x1",
        1,
        PolicyCosts::default(),
    );
    let on = run(PolicyKind::Mts { batch: None }, "2x1", 1, COSTS);
    let joins = 3;
    assert_eq!(
        on.sched.sched_cycles - off.sched.sched_cycles,
        joins * u64::from(COSTS.place + COSTS.shared_queue)
    );
    assert_eq!(
        on.makespan - off.makespan,
        on.sched.sched_cycles - off.sched.sched_cycles
    );
}

#[test]
fn a_profiling_policy_pays_for_every_task_it_measures() {
    // cats profiles its first tree on two squads: every task's events, measured, and a
    // place for each half of a join (it forks parent-first while profiling).
    let off = run("cats".parse().unwrap(), "2x1", 2, PolicyCosts::default());
    let on = run("cats".parse().unwrap(), "2x1", 2, COSTS);
    let tasks = 7;
    let charged = on.sched.sched_cycles - off.sched.sched_cycles;
    let least = tasks * u64::from(COSTS.profiled_task);
    assert!(charged >= least, "{charged} < {least}");
    // Spread over two workers, the makespan grows by at least half of it.
    assert!(
        on.makespan >= off.makespan + least / 2,
        "{} {}",
        on.makespan,
        off.makespan
    );
}

#[test]
fn the_shipped_calibration_is_charged_in_cycles_at_the_clock() {
    let c = Calibration::runtime();
    let at = c.cycles(2.5);
    assert_eq!(at.profiled_task, (c.ns.profiled_task * 2.5).round() as u32);
    assert!(at.profiled_task > 0 && at.place > 0);
}
