//! The engine: every task runs once under every policy, timing is exact where it can be
//! computed by hand, and the same inputs give bit-identical results.

use locus_kernels::{record, Kernel};
use locus_policy::{PolicyInfo, PolicyKind, TaskId, TaskInfo, POLICIES};
use locus_sim::clock::ClockKind;
use locus_sim::engine::{simulate, SimConfig, SimResult};
use locus_sim::latency::Latencies;
use locus_task::workload::{Step, Workload};
use locus_topo::Topology;

/// Every policy of the table that its name makes, and every example of a form with
/// parameters (`affinity` needs a schedule: `profile_affinity.rs` runs it).
fn policies() -> Vec<PolicyKind> {
    POLICIES
        .iter()
        .filter_map(PolicyInfo::plain)
        .chain(POLICIES.iter().flat_map(|row| {
            row.examples
                .iter()
                .map(|example| example.parse().expect("the table's examples parse"))
        }))
        .collect()
}

fn run(workload: &Workload, machine: &Topology, kind: PolicyKind, threads: usize) -> SimResult {
    let mut config = SimConfig::for_machine(machine);
    config.threads = Some(threads);
    simulate(workload, machine, kind.clone(), &config)
        .unwrap_or_else(|e| panic!("{} under {kind}: {e}", workload.name))
}

#[test]
fn every_task_runs_exactly_once_under_every_policy() {
    let inputs = [
        (Kernel::Fib, "16"),
        (Kernel::Heat, "66x64,leaf=4,iters=3"),
        (Kernel::HeatUb, "66x64,leaf=4,iters=2"),
        (Kernel::Sort, "4000,cutoff=256"),
        (Kernel::Mandelbrot, "32x32"),
        (Kernel::Knapsack, "16"),
        (Kernel::HeatLoop, "66x64,leaf=4,iters=2"),
        // Loops of 128 chunks: in blocks on the machines of two squads and more, where
        // the policies allow (`locus_policy::loop_blocks`).
        (Kernel::HeatLoop, "130x16,leaf=1,iters=2"),
        (Kernel::Irreg, "small,grain=64,iters=2"),
    ];
    let machines = [
        ("opteron-8380", 16),
        ("2x2", 3),
        ("xeon-x7550", 8),
        ("1x4", 4),
    ];
    for (kernel, size) in inputs {
        let params = kernel.parse_size(size).unwrap();
        let workload = record(&params).unwrap();
        for (machine, threads) in machines {
            let topo = Topology::parse_spec(machine).unwrap();
            for kind in policies() {
                let r = run(&workload, &topo, kind.clone(), threads);
                let what = format!("{kernel} {size} on {machine} under {kind}");
                assert_eq!(
                    r.sched.tasks,
                    workload.tasks().len() as u64,
                    "{what}: tasks started"
                );
                assert!(r.makespan > 0, "{what}");
                assert_eq!(r.policy_stat("leaf_subtree_overlaps"), 0, "{what}");
                assert_eq!(
                    r.total.accesses,
                    workload.line_accesses(),
                    "{what}: every declared line is walked once"
                );
            }
        }
    }
}

fn task(id: u64, level: u32) -> TaskInfo {
    TaskInfo {
        id: TaskId(id),
        level,
        loop_chunks: 0,
    }
}

/// One task: 1000 instructions, two lines read from DRAM, the same two lines again
/// (L1 hits), one line written (a third line of the same page: DRAM, local).
fn five_accesses() -> Workload {
    Workload::from_parts(
        "hand-made",
        vec![(
            task(1, 0),
            None,
            vec![
                Step::Work(1000),
                Step::Read { addr: 0, len: 128 },
                Step::Read { addr: 0, len: 128 },
                Step::Write { addr: 128, len: 8 },
            ],
        )],
        vec![0],
    )
    .unwrap()
}

#[test]
fn one_worker_s_time_is_the_sum_of_its_costs_under_the_serial_clock() {
    let workload = five_accesses();
    let machine = Topology::preset("opteron-8380").unwrap();
    let lat = Latencies::documented_for("opteron-8380").latencies;
    let mut config = SimConfig::for_machine(&machine);
    config.threads = Some(1);
    config.clock = ClockKind::Serial;
    // The hand count has no prefetcher (line 1 would train it to fetch line 3).
    config.latencies.latencies.prefetch_degree = 0;
    let r = simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
    let expected = 1000.0 / lat.ipc + f64::from(3 * lat.local_dram + 2 * lat.l1_hit);
    assert_eq!(r.makespan, expected as u64);
    assert_eq!(r.total.dram_local, 3);
    assert_eq!(r.total.hits[0], 2);
    assert_eq!(r.total.misses[2], 3);
}

#[test]
fn one_worker_overlaps_its_misses_and_queues_at_the_memory_controller() {
    // The same task under the overlapping clock (opteron-8380: 8 fill buffers, 3-cycle
    // issue, 200-cycle DRAM, 8.5 GB/s at 2.5 GHz = 18.8 cycles of the controller per
    // line, a calendar of 19-cycle slots from time 0). Work ends at 1000; line 0 issues
    // at 1000 into the slot 988-1007 and arrives at 1200; line 1 issues at 1003 and
    // waits for the next slot, 1007; two L1 hits take the clock to 1012; the write's
    // line issues at 1012, is served in the slot at 1026 and arrives at 1226; the
    // task's end waits for it.
    let workload = five_accesses();
    let machine = Topology::preset("opteron-8380").unwrap();
    let lat = Latencies::documented_for("opteron-8380").latencies;
    assert_eq!((lat.l1_hit, lat.local_dram, lat.fill_buffers), (3, 200, 8));
    assert_eq!((lat.dram_gbps, lat.clock_ghz), (8.5, 2.5));
    let mut config = SimConfig::for_machine(&machine);
    config.threads = Some(1);
    // The hand count has no prefetcher (line 1 would train it to fetch line 3).
    config.latencies.latencies.prefetch_degree = 0;
    let r = simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
    assert_eq!(r.clock, ClockKind::Overlap);
    assert_eq!(r.makespan, 1226);
    assert_eq!(r.memory.dram_lines, 3);
    assert_eq!(r.memory.dram_queued_cycles, (1007 - 1003) + (1026 - 1012));
    assert_eq!(r.memory.stall_cycles, 1226 - 1015);
    assert_eq!(
        r.total.dram_local, 3,
        "the same lines come from the same places"
    );
}

/// 16 leaves, each reading its own `bytes` (first touched by the reader, so local).
fn sixteen_streams(bytes: u64) -> Workload {
    let mut root_steps: Vec<Step> = (1..=16).map(Step::Spawn).collect();
    root_steps.push(Step::Sync);
    let mut tasks = vec![(task(1, 0), None, root_steps)];
    for i in 0..16u64 {
        tasks.push((
            task(2 + i, 1),
            Some(0),
            vec![Step::Read {
                addr: i * bytes,
                len: bytes,
            }],
        ));
    }
    Workload::from_parts("sixteen streams", tasks, vec![0]).unwrap()
}

#[test]
fn sixteen_streams_are_bound_by_the_memory_controllers() {
    // 16 workers of opteron-8380 each stream 2 MiB (32,768 lines) from their own node.
    // Serially each line costs the 200-cycle latency: 6.55 M cycles. Overlapped, one
    // core's 8 fill buffers would take a line every 25 cycles (0.82 M cycles), but the
    // 4 cores of a node share its 8.5 GB/s: a line every 18.8 cycles per node, so
    // 4 x 32,768 lines take 2.47 M cycles: bandwidth-bound, as the real machine is.
    let lines = 32_768u64;
    let workload = sixteen_streams(lines * 64);
    let machine = Topology::preset("opteron-8380").unwrap();
    let lat = Latencies::documented_for("opteron-8380").latencies;
    let per_line = 64.0 / lat.dram_gbps * lat.clock_ghz;
    let bandwidth_bound = 4.0 * lines as f64 * per_line;
    let mut config = SimConfig::for_machine(&machine);
    // The fill buffers bound a core's misses where no prefetcher runs ahead of them.
    config.latencies.latencies.prefetch_degree = 0;
    let overlap = simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
    assert_eq!(overlap.sched.tasks, 17);
    assert_eq!(
        overlap.total.dram_local,
        16 * lines,
        "every stream is local"
    );
    let ratio = overlap.makespan as f64 / bandwidth_bound;
    assert!(
        (1.0..1.1).contains(&ratio),
        "{ratio:.3} of the bandwidth bound"
    );
    assert!(overlap.memory.dram_queued_cycles > 0);
    // With bandwidth to spare, the fill buffers bound it instead.
    config.latencies.latencies.dram_gbps = 1000.0;
    let wide = simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
    let buffer_bound = lines as f64 * f64::from(lat.local_dram) / f64::from(lat.fill_buffers);
    let ratio = wide.makespan as f64 / buffer_bound;
    assert!(
        (1.0..1.2).contains(&ratio),
        "{ratio:.3} of the fill-buffer bound"
    );
    // The preset's prefetcher requests lines beyond the fill buffers and beats it.
    config.latencies.latencies.prefetch_degree = lat.prefetch_degree;
    let prefetched = simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
    assert!(
        (prefetched.makespan as f64) < 0.9 * buffer_bound,
        "{} against the fill-buffer bound {buffer_bound}",
        prefetched.makespan
    );
    config.latencies.latencies.prefetch_degree = 0;
    // And the serial clock charges every latency.
    config.clock = ClockKind::Serial;
    let serial = simulate(&workload, &machine, PolicyKind::Ws, &config).unwrap();
    assert!(serial.makespan >= lines * u64::from(lat.local_dram));
    assert_eq!(serial.total, overlap.total, "the clock changes no count");
}

#[test]
fn a_join_runs_its_halves_in_parallel_on_two_workers() {
    // A root joins two tasks of 100,000 instructions each.
    let n = 100_000;
    let workload = Workload::from_parts(
        "join",
        vec![
            (task(1, 0), None, vec![Step::Join(1, 2)]),
            (task(2, 1), Some(0), vec![Step::Work(n)]),
            (task(3, 1), Some(0), vec![Step::Work(n)]),
        ],
        vec![0],
    )
    .unwrap();
    let machine = Topology::parse_spec("1x2").unwrap();
    let one = run(&workload, &machine, PolicyKind::Ws, 1);
    let two = run(&workload, &machine, PolicyKind::Ws, 2);
    assert!(one.makespan >= 2 * n, "{}", one.makespan);
    assert!(
        two.makespan < n + n / 10,
        "the second half was stolen: {} cycles",
        two.makespan
    );
    assert_eq!(two.sched.steals_squad, 1);
}

#[test]
fn hand_made_trees_are_checked() {
    let bad = |tasks, roots| Workload::from_parts("bad", tasks, roots).unwrap_err();
    assert!(
        bad(vec![(task(1, 0), None, vec![Step::Join(1, 5)])], vec![0]).contains("does not exist")
    );
    assert!(bad(
        vec![(task(1, 0), None, vec![]), (task(2, 1), Some(0), vec![])],
        vec![0]
    )
    .contains("never forked"));
    assert!(bad(
        vec![
            (
                task(1, 0),
                None,
                vec![Step::Spawn(1), Step::Spawn(1), Step::Sync]
            ),
            (task(2, 1), Some(0), vec![])
        ],
        vec![0]
    )
    .contains("twice"));
    assert!(bad(vec![(task(1, 0), Some(0), vec![])], vec![0]).contains("has a parent"));
}

#[test]
fn the_same_inputs_give_bit_identical_results() {
    let params = Kernel::Heat.parse_size("130x128,leaf=8,iters=3").unwrap();
    let a = record(&params).unwrap();
    let b = record(&params).unwrap();
    assert_eq!(a, b, "two recordings of one input are the same workload");
    let machine = Topology::preset("opteron-8380").unwrap();
    for kind in [
        PolicyKind::Ws,
        PolicyKind::Mts { batch: None },
        PolicyKind::Cats {
            cmpi_threshold: None,
        },
    ] {
        let x = serde_json::to_string(&run(&a, &machine, kind.clone(), 16)).unwrap();
        let y = serde_json::to_string(&run(&b, &machine, kind.clone(), 16)).unwrap();
        assert_eq!(x, y, "{kind}");
    }
    // Another seed steals from other victims: a different run, every task once all the same.
    let mut config = SimConfig::for_machine(&machine);
    config.seed = 2;
    let other = simulate(&a, &machine, PolicyKind::Ws, &config).unwrap();
    assert_eq!(other.sched.tasks, a.tasks().len() as u64);
    assert_ne!(
        serde_json::to_string(&other).unwrap(),
        serde_json::to_string(&run(&a, &machine, PolicyKind::Ws, 16)).unwrap()
    );
}

#[test]
fn recorded_trees_carry_the_runtime_s_ids_and_iterations() {
    let params = Kernel::Heat.parse_size("34x16,leaf=8,iters=2").unwrap();
    let w = record(&params).unwrap();
    let root = w.roots()[0];
    let tasks = w.tasks();
    assert_eq!(tasks[root as usize].info.level, 0);
    // Each iteration joins the same two halves: same ids, iteration 0 then 1.
    let tops: Vec<_> = tasks
        .iter()
        .filter(|t| t.parent == Some(root))
        .map(|t| (t.info.id, t.iteration))
        .collect();
    let rid = tasks[root as usize].info.id;
    let (a, b) = (tops[0].0, tops[1].0);
    assert_eq!((a.index_in(rid), b.index_in(rid)), (Some(0), Some(1)));
    assert_eq!(tops, vec![(a, 0), (b, 0), (a, 1), (b, 1)]);
    assert_eq!(w.iterations(), 2);
    // 32 interior rows in leaves of 8: 4 leaves per sweep, each reading 10 rows and
    // writing 8 of 16 doubles (128 bytes, 2 lines); a range may straddle one more line
    // where the allocator did not align the grid to 64 bytes.
    let aligned = 2 * 4 * (10 + 8) * 2;
    let ranges = 2 * 4 * 2;
    assert!(
        (aligned..=aligned + ranges).contains(&w.line_accesses()),
        "{}",
        w.line_accesses()
    );
    assert!(w.work() > 0, "the leaves declare their work");
}

#[test]
fn bad_thread_counts_are_refused() {
    let w = record(&Kernel::Fib.parse_size("5").unwrap()).unwrap();
    let machine = Topology::parse_spec("2x2").unwrap();
    for threads in [0, 5] {
        let mut config = SimConfig::for_machine(&machine);
        config.threads = Some(threads);
        let e = simulate(&w, &machine, PolicyKind::Ws, &config)
            .unwrap_err()
            .to_string();
        assert!(e.contains("4 PUs"), "{e}");
    }
}

#[test]
fn static_runs_each_block_of_a_loop_on_its_worker_in_order() {
    // heat-loop 130x64 with 4-row chunks: 32 chunks a loop.
    let params = Kernel::HeatLoop
        .parse_size("130x64,leaf=4,iters=2")
        .unwrap();
    let workload = record(&params).unwrap();
    let topo = Topology::preset("altix-2x2").unwrap();
    let mut config = SimConfig::for_machine(&topo);
    config.trace = true;
    let r = simulate(&workload, &topo, PolicyKind::Static, &config).unwrap();
    assert_eq!(r.sched.tasks, workload.tasks().len() as u64);
    let tasks = workload.tasks();
    let by_id: std::collections::HashMap<u64, usize> = tasks
        .iter()
        .enumerate()
        .map(|(n, t)| (t.info.id.0, n))
        .collect();
    let mut slices = r.timeline.unwrap().slices;
    slices.sort_by_key(|s| s.start);
    // Per loop (iteration and parent) and worker, the chunks in the order they started.
    let mut runs: std::collections::BTreeMap<(u32, u32, usize), Vec<u32>> = Default::default();
    for slice in slices {
        let t = &tasks[by_id[&slice.task]];
        let Some(parent) = t.parent else { continue };
        let Some(i) = t.info.chunk_index(&tasks[parent as usize].info) else {
            continue;
        };
        let k = t.info.loop_chunks;
        assert_eq!(slice.worker, (i * 4 / k) as usize, "chunk {i} of {k}");
        let run = runs
            .entry((slice.iteration, parent, slice.worker))
            .or_default();
        if run.last() != Some(&i) {
            run.push(i);
        }
    }
    // Two sweeps and the first-touch loop, on four workers.
    assert!(runs.len() >= 3 * 4, "{} runs", runs.len());
    for (key, run) in runs {
        assert!(run.windows(2).all(|p| p[0] < p[1]), "{key:?}: {run:?}");
        assert_eq!(run.len(), 8, "{key:?}: a block of 8 of the 32 chunks");
    }
}

/// A worker's fork or task end happens at its own clock, in time order with every other
/// worker's: one that ran a long leaf past the event being processed used to push and
/// wake at once, and the idle workers it woke jumped ahead to its clock, missing the
/// work their squad-mates pushed meanwhile. Under mts on mandelbrot's uneven leaves,
/// 15 of the 32 workers of xeon-x7550 then ran no task, and mts took 1.82x ws's time.
#[test]
fn woken_workers_do_not_miss_work_pushed_before_their_wake_up() {
    let params = Kernel::Mandelbrot.parse_size("256x256").unwrap();
    let workload = record(&params).unwrap();
    let machine = Topology::preset("xeon-x7550").unwrap();
    let ws = run(&workload, &machine, PolicyKind::Ws, 32);
    let mts = run(&workload, &machine, PolicyKind::Mts { batch: None }, 32);
    let idle: Vec<usize> = (0..32).filter(|&w| mts.per_worker[w].tasks == 0).collect();
    assert!(
        idle.len() <= 4,
        "workers that ran no task under mts: {idle:?}"
    );
    let ratio = mts.makespan as f64 / ws.makespan as f64;
    assert!(ratio < 1.05, "mts over ws: {ratio:.2}");
}

/// MTS's squad mates all pop their shared queue newest first, so on a fine-grained tree
/// a worker that goes idle takes the leaf just spawned, and the squad shares its tree
/// leaf by leaf: fib 25 without cutoff on xeon-x7550 takes 1.26x ws's time under
/// `mts-paper` (1.18 with seed 2). `mts` takes the shallower end, as a thief takes the
/// oldest task of a deque: 0.76 (0.71).
#[test]
fn mts_shares_a_fine_grained_tree_by_its_largest_tasks() {
    let params = Kernel::Fib.parse_size("25,cutoff=0").unwrap();
    let workload = record(&params).unwrap();
    let machine = Topology::preset("xeon-x7550").unwrap();
    let ws = run(&workload, &machine, PolicyKind::Ws, 32).makespan as f64;
    let mts = run(&workload, &machine, PolicyKind::Mts { batch: None }, 32).makespan as f64;
    let paper = run(
        &workload,
        &machine,
        PolicyKind::MtsPaper { batch: None },
        32,
    )
    .makespan as f64;
    let (mts, paper) = (mts / ws, paper / ws);
    assert!(mts <= 1.0, "mts over ws: {mts:.2}");
    assert!(
        paper >= 1.1,
        "mts-paper over ws: {paper:.2} (expected its loss)"
    );
}

/// A loop of 128 chunks on four workers in two squads, under the policies that place
/// chunks and measure nothing: spawned as 32 blocks of 4 (`locus_policy::loop_blocks`),
/// each placed as its first chunk, which split while a worker is without work
/// (`locus_policy::block_split`), as the runtime's blocks do: more placements than
/// blocks, far fewer than chunks, and the same placements in every run; under every
/// policy, every chunk runs once.
#[test]
fn long_loops_run_in_blocks_that_split_while_a_worker_is_idle() {
    use super::conformance::sim_calls;
    use locus_policy::PolicyCall;
    const CHUNKS: u32 = 128;
    let params = Kernel::HeatLoop
        .parse_size("130x16,leaf=1,iters=2")
        .unwrap();
    let workload = record(&params).unwrap();
    let topology = Topology::parse_spec("2x2").unwrap();
    for name in ["mts", "rr-fifo", "cab:bl=1"] {
        let kind: PolicyKind = name.parse().unwrap();
        let placed = |calls: Vec<PolicyCall>| -> Vec<(u64, usize)> {
            calls
                .into_iter()
                .filter_map(|call| match call {
                    PolicyCall::Place { task, spawner, .. } if task.loop_chunks == CHUNKS => {
                        Some((task.id.0, spawner))
                    }
                    _ => None,
                })
                .collect()
        };
        let first = placed(sim_calls(&workload, &topology, &kind, 4));
        // Four loops: two of first touch, two sweeps.
        let loops = 4;
        assert!(
            first.len() > loops * 32 && first.len() < loops * CHUNKS as usize / 2,
            "{name}: {} placements of the loops' chunks",
            first.len()
        );
        assert_eq!(
            first,
            placed(sim_calls(&workload, &topology, &kind, 4)),
            "{name}"
        );
    }
    for kind in policies() {
        let r = run(&workload, &topology, kind.clone(), 4);
        assert_eq!(r.sched.tasks, workload.tasks().len() as u64, "{kind}");
        assert_eq!(r.total.accesses, workload.line_accesses(), "{kind}");
    }
}
