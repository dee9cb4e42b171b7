//! The fork-join API as a rayon user expects it: results by value, borrows of the
//! caller's stack, calls from outside a pool, nested pools, task ids and levels.

use crate::common::{pool, sum, MACHINES};
use locus::{PolicyKind, TaskInfo, ThreadPoolBuilder, Topology};
use std::collections::HashSet;
use std::sync::Mutex;

#[test]
fn join_scope_and_loops_borrow_the_callers_stack() {
    for policy in PolicyKind::ALL {
        for machine in MACHINES {
            let pool = pool(policy.clone(), 3, machine);
            let n = if cfg!(miri) { 64 } else { 10_000 };
            let mut data: Vec<u64> = (0..n).collect();
            pool.install(|| {
                let (lo, hi) = data.split_at_mut(n as usize / 2);
                locus::join(
                    || lo.iter_mut().for_each(|x| *x *= 2),
                    || hi.iter_mut().for_each(|x| *x += 1),
                );
            });
            assert_eq!(data[n as usize / 2 - 1], n - 2);
            assert_eq!(data[n as usize / 2], n / 2 + 1);
            let total = std::sync::atomic::AtomicU64::new(0);
            pool.install(|| {
                locus::for_range(0..data.len(), 97, |r| {
                    total.fetch_add(
                        data[r].iter().sum::<u64>(),
                        std::sync::atomic::Ordering::Relaxed,
                    );
                })
            });
            assert_eq!(
                total.into_inner(),
                data.iter().sum::<u64>(),
                "{policy} on {machine}"
            );
        }
    }
}

#[test]
fn for_range_covers_each_index_once_in_bounded_chunks() {
    let pool = pool(PolicyKind::Mts { batch: None }, 4, "2x2");
    let cases: &[(usize, usize)] = if cfg!(miri) {
        &[(0, 5), (1, 1), (10, 3), (20, 0)]
    } else {
        &[(0, 5), (1, 1), (10, 3), (100, 0), (1000, 1000), (1001, 7)]
    };
    for &(len, grain) in cases {
        let seen = Mutex::new(Vec::new());
        pool.install(|| {
            locus::for_range(5..5 + len, grain, |r| {
                assert!(
                    r.len() <= grain.max(1),
                    "chunk {r:?} is longer than the grain {grain}"
                );
                seen.lock().unwrap().extend(r);
            })
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(
            seen,
            (5..5 + len).collect::<Vec<_>>(),
            "len {len} grain {grain}"
        );
    }
}

#[test]
fn calls_from_outside_any_pool_use_the_global_pool() {
    let (a, b) = locus::join(|| 1, || 2);
    assert_eq!((a, b), (1, 2));
    let n = locus::scope(|s| {
        s.spawn(|_| {});
        7
    });
    assert_eq!(n, 7);
    assert!(locus::global().num_threads() >= 1);
}

#[test]
fn pools_nest() {
    let outer = pool(PolicyKind::Ws, 2, "this");
    let inner = pool(PolicyKind::Central, 2, "2x1");
    let r = outer.install(|| {
        let (x, y) = locus::join(|| inner.install(|| locus::join(|| 1, || 2)), || 3);
        x.0 + x.1 + y
    });
    assert_eq!(r, 6);
}

fn record(n: u32, seen: &Mutex<Vec<TaskInfo>>) {
    seen.lock()
        .unwrap()
        .push(locus::current_task().expect("inside a pool"));
    if n > 0 {
        locus::join(|| record(n - 1, seen), || record(n - 1, seen));
    }
}

#[test]
fn task_ids_are_the_spawn_path_and_repeat_across_iterations() {
    let pool = pool(PolicyKind::Ws, 4, "2x2");
    let run = || {
        let seen = Mutex::new(Vec::new());
        // One call site, so every iteration has the same root.
        pool.install(|| record(6, &seen));
        let mut v = seen.into_inner().unwrap();
        v.sort_by_key(|t| (t.level, t.id));
        v
    };
    let first = run();
    let second = run();
    assert_eq!(
        first, second,
        "the same program gives the same ids and levels"
    );
    assert_eq!(first.len(), 127);
    let distinct: HashSet<_> = first.iter().map(|t| t.id).collect();
    assert_eq!(distinct.len(), 127, "every task of the tree has its own id");
    for level in 0..=6u32 {
        // `record(6)` runs in the install's root task, level 0.
        let at = first.iter().filter(|t| t.level == level).count();
        assert_eq!(at, 1 << level, "tasks at level {level}");
    }
}

/// The ids of a sweep: one `join` tree and one loop, as an iterative kernel makes them.
fn sweep(seen: &Mutex<Vec<TaskInfo>>) {
    record(3, seen);
    locus::for_range(0..8, 2, |_| {
        seen.lock().unwrap().push(locus::current_task().unwrap())
    });
}

#[test]
fn iterations_inside_one_task_repeat_their_ids() {
    let pool = pool(PolicyKind::Ws, 3, "2x2");
    let iterations: Vec<Vec<TaskInfo>> = pool.install(|| {
        (0..3)
            .map(|_| {
                let seen = Mutex::new(Vec::new());
                sweep(&seen);
                let mut v = seen.into_inner().unwrap();
                v.sort_by_key(|t| (t.level, t.id));
                v
            })
            .collect()
    });
    assert_eq!(iterations[0].len(), 15 + 4);
    assert_eq!(
        iterations[0], iterations[1],
        "the second sweep spawns the first's ids"
    );
    assert_eq!(iterations[1], iterations[2]);
    // Within one sweep every task has its own id: the join tree's 15 (the sweep's own task
    // included) and the 4 loop chunks.
    let distinct: HashSet<_> = iterations[0].iter().map(|t| t.id).collect();
    assert_eq!(distinct.len(), 15 + 4);
}

#[test]
fn pool_reports_its_configuration() {
    let p = ThreadPoolBuilder::new()
        .num_threads(6)
        .policy("mts".parse().unwrap())
        .topology(Topology::parse_spec("opteron-8380").unwrap())
        .build()
        .unwrap();
    assert_eq!(p.num_threads(), 6);
    assert_eq!(
        p.num_squads(),
        2,
        "4 workers fill the first socket, 2 the second"
    );
    assert_eq!(p.policy_name(), "mts");
    assert_eq!(p.workers().head(1), 4);
}

#[test]
fn bad_builds_are_errors() {
    let e = ThreadPoolBuilder::new().num_threads(0).build().unwrap_err();
    assert!(e.to_string().contains("at least one thread"), "{e}");
    let e = ThreadPoolBuilder::new()
        .num_threads(locus::MAX_THREADS + 1)
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("at most"), "{e}");
}

/// Under `mts`, a worker waiting inside a task (a scope's end, a join) takes the newest
/// task it queued itself, so a program that spawns and waits runs depth first and its
/// stack stays as deep as its task tree. Taking the queue's shallow end there instead
/// would run the squad's tasks breadth first, each on top of the waiting one: with one
/// worker, 256 tasks deep for this tree of depth 8 (measured with the rule taken out).
#[test]
fn mts_waiting_workers_run_their_own_tasks_depth_first() {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};
    thread_local! {
        static NESTING: Cell<usize> = const { Cell::new(0) };
    }
    fn tree(depth: u32, deepest: &AtomicUsize) {
        let nesting = NESTING.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        deepest.fetch_max(nesting, Ordering::Relaxed);
        if depth > 0 {
            locus::scope(|s| {
                s.spawn(|_| tree(depth - 1, deepest));
                s.spawn(|_| tree(depth - 1, deepest));
            });
        }
        NESTING.with(|n| n.set(n.get() - 1));
    }
    const DEPTH: u32 = 8;
    for batch in [None, Some(1)] {
        let pool = pool(PolicyKind::Mts { batch }, 1, "1x1");
        let deepest = AtomicUsize::new(0);
        pool.install(|| tree(DEPTH, &deepest));
        let deepest = deepest.into_inner();
        assert!(
            deepest <= DEPTH as usize + 1,
            "tasks nested {deepest} deep on one worker for a tree {DEPTH} deep"
        );
    }
}

/// Under `mts`, a join's second half that would wait in the worker's own squad's queue
/// while that queue already holds a task for each of the squad's workers
/// (`locus::raw::BACKLOG` at least) more than the pool has idle workers (none here) is not queued: the worker runs it after the first half. One
/// worker steals nothing, so each half is either run at once or taken back from the
/// queue; only the halves that refill the queue on the way down are queued (a few
/// hundred of this sum's thousands), and every result is right.
#[test]
fn mts_runs_a_half_at_once_while_its_squad_queue_holds_enough() {
    let n: u64 = 1 << 12;
    let pool = pool(PolicyKind::Mts { batch: None }, 1, "1x1");
    assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2);
    let total = pool.stats().total();
    assert_eq!(total.run_at_once + total.taken_back, n - 1, "{total:?}");
    assert!(total.taken_back < (n - 1) / 4, "{total:?}");
    // Every half counts as a task, run at once or not: the root and both of each join's.
    assert_eq!(total.tasks, 1 + 2 * (n - 1), "{total:?}");
}
