//! Profiles: which tasks are profiled, line runs, the union over iterations, the cap.
//! (Profiles of recorded kernels: `crates/engines/tests/suite/profile_recorded.rs`.)

use std::collections::BTreeSet;
use std::ops::Range;

use locus_policy::{TaskId, TaskInfo};
use locus_profile::{LineRun, MachineDesc, Profile, ProfileBuilder};
use locus_task::rng::SplitMix64;
use locus_task::workload::{Step, Workload};
use locus_topo::Topology;

fn machine() -> MachineDesc {
    MachineDesc::new(&Topology::preset("opteron-8380").unwrap(), 16).unwrap()
}

fn run(start: u64, len: u64) -> LineRun {
    LineRun { start, len }
}

fn info(id: u64, level: u32) -> TaskInfo {
    TaskInfo {
        id: TaskId(id),
        level,
        loop_chunks: 0,
    }
}

#[test]
fn leaves_with_accesses_are_profiled_with_their_lines_and_work() {
    // A root spawning three chunks: one reads 128 bytes at 0 (lines 0, 1), one writes
    // 136 bytes at 64 (lines 1..=3) in two steps, one only computes.
    let tasks = vec![
        (
            info(1, 0),
            None,
            vec![
                Step::Read { addr: 0, len: 8 },
                Step::Spawn(1),
                Step::Spawn(2),
                Step::Spawn(3),
                Step::Sync,
            ],
        ),
        (
            info(10, 1),
            Some(0),
            vec![Step::Read { addr: 0, len: 128 }, Step::Work(10)],
        ),
        (
            info(11, 1),
            Some(0),
            vec![
                Step::Write { addr: 64, len: 100 },
                Step::Write { addr: 164, len: 36 },
                Step::Work(20),
                Step::Work(10),
            ],
        ),
        (info(12, 1), Some(0), vec![Step::Work(5)]),
    ];
    let w = Workload::from_parts("hand-made", tasks, vec![0]).unwrap();
    let p = Profile::from_workload(&w, machine(), "hand-made input", 4096).unwrap();
    let ids: Vec<u64> = p.tasks().iter().map(|t| t.id().0).collect();
    assert_eq!(
        ids,
        vec![10, 11],
        "the root forks, task 12 declares no access"
    );
    assert_eq!(p.tasks()[0].runs(), &[run(0, 2)]);
    assert_eq!(
        p.tasks()[1].runs(),
        &[run(1, 3)],
        "bytes 64..200: lines 1, 2, 3"
    );
    assert_eq!((p.tasks()[0].work(), p.tasks()[1].work()), (10, 30));
    assert_eq!(p.tasks()[1].level(), 1);
    let s = p.summary();
    assert_eq!(
        (s.tasks, s.instances, s.runs, s.lines, s.truncated),
        (2, 2, 2, 5, 0)
    );
    assert_eq!(p.input(), "hand-made input");
    let json = p.to_json();
    assert!(json.contains("\"format\":\"locus-profile\""), "{json}");
    assert!(json.contains("\"id\":\"000000000000000b\""), "{json}");
    assert!(json.contains("\"runs\":[[1,3]]"), "{json}");
}

#[test]
fn a_task_in_several_iterations_is_one_entry_with_the_union_of_its_lines() {
    // Two roots (iterations) each spawn the chunk with id 7, touching different lines.
    let tasks = vec![
        (info(1, 0), None, vec![Step::Spawn(1), Step::Sync]),
        (
            info(7, 1),
            Some(0),
            vec![Step::Read { addr: 0, len: 64 }, Step::Work(10)],
        ),
        (info(1, 0), None, vec![Step::Spawn(3), Step::Sync]),
        (
            info(7, 1),
            Some(2),
            vec![
                Step::Read { addr: 64, len: 64 },
                Step::Read { addr: 640, len: 1 },
                Step::Work(21),
            ],
        ),
    ];
    let w = Workload::from_parts("two iterations", tasks, vec![0, 2]).unwrap();
    let p = Profile::from_workload(&w, machine(), "x", 4096).unwrap();
    assert_eq!(p.tasks().len(), 1);
    let t = &p.tasks()[0];
    assert_eq!(t.runs(), &[run(0, 2), run(10, 1)], "contiguous lines merge");
    assert_eq!(t.instances(), 2);
    assert_eq!(t.work(), 16, "(10 + 21) / 2, rounded");
    assert_eq!(t.lines(), 3);
}

#[test]
fn ranges_are_sorted_merged_and_compressed() {
    let mut b = ProfileBuilder::new(machine(), "x", 4096).unwrap();
    b.add(TaskId(1), 1, [20..21, 5..7, 7..9, 3..4, 6..8, 30..30], 0);
    let p = b.finish("x").unwrap();
    assert_eq!(
        p.tasks()[0].runs(),
        &[run(3, 1), run(5, 4), run(20, 1)],
        "touching and overlapping ranges merge, empty ones vanish"
    );
}

#[test]
fn the_cap_keeps_the_lowest_runs_and_drops_lines_past_the_cut() {
    let mut b = ProfileBuilder::new(machine(), "x", 2).unwrap();
    b.add(TaskId(1), 1, [0..1, 2..3, 4..5, 6..7], 0);
    b.add(TaskId(2), 1, std::iter::once(0..1), 0);
    // Lines 4 and up are now past task 1's cut; line 1 joins its first two runs.
    b.add(TaskId(1), 1, [1..2, 5..6, 9..10], 0);
    let p = b.finish("x").unwrap();
    assert_eq!(p.tasks()[0].runs(), &[run(0, 3)]);
    assert!(p.tasks()[0].truncated());
    assert!(!p.tasks()[1].truncated());
    assert_eq!(p.summary().truncated, 1);
    assert!(ProfileBuilder::new(machine(), "x", 0)
        .unwrap_err()
        .to_string()
        .contains("cap 0"));
}

#[test]
fn truncated_runs_are_exactly_the_lines_below_the_cut() {
    // Whatever order the instances come in, a truncated task keeps every line it
    // touched below the end of its last run, and nothing it did not touch.
    let mut rng = SplitMix64::new(9);
    for round in 0..200 {
        let cap = 1 + rng.below(5) as usize;
        let mut b = ProfileBuilder::new(machine(), "x", cap).unwrap();
        let mut truth = BTreeSet::new();
        for _ in 0..1 + rng.below(6) {
            let ranges: Vec<Range<u64>> = (0..rng.below(5))
                .map(|_| {
                    let s = rng.below(60);
                    s..s + 1 + rng.below(6)
                })
                .collect();
            truth.extend(ranges.iter().flat_map(|r| r.clone()));
            b.add(TaskId(1), 1, ranges, 1);
        }
        let p = b.finish("x").unwrap();
        let t = &p.tasks()[0];
        let kept: BTreeSet<u64> = t.runs().iter().flat_map(|r| r.start..r.end()).collect();
        assert!(t.runs().len() <= cap, "round {round}");
        assert!(kept.is_subset(&truth), "round {round}");
        let end = t.runs().last().map_or(0, |r| r.end());
        let below: BTreeSet<u64> = truth.iter().copied().filter(|&l| l < end).collect();
        assert_eq!(kept, below, "round {round}");
        if !t.truncated() {
            assert_eq!(kept, truth, "round {round}");
        }
        assert!(
            t.runs().windows(2).all(|w| w[0].end() < w[1].start),
            "round {round}"
        );
    }
}
