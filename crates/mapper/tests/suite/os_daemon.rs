//! The mapper's loop with a scripted counter source, scripted decisions and a fake
//! affinity backend: moves reach only sampled threads and stay in their allowed sets,
//! `--restore` puts the original masks back, threads vanish mid-run, a dry run touches
//! nothing, the round count and the stop flag end the loop, a failing source ends it
//! with the original masks restored. Also interval parsing.

use crate::os_common::FakeCpuBinding;
use locus_mapper::act::Actuator;
use locus_mapper::daemon::{
    self, parse_interval, DaemonError, Decide, IntervalError, LoopConfig, Summary,
};
use locus_mapper::{Counts, Move, SampleSource, SourceError, ThreadSample};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Hands out one scripted round of samples per call; after the script, an error.
struct Script {
    rounds: Vec<Vec<ThreadSample>>,
    next: usize,
    applied: Vec<Move>,
}

impl Script {
    fn new(rounds: Vec<Vec<ThreadSample>>) -> Script {
        Script {
            rounds,
            next: 0,
            applied: Vec::new(),
        }
    }
}

impl SampleSource for Script {
    fn name(&self) -> &str {
        "script"
    }

    fn sample(&mut self) -> Result<Vec<ThreadSample>, SourceError> {
        let round = self.rounds.get(self.next).cloned();
        self.next += 1;
        round.ok_or_else(|| SourceError::Unavailable {
            reason: "the script ran out".into(),
        })
    }

    fn apply(&mut self, moves: &[Move]) {
        self.applied.extend_from_slice(moves);
    }
}

fn sample(pid: u32, tid: u32, cpu: usize) -> ThreadSample {
    ThreadSample {
        pid,
        tid,
        comm: format!("app{pid}"),
        cpu: Some(cpu),
        counts: Counts {
            instructions: 1_000,
            cycles: 2_000,
            ..Counts::default()
        },
    }
}

fn mv(pid: u32, tid: u32, cpus: &[usize], reason: &str) -> Move {
    Move {
        pid,
        tid,
        cpus: cpus.to_vec(),
        reason: reason.into(),
    }
}

fn fast(rounds: u64) -> LoopConfig {
    LoopConfig {
        interval: Duration::from_millis(1),
        rounds: Some(rounds),
        dry_run: false,
        restore: false,
    }
}

/// Process 10 (threads 10, 11: CPUs 0-3), process 20 (thread 20: CPUs 4-7) and an
/// unselected process 30 (thread 30: CPUs 0-7) that the source never samples.
fn machine() -> FakeCpuBinding {
    FakeCpuBinding::default()
        .with(10, &[10, 11], &[0, 1, 2, 3])
        .with(20, &[20], &[4, 5, 6, 7])
        .with(30, &[30], &[0, 1, 2, 3, 4, 5, 6, 7])
}

/// One run of the loop acting through `act`, with a stop flag nobody sets; what it
/// prints goes to `out`.
fn run_on(
    source: &mut dyn SampleSource,
    decider: &mut dyn Decide,
    act: &mut Actuator<FakeCpuBinding>,
    config: &LoopConfig,
    out: &mut Vec<u8>,
) -> Result<Summary, DaemonError> {
    let stop = AtomicBool::new(false);
    daemon::run(source, decider, Some(act), config, &stop, out)
}

fn text(out: &[u8]) -> String {
    String::from_utf8(out.to_vec()).unwrap()
}

#[test]
fn moves_are_applied_only_to_sampled_threads_within_their_allowed_sets() {
    let round = vec![sample(10, 10, 0), sample(10, 11, 1), sample(20, 20, 4)];
    let mut source = Script::new(vec![round.clone(), round]);
    let mut decider = |samples: &[ThreadSample]| {
        assert!(!samples.is_empty());
        vec![
            mv(10, 11, &[3], "share with 10"),
            mv(30, 30, &[7], "not selected"),
            mv(20, 20, &[0, 1, 5], "partly outside"),
            mv(10, 10, &[6, 7], "wholly outside"),
        ]
    };
    let mut act = Actuator::new(machine());
    let mut out = Vec::new();
    let summary = run_on(&mut source, &mut decider, &mut act, &fast(2), &mut out).unwrap();
    let out = text(&out);
    assert_eq!(summary.rounds, 2);
    assert_eq!(summary.threads_seen, 3);
    assert_eq!(
        (summary.decided, summary.migrations, summary.skipped),
        (8, 4, 4)
    );
    let fake = act.affinity();
    assert_eq!(fake.mask(11), Some(&[3][..]));
    assert_eq!(fake.mask(20), Some(&[5][..]));
    assert_eq!(fake.mask(10), Some(&[0, 1, 2, 3][..]), "untouched");
    assert_eq!(
        fake.mask(30),
        Some(&[0, 1, 2, 3, 4, 5, 6, 7][..]),
        "never selected"
    );
    assert!(fake.sets.iter().all(|(tid, _)| *tid != 30));
    assert!(
        out.contains("round 1: 3 thread(s) of 2 process(es) sampled, 4 move(s)\n"),
        "{out}"
    );
    assert!(
        out.contains("  moved pid 10 tid 11 (app10) cpu 1 -> cpus 3: share with 10\n"),
        "{out}"
    );
    assert!(out.contains("  moved pid 20 tid 20 (app20) cpu 4 -> cpus 0-1,5: partly outside (within its allowed CPUs: 5)"), "{out}");
    assert!(
        out.contains("  skipped pid 30 tid 30 (?) cpu ? -> cpus 7: not selected"),
        "{out}"
    );
    assert!(
        out.contains(
            "  skipped pid 10 tid 10 (app10) cpu 0 -> cpus 6-7: wholly outside (none of CPUs 6-7"
        ),
        "{out}"
    );
    // The source was told of every move (the perf source ignores them).
    assert_eq!(source.applied.len(), 8);
}

#[test]
fn restore_puts_the_original_masks_back_when_the_loop_ends() {
    let round = vec![sample(10, 10, 0), sample(10, 11, 1), sample(20, 20, 4)];
    let mut source = Script::new(vec![round.clone(), round.clone(), round]);
    let mut n = 0;
    let mut decider = |_: &[ThreadSample]| {
        n += 1;
        vec![
            mv(10, 10, &[n % 4], "round robin"),
            mv(20, 20, &[4 + n % 4], "round robin"),
        ]
    };
    let mut act = Actuator::new(machine());
    let config = LoopConfig {
        restore: true,
        ..fast(3)
    };
    let summary = run_on(
        &mut source,
        &mut decider,
        &mut act,
        &config,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(summary.migrations, 6);
    assert_eq!(summary.restored.map(|r| r.restored), Some(2));
    assert_eq!(act.affinity().mask(10), Some(&[0, 1, 2, 3][..]));
    assert_eq!(act.affinity().mask(20), Some(&[4, 5, 6, 7][..]));
    assert_eq!(act.affinity().mask(11), Some(&[0, 1, 2, 3][..]));
    // Without --restore, the last moves stay.
    let round = vec![sample(10, 10, 0)];
    let mut source = Script::new(vec![round]);
    let mut act = Actuator::new(machine());
    let mut decider = |_: &[ThreadSample]| vec![mv(10, 10, &[2], "stay")];
    let summary = run_on(
        &mut source,
        &mut decider,
        &mut act,
        &fast(1),
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(summary.restored, None);
    assert_eq!(act.affinity().mask(10), Some(&[2][..]));
}

#[test]
fn threads_vanishing_mid_run_are_not_errors() {
    // Round 1: threads 10, 11, 20. Round 2: 11 has exited (the source no longer lists
    // it, and the kernel no longer knows it). Round 3: process 20 has exited between
    // sampling and acting.
    let mut source = Script::new(vec![
        vec![sample(10, 10, 0), sample(10, 11, 1), sample(20, 20, 4)],
        vec![sample(10, 10, 0), sample(20, 20, 4)],
        vec![sample(10, 10, 0), sample(20, 20, 4)],
    ]);
    let mut round = 0;
    let mut act = Actuator::new(machine());
    let mut decider = |samples: &[ThreadSample]| {
        round += 1;
        match round {
            1 => vec![mv(10, 11, &[2], "r1"), mv(20, 20, &[5], "r1")],
            // The decisions still name thread 11 (a stale decision): skipped.
            2 => vec![mv(10, 11, &[3], "r2"), mv(10, 10, &[1], "r2")],
            _ => {
                assert_eq!(samples.len(), 2);
                vec![mv(20, 20, &[6], "r3")]
            }
        }
    };
    // The fake learns of each exit between rounds, so the rounds run one at a time.
    let config = fast(1);
    let mut out = Vec::new();
    let s1 = run_on(&mut source, &mut decider, &mut act, &config, &mut out).unwrap();
    assert_eq!(s1.migrations, 2);
    act.affinity_mut().threads.remove(&11);
    let s2 = run_on(&mut source, &mut decider, &mut act, &config, &mut out).unwrap();
    assert_eq!((s2.migrations, s2.skipped, s2.gone), (1, 1, 0));
    act.affinity_mut().threads.remove(&20);
    let s3 = run_on(&mut source, &mut decider, &mut act, &config, &mut out).unwrap();
    assert_eq!(
        (s3.migrations, s3.skipped, s3.gone, s3.failed),
        (0, 0, 1, 0)
    );
    // Restore after all that: thread 10 is restored, 11 and 20 are gone.
    let restored = act.restore();
    assert_eq!((restored.restored, restored.gone), (1, 1));
    assert_eq!(act.affinity().mask(10), Some(&[0, 1, 2, 3][..]));
}

#[test]
fn a_dry_run_prints_and_touches_nothing() {
    let round = vec![sample(10, 10, 0), sample(20, 20, 4)];
    let mut source = Script::new(vec![round.clone(), round]);
    let mut decider = |_: &[ThreadSample]| vec![mv(10, 10, &[1], "would colocate")];
    let mut act = Actuator::new(machine());
    let config = LoopConfig {
        dry_run: true,
        restore: true,
        ..fast(2)
    };
    let mut out = Vec::new();
    let summary = run_on(&mut source, &mut decider, &mut act, &config, &mut out).unwrap();
    let out = text(&out);
    assert!(act.affinity().sets.is_empty(), "{:?}", act.affinity().sets);
    assert!(source.applied.is_empty());
    assert_eq!(
        (summary.decided, summary.migrations, summary.restored),
        (2, 0, None)
    );
    assert_eq!(
        out.matches("  would move pid 10 tid 10 (app10) cpu 0 -> cpus 1: would colocate\n")
            .count(),
        2,
        "{out}"
    );
    assert!(
        out.starts_with("round 1: 2 thread(s) of 2 process(es) sampled, 1 move(s) (dry run)\n"),
        "{out}"
    );
}

#[test]
fn without_an_actuator_the_source_carries_the_moves_out() {
    let mut source = Script::new(vec![vec![sample(10, 10, 0)]]);
    let mut decider = |_: &[ThreadSample]| vec![mv(10, 10, &[3], "simulated")];
    let stop = AtomicBool::new(false);
    let mut out = Vec::new();
    let summary =
        daemon::run::<FakeCpuBinding>(&mut source, &mut decider, None, &fast(1), &stop, &mut out)
            .unwrap();
    assert_eq!(summary.migrations, 1);
    assert_eq!(source.applied, [mv(10, 10, &[3], "simulated")]);
    assert!(
        text(&out).contains("  moved pid 10 tid 10 (app10) cpu 0 -> cpus 3: simulated [script]")
    );
}

#[test]
fn a_set_stop_flag_ends_the_loop_before_the_next_round() {
    let mut source = Script::new(vec![vec![]; 10]);
    let mut decider = |_: &[ThreadSample]| Vec::new();
    let stop = AtomicBool::new(true);
    let config = LoopConfig {
        rounds: None,
        ..fast(0)
    };
    let summary = daemon::run::<FakeCpuBinding>(
        &mut source,
        &mut decider,
        None,
        &config,
        &stop,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(summary.rounds, 0);
    assert!(summary.interrupted);
    assert!(
        summary.to_string().ends_with("(stopped by a signal)"),
        "{summary}"
    );
}

#[test]
fn a_stop_flag_set_during_a_long_interval_is_seen_promptly() {
    let mut source = Script::new(vec![vec![]; 10]);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let setter = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        })
    };
    let mut decider = |_: &[ThreadSample]| Vec::new();
    let config = LoopConfig {
        interval: Duration::from_secs(3600),
        rounds: None,
        ..LoopConfig::default()
    };
    let summary = daemon::run::<FakeCpuBinding>(
        &mut source,
        &mut decider,
        None,
        &config,
        &stop,
        &mut Vec::new(),
    )
    .unwrap();
    setter.join().unwrap();
    assert_eq!(summary.rounds, 1);
    assert!(summary.interrupted);
}

#[test]
fn a_failing_source_ends_the_loop_after_restoring() {
    let round = vec![sample(10, 10, 0)];
    let mut source = Script::new(vec![round.clone(), round]);
    let mut decider = |_: &[ThreadSample]| vec![mv(10, 10, &[2], "go")];
    let mut act = Actuator::new(machine());
    let config = LoopConfig {
        restore: true,
        rounds: None,
        ..fast(0)
    };
    let err = run_on(
        &mut source,
        &mut decider,
        &mut act,
        &config,
        &mut Vec::new(),
    )
    .unwrap_err();
    match err {
        DaemonError::Source {
            round,
            source,
            summary,
        } => {
            assert_eq!(round, 3);
            assert!(matches!(source, SourceError::Unavailable { .. }));
            assert_eq!(summary.rounds, 2);
            assert_eq!(summary.restored.map(|r| r.restored), Some(1));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(act.affinity().mask(10), Some(&[0, 1, 2, 3][..]));
}

#[test]
fn intervals_with_units() {
    let ok = |s: &str| parse_interval(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    assert_eq!(ok("100ms"), Duration::from_millis(100));
    assert_eq!(ok("1s"), Duration::from_secs(1));
    assert_eq!(ok("0.1s"), Duration::from_millis(100));
    assert_eq!(ok("1.5s"), Duration::from_millis(1500));
    assert_eq!(ok(" 250 ms "), Duration::from_millis(250));
    assert_eq!(ok("2000us"), Duration::from_millis(2));
    assert_eq!(ok("1min"), Duration::from_secs(60));
    assert_eq!(ok("1ms"), Duration::from_millis(1));
    assert_eq!(ok("60min"), Duration::from_secs(3600));
}

#[test]
fn bad_intervals_are_refused_with_the_reason() {
    let err = |s: &str| parse_interval(s).unwrap_err();
    for zero in ["0ms", "0s", "0.0s", "0min"] {
        assert!(
            matches!(err(zero), IntervalError::OutOfRange { .. }),
            "{zero}"
        );
    }
    assert!(matches!(err("999us"), IntervalError::OutOfRange { .. }));
    assert!(matches!(err("61min"), IntervalError::OutOfRange { .. }));
    assert!(matches!(
        err("99999999999999999999999999s"),
        IntervalError::OutOfRange { .. }
    ));
    assert!(matches!(err("100"), IntervalError::NoUnit { .. }));
    assert!(err("100").to_string().contains("100ms"), "{}", err("100"));
    assert!(matches!(err("100 parsecs"), IntervalError::Unit { .. }));
    assert!(matches!(err("5h"), IntervalError::Unit { .. }));
    for nonsense in [
        "", "ms", "fast", "-100ms", "1.2.3s", ".5s", "5.s", "1e3ms", "NaNs", "inf s",
    ] {
        let e = err(nonsense);
        assert!(
            matches!(
                e,
                IntervalError::Malformed { .. } | IntervalError::Unit { .. }
            ),
            "{nonsense:?}: {e:?}"
        );
        assert!(e.to_string().contains(&format!("{nonsense:?}")), "{e}");
    }
    assert_eq!(
        err("0ms").to_string(),
        "interval \"0ms\": must be between 1ms and 1h (the paper's mapper uses 100ms)"
    );
}
