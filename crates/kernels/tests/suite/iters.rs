//! The kernels written with parallel iterators (heat-iter, spmv-iter, mapreduce): each
//! executor runs the copy it names, the recorder writes down the same task tree as the
//! kernels' `for_range` twins (heat-loop, spmv-crs), with leaf `i` numbered as the
//! loop's chunk `i`, and `Serial` runs locus's copy in order on its own thread.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use locus::footprint::{self, Access, FootprintSink};
use locus_kernels::{record, Executor, Iterators, Kernel, Locus, Rayon, Serial};
use locus_task::workload::{Step, Workload};
use locus_task::Spawner;

/// What a step is, without its address (two recordings allocate apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    Read(u64),
    Write(u64),
    Join(u32, u32),
    Spawn(u32),
    Sync,
}

/// One task of a recording, by shape: parent, level, loop chunks, iteration, its
/// forks and syncs in order, its accesses as a sorted multiset, its work.
type TaskShape = (Option<u32>, u32, u32, u32, Vec<Shape>, Vec<Shape>, u64);

fn shape(w: &Workload) -> Vec<TaskShape> {
    (0..w.tasks().len())
        .map(|i| {
            let task = &w.tasks()[i];
            let mut forks = Vec::new();
            let mut accesses = Vec::new();
            let mut work = 0;
            for step in w.steps(i as u32) {
                match *step {
                    Step::Read { len, .. } => accesses.push(Shape::Read(len)),
                    Step::Write { len, .. } => accesses.push(Shape::Write(len)),
                    Step::Work(n) => work += n,
                    Step::Join(a, b) => forks.push(Shape::Join(a, b)),
                    Step::Spawn(c) => forks.push(Shape::Spawn(c)),
                    Step::Sync => forks.push(Shape::Sync),
                }
            }
            accesses.sort();
            (
                task.parent,
                task.info.level,
                task.info.loop_chunks,
                task.iteration,
                forks,
                accesses,
                work,
            )
        })
        .collect()
}

/// Every loop chunk of `w` has the id its parent's `loop_chunk(i, k)` gives, `i` its
/// place among its parent's spawns since the last sync. Returns the chunks checked.
fn chunks_numbered_as_loops(w: &Workload) -> usize {
    let mut checked = 0;
    for (t, task) in w.tasks().iter().enumerate() {
        let mut i = 0;
        for step in w.steps(t as u32) {
            match *step {
                Step::Spawn(c) => {
                    let chunk = &w.tasks()[c as usize].info;
                    let want = Spawner::of(task.info).loop_chunk(i, chunk.loop_chunks);
                    assert_eq!(chunk.id, want.id, "chunk {i} of task {t}");
                    assert_eq!(chunk.level, want.level);
                    i += 1;
                    checked += 1;
                }
                Step::Sync => i = 0,
                _ => {}
            }
        }
    }
    checked
}

fn recorded(kernel: Kernel, size: &str) -> Workload {
    let params = kernel.parse_size(size).unwrap_or_else(|e| panic!("{e}"));
    record(&params).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_recorder_records_iterator_kernels_as_their_loop_twins() {
    for (twin, iter, size, loops, chunks) in [
        // 2 first-touch loops and 3 sweeps of 62 / 8 = 8 blocks.
        (
            Kernel::HeatLoop,
            Kernel::HeatIter,
            "64x40,leaf=8,iters=3",
            5,
            8,
        ),
        // A block longer than the grid, one chunk a loop.
        (
            Kernel::HeatLoop,
            Kernel::HeatIter,
            "9x7,leaf=100,iters=2",
            4,
            1,
        ),
        // 300 blocks of one row: more than the leaves locus cuts by default.
        (
            Kernel::HeatLoop,
            Kernel::HeatIter,
            "302x5,leaf=1,iters=1",
            3,
            300,
        ),
        // 36 rows in chunks of 5.
        (
            Kernel::SpmvCrs,
            Kernel::SpmvIter,
            "laplace2d:6,iters=3,grain=5",
            3,
            8,
        ),
        (
            Kernel::SpmvCrs,
            Kernel::SpmvIter,
            "random:600:3,iters=2,grain=1",
            2,
            600,
        ),
    ] {
        let a = recorded(twin, size);
        let b = recorded(iter, size);
        let (sa, sb) = (shape(&a), shape(&b));
        assert_eq!(sa.len(), 1 + loops * chunks, "{twin} {size}");
        assert_eq!(sa.len(), sb.len(), "{iter} {size}: task count");
        for (i, (x, y)) in sa.iter().zip(&sb).enumerate() {
            assert_eq!(x, y, "{iter} {size}: task {i} differs from {twin}'s");
        }
        assert_eq!(a.iterations(), b.iterations());
        assert_eq!(a.work(), b.work());
        assert_eq!(
            chunks_numbered_as_loops(&b),
            loops * chunks,
            "{iter} {size}"
        );
        // The same loop every iteration: the chunks of each loop repeat the first's ids.
        let ids: Vec<_> = b.tasks().iter().skip(1).map(|t| t.info.id).collect();
        for l in ids.chunks(chunks) {
            assert_eq!(l, &ids[..chunks], "{iter} {size}");
        }
    }
}

#[test]
fn the_recorder_records_mapreduce_as_one_loop_an_iteration() {
    // 10007 elements in chunks of 7: 1430 chunks, cut into 239 leaves of 6 chunks.
    let w = recorded(Kernel::MapReduce, "10007,iters=3,grain=7");
    let leaves = 1430usize.div_ceil(1430usize.div_ceil(locus::iter::LEAVES));
    assert_eq!(w.tasks().len(), 1 + 3 * leaves);
    assert_eq!(chunks_numbered_as_loops(&w), 3 * leaves);
    let root = &w.steps(0);
    assert_eq!(root.iter().filter(|s| **s == Step::Sync).count(), 3);
    assert_eq!(
        Kernel::MapReduce
            .parse_size("10007,iters=3,grain=7")
            .unwrap()
            .branching() as usize,
        leaves
    );
    // The leaves read the array, 8 bytes an element, and declare its work.
    let read: u64 = (1..w.tasks().len() as u32)
        .flat_map(|t| w.steps(t))
        .map(|s| match *s {
            Step::Read { len, .. } => len,
            _ => 0,
        })
        .sum();
    assert_eq!(read, 3 * 10007 * 8);
    let elements = 3 * 10007 * locus_kernels::mapreduce::ELEMENT_WORK;
    assert_eq!(
        w.work(),
        elements + 3 * 1430 * locus_kernels::mapreduce::CHUNK_WORK
    );
}

#[test]
fn each_executor_names_its_copy() {
    assert_eq!(Serial.iterators(), Iterators::Locus);
    assert_eq!(Rayon::new(1).unwrap().iterators(), Iterators::Rayon);
    let pool = locus::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(Locus::new(pool).iterators(), Iterators::Locus);
    assert_eq!(locus_kernels::Recorder.iterators(), Iterators::Locus);
}

/// Counts the work declared to it, and on which threads.
#[derive(Default)]
struct Work(AtomicU64);

impl FootprintSink for Work {
    fn record(&self, _access: Access, _addr: usize, _len: usize) {}

    fn work(&self, instructions: u64) {
        self.0.fetch_add(instructions, Ordering::Relaxed);
    }
}

#[test]
fn serial_runs_locus_iterators_on_its_own_thread() {
    // A thread sink sees only this thread's declarations: all the work of the twins
    // is declared here, so locus's leaves ran here, not in a pool.
    for (twin, iter, size) in [
        (Kernel::HeatLoop, Kernel::HeatIter, "40x16,leaf=3,iters=2"),
        (
            Kernel::SpmvCrs,
            Kernel::SpmvIter,
            "laplace2d:9,iters=2,grain=5",
        ),
    ] {
        let work = |kernel: Kernel| {
            let mut prepared = kernel.parse_size(size).unwrap().prepare();
            let sink = Arc::new(Work::default());
            let outcome = footprint::with_thread_sink(sink.clone(), || prepared.run(&Serial));
            assert!(outcome.verified, "{kernel}: {outcome}");
            sink.0.load(Ordering::Relaxed)
        };
        let w = work(twin);
        assert!(w > 0);
        assert_eq!(work(iter), w, "{iter} {size}");
    }
}

#[test]
fn both_copies_verify_under_their_runtimes() {
    let rayon = Rayon::new(3).unwrap();
    let policies: BTreeMap<&str, Locus> = ["ws", "cab", "cats", "static"]
        .into_iter()
        .map(|p| {
            let pool = locus::ThreadPoolBuilder::new()
                .num_threads(3)
                .policy(p.parse().unwrap())
                .topology(locus::Topology::parse_spec("opteron-8380").unwrap())
                .build()
                .unwrap();
            (p, Locus::new(pool))
        })
        .collect();
    for (kernel, size) in [
        (Kernel::HeatIter, "131x33,leaf=4,iters=3"),
        (Kernel::SpmvIter, "random:500:6,iters=2,grain=3"),
        (Kernel::MapReduce, "100003,iters=2,grain=100"),
    ] {
        let mut prepared = kernel.parse_size(size).unwrap().prepare();
        for rep in 0..2 {
            let outcome = prepared.run(&rayon);
            assert!(outcome.verified, "{kernel} on rayon, rep {rep}: {outcome}");
            for (name, ex) in &policies {
                let outcome = prepared.run(ex);
                assert!(outcome.verified, "{kernel} on {name}, rep {rep}: {outcome}");
            }
        }
    }
}
