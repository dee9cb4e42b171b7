//! Policies that deal loops themselves (`static`, `affinity`): every chunk runs once, on
//! the worker its plan names, in the plan's order; chunks a schedule does not know run
//! anyway and are counted; a panic in a chunk reaches the caller and the rest still run.

use crate::common::pool;
use locus::{PolicyKind, TaskId, ThreadPool};
use locus_policy::{TaskSchedule, FIRST_SCOPE_SPAWN};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const CHUNKS: usize = if cfg!(miri) { 24 } else { 500 };
const GRAIN: usize = 3;

/// What one run of the loop saw: the id of the task that opened it, and per chunk
/// start (in order of start), the chunk's index and its worker.
struct Seen {
    parent: TaskId,
    starts: Vec<(usize, usize)>,
    marks: Vec<usize>,
}

/// Runs a loop of `CHUNKS` chunks of `GRAIN` indices on `pool` (always from this call
/// site, so that the loop's task ids are the same on every pool).
fn run_loop(pool: &ThreadPool) -> Seen {
    let marks: Vec<AtomicUsize> = (0..CHUNKS * GRAIN).map(|_| AtomicUsize::new(0)).collect();
    let starts = Mutex::new(Vec::new());
    let parent = pool.install(|| {
        let parent = locus::current_task().expect("install runs a task").id;
        locus::for_range(0..CHUNKS * GRAIN - 1, GRAIN, |r| {
            let worker = locus::current_worker_index().expect("a chunk runs on a worker");
            starts.lock().unwrap().push((r.start / GRAIN, worker));
            for i in r {
                marks[i].fetch_add(1, Ordering::Relaxed);
            }
        });
        parent
    });
    Seen {
        parent,
        starts: starts.into_inner().unwrap(),
        marks: marks.into_iter().map(AtomicUsize::into_inner).collect(),
    }
}

fn check_once(seen: &Seen, what: &str) {
    // The last index is outside the loop (its range stops one short).
    let (last, rest) = seen.marks.split_last().unwrap();
    assert_eq!(*last, 0, "{what}");
    assert!(
        rest.iter().all(|&m| m == 1),
        "{what}: an index ran twice or never"
    );
    assert_eq!(seen.starts.len(), CHUNKS, "{what}: chunk starts");
}

#[test]
fn static_runs_each_block_on_its_worker_in_loop_order() {
    for (machine, threads) in [("2x2", 4), ("opteron-8380", 16), ("this", 1)] {
        let pool = pool(PolicyKind::Static, threads, machine);
        let before = pool.stats();
        let seen = run_loop(&pool);
        let what = format!("static on {machine} with {threads} workers");
        check_once(&seen, &what);
        for &(chunk, worker) in &seen.starts {
            assert_eq!(worker, chunk * threads / CHUNKS, "{what}: chunk {chunk}");
        }
        for w in 0..threads {
            let order: Vec<usize> = seen
                .starts
                .iter()
                .filter(|s| s.1 == w)
                .map(|s| s.0)
                .collect();
            assert!(
                order.windows(2).all(|p| p[0] < p[1]),
                "{what}: worker {w} {order:?}"
            );
        }
        // One task per chunk and the root, as under work stealing: a lane is no task.
        let tasks = pool.stats().since(&before).total().tasks;
        assert_eq!(tasks, CHUNKS as u64 + 1, "{what}");
    }
}

#[test]
fn affinity_follows_its_schedule_and_counts_the_chunks_it_does_not_know() {
    let threads = 4;
    // The loop's ids come from the call site of `install` in `run_loop`: the same on
    // every pool. A first run finds them.
    let parent = run_loop(&pool(PolicyKind::Ws, threads, "2x2")).parent;
    let chunk = |i: usize| parent.child(FIRST_SCOPE_SPAWN + i as u32);
    // Every fifth chunk is left out; the others go to worker `i % 3` (worker 3 gets
    // none), each worker's in decreasing index order.
    let entries = (0..CHUNKS)
        .filter(|i| i % 5 != 0)
        .map(|i| (chunk(i), i % 3, (CHUNKS - i) as u32));
    let schedule = Arc::new(TaskSchedule::new(threads, entries).unwrap());
    let pool = pool(PolicyKind::Affinity(schedule), threads, "2x2");
    let seen = run_loop(&pool);
    check_once(&seen, "affinity");
    for &(i, worker) in &seen.starts {
        if i % 5 != 0 {
            assert_eq!(worker, i % 3, "chunk {i}");
        }
    }
    for w in 0..3 {
        let order: Vec<usize> = seen
            .starts
            .iter()
            .filter(|s| s.1 == w && s.0 % 5 != 0)
            .map(|s| s.0)
            .collect();
        assert!(
            order.windows(2).all(|p| p[0] > p[1]),
            "worker {w}: {order:?}"
        );
    }
    let stats = pool.policy_stats();
    let stat = |name: &str| stats.iter().find(|(n, _)| n == name).unwrap().1;
    let unknown = CHUNKS.div_ceil(5) as u64;
    assert_eq!(stat("schedule_placed"), CHUNKS as u64 - unknown);
    // Nothing else is spawned: the root comes from outside the pool.
    assert_eq!(stat("schedule_unknown"), unknown);
    assert!(
        pool.explain().contains("left to work stealing"),
        "{}",
        pool.explain()
    );
}

#[test]
fn a_panicking_chunk_reaches_the_caller_and_its_lane_goes_on() {
    let pool = pool(PolicyKind::Static, 3, "2x1");
    let ran = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            locus::for_range(0..60, 2, |r| {
                ran.fetch_add(r.len(), Ordering::Relaxed);
                if r.start == 10 || r.start == 40 {
                    panic!("chunk at {}", r.start);
                }
            })
        })
    }));
    let payload = result.expect_err("the panic reaches the caller");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(msg.starts_with("chunk at"), "{msg}");
    assert_eq!(ran.load(Ordering::Relaxed), 60, "every chunk ran");
    // The pool is still usable.
    assert_eq!(run_loop(&pool).starts.len(), CHUNKS);
}
