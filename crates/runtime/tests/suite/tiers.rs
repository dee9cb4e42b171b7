//! Steals counted per tier: on a virtual machine of two packages with two squads each
//! (the tree's distances: a squad of the own package at a node's distance, the other
//! package's farther), every policy that steals between squads splits its remote steals
//! into same node, same package and other package, and the split adds up, worker by
//! worker.

use crate::common::sum;
use locus::counters::CounterKind;
use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology};

/// A pool of 8 workers under `policy` on a virtual machine of two packages with two
/// squads each, with the `declared` counter source (for the profiling policies).
fn chiplet_pool(policy: &str) -> ThreadPool {
    let machine = Topology::parse_spec("pack:2 numa:1 l3:2(size=1MiB) core:2 pu:1")
        .expect("a synthetic machine");
    ThreadPoolBuilder::new()
        .topology(machine)
        .num_threads(8)
        .pin(false)
        .policy(policy.parse::<PolicyKind>().unwrap())
        .counters(CounterKind::Declared)
        .build()
        .expect("the pool builds")
}

const N: u64 = if cfg!(miri) { 1 << 6 } else { 1 << 14 };

/// The policy statistic `name` of `pool`, if its policy keeps one.
fn policy_stat(pool: &ThreadPool, name: &str) -> Option<u64> {
    pool.policy_stats()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

#[test]
fn remote_steals_split_by_tier_and_add_up() {
    let n = N;
    for policy in ["ws", "ws:near", "mts", "cab"] {
        let pool = chiplet_pool(policy);
        for _ in 0..4 {
            assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2, "{policy}");
        }
        let stats = pool.stats();
        for (w, s) in stats.workers.iter().enumerate() {
            assert_eq!(
                s.steals_remote,
                s.steals_same_node + s.steals_same_package + s.steals_other_package,
                "{policy}, worker {w}: {s:?}"
            );
            assert_eq!(s.steals_same_package, 0, "one node per package: {policy}");
        }
        let t = stats.total();
        assert!(
            t.steals_squad + t.steals_remote <= t.tasks,
            "{policy}: {t:?}"
        );
    }
}

/// The N-tier profile in the runtime: on a virtual machine of two packages with two
/// squads each, `cats` and `cab` deal the profiled iteration's top to the squads (the
/// tasks wait in squad queues that the plans look at while any waits) and steal own
/// package first, and the sums still come out right. `sum` declares no memory, so
/// nothing is dealt after its first task completes.
#[test]
fn the_profiled_tops_dealt_tasks_all_run() {
    let n = N;
    for policy in ["cats", "cab"] {
        let pool = chiplet_pool(policy);
        for _ in 0..4 {
            assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2, "{policy}");
        }
        let dealt = policy_stat(&pool, "profile_tasks_dealt");
        // The first task completes once the first worker reaches a leaf: by then the
        // root's second half at least is dealt, and at most the second halves of the
        // top two levels (four squads).
        assert!(
            dealt.is_some_and(|d| (1..=3).contains(&d)),
            "{policy}: {dealt:?}"
        );
    }
}

/// `ws:near` in the runtime: on the same machine it deals the top of every iteration's
/// tree to the four squads (the root's second half, then the second halves of the next
/// level: three tasks each time, every time), the dealt tasks wait in squad queues that
/// the plans look at while one waits, or are taken back by their joiners, and every sum
/// comes out right.
#[test]
fn ws_near_deals_the_top_of_every_iteration() {
    let n = N;
    let pool = chiplet_pool("ws:near");
    let iterations = 5;
    for _ in 0..iterations {
        assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2);
    }
    let dealt = policy_stat(&pool, "tasks_dealt");
    assert_eq!(dealt, Some(3 * iterations));
}

/// `mts`'s iteration affinity in the runtime: on the same machine, the first run of a
/// tree notes the squad each task is placed in, and from the second run on each noted
/// task is placed in that squad's queue, wherever it is spawned (so, often, in another
/// squad's); every sum comes out right, and the noted tasks are the first run's.
#[test]
fn mts_sends_a_repeated_tree_to_the_squads_that_first_ran_it() {
    let n = 1 << 10;
    let pool = chiplet_pool("mts");
    for _ in 0..6 {
        assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2);
    }
    let homes = policy_stat(&pool, "mts_homes");
    // The first run's placed tasks: the second halves of its n - 1 joins (a first
    // half runs on its joiner, unplaced; the root is injected).
    assert_eq!(homes, Some(n - 1));
}
