//! The affinity-graph kernels (spmv-crs, spmv-ccs, spmm, radix, irreg): their size
//! strings, the task ids of their loops (each loop's chunks distinct, the same every
//! iteration), the footprints their chunks declare (exactly the data they touch) and
//! the work they declare (exactly what their module docs say).
//!
//! Footprints and work are heard through a sink of the calling thread's own
//! (`with_thread_sink`) under an executor that runs everything on that thread.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use locus::footprint::{self, Access, FootprintSink};
use locus_kernels::irreg::{self, IrregParams, Mesh, MeshKind};
use locus_kernels::radix::{self, RadixParams, Scratch};
use locus_kernels::sparse::{Generator, SparseParams};
use locus_kernels::{spmm, spmv, Executor, Kernel, Params, Serial};

thread_local! {
    /// The spawn path of the task running on this thread under [`Paths`].
    static PATH: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// [`Serial`], keeping the spawn path of the running task as locus numbers it: a
/// join's halves are children 0 and 1, loop chunk `i` is child `2 + i`.
struct Paths;

fn within<R>(child: u32, f: impl FnOnce() -> R) -> R {
    PATH.with(|p| p.borrow_mut().push(child));
    let r = f();
    PATH.with(|p| p.borrow_mut().pop());
    r
}

impl Executor for Paths {
    fn name(&self) -> String {
        "paths".to_owned()
    }

    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let ra = within(0, a);
        (ra, within(1, b))
    }

    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        let chunks = Mutex::new(Vec::new());
        Serial.for_range(range, grain, |r| chunks.lock().unwrap().push(r));
        for (i, r) in chunks.into_inner().unwrap().into_iter().enumerate() {
            within(2 + i as u32, || body(r));
        }
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        f()
    }
}

/// One declaration: the declaring task's path, and the access (or `None` for work)
/// with its address and length (or instructions).
type Entry = (Vec<u32>, Option<Access>, usize, u64);

#[derive(Default)]
struct Log(Mutex<Vec<Entry>>);

impl FootprintSink for Log {
    fn record(&self, access: Access, addr: usize, len: usize) {
        let path = PATH.with(|p| p.borrow().clone());
        self.0
            .lock()
            .unwrap()
            .push((path, Some(access), addr, len as u64));
    }

    fn work(&self, instructions: u64) {
        let path = PATH.with(|p| p.borrow().clone());
        self.0.lock().unwrap().push((path, None, 0, instructions));
    }
}

/// Runs `f` under a sink of this thread's own; the declarations.
fn declarations(f: impl FnOnce()) -> Vec<Entry> {
    let log = Arc::new(Log::default());
    footprint::with_thread_sink(log.clone(), f);
    let entries = std::mem::take(&mut *log.0.lock().unwrap());
    entries
}

/// The indices of `data` a declared range covers (it must cover whole elements).
fn indices<T>(data: &[T], addr: usize, len: u64) -> Option<Range<usize>> {
    let size = std::mem::size_of::<T>();
    let base = data.as_ptr() as usize;
    if addr < base || addr >= base + std::mem::size_of_val(data) {
        return None;
    }
    assert_eq!((addr - base) % size, 0);
    assert_eq!(len as usize % size, 0);
    let lo = (addr - base) / size;
    Some(lo..lo + len as usize / size)
}

/// The elements of `data` a task's declarations of `access` cover, and whether any two
/// of its ranges overlap or touch (runs must be maximal).
fn covered<T>(data: &[T], entries: &[&Entry], access: Access) -> (BTreeSet<usize>, bool) {
    let mut ranges: Vec<Range<usize>> = entries
        .iter()
        .filter(|e| e.1 == Some(access))
        .filter_map(|e| indices(data, e.2, e.3))
        .collect();
    ranges.sort_by_key(|r| r.start);
    let touching = ranges.windows(2).any(|w| w[0].end >= w[1].start);
    let set = ranges.into_iter().flatten().collect();
    (set, touching)
}

/// The declarations of each task, by path, in order.
fn by_task(log: &[Entry]) -> BTreeMap<Vec<u32>, Vec<&Entry>> {
    let mut out: BTreeMap<Vec<u32>, Vec<&Entry>> = BTreeMap::new();
    for e in log {
        out.entry(e.0.clone()).or_default().push(e);
    }
    out
}

#[test]
fn each_loop_has_its_own_ids_the_same_every_iteration() {
    // (kernel, size, tasks declaring work per iteration)
    let cases: &[(Kernel, &str, usize)] = &[
        // 36 rows in chunks of 5.
        (Kernel::SpmvCrs, "laplace2d:6,iters=3,grain=5", 8),
        // 8 zeroing chunks and 8 column chunks.
        (Kernel::SpmvCcs, "laplace2d:6,iters=3,grain=5", 16),
        (Kernel::Spmm, "random:30:3,iters=3,grain=4", 8),
        // 16 histogram chunks, the offsets step, 16 scatter chunks, 256 buckets.
        (Kernel::Radix, "1000,iters=3,grain=64", 16 + 1 + 16 + 256),
        // 13 edge chunks, 4 node chunks.
        (Kernel::Irreg, "50:200,iters=3,grain=16", 13 + 4),
    ];
    for &(kernel, size, tasks) in cases {
        let mut prepared = kernel.parse_size(size).unwrap().prepare();
        let log = declarations(|| prepared.execute(&Paths));
        assert!(prepared.verify().verified, "{kernel}");
        let mut works: BTreeMap<&[u32], usize> = BTreeMap::new();
        for e in log.iter().filter(|e| e.1.is_none()) {
            *works.entry(&e.0).or_default() += 1;
        }
        assert_eq!(works.len(), tasks, "{kernel}: {works:?}");
        assert!(
            works.values().all(|&n| n == 3),
            "{kernel}: a task declared work other than once per iteration: {works:?}"
        );
    }
}

#[test]
fn spmv_chunks_declare_the_runs_they_touch() {
    let a = Generator::Random { n: 60, per_row: 4 }.generate(7);
    let x: Vec<f64> = (0..60).map(f64::from).collect();
    let grain = 7;

    // CRS: a chunk of rows reads x at exactly its rows' columns and writes its rows.
    let mut y = vec![0.0; 60];
    let log = declarations(|| spmv::crs(&Paths, &a, &x, &mut y, 1, grain));
    let tasks = by_task(&log);
    assert_eq!(tasks.len(), 60usize.div_ceil(grain));
    for (path, entries) in &tasks {
        let c = path[0] as usize - 2;
        let rows = c * grain..(c * grain + grain).min(60);
        let want: BTreeSet<usize> = rows
            .clone()
            .flat_map(|i| a.row(i).0.iter().map(|&j| j as usize))
            .collect();
        let (reads, touching) = covered(&x, entries, Access::Read);
        assert_eq!(reads, want, "chunk {c}");
        assert!(!touching, "chunk {c}: runs are maximal");
        let (writes, _) = covered(&y, entries, Access::Write);
        assert_eq!(writes, rows.collect(), "chunk {c}");
        let (ptrs, _) = covered(a.row_ptr(), entries, Access::Read);
        assert_eq!(ptrs.len(), (c * grain + grain).min(60) - c * grain + 1);
    }

    // CCS: a chunk of columns reads its part of x and writes y at its columns' rows.
    let b = a.to_ccs();
    let cells: Vec<AtomicU64> = (0..60).map(|_| AtomicU64::new(0)).collect();
    let log = declarations(|| spmv::ccs(&Paths, &b, &x, &cells, 1, grain));
    let tasks = by_task(&log);
    let product: Vec<_> = tasks.iter().filter(|(p, _)| p.len() == 1).collect();
    let zeroing: Vec<_> = tasks.iter().filter(|(p, _)| p.len() == 2).collect();
    assert_eq!((product.len(), zeroing.len()), (9, 9));
    for (path, entries) in product {
        let c = path[0] as usize - 2;
        let cols = c * grain..(c * grain + grain).min(60);
        let want: BTreeSet<usize> = cols
            .clone()
            .flat_map(|j| b.col(j).0.iter().map(|&i| i as usize))
            .collect();
        let (writes, touching) = covered(&cells, entries, Access::Write);
        assert_eq!(writes, want, "chunk {c}");
        assert!(!touching);
        let (reads, _) = covered(&x, entries, Access::Read);
        assert_eq!(reads, cols.collect(), "chunk {c}");
    }
    for (path, entries) in zeroing {
        assert_eq!(path[0], 0, "the zeroing loop runs in a join's first half");
        let c = path[1] as usize - 2;
        let (writes, _) = covered(&cells, entries, Access::Write);
        assert_eq!(writes, (c * grain..(c * grain + grain).min(60)).collect());
    }
}

#[test]
fn irreg_edge_chunks_declare_their_nodes() {
    let p = IrregParams {
        nodes: 80,
        edges: 300,
        mesh: MeshKind::Geometric,
        iters: 1,
        grain: 50,
        seed: 3,
    };
    let mesh = Mesh::generate(&p);
    let mut x = irreg::initial(&p);
    let y: Vec<AtomicU64> = (0..80).map(|_| AtomicU64::new(0)).collect();
    let x0 = x.as_ptr() as usize;
    let log = declarations(|| irreg::solve(&Paths, &mesh, &mut x, &y, 1, p.grain));
    let tasks = by_task(&log);
    let mut edge_chunks = 0;
    for (path, entries) in &tasks {
        if path.len() == 1 {
            edge_chunks += 1;
            let c = path[0] as usize - 2;
            let want: BTreeSet<usize> = (c * 50..(c * 50 + 50).min(300))
                .flat_map(|e| {
                    let (a, b) = mesh.edge(e);
                    [a as usize, b as usize]
                })
                .collect();
            let (writes, touching) = covered(&y, entries, Access::Write);
            assert_eq!(writes, want, "edge chunk {c}");
            assert!(!touching);
            let reads: BTreeSet<usize> = entries
                .iter()
                .filter(|e| e.1 == Some(Access::Read) && (x0..x0 + 80 * 8).contains(&e.2))
                .flat_map(|e| (e.2 - x0) / 8..(e.2 - x0 + e.3 as usize) / 8)
                .collect();
            assert_eq!(reads, want, "edge chunk {c}");
        } else {
            // Node chunks: the second half of a join, writing their nodes of x and y.
            assert_eq!(path[0], 1);
            let c = path[1] as usize - 2;
            let (writes, _) = covered(&y, entries, Access::Write);
            assert_eq!(writes, (c * 50..(c * 50 + 50).min(80)).collect());
        }
    }
    assert_eq!(edge_chunks, 6);
}

#[test]
fn radix_scatter_chunks_write_every_place_once() {
    let p = RadixParams {
        n: 3000,
        iters: 1,
        grain: 250,
        seed: 8,
    };
    let input = radix::input(&p);
    let mut out = vec![0; p.n];
    let mut scratch = Scratch::new(p.n, p.grain);
    let log = declarations(|| radix::sort(&Paths, &input, &mut out, &mut scratch, 1));
    assert_eq!(out, radix::reference(&input));
    // Scatter chunks are the root's loop chunks (paths of length 1); their writes tile
    // the buffer.
    let mut writes: Vec<(usize, usize)> = log
        .iter()
        .filter(|e| e.0.len() == 1 && e.1 == Some(Access::Write))
        .map(|e| (e.2, e.3 as usize))
        .collect();
    writes.sort_unstable();
    assert!(
        writes.windows(2).all(|w| w[0].0 + w[0].1 == w[1].0),
        "no gap, no overlap"
    );
    let total: usize = writes.iter().map(|w| w.1).sum();
    assert_eq!(total, p.n * 4);
    // Each chunk writes one range per digit its keys hold.
    for c in 0..12 {
        let digits: BTreeSet<u32> = input[c * 250..(c + 1) * 250]
            .iter()
            .map(|k| k >> 24)
            .collect();
        let n = log
            .iter()
            .filter(|e| e.0 == [2 + c as u32] && e.1 == Some(Access::Write))
            .count();
        assert_eq!(n, digits.len(), "chunk {c}");
    }
}

/// The total work declared by `f`.
fn work(f: impl FnOnce()) -> u64 {
    declarations(f)
        .iter()
        .filter(|e| e.1.is_none())
        .map(|e| e.3)
        .sum()
}

#[test]
fn declared_work_is_what_the_docs_say() {
    let iters = 2u64;
    let a = Generator::Banded {
        n: 90,
        half_band: 5,
        per_row: 4,
    }
    .generate(1);
    let x = vec![1.0; 90];
    let (rows, nnz) = (90u64, a.nnz() as u64);
    let mut y = vec![0.0; 90];
    assert_eq!(
        work(|| spmv::crs(&Serial, &a, &x, &mut y, 2, 8)),
        iters * (nnz * spmv::CRS_ENTRY_WORK + rows * spmv::CRS_ROW_WORK)
    );
    let cells: Vec<AtomicU64> = (0..90).map(|_| AtomicU64::new(0)).collect();
    assert_eq!(
        work(|| spmv::ccs(&Serial, &a.to_ccs(), &x, &cells, 2, 8)),
        iters * (nnz * spmv::CCS_ENTRY_WORK + rows * (spmv::CCS_COL_WORK + spmv::ZERO_WORK))
    );

    let b = spmm::transpose_by_columns(&a);
    let c = spmm::pattern(&a);
    // Merge steps and matches: a step advances past the smaller index, or past both
    // when they match.
    let merge = |x: &[u32], y: &[u32]| {
        let (mut p, mut q, mut n) = (0, 0, 0u64);
        let mut m = 0u64;
        while p < x.len() && q < y.len() {
            n += 1;
            match x[p].cmp(&y[q]) {
                std::cmp::Ordering::Less => p += 1,
                std::cmp::Ordering::Greater => q += 1,
                std::cmp::Ordering::Equal => {
                    (p, q) = (p + 1, q + 1);
                    m += 1;
                }
            }
        }
        n * spmm::STEP_WORK + m * spmm::MATCH_WORK
    };
    let merges: u64 = (0..90)
        .flat_map(|i| c.row(i).0.iter().map(move |&j| (i, j as usize)))
        .map(|(i, j)| merge(a.row(i).0, a.row(j).0))
        .sum();
    let mut values = vec![0.0; c.nnz()];
    assert_eq!(
        work(|| spmm::multiply(&Serial, &a, &b, &c, &mut values, 2, 8)),
        iters * (merges + c.nnz() as u64 * spmm::ENTRY_WORK + rows * spmm::ROW_WORK)
    );

    let p = RadixParams {
        n: 2000,
        iters: 2,
        grain: 300,
        seed: 1,
    };
    let input = radix::input(&p);
    let mut out = vec![0; p.n];
    let mut scratch = Scratch::new(p.n, p.grain);
    let n = p.n as u64;
    assert_eq!(
        work(|| radix::sort(&Serial, &input, &mut out, &mut scratch, 2)),
        iters
            * (n * (radix::HIST_WORK + radix::SCATTER_WORK + 3 * radix::PASS_WORK)
                + 7 * radix::BUCKETS as u64 * radix::OFFSET_WORK
                + radix::BUCKETS as u64 * radix::BUCKET_WORK)
    );

    let q = IrregParams {
        nodes: 100,
        edges: 700,
        mesh: MeshKind::Uniform,
        iters: 2,
        grain: 64,
        seed: 2,
    };
    let mesh = Mesh::generate(&q);
    let mut xs = irreg::initial(&q);
    let ys: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
    assert_eq!(
        work(|| irreg::solve(&Serial, &mesh, &mut xs, &ys, 2, 64)),
        iters * (700 * irreg::EDGE_WORK + 100 * irreg::NODE_WORK)
    );
}

#[test]
fn sizes_parse_print_and_refuse() {
    let valid: &[(Kernel, &str, &str)] = &[
        (
            Kernel::SpmvCrs,
            "laplace2d:256",
            "laplace2d:256,iters=10,grain=256",
        ),
        (
            Kernel::SpmvCcs,
            " random:100000:8 , grain = 32 ",
            "random:100000:8,iters=10,grain=32",
        ),
        (
            Kernel::Spmm,
            "banded:1000:8:5,seed=4",
            "banded:1000:8:5,iters=10,grain=64,seed=4",
        ),
        (
            Kernel::Spmm,
            "block:64:8:2,iters=1",
            "block:64:8:2,iters=1,grain=64",
        ),
        (Kernel::Radix, "1_000_000", "1000000,iters=10,grain=4096"),
        (
            Kernel::Radix,
            "7,grain=1,iters=1,seed=2",
            "7,iters=1,grain=1,seed=2",
        ),
        (Kernel::Irreg, "small", "small,iters=10,grain=512"),
        (
            Kernel::Irreg,
            "Large,mesh=uniform",
            "large,mesh=uniform,iters=10,grain=512",
        ),
        (Kernel::Irreg, "400:4000", "small,iters=10,grain=512"),
        (Kernel::Irreg, "10:45,grain=3", "10:45,iters=10,grain=3"),
    ];
    for &(kernel, s, canonical) in valid {
        let p = kernel.parse_size(s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.to_string(), canonical, "{kernel} {s:?}");
        assert_eq!(kernel.parse_size(canonical).unwrap(), p);
        assert_eq!(p.kernel(), kernel);
    }
    assert_eq!(
        Kernel::SpmvCrs.parse_size("laplace2d:256").unwrap(),
        Params::SpmvCrs(SparseParams::spmv_default())
    );
}

#[test]
fn data_bytes_count_every_array() {
    let bytes = |k: Kernel| k.default_params().data_bytes();
    // laplace2d:256: 65,536 rows, 326,656 entries; pointers, entries, x and y.
    let spmv = 65_537 * 8 + 326_656 * 12 + 2 * 65_536 * 8;
    assert_eq!(bytes(Kernel::SpmvCrs), spmv);
    assert_eq!(bytes(Kernel::SpmvCcs), spmv);
    // laplace2d:64: A and B (4,096 rows, 20,224 entries each) and C (51,972 entries).
    let a = 4_097 * 8 + 20_224 * 12;
    assert_eq!(bytes(Kernel::Spmm), 2 * a + 4_097 * 8 + 51_972 * 12);
    // 2^18 keys three times, two tables of 64 x 256 entries.
    assert_eq!(bytes(Kernel::Radix), (1 << 18) * 12 + 2 * 64 * 256 * 8);
    // medium: 40,000 edges of two u32, 4,000 nodes of three f64.
    assert_eq!(bytes(Kernel::Irreg), 40_000 * 8 + 4_000 * 24);

    let broken: &[(Kernel, &str, &str)] = &[
        (Kernel::SpmvCrs, "", "empty"),
        (Kernel::SpmvCrs, "256", "unknown matrix \"256\""),
        (Kernel::SpmvCrs, "laplace2d:0", "at least 1"),
        (Kernel::SpmvCrs, "laplace2d:99999", "too many rows"),
        (Kernel::SpmvCrs, "random:10:20", "1 to N = 10"),
        (Kernel::SpmvCcs, "banded:10:1", "banded:N:B:K"),
        (Kernel::SpmvCcs, "block:10:4:1", "divide N = 10"),
        (
            Kernel::SpmvCcs,
            "laplace2d:8,grain=0",
            "grain must be at least 1",
        ),
        (Kernel::Spmm, "laplace2d:8,leaf=2", "unknown option"),
        (Kernel::Spmm, "laplace2d:8,iters=x", "iters"),
        (Kernel::Spmm, "iters=3", "must come first"),
        (Kernel::Radix, "0", "at least 1 key"),
        (Kernel::Radix, "99999999999", "too large"),
        (Kernel::Radix, "100,grain=0", "grain"),
        (Kernel::Radix, "1e6", "not a non-negative integer"),
        (
            Kernel::Irreg,
            "tiny",
            "neither small, medium, large nor NODES:EDGES",
        ),
        (Kernel::Irreg, "1:1", "NODES = 1"),
        (Kernel::Irreg, "4:7", "EDGES = 7 is outside 1..=6"),
        (
            Kernel::Irreg,
            "small,mesh=hex",
            "neither geometric nor uniform",
        ),
        (Kernel::Irreg, "small,grain=0", "grain"),
    ];
    for &(kernel, s, reason) in broken {
        let err = kernel
            .parse_size(s)
            .expect_err(&format!("{kernel} {s:?} should not parse"));
        let msg = err.to_string();
        assert!(msg.contains(&format!("{s:?}")), "{kernel} {s:?}: {msg}");
        assert!(msg.contains(kernel.name()), "{kernel} {s:?}: {msg}");
        assert!(msg.contains("expected"), "{kernel} {s:?}: {msg}");
        assert!(
            msg.contains(reason),
            "{kernel} {s:?}: lacks {reason:?}: {msg}"
        );
        assert_eq!(err.input(), s);
    }
}
