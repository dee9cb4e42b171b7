//! The papers' directions on the presets of their machines, as the simulator measures
//! them. Each test names the figure or table it stands for. Where the simulator
//! disagrees with a paper, the test checks the simulator's finding and the reason
//! docs/results.md gives for it, so that a change to the model or to a policy
//! that moves the finding is noticed.

use locus_kernels::{record, Kernel, Params};
use locus_policy::{boundary_level, CabInputs, PolicyKind};
use locus_sim::engine::{simulate, SimConfig, SimResult};
use locus_task::workload::Workload;
use locus_topo::Topology;

const CATS: PolicyKind = PolicyKind::Cats {
    cmpi_threshold: None,
};
const CATS_PAPER: PolicyKind = PolicyKind::CatsPaper {
    cmpi_threshold: None,
};
const CAB: PolicyKind = PolicyKind::Cab(CabInputs::Auto);
const CAB_PAPER: PolicyKind = PolicyKind::CabPaper(CabInputs::Auto);
const MTS: PolicyKind = PolicyKind::Mts { batch: None };
const MTS_PAPER: PolicyKind = PolicyKind::MtsPaper { batch: None };

fn input(kernel: Kernel, size: &str) -> (Params, Workload) {
    let params = kernel.parse_size(size).unwrap();
    let workload = record(&params).unwrap();
    (params, workload)
}

/// Runs the policies in parallel (each run is deterministic).
fn sim(workload: &Workload, machine: &str, policies: &[PolicyKind]) -> Vec<SimResult> {
    let topo = Topology::preset(machine).unwrap();
    let config = SimConfig::for_machine(&topo);
    std::thread::scope(|s| {
        let runs: Vec<_> = policies
            .iter()
            .map(|kind| {
                let (topo, config) = (&topo, &config);
                s.spawn(move || simulate(workload, topo, kind.clone(), config).unwrap())
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    })
}

fn busy_fraction(r: &SimResult) -> f64 {
    let busy: u64 = r.per_worker.iter().map(|w| w.busy_cycles).sum();
    busy as f64 / (r.makespan as f64 * r.workers as f64)
}

/// CATS Figs. 9 and 10 (Opteron 8380, 1024 x 512, 10 iterations): against pinned work
/// stealing, CATS cuts Heat's L3 misses by 76% and its time by 40%, SOR's time by 56%.
///
/// The simulator disagrees with the published algorithm (`cats-paper`; `cats` with
/// iteration affinity is tested below). Both kernels' grids hold 8 MiB (two 4 MiB arrays; the
/// paper counts 16 MB), so Fig. 6 makes the two halves of the rows the leaf
/// inter-squad tasks: two subtrees for four squads, and two squads idle, so the time
/// rises. Whether the L3 misses fall depends on whether a half lands on the squad that
/// ran it in the previous iteration, which the heads' order of stealing decides
/// (docs/results.md has the numbers for several seeds).
#[test]
fn cats_paper_fig9_fig10_two_subtrees_for_four_squads() {
    for (kernel, size) in [
        (Kernel::Heat, "1024x512,leaf=8,iters=10"),
        (Kernel::Sor, "1024x512,leaf=8,iters=10"),
    ] {
        let (_, w) = input(kernel, size);
        let [ws, cats] = sim(&w, "opteron-8380", &[PolicyKind::Ws, CATS_PAPER])
            .try_into()
            .unwrap();
        let l3 = cats.l3_misses() as f64 / ws.l3_misses() as f64;
        let time = cats.makespan as f64 / ws.makespan as f64;
        eprintln!("{kernel}: cats/ws L3 misses {l3:.2}, makespan {time:.2}");
        assert_eq!(cats.policy_stat("leaf_inter_tasks_level1"), 2, "{kernel}");
        assert!(
            busy_fraction(&cats) < 0.6 && busy_fraction(&ws) > 0.8,
            "{kernel}: half the machine idles under cats ({:.2}), not under ws ({:.2})",
            busy_fraction(&cats),
            busy_fraction(&ws)
        );
    }
}

/// CATS Fig. 10 again, with four subtrees (cab's Eq. 4 from the learned B and S_d gives
/// BL = 3, the four quarters of the rows): the subtrees go to squads in the order their
/// heads steal them, so a quarter's rows are in its squad's L3 from the last iteration
/// only by chance, and cab's L3 misses fall by far less than the paper's 76%. The
/// paper-faithful bi-tier policies do not keep a subtree on one squad; docs/results.md
/// results section has the numbers.
#[test]
fn cab_paper_fig10_four_subtrees_without_placement_stability() {
    let (_, w) = input(Kernel::Heat, "1024x512,leaf=8,iters=10");
    let [ws, cab] = sim(&w, "opteron-8380", &[PolicyKind::Ws, CAB_PAPER])
        .try_into()
        .unwrap();
    let stability = cab.placement_stability.expect("cab-paper counts it");
    assert!(
        stability < 0.8,
        "subtrees change squads between iterations: {stability:.2}"
    );
    let l3 = cab.l3_misses() as f64 / ws.l3_misses() as f64;
    let time = cab.makespan as f64 / ws.makespan as f64;
    eprintln!("heat: cab/ws L3 misses {l3:.2}, makespan {time:.2}");
    assert!(cab.explain.contains("BL = 3"), "{}", cab.explain);
    assert!(
        l3 > 0.5 && l3 < 1.0,
        "fewer misses, far from the paper's cut: {l3:.2}"
    );
}

/// The same experiment with iteration affinity (`cab`, `cats`): each quarter of the rows
/// goes back to the squad that ran it, which is what the paper's 76% cut needs (issue
/// text: a model with subtrees dealt to sockets at random keeps ws's misses; only a
/// stable placement cuts them). Placement stability is 1 from the first comparison on,
/// L3 misses fall to at most 0.3x ws's, and with four subtrees for four squads nobody
/// idles, so the time falls too. SOR is the paper's other memory-bound kernel.
///
/// The time: heat 0.69x ws's, SOR 0.71x (paper: 0.60x and 0.44x). The serial clock
/// (`ClockKind::Serial`) gave 0.49x and 0.44x: it charged each of ws's extra misses its
/// whole latency, one after another, where the overlapping clock lets a core keep 8 in
/// flight and overlap them with its work, so a miss saved saves less time.
#[test]
fn affinity_gives_the_papers_cut_in_l3_misses() {
    for (kernel, size) in [
        (Kernel::Heat, "1024x512,leaf=8,iters=10"),
        (Kernel::Sor, "1024x512,leaf=8,iters=10"),
    ] {
        let (_, w) = input(kernel, size);
        let [ws, cab, cats, cats_paper] =
            sim(&w, "opteron-8380", &[PolicyKind::Ws, CAB, CATS, CATS_PAPER])
                .try_into()
                .unwrap();
        for r in [&cab, &cats] {
            let stability = r.placement_stability.expect("bi-tier policies count it");
            let l3 = r.l3_misses() as f64 / ws.l3_misses() as f64;
            let time = r.makespan as f64 / ws.makespan as f64;
            eprintln!(
                "{kernel} {}: stability {stability:.2}, L3/ws {l3:.2}, time/ws {time:.2}",
                r.policy
            );
            assert!(stability >= 0.95, "{kernel} {}: {stability:.2}", r.policy);
            assert!(
                l3 <= 0.3,
                "{kernel} {}: L3 misses {l3:.2} of ws's",
                r.policy
            );
            assert!(time < 0.8, "{kernel} {}: time {time:.2} of ws's", r.policy);
            assert!(r.policy_stat("placement_compared") > 0);
        }
        assert_eq!(
            cats.policy_stat("leaf_inter_tasks_level2"),
            4,
            "fed: 4 leaves"
        );
        assert!(
            cats_paper.placement_stability.unwrap_or(1.0) < 0.95,
            "{kernel}: the published algorithm leaves placement to chance"
        );
    }
}

/// Iteration affinity's first homes are contiguous and, with the inputs given (so the
/// first iteration is already placed), first touch puts each squad's rows in its own
/// memory node: at 3072 x 512 (24 MiB, the whole machine's L3) ws reads most of its
/// DRAM lines from other nodes, cab:bl=3 almost none; the published cab-paper:bl=3
/// deals the quarters afresh each iteration.
#[test]
fn affinity_keeps_first_touched_memory_local() {
    let (_, w) = input(Kernel::Heat, "3072x512,leaf=8,iters=10");
    let [ws, cab, paper] = sim(
        &w,
        "opteron-8380",
        &[
            PolicyKind::Ws,
            PolicyKind::Cab(CabInputs::Level(3)),
            PolicyKind::CabPaper(CabInputs::Level(3)),
        ],
    )
    .try_into()
    .unwrap();
    let remote = |r: &SimResult| {
        r.total.dram_remote as f64 / (r.total.dram_local + r.total.dram_remote) as f64
    };
    eprintln!(
        "remote DRAM fraction: ws {:.3}, cab:bl=3 {:.3}, cab-paper:bl=3 {:.3}",
        remote(&ws),
        remote(&cab),
        remote(&paper)
    );
    assert!(remote(&cab) < 0.01, "{:.3}", remote(&cab));
    assert!(remote(&ws) > 0.3 && remote(&paper) > 0.3);
    assert_eq!(cab.placement_stability, Some(1.0));
}

/// The parallel loop: heat-loop runs each sweep as one `for_range` over blocks of 8 rows
/// (128 chunks) and first touches its grids with the same loop. With iteration affinity
/// (`cab`, `cats`) chunk i of k starts in squad ⌊i·m/k⌋ and goes back to the squad that
/// ran it last; a squad that runs out steals one chunk at a time. Against ws, which
/// scatters the chunks afresh every sweep: most chunks stay in place, L3 misses fall to
/// at most 0.4x ws's, the time falls, and first touch keeps DRAM reads local.
#[test]
fn affinity_keeps_loop_chunks_home() {
    let (_, w) = input(Kernel::HeatLoop, "1024x512,leaf=8,iters=10");
    let [ws, cab, cats] = sim(&w, "opteron-8380", &[PolicyKind::Ws, CAB, CATS])
        .try_into()
        .unwrap();
    let ws_stability = ws.placement_stability.expect("the engine counts chunks");
    assert!(ws_stability < 0.6, "ws: {ws_stability:.2}");
    let remote = |r: &SimResult| {
        r.total.dram_remote as f64 / (r.total.dram_local + r.total.dram_remote) as f64
    };
    for r in [&cab, &cats] {
        let stability = r.placement_stability.expect("the engine counts chunks");
        let l3 = r.l3_misses() as f64 / ws.l3_misses() as f64;
        let time = r.makespan as f64 / ws.makespan as f64;
        eprintln!(
            "heat-loop {}: stability {stability:.2} (ws {ws_stability:.2}), L3/ws {l3:.2}, \
             time/ws {time:.2}, chunks moved home {}",
            r.policy,
            r.policy_stat("chunks_moved_home")
        );
        // Not 1: at the end of every sweep the squad done first steals a chunk, which
        // then belongs to it (0.89-0.90 over seeds 1-3).
        assert!(stability >= 0.85, "{}: {stability:.2}", r.policy);
        assert!(l3 <= 0.4, "{}: L3 misses {l3:.2} of ws's", r.policy);
        assert!(time < 0.8, "{}: time {time:.2} of ws's", r.policy);
        // 128 chunks (1022 rows by 8), 12 loops: two of first touch and 10 sweeps.
        assert_eq!(r.policy_stat("chunk_compared"), 128 * 11);
    }
    // At 3072 x 512 the grids (24 MiB) fill the machine's L3s and DRAM is read after
    // the first touch: ws reads most of it from other nodes, cab little. (cab 0.21;
    // 0.11 under the serial clock: the clock changes the timing of the sweeps, and so
    // which squad finishes first and takes which chunks for good; ws 0.57 under both.)
    let (_, big) = input(Kernel::HeatLoop, "3072x512,leaf=8,iters=10");
    let [ws, cab] = sim(&big, "opteron-8380", &[PolicyKind::Ws, CAB])
        .try_into()
        .unwrap();
    eprintln!(
        "heat-loop 3072x512 remote DRAM: ws {:.3}, cab {:.3}",
        remote(&ws),
        remote(&cab)
    );
    assert!(remote(&ws) > 0.4, "ws {:.3}", remote(&ws));
    assert!(remote(&cab) < 0.25, "cab {:.3}", remote(&cab));
    assert!(remote(&cab) < remote(&ws) / 2.0);
}

/// The same loop written with parallel iterators: heat-iter cuts each sweep's rows with
/// `par_chunks_mut` into the blocks heat-loop's `for_range` runs as chunks, and the
/// recorder writes its leaves as that loop's chunks. The policies see the same loop, so
/// iteration affinity keeps the leaves home as it keeps heat-loop's chunks.
#[test]
fn affinity_keeps_iterator_leaves_home() {
    let (_, w) = input(Kernel::HeatIter, "1024x512,leaf=8,iters=10");
    let (_, twin) = input(Kernel::HeatLoop, "1024x512,leaf=8,iters=10");
    assert_eq!(w.tasks().len(), twin.tasks().len());
    assert_eq!(w.iterations(), twin.iterations());
    let [ws, cab, cats] = sim(&w, "opteron-8380", &[PolicyKind::Ws, CAB, CATS])
        .try_into()
        .unwrap();
    let ws_stability = ws.placement_stability.expect("the engine counts chunks");
    for r in [&cab, &cats] {
        let stability = r.placement_stability.expect("the engine counts chunks");
        let l3 = r.l3_misses() as f64 / ws.l3_misses() as f64;
        let time = r.makespan as f64 / ws.makespan as f64;
        eprintln!(
            "heat-iter {}: stability {stability:.2} (ws {ws_stability:.2}), L3/ws {l3:.2}, \
             time/ws {time:.2}",
            r.policy
        );
        assert!(stability >= 0.85, "{}: {stability:.2}", r.policy);
        assert!(l3 <= 0.4, "{}: L3 misses {l3:.2} of ws's", r.policy);
        assert_eq!(r.policy_stat("chunk_compared"), 128 * 11);
    }
}

/// Affinity must not cost load balance. Where the work is uneven (heat-ub, CATS's
/// unbalanced tree), where it moves between subtrees from one iteration to the next
/// (heat-moving: a band of rows computed 8 times sweeps across the grid), and where the
/// leaves are finer than one per squad (cab:bl=5, four leaf subtrees per squad, so
/// balancing across squads is possible), keeping leaves at home must not make the
/// program slower than the published algorithms by more than 2%.
#[test]
fn affinity_keeps_unbalanced_and_changing_programs_balanced() {
    let (_, ub) = input(Kernel::HeatUb, "1024x512,leaf=8,iters=10");
    let (_, moving) = input(Kernel::HeatMoving, "1024x512,leaf=8,iters=10");
    let fine = [
        PolicyKind::Cab(CabInputs::Level(5)),
        PolicyKind::CabPaper(CabInputs::Level(5)),
    ];
    let runs = [
        (&ub, [CAB, CAB_PAPER]),
        (&ub, [CATS, CATS_PAPER]),
        (&ub, fine.clone()),
        (&moving, [CAB, CAB_PAPER]),
        (&moving, [CATS, CATS_PAPER]),
        (&moving, fine.clone()),
    ];
    for (w, pair) in runs {
        let [a, p] = sim(w, "opteron-8380", &pair).try_into().unwrap();
        let ratio = a.makespan as f64 / p.makespan as f64;
        eprintln!(
            "{} {} / {}: makespan {ratio:.3}, stability {:?}, leaves moved home {}",
            w.name,
            a.policy,
            p.policy,
            a.placement_stability,
            a.policy_stat("leaves_moved_home")
        );
        assert!(
            ratio <= 1.02,
            "{} {}: {ratio:.3} of {}'s",
            w.name,
            a.policy,
            p.policy
        );
    }
    // With leaves to spare, the moving band's squad is helped: leaves move home.
    let [a, _] = sim(&moving, "opteron-8380", &fine).try_into().unwrap();
    assert!(a.policy_stat("leaves_moved_home") > 0);
}

/// CAB Fig. 5 (Opteron 8380, Heat 3k x 2k doubles): over every boundary level, Eq. 4's
/// choice (BL = 4 with S_d = 48 MB, one matrix, as the paper counts it) performs best.
/// The tree has levels 0-6 in CAB's numbering: 32 leaves of 96 rows.
///
/// With iteration affinity, under the overlapping clock BL = 0, 3 and 4 tie within
/// 0.2% (42.4-42.5 M cycles): the grids stream from DRAM every sweep and the four
/// nodes' bandwidth bounds every level alike. Under the serial clock BL = 3 and 4 tied
/// at 70 M, 0.80x BL = 0's 88 M, as the paper's figure has it.
#[test]
fn cab_fig5_eq4_picks_the_best_boundary_level() {
    let (_, w) = input(Kernel::Heat, "3072x2048,leaf=96,iters=3");
    let eq4 = boundary_level(4, 6 << 20, 2, 3072 * 2048 * 8);
    assert_eq!(eq4, 4);
    let levels: Vec<PolicyKind> = (0..=6)
        .map(|bl| PolicyKind::Cab(CabInputs::Level(bl)))
        .collect();
    let results = sim(&w, "opteron-8380", &levels);
    let best = results.iter().map(|r| r.makespan).min().unwrap();
    let chosen = results[eq4 as usize].makespan;
    for r in &results {
        eprintln!("{}: {}", r.policy, r.makespan);
    }
    assert!(
        chosen as f64 <= best as f64 * 1.03,
        "Eq. 4's BL = 4 takes {chosen} cycles, the best {best}"
    );
}

/// MTS paper Table 4 (4 x 8 Xeon X7550): work stealing steals remotely about twice as
/// often as MTS on Health and over twice as often on Sort. The simulator agrees in
/// direction, summed over four seeds. As published (`mts-paper`) the gap is smaller on
/// Sort (0.56 of ws's remote steals, against the paper's < 0.5): its workers pop the
/// squad's shared queue newest first, so they take small tasks and a squad runs dry
/// sooner than a worker owning a deque does. `mts`, whose idle workers take the
/// shallower end, steals remotely 0.27x as often as ws on Sort, and 0.29x on heat, whose
/// sweeps go back to the squads that first ran them (0.47x before that affinity).
#[test]
fn mts_table4_fewer_remote_steals() {
    let topo = Topology::preset("xeon-x7550").unwrap();
    for (policy, kernel, size, most) in [
        (MTS_PAPER, Kernel::Heat, "1024x512,leaf=8,iters=10", 0.7),
        (MTS_PAPER, Kernel::Sort, "1000000,cutoff=2048", 0.7),
        (MTS, Kernel::Heat, "1024x512,leaf=8,iters=10", 0.6),
        (MTS, Kernel::Sort, "1000000,cutoff=2048", 0.5),
    ] {
        let (_, w) = input(kernel, size);
        let (mut ws, mut mts) = (0, 0);
        for seed in 1..=4 {
            let mut config = SimConfig::for_machine(&topo);
            config.seed = seed;
            let a = simulate(&w, &topo, PolicyKind::Ws, &config).unwrap();
            let b = simulate(&w, &topo, policy.clone(), &config).unwrap();
            assert_eq!(
                b.sched.bulk_steals, b.sched.steals_remote,
                "{policy} {kernel}"
            );
            ws += a.sched.steals_remote;
            mts += b.sched.steals_remote;
        }
        let ratio = mts as f64 / ws as f64;
        eprintln!(
            "{policy} {kernel}: remote steals over 4 seeds ws {ws} {policy} {mts} ({ratio:.2})"
        );
        assert!(
            ratio <= most,
            "{kernel}: {policy}/ws remote steals {ratio:.2}"
        );
    }
}

/// CATS Section 3.5 and Fig. 12, CAB Section V: on CPU-bound programs the cache-aware
/// policies behave as work stealing (CATS detects them by misses per instruction; CAB's
/// tiers change nothing when no data is shared). Within 2% of ws's makespan, on inputs
/// with enough tasks per worker that the order of steals averages out: with 64 uneven
/// mandelbrot leaves for 16 workers (256 x 256) one schedule differs from another by
/// several percent (cats takes 1.08x ws's time there; docs/results.md).
#[test]
fn cpu_bound_kernels_run_as_work_stealing() {
    for (kernel, size) in [
        (Kernel::Fib, "30,cutoff=15"),
        (Kernel::Nqueens, "12"),
        (Kernel::Mandelbrot, "512x512"),
    ] {
        let (_, w) = input(kernel, size);
        let [ws, cab, cats] = sim(&w, "opteron-8380", &[PolicyKind::Ws, CAB, CATS])
            .try_into()
            .unwrap();
        for r in [&cab, &cats] {
            let ratio = r.makespan as f64 / ws.makespan as f64;
            eprintln!("{kernel}: {}/ws makespan {ratio:.3}", r.policy);
            assert!(
                (0.98..=1.02).contains(&ratio),
                "{kernel}: {} takes {ratio:.3} of ws's time",
                r.policy
            );
        }
    }
}

/// Data beyond every cache (`docs/policies.md`, "Data beyond every cache"): where the data the
/// first iteration touched outgrows all the squads' caches together, `cab` and `cats`
/// run the tasks as `ws`, and a parallel loop keeps its chunk homes. On four squads of
/// a 256 KiB L3 (1 MiB together) and four 128 KiB L2s each, heat 768x512 (6 MiB) took
/// 1.05 (leaf=8) and 1.09 (leaf=16) of ws's time partitioned, before the rule; heat
/// 192x128 (384 KiB) fits and gains (0.78, as before); spmv-crs over laplace2d:384
/// (11 MiB) gains by its chunk homes (0.89; 0.90 before).
#[test]
fn data_beyond_every_cache_runs_its_tasks_as_work_stealing() {
    let machine =
        Topology::from_synthetic("pack:4 l3:1(size=256KiB) l2:4(size=128KiB) core:1 pu:1").unwrap();
    let run = |kernel: Kernel, size: &str| {
        let (_, w) = input(kernel, size);
        let config = SimConfig::for_machine(&machine);
        [PolicyKind::Ws, CAB, CATS].map(|kind| simulate(&w, &machine, kind, &config).unwrap())
    };
    for size in ["768x512,leaf=8,iters=4", "768x512,leaf=16,iters=4"] {
        let [ws, cab, cats] = run(Kernel::Heat, size);
        for r in [&cab, &cats] {
            let ratio = r.makespan as f64 / ws.makespan as f64;
            assert!(
                (0.99..=1.01).contains(&ratio),
                "heat {size}: {} takes {ratio:.3} of ws's time",
                r.policy
            );
            assert!(
                r.explain.contains("outgrows the squads' caches together"),
                "{}: {}",
                r.policy,
                r.explain
            );
        }
    }
    let [ws, cab, cats] = run(Kernel::Heat, "192x128,leaf=8,iters=4");
    for r in [&cab, &cats] {
        assert!(r.makespan < ws.makespan, "heat 192x128 fits: {}", r.policy);
        assert!(!r.explain.contains("outgrows"), "{}", r.explain);
    }
    let [ws, cab, cats] = run(Kernel::SpmvCrs, "laplace2d:384,iters=4,grain=256");
    for r in [&cab, &cats] {
        let ratio = r.makespan as f64 / ws.makespan as f64;
        assert!(
            ratio < 0.95,
            "spmv-crs: {} takes {ratio:.3} of ws's time",
            r.policy
        );
        assert!(r.explain.contains("outgrows"), "{}", r.explain);
        assert!(
            r.placement_stability.is_some_and(|s| s > 0.9),
            "{}: the chunks stay home ({:?})",
            r.policy,
            r.placement_stability
        );
    }
}
