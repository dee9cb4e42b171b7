//! The simulated evaluation: the model's calibration against the paper's
//! numbers, the mapper driven through `SimSource`, the comparison of placements
//! on the named mixes, and bad input.

use std::collections::HashSet;

use locus_mapper::classify::{classify, Level};
use locus_mapper::workload::{
    compare, geometric_mean, linux_placement, run, MixSpec, Placement, RunOptions, SimSource,
    WorkloadError, World, MIXES,
};
use locus_mapper::{Config, MachineShape, Mapper, Move, SampleSource};
use locus_topo::Topology;

fn paper_machine() -> Topology {
    Topology::preset("xeon-e5-2660v2").unwrap()
}

fn options(seconds: f64) -> RunOptions {
    RunOptions {
        seconds,
        ..RunOptions::default()
    }
}

fn mix(name: &str) -> &'static MixSpec {
    MixSpec::find(name).unwrap_or_else(|| panic!("no mix {name}"))
}

#[test]
fn hubench_reproduces_the_papers_figure_1_point() {
    // Two HuBench threads sharing across sockets, then on one socket (different cores).
    let t = paper_machine();
    const PAIR: MixSpec = MixSpec {
        name: "pair",
        description: "one HuBench pair",
        apps: &[(locus_mapper::workload::AppKind::HuBench, 2)],
    };
    let mut apart = World::new(&PAIR, &t, 1, &[0, 20]).unwrap();
    let mut together = World::new(&PAIR, &t, 1, &[0, 2]).unwrap();
    let a = apart.step();
    let b = together.step();
    let class = classify(&a[0].counts, &Config::default()).unwrap();
    assert_eq!(class.coherence, Level::High);
    let rate = class.coherence_rate.unwrap();
    assert!((1.0e-3..1.4e-3).contains(&rate), "{rate}");
    let spc = class.spc.unwrap();
    assert!((600.0..750.0).contains(&spc), "{spc}");
    let speedup = b[0].counts.instructions as f64 / a[0].counts.instructions as f64;
    assert!((2.1..2.7).contains(&speedup), "{speedup}");
    // Sharing inside a socket shows as same-socket coherence only.
    assert_eq!(b[0].counts.hitm_remote, Some(0));
    assert!(b[0].counts.hitm_local.unwrap() > 0);
}

#[test]
fn sim_source_moves_threads_and_counts_migrations() {
    let t = paper_machine();
    let shape = MachineShape::from_topology(&t);
    let m = mix("hu-mem");
    let world = World::new(m, &t, 3, &linux_placement(&shape, m.threads())).unwrap();
    let mut moved = SimSource::new(world.clone());
    let mut still = SimSource::new(world);
    assert_eq!(moved.name(), "sim");
    let samples = moved.sample().unwrap();
    still.sample().unwrap();
    assert_eq!(samples.len(), 20);
    // MemBench's first thread runs alone on core 5 of socket 0 (PU 10); its
    // sibling PU 11 is the same place in every respect but the move.
    let mem = &samples[10];
    assert_eq!((mem.comm.as_str(), mem.cpu), ("membench", Some(10)));
    let to = |cpus: Vec<usize>, pid: u32, tid: u32| Move {
        pid,
        tid,
        cpus,
        reason: "test".into(),
    };
    moved.apply(&[
        to(vec![11], mem.pid, mem.tid),
        // Unknown threads, CPUs off the machine, and a thread's own CPU move nothing.
        to(vec![3], 1, 1),
        to(vec![400], mem.pid, mem.tid + 1),
        to(vec![12, 30], mem.pid, mem.tid + 1),
    ]);
    assert_eq!(moved.world().migrations(), 1);
    let (a, b) = (moved.sample().unwrap(), still.sample().unwrap());
    assert_eq!(a[10].cpu, Some(11));
    // The move cost 200 µs at 2.2 GHz (440,000 cycles) of refill: that many
    // cycles' worth of instructions fewer, and nothing else changed.
    let (x, y) = (&a[10].counts, &b[10].counts);
    assert_eq!(x.cycles, y.cycles);
    let cpi = y.cycles as f64 / y.instructions as f64;
    let lost = (y.instructions - x.instructions) as f64;
    assert!(
        (lost - 440_000.0 / cpi).abs() < 2.0,
        "{lost} instructions lost"
    );
    assert!(x.stall_cycles > y.stall_cycles);
    assert_eq!(a[11].counts, b[11].counts);
}

#[test]
fn two_sharing_applications_end_one_per_socket() {
    let t = paper_machine();
    let r = run(mix("hu-hu"), &t, Placement::SamMph, &options(3.0)).unwrap();
    let sockets = r.app_sockets();
    assert_eq!(sockets.len(), 2);
    assert_eq!(sockets[0].len(), 1, "{sockets:?}");
    assert_eq!(sockets[1].len(), 1, "{sockets:?}");
    assert_ne!(sockets[0], sockets[1]);
    // Linux spreads both over both sockets.
    let linux = run(mix("hu-hu"), &t, Placement::Linux, &options(3.0)).unwrap();
    assert_eq!(linux.app_sockets(), [vec![0, 1], vec![0, 1]]);
    assert_eq!(linux.migrations, 0);
}

#[test]
fn the_mapper_drives_a_sim_source_like_the_daemon_would() {
    let t = paper_machine();
    let shape = MachineShape::from_topology(&t);
    let m = mix("hu-hu");
    let world = World::new(m, &t, 1, &linux_placement(&shape, m.threads())).unwrap();
    let mut source = SimSource::new(world);
    let mut mapper = Mapper::new(shape.clone(), Config::default());
    let mut moved = 0;
    for _ in 0..30 {
        let samples = source.sample().unwrap();
        let moves = mapper.decide(&samples);
        for mv in &moves {
            assert!(mv.cpus.iter().all(|&c| shape.socket_of(c).is_some()));
        }
        moved += moves.len();
        source.apply(&moves);
    }
    assert_eq!(moved as u64, source.world().migrations());
    let places = source.world().placement();
    let pus: HashSet<usize> = places.iter().map(|p| p.pu).collect();
    assert_eq!(pus.len(), places.len(), "two threads on one PU");
}

/// Threads of application `app` that share their core with another thread at
/// the end of a run.
fn on_shared_cores(r: &locus_mapper::workload::RunResult, app: usize) -> usize {
    r.final_placement
        .iter()
        .filter(|p| p.app == app)
        .filter(|p| {
            r.final_placement
                .iter()
                .any(|q| q.core == p.core && q.tid != p.tid)
        })
        .count()
}

#[test]
fn lubench_is_kept_off_shared_cores() {
    // hu-hu-lu: both HuBench apps take a socket each (paired on hyperthreads),
    // LuBench's ten high-IPC threads get the ten cores left, five per socket.
    let t = paper_machine();
    let mph = run(mix("hu-hu-lu"), &t, Placement::SamMph, &options(3.0)).unwrap();
    assert_eq!(on_shared_cores(&mph, 2), 0);
    assert_eq!(mph.app_sockets()[2], [0, 1]);
    // The SAM variant consolidates LuBench on one socket, on the siblings of a
    // HuBench application's cores.
    let sam = run(mix("hu-hu-lu"), &t, Placement::Sam, &options(3.0)).unwrap();
    assert_eq!(sam.app_sockets()[2].len(), 1);
    assert_eq!(on_shared_cores(&sam, 2), 10);
}

#[test]
fn sam_mph_beats_linux_on_the_mixes() {
    let t = paper_machine();
    let speedups: Vec<f64> = MIXES
        .iter()
        .map(|m| {
            let linux = run(m, &t, Placement::Linux, &options(5.0)).unwrap();
            let mph = run(m, &t, Placement::SamMph, &options(5.0)).unwrap();
            mph.instructions / linux.instructions
        })
        .collect();
    let g = geometric_mean(speedups.iter().copied()).unwrap();
    assert!(g > 1.0, "geometric-mean speedup {g}: {speedups:?}");
}

#[test]
fn history_cuts_migrations_under_phases() {
    let t = paper_machine();
    let m = mix("phase-hu");
    let sam = run(m, &t, Placement::Sam, &options(10.0)).unwrap();
    let mph = run(m, &t, Placement::SamMph, &options(10.0)).unwrap();
    let (a, b) = (sam.migrations_per_minute(), mph.migrations_per_minute());
    assert!(b > 0.0, "sam-mph never moved");
    assert!(a >= 5.0 * b, "sam {a}/min, sam-mph {b}/min");
}

#[test]
fn a_full_comparison() {
    let t = paper_machine();
    let opts = RunOptions {
        seconds: 2.0,
        seed: 7,
        static_budget: 16,
    };
    let r = compare(mix("hu-mem"), &t, &opts).unwrap();
    let names: Vec<&str> = r.runs.iter().map(|r| r.placement.name()).collect();
    assert_eq!(names, ["linux", "sam", "sam-mph", "best-static"]);
    assert_eq!(r.speedup(Placement::Linux), Some(1.0));
    let best = r.run(Placement::BestStatic).unwrap();
    assert!(best.candidates >= 1 && best.candidates <= 16);
    assert_eq!(best.migrations, 0);
    // The search tries the linux-like layouts among others, so it is no worse
    // than linux by more than the noise.
    assert!(r.speedup(Placement::BestStatic).unwrap() > 0.98);
    assert!(r.app_speedup(Placement::SamMph).unwrap() > 0.0);
    for run in &r.runs {
        assert!((run.seconds - 2.0).abs() < 1e-9);
        assert_eq!(run.final_placement.len(), 20);
    }
}

#[test]
fn runs_are_deterministic() {
    let t = paper_machine();
    let a = run(mix("phase-hu"), &t, Placement::Sam, &options(2.0)).unwrap();
    let b = run(mix("phase-hu"), &t, Placement::Sam, &options(2.0)).unwrap();
    assert_eq!(a, b);
    let other = RunOptions {
        seed: 2,
        ..options(2.0)
    };
    let c = run(mix("phase-hu"), &t, Placement::Sam, &other).unwrap();
    assert_ne!(a.instructions, c.instructions);
}

#[test]
fn every_mix_is_described_and_fits_the_paper_machine() {
    assert!(MIXES.len() >= 4);
    let mut names = HashSet::new();
    for m in MIXES {
        assert!(names.insert(m.name), "{} twice", m.name);
        assert!(!m.description.is_empty() && !m.description.contains('\n'));
        assert!(m.threads() <= 40);
        assert_eq!(MixSpec::find(&m.name.to_uppercase()), Some(m));
    }
}

#[test]
fn a_four_socket_machine_runs_too() {
    let t = Topology::preset("xeon-e7-4820v3").unwrap();
    let r = run(mix("hu-hu-lu"), &t, Placement::SamMph, &options(2.0)).unwrap();
    let sockets = r.app_sockets();
    assert_eq!(sockets[0].len(), 1);
    assert_eq!(sockets[1].len(), 1);
}

#[test]
fn one_socket_machines_have_nothing_to_map() {
    let t = Topology::from_synthetic("1x16x2").unwrap();
    let r = run(mix("hu-hu"), &t, Placement::SamMph, &options(2.0)).unwrap();
    assert_eq!(r.migrations, 0);
}

#[test]
fn bad_input_is_an_error() {
    let t = paper_machine();
    assert!(MixSpec::find("nope").is_none());
    let small = Topology::from_synthetic("2x4x2").unwrap();
    let err = run(mix("hu-hu-lu"), &small, Placement::Linux, &options(1.0)).unwrap_err();
    assert!(
        matches!(
            err,
            WorkloadError::TooManyThreads {
                threads: 30,
                pus: 16,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("hu-hu-lu"), "{err}");
    for seconds in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e9, 0.01] {
        let err = run(mix("hu-hu"), &t, Placement::Linux, &options(seconds)).unwrap_err();
        assert!(
            matches!(err, WorkloadError::Duration { .. }),
            "{seconds}: {err}"
        );
    }
    let err = World::new(mix("hu-hu"), &t, 1, &[0, 1]).unwrap_err();
    assert!(matches!(err, WorkloadError::Placement { .. }), "{err}");
    let mut pus = linux_placement(&MachineShape::from_topology(&t), 20);
    pus[3] = 1000;
    let err = World::new(mix("hu-hu"), &t, 1, &pus).unwrap_err();
    assert!(err.to_string().contains("1000"), "{err}");
}
