//! A `cats` pool measuring through the `declared` counter source listens to the
//! process's footprint declarations only while its profile runs: once the policy stops
//! asking for task events, every worker closes its counters (the busy ones at their next
//! task end, the idle ones as their idle spell begins) and declarations cost nothing
//! again, as they cost nothing under `ws`. A partitioned `cats`, which still takes task
//! events but asks for no more costs, stops listening at its next task start. Its own test binary: it reads the
//! process-wide listener, which other pools of a shared binary would hold.

use locus::counters::CounterKind;
use locus::{footprint, PolicyKind, ThreadPoolBuilder, Topology};
use std::time::{Duration, Instant};

/// A join tree of `2^depth` leaves, each declaring its part of `data`.
fn tree(depth: u32, data: &[u8]) -> usize {
    if depth == 0 {
        footprint::read_slice(data);
        return data.len();
    }
    let (a, b) = data.split_at(data.len() / 2);
    let (x, y) = locus::join(|| tree(depth - 1, a), || tree(depth - 1, b));
    x + y
}

/// A loop of 4 KiB chunks, each declaring its part of `data`: memory-bound data that
/// fits the squads' caches, which `cats` partitions.
fn rows(data: &[u8]) {
    locus::for_range(0..data.len(), 4096, |r| footprint::read_slice(&data[r]));
}

#[test]
fn only_a_running_profile_listens() {
    assert!(!footprint::is_listening(), "nothing listens before a pool");
    // A source listens from its first thread counters until released (or dropped).
    let source = locus::counters::open(CounterKind::Declared, 64).unwrap();
    assert!(
        !footprint::is_listening(),
        "a source with no thread counters"
    );
    let mut counters = source.open_thread().unwrap();
    assert!(footprint::is_listening());
    footprint::work(7);
    assert_eq!(counters.read().instructions, 7);
    source.release();
    assert!(!footprint::is_listening(), "a released source");
    let _more = source.open_thread().unwrap();
    assert!(
        !footprint::is_listening(),
        "a released source listens again"
    );
    drop(source);
    let dropped = locus::counters::open(CounterKind::Declared, 64).unwrap();
    let _counters = dropped.open_thread().unwrap();
    assert!(footprint::is_listening());
    drop(dropped);
    assert!(!footprint::is_listening(), "a dropped source");

    for (machine, threads) in [("2x1", 2), ("2x2", 4)] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .policy(PolicyKind::Cats {
                cmpi_threshold: Some(0.0),
            })
            .topology(Topology::parse_spec(machine).unwrap())
            .counters(CounterKind::Declared)
            .build()
            .unwrap();
        let data = vec![0u8; 1 << 16];
        // The first run is profiled; the same tree run again ends the profile.
        assert_eq!(pool.install(|| tree(10, &data)), data.len());
        assert_eq!(pool.install(|| tree(10, &data)), data.len());
        // Idle workers notice as their next idle spell begins: give them one.
        let deadline = Instant::now() + Duration::from_secs(20);
        while footprint::is_listening() && Instant::now() < deadline {
            assert_eq!(pool.install(|| tree(4, &data)), data.len());
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(
            !footprint::is_listening(),
            "{machine}: still listening after the profile ended"
        );
        drop(pool);
    }
    // A partitioned program: the policy still takes task events, but asks for no costs.
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .policy(PolicyKind::Cats {
            cmpi_threshold: Some(0.0),
        })
        .topology(Topology::parse_spec("2x1").unwrap())
        .counters(CounterKind::Declared)
        .build()
        .unwrap();
    let data = vec![0u8; 1 << 16];
    let profiled = pool.install(|| {
        let mut profiled = false;
        for iteration in 0..4 {
            rows(&data);
            profiled |= iteration == 0 && footprint::is_listening();
        }
        profiled
    });
    assert!(profiled, "the profile listens");
    assert!(
        pool.explain().contains("leaf inter-squad tasks"),
        "{}",
        pool.explain()
    );
    assert!(
        !footprint::is_listening(),
        "still listening while partitioned"
    );
    drop(pool);
    // A policy that takes no task events measures nothing: no worker opens counters.
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .policy(PolicyKind::Ws)
        .counters(CounterKind::Declared)
        .build()
        .unwrap();
    let data = vec![0u8; 1 << 12];
    assert_eq!(pool.install(|| tree(3, &data)), data.len());
    assert!(!footprint::is_listening(), "a ws pool listens");
}
