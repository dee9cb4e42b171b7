//! Slice sources declare the elements each leaf touches while a footprint listener is
//! installed: reads for `par_iter`, `par_chunks` and a `Vec`'s `into_par_iter`, writes
//! for `par_iter_mut` and `par_chunks_mut`, each leaf its own part, as the leaf's task;
//! and a serial loop executor on the calling thread (the recorder's way in) runs the
//! same leaves. Its own test binary: it installs the process-wide sink.

use locus::counters::CounterKind;
use locus::footprint::{self, Access, FootprintSink};
use locus::iter::hook::{with_loop_executor, LoopExecutor};
use locus::prelude::*;
use locus::{PolicyKind, ThreadPoolBuilder, Topology};
use std::panic::Location;
use std::sync::{Arc, Mutex};

/// A declaration: access, address, length, and the id of the task that made it.
type Declared = (Access, usize, usize, Option<u64>);

/// Every declaration.
#[derive(Default)]
struct Log(Mutex<Vec<Declared>>);

impl FootprintSink for Log {
    fn record(&self, access: Access, addr: usize, len: usize) {
        let task = locus::current_task().map(|t| t.id.0);
        self.0.lock().unwrap().push((access, addr, len, task));
    }
}

impl Log {
    fn take(&self) -> Vec<Declared> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// Checks that `log` declares `data` exactly, in disjoint parts of `access`, each from
/// a different task (a leaf), and returns how many parts.
fn covers<T>(log: &[Declared], data: &[T], access: Access) -> usize {
    let mut parts: Vec<(usize, usize)> = log
        .iter()
        .filter(|d| d.0 == access)
        .map(|d| (d.1, d.2))
        .collect();
    parts.sort_unstable();
    let mut at = data.as_ptr() as usize;
    for &(addr, len) in &parts {
        assert_eq!(addr, at, "the parts are adjacent");
        at += len;
    }
    assert_eq!(at, data.as_ptr() as usize + std::mem::size_of_val(data));
    let mut tasks: Vec<_> = log.iter().map(|d| d.3).collect();
    tasks.sort_unstable();
    tasks.dedup();
    assert_eq!(
        tasks.len(),
        parts.len(),
        "one leaf, one task, one declaration"
    );
    parts.len()
}

#[test]
fn slice_sources_declare_what_each_leaf_touches() {
    let log = Arc::new(Log::default());
    footprint::set_sink(log.clone());
    // `cab` with two squads (8 workers): loops flat, chunks placed per squad.
    for (policy, machine) in [("ws", "2x1"), ("cab", "opteron-8380")] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(8)
            .policy(policy.parse::<PolicyKind>().unwrap())
            .topology(Topology::parse_spec(machine).unwrap())
            .pin(false)
            // The `declared` source would listen on the workers' threads itself.
            .counters(CounterKind::Off)
            .build()
            .unwrap();
        let mut data: Vec<u64> = (0..10_000).collect();
        let sum = pool.install(|| data.par_iter().sum::<u64>());
        assert_eq!(sum, 49_995_000);
        // 10_000 elements in 250 leaves of 40 (⌈10_000 / 256⌉).
        assert_eq!(covers(&log.take(), &data, Access::Read), 250);
        pool.install(|| data.par_iter_mut().for_each(|x| *x += 1));
        assert_eq!(covers(&log.take(), &data, Access::Write), 250);
        pool.install(|| data.par_chunks_mut(1000).for_each(|c| c[0] = 0));
        assert_eq!(covers(&log.take(), &data, Access::Write), 10);
        let n = pool.install(|| data.par_chunks(3).with_min_len(100).count());
        assert_eq!(n, 3334);
        assert_eq!(covers(&log.take(), &data, Access::Read), 34);
        let copy = data.clone();
        let log_before = log.take();
        assert!(log_before.is_empty());
        let (ptr, len) = (copy.as_ptr() as usize, copy.len());
        let total: u64 = pool.install(|| copy.into_par_iter().with_min_len(5000).sum());
        assert!(total > 0);
        let reads = log.take();
        assert_eq!(reads.len(), 2);
        assert_eq!(reads.iter().map(|r| r.2).sum::<usize>(), len * 8);
        assert_eq!(reads.iter().map(|r| r.1).min(), Some(ptr));
    }
    footprint::clear_sink();
}

/// Runs loops in order on the calling thread, noting their chunk counts.
#[derive(Default)]
struct InOrder(Mutex<Vec<usize>>);

impl LoopExecutor for InOrder {
    fn run_loop(&self, _: &'static Location<'static>, chunks: usize, chunk: &mut dyn FnMut(usize)) {
        self.0.lock().unwrap().push(chunks);
        (0..chunks).for_each(chunk);
    }
}

#[test]
fn a_serial_loop_executor_runs_the_same_leaves_on_the_calling_thread() {
    let exec = Arc::new(InOrder::default());
    let caller = std::thread::current().id();
    let (sum, ordered) = with_loop_executor(exec.clone(), || {
        let sum = (0..100_000u64)
            .into_par_iter()
            .map(|x| {
                assert_eq!(std::thread::current().id(), caller);
                x
            })
            .sum::<u64>();
        let mut v: Vec<u32> = (0..10_000).rev().collect();
        v.par_sort_unstable();
        let ordered = v.windows(2).all(|w| w[0] < w[1]);
        locus::for_range(0..10, 3, |_| {
            assert_eq!(std::thread::current().id(), caller)
        });
        (sum, ordered)
    });
    assert_eq!(sum, 4_999_950_000);
    assert!(ordered);
    assert_eq!(*exec.0.lock().unwrap(), vec![256, 4]);
}
