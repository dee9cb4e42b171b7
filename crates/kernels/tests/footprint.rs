//! Declared footprints: heat and heat-ub leaves declare their source rows with one halo
//! row on each side and their destination rows, covering each interior row once per
//! sweep; sor leaves the same on the colour planes, per sweep; sort declares every leaf
//! and merge. Own test binary, and one footprint test, because it listens through the
//! process-wide sink.
//!
//! Declared work: every kernel declares some, and more for a larger input; fib, heat,
//! sor, ge (the `-ub` variants too), heat-moving, mandelbrot and nqueens declare exactly
//! what their module docs say. These tests listen through a thread's own sink (`with_thread_sink`)
//! and run under executors that stay on the calling thread, so they run beside each
//! other and beside the footprint test.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use locus::footprint::{self, Access, FootprintSink};
use locus_kernels::ge::{self, GeParams};
use locus_kernels::heat::{self, HeatParams};
use locus_kernels::heat_moving::{self, HeatMovingParams};
use locus_kernels::mandelbrot::{self, MandelbrotParams};
use locus_kernels::sor::{self, SorParams};
use locus_kernels::split::Split;
use locus_kernels::{fib, ge_ub, heat_ub, nqueens, sor_ub, sort, Executor, Kernel, Serial};

#[derive(Default)]
struct Log(Mutex<Vec<(Access, usize, usize)>>);

impl FootprintSink for Log {
    fn record(&self, access: Access, addr: usize, len: usize) {
        self.0.lock().unwrap().push((access, addr, len));
    }
}

const F64: usize = std::mem::size_of::<f64>();

type Entry = (Access, usize, usize);

/// Checks one sweep's declarations: (read, write) pairs in row order whose writes cover
/// rows `1..rows - 1` of the grid at `dst` once, leaves of 1 to `leaf` rows, each read
/// covering the source rows one above to one below the leaf in the grid at `src`.
/// Returns the number of leaves.
fn check_sweep(
    log: &[Entry],
    src: usize,
    dst: usize,
    row: usize,
    rows: usize,
    leaf: usize,
) -> usize {
    assert!(log.len() % 2 == 0, "{log:?}");
    let mut next = 1;
    for pair in log.chunks(2) {
        let (ra, raddr, rlen) = pair[0];
        let (wa, waddr, wlen) = pair[1];
        assert_eq!((ra, wa), (Access::Read, Access::Write));
        assert_eq!((waddr - dst) % row, 0, "whole rows");
        let lo = (waddr - dst) / row;
        let n = wlen / row;
        assert_eq!(lo, next, "leaves in order, no gaps, no overlap");
        assert!((1..=leaf).contains(&n), "leaf of {n} rows");
        assert_eq!(raddr, src + (lo - 1) * row, "halo above");
        assert_eq!(rlen, (n + 2) * row, "halo below");
        next = lo + n;
    }
    assert_eq!(next, rows - 1, "every interior row");
    log.len() / 2
}

/// Splits a log into sweeps: a sweep ends where the next write starts at row 1 again.
fn sweeps(log: &[Entry], dsts: &[usize], row: usize) -> Vec<Vec<Entry>> {
    let mut out: Vec<Vec<Entry>> = Vec::new();
    for pair in log.chunks(2) {
        let (_, waddr, _) = pair[1];
        if dsts.iter().any(|&d| waddr == d + row) {
            out.push(Vec::new());
        }
        out.last_mut()
            .expect("a sweep starts at row 1")
            .extend_from_slice(pair);
    }
    out
}

#[test]
fn declared_footprints() {
    let log = Arc::new(Log::default());
    footprint::set_sink(log.clone());

    // heat: 10 interior rows, leaves of at most 3 rows, one sweep.
    let p = HeatParams {
        rows: 12,
        cols: 5,
        leaf: 3,
        iters: 1,
        ..HeatParams::default()
    };
    let mut a = heat::initial(&p);
    let mut b = a.clone();
    let (a0, b0) = (a.as_ptr() as usize, b.as_ptr() as usize);
    heat::solve(&Serial, &p, &mut a, &mut b);
    let heat_log = std::mem::take(&mut *log.0.lock().unwrap());

    // heat-ub: 34 interior rows, leaves of at most 2 rows, two sweeps (a -> b, b -> a).
    let pu = HeatParams {
        rows: 36,
        cols: 4,
        leaf: 2,
        iters: 2,
        ..HeatParams::default()
    };
    let mut ua = heat::initial(&pu);
    let mut ub = ua.clone();
    let (ua0, ub0) = (ua.as_ptr() as usize, ub.as_ptr() as usize);
    heat_ub::solve(&Serial, &pu, &mut ua, &mut ub);
    let heat_ub_log = std::mem::take(&mut *log.0.lock().unwrap());

    // sor and sor-ub: 15 interior rows, 9 columns (5 cells per plane row), leaves of at
    // most 2 rows, two iterations (red, black, red, black).
    let ps = SorParams {
        rows: 17,
        cols: 9,
        leaf: 2,
        iters: 2,
        ..SorParams::default()
    };
    let mut sor_logs = Vec::new();
    for split in [Split::Balanced, Split::Unbalanced] {
        let [mut red, mut black] = sor::planes(&ps, &sor::initial(&ps));
        let (r0, b0) = (red.as_ptr() as usize, black.as_ptr() as usize);
        match split {
            Split::Balanced => sor::solve(&Serial, &ps, &mut red, &mut black),
            Split::Unbalanced => sor_ub::solve(&Serial, &ps, &mut red, &mut black),
            Split::Loop => unreachable!("sor has no loop form"),
        }
        sor_logs.push((r0, b0, std::mem::take(&mut *log.0.lock().unwrap())));
    }

    // sort: 100 elements, cutoff 10.
    let mut data = sort::input(&sort::SortParams {
        n: 100,
        cutoff: 10,
        seed: 1,
    });
    let mut buf = vec![0; data.len()];
    sort::sort(&Serial, &mut data, &mut buf, 10);
    let sort_log = std::mem::take(&mut *log.0.lock().unwrap());
    footprint::clear_sink();

    // Leaves come in (read, write) pairs, in row order under Serial, covering rows
    // 1..11 of the destination exactly once.
    let row = p.cols * F64;
    let mut next = 1;
    assert!(
        heat_log.len() >= 8 && heat_log.len() % 2 == 0,
        "{heat_log:?}"
    );
    for pair in heat_log.chunks(2) {
        let (ra, raddr, rlen) = pair[0];
        let (wa, waddr, wlen) = pair[1];
        assert_eq!((ra, wa), (Access::Read, Access::Write));
        let lo = (waddr - b0) / row;
        let n = wlen / row;
        assert_eq!(lo, next, "leaves in order, no gaps");
        assert!((1..=3).contains(&n), "leaf of {n} rows");
        assert_eq!(raddr, a0 + (lo - 1) * row, "halo above");
        assert_eq!(rlen, (n + 2) * row, "halo below");
        next = lo + n;
    }
    assert_eq!(next, 11);

    // heat-ub: each sweep covers every interior row once; the second sweep reads `b`
    // and writes `a`. The unbalanced tree leaves 1- and 2-row leaves (halves would
    // give 2-row leaves only, 17 per sweep).
    let row = pu.cols * F64;
    let per_sweep = sweeps(&heat_ub_log, &[ua0, ub0], row);
    assert_eq!(per_sweep.len(), 2, "{heat_ub_log:?}");
    let n0 = check_sweep(&per_sweep[0], ua0, ub0, row, pu.rows, pu.leaf);
    let n1 = check_sweep(&per_sweep[1], ub0, ua0, row, pu.rows, pu.leaf);
    assert_eq!(n0, n1, "the same tree every sweep");
    assert!(n0 > 17, "unbalanced: {n0} leaves");

    // sor: four sweeps per solve, alternately writing the red plane (reading black) and
    // the black plane (reading red), each covering every interior plane row once.
    let prow = ps.cols.div_ceil(2) * F64;
    for (r0, b0, sor_log) in &sor_logs {
        let per_sweep = sweeps(sor_log, &[*r0, *b0], prow);
        assert_eq!(per_sweep.len(), 4, "{sor_log:?}");
        for (i, sweep) in per_sweep.iter().enumerate() {
            let (src, dst) = if i % 2 == 0 { (*b0, *r0) } else { (*r0, *b0) };
            check_sweep(sweep, src, dst, prow, ps.rows, ps.leaf);
        }
    }

    // Sort: 16 leaves of 6 or 7 elements and 15 merges; every leaf's write and the
    // root merge's write covers data or buf; the root merge writes all of `data`.
    let writes: Vec<_> = sort_log.iter().filter(|e| e.0 == Access::Write).collect();
    assert_eq!(writes.len(), 16 + 15, "{sort_log:?}");
    let last = sort_log.last().unwrap();
    assert_eq!(*last, (Access::Write, data.as_ptr() as usize, 100 * 8));
    let reads = sort_log.iter().filter(|e| e.0 == Access::Read).count();
    assert!(reads >= 30, "each merge reads two halves");
}

/// Sums the work declared to it; ignores footprints.
#[derive(Default)]
struct Work(AtomicU64);

impl FootprintSink for Work {
    fn record(&self, _access: Access, _addr: usize, _len: usize) {}

    fn work(&self, instructions: u64) {
        self.0.fetch_add(instructions, Ordering::Relaxed);
    }
}

/// Runs `f` with a sink of this thread's own and returns its result and the work
/// declared meanwhile.
fn declared<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let sink = Arc::new(Work::default());
    let r = footprint::with_thread_sink(sink.clone(), f);
    (r, sink.0.load(Ordering::Relaxed))
}

/// [`Serial`], counting its joins.
#[derive(Default)]
struct Counting {
    joins: AtomicU64,
}

impl Counting {
    fn joins(&self) -> u64 {
        self.joins.load(Ordering::Relaxed)
    }
}

impl Executor for Counting {
    fn name(&self) -> String {
        "counting".to_owned()
    }

    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.joins.fetch_add(1, Ordering::Relaxed);
        Serial.join(a, b)
    }

    fn for_range<F>(&self, range: Range<usize>, grain: usize, body: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        Serial.for_range(range, grain, body);
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        f()
    }
}

/// A small size and a larger one (more rows, points, items or a larger board) of each
/// kernel.
fn small_sizes(kernel: Kernel) -> [&'static str; 2] {
    match kernel {
        Kernel::Fib => ["15,cutoff=8", "18,cutoff=8"],
        Kernel::Nqueens => ["6,depth=2", "8,depth=2"],
        Kernel::Heat | Kernel::HeatUb | Kernel::HeatLoop | Kernel::HeatIter => {
            ["20x16,leaf=3,iters=2", "40x16,leaf=3,iters=2"]
        }
        Kernel::HeatMoving => [
            "20x16,leaf=3,iters=2,band=4,hot=3",
            "40x16,leaf=3,iters=2,band=4,hot=3",
        ],
        Kernel::Sort | Kernel::Mergesort => ["1000,cutoff=64", "2000,cutoff=64"],
        Kernel::Sor | Kernel::SorUb => ["20x16,leaf=3,iters=2", "40x16,leaf=3,iters=2"],
        Kernel::Ge | Kernel::GeUb => ["16,leaf=3", "32,leaf=3"],
        Kernel::Mandelbrot => ["16x16,maxiter=32,leaf=2", "32x16,maxiter=32,leaf=2"],
        Kernel::Fft => ["256,cutoff=16", "512,cutoff=16"],
        Kernel::Knapsack => ["12,depth=3", "20,depth=3"],
        Kernel::SpmvCrs | Kernel::SpmvIter | Kernel::SpmvCcs => {
            ["laplace2d:6,iters=2,grain=5", "laplace2d:9,iters=2,grain=5"]
        }
        Kernel::Spmm => ["random:30:3,iters=2,grain=4", "random:60:3,iters=2,grain=4"],
        Kernel::Radix => ["500,iters=2,grain=64", "1000,iters=2,grain=64"],
        Kernel::Irreg => ["50:200,iters=2,grain=16", "100:400,iters=2,grain=16"],
        Kernel::MapReduce => ["500,iters=2,grain=64", "1000,iters=2,grain=64"],
    }
}

#[test]
fn every_kernel_declares_work_that_grows_with_its_input() {
    for kernel in Kernel::ALL {
        let [small, large] = small_sizes(kernel).map(|size| {
            let mut prepared = kernel.parse_size(size).unwrap().prepare();
            let (outcome, work) = declared(|| prepared.run(&Serial));
            assert!(outcome.verified, "{kernel} {size}: {outcome}");
            (size, work)
        });
        assert!(small.1 > 0, "{kernel} {}: no work declared", small.0);
        assert!(
            large.1 > small.1,
            "{kernel}: {} declares {} instructions, {} only {}",
            large.0,
            large.1,
            small.0,
            small.1
        );
    }
}

/// What `fib(n)` with `cutoff` declares, from the module doc's rule: [`fib::CALL_WORK`]
/// per call, a serial leaf's `2 fib(n + 1) - 1` calls at once, nothing for the inner
/// calls that join.
fn fib_work(n: u32, cutoff: u32) -> u64 {
    if n < 2 || n < cutoff {
        (2 * fib::reference(n + 1) - 1) * fib::CALL_WORK
    } else {
        fib_work(n - 1, cutoff) + fib_work(n - 2, cutoff)
    }
}

#[test]
fn fib_declares_its_calls_but_the_joining_ones() {
    for (n, cutoff) in [
        (0, 0),
        (1, 0),
        (2, 0),
        (2, 3),
        (15, 0),
        (15, 2),
        (15, 8),
        (15, 16),
        (20, 12),
    ] {
        let ex = Counting::default();
        let (got, work) = declared(|| fib::fib(&ex, n, cutoff));
        assert_eq!(got, fib::reference(n));
        assert_eq!(work, fib_work(n, cutoff), "fib({n}), cutoff {cutoff}");
        // The same, counted: every call but the joining ones.
        let calls = 2 * fib::reference(n + 1) - 1;
        assert_eq!(
            work,
            (calls - ex.joins()) * fib::CALL_WORK,
            "fib({n}), cutoff {cutoff}"
        );
        if cutoff <= 2 {
            // Every call with n >= 2 joins: the leaves are the fib(n + 1) calls with n < 2.
            assert_eq!(work, fib::reference(n + 1) * fib::CALL_WORK);
        }
    }
}

#[test]
fn heat_declares_its_cells_whatever_the_tree() {
    for (rows, cols, leaf, iters) in [(12, 5, 3, 1), (36, 4, 2, 2), (66, 130, 8, 3), (3, 3, 1, 2)] {
        let p = HeatParams {
            rows,
            cols,
            leaf,
            iters,
            ..HeatParams::default()
        };
        let expected = (iters * (rows - 2) * (cols - 2)) as u64 * heat::CELL_WORK;
        let init = heat::initial(&p);
        let (mut a, mut b) = (init.clone(), init.clone());
        let ((), work) = declared(|| {
            heat::solve(&Serial, &p, &mut a, &mut b);
        });
        assert_eq!(
            work, expected,
            "heat {rows}x{cols} leaf {leaf} iters {iters}"
        );
        let (mut a, mut b) = (init.clone(), init);
        let ((), work) = declared(|| {
            heat_ub::solve(&Serial, &p, &mut a, &mut b);
        });
        assert_eq!(
            work, expected,
            "heat-ub {rows}x{cols} leaf {leaf} iters {iters}"
        );
    }
}

/// Records each leaf's write and the work declared after it, in order.
#[derive(Default)]
struct Leaves(Mutex<Vec<(usize, usize, u64)>>);

impl FootprintSink for Leaves {
    fn record(&self, access: Access, addr: usize, len: usize) {
        if access == Access::Write {
            self.0.lock().unwrap().push((addr, len, 0));
        }
    }

    fn work(&self, instructions: u64) {
        let mut leaves = self.0.lock().unwrap();
        let last = leaves.last_mut().expect("work after the leaf's write");
        assert_eq!(last.2, 0, "one work declaration per leaf");
        last.2 = instructions;
    }
}

/// heat-moving's repetitions of grid row `row` in sweep `t`, from the module doc's
/// rule (independent of [`HeatMovingParams::repetitions`]).
fn moving_reps(p: &HeatMovingParams, t: usize, row: usize) -> u64 {
    let n = p.heat.rows - 2;
    let band = p.band.unwrap_or((n / 4).max(1));
    let start = t * n / p.heat.iters % n;
    let i = row - 1;
    let hot = if start + band <= n {
        (start..start + band).contains(&i)
    } else {
        i >= start || i < start + band - n
    };
    if hot {
        p.hot as u64
    } else {
        1
    }
}

#[test]
fn heat_moving_declares_its_repeated_cells_per_leaf() {
    // (rows, cols, leaf, iters, band, hot): the band wraps in the first (starts 0, 3, 7,
    // 10, 14 over 18 interior rows, band 6) and in the default-band case (starts 0, 5,
    // 11 over 17 rows, band 4).
    for (rows, cols, leaf, iters, band, hot) in [
        (20, 7, 3, 5, Some(6), 3),
        (19, 6, 4, 3, None, 8),
        (12, 5, 2, 4, Some(1), 2),
        (3, 3, 1, 2, None, 5),
        (40, 9, 5, 7, Some(38), 4),
    ] {
        let p = HeatMovingParams {
            heat: HeatParams {
                rows,
                cols,
                leaf,
                iters,
                ..HeatParams::default()
            },
            band,
            hot,
        };
        let what = format!("heat-moving {p}");
        let init = heat_moving::initial(&p);
        let (mut a, mut b) = (init.clone(), init.clone());
        let (a0, b0) = (a.as_ptr() as usize, b.as_ptr() as usize);
        let sink = Arc::new(Leaves::default());
        footprint::with_thread_sink(sink.clone(), || {
            heat_moving::solve(&Serial, &p, &mut a, &mut b);
        });
        let leaves = std::mem::take(&mut *sink.0.lock().unwrap());

        // Exact total: every interior cell once per sweep, the band's `hot - 1` more.
        let interior = (rows - 2) as u64;
        let band_len = band.unwrap_or(((rows - 2) / 4).max(1)) as u64;
        let total: u64 = leaves.iter().map(|l| l.2).sum();
        assert_eq!(
            total,
            iters as u64
                * (interior + (hot as u64 - 1) * band_len)
                * (cols - 2) as u64
                * heat::CELL_WORK,
            "{what}"
        );

        // Exact per leaf: balanced leaves in row order, the same cut every sweep (heat's),
        // each declaring its rows' cells times their repetitions in that sweep.
        let row = cols * F64;
        let per_sweep = leaves.len() / iters;
        assert_eq!(per_sweep * iters, leaves.len(), "{what}");
        let mut works = vec![Vec::new(); iters];
        for (t, sweep) in leaves.chunks(per_sweep).enumerate() {
            let dst = if t % 2 == 0 { b0 } else { a0 };
            let mut next = 1;
            for &(addr, len, declared) in sweep {
                let lo = (addr - dst) / row;
                let n = len / row;
                assert_eq!(lo, next, "{what}: sweep {t}");
                assert!((1..=leaf).contains(&n), "{what}: leaf of {n} rows");
                let reps: u64 = (lo..lo + n).map(|r| moving_reps(&p, t, r)).sum();
                assert_eq!(
                    declared,
                    reps * (cols - 2) as u64 * heat::CELL_WORK,
                    "{what}: sweep {t}, rows {lo}..{}",
                    lo + n
                );
                works[t].push(declared);
                next = lo + n;
            }
            assert_eq!(next, rows - 1, "{what}: every interior row");
        }

        // The work per leaf changes between sweeps wherever the band moves past a leaf
        // without covering the whole interior.
        let moves = band_len < interior && hot > 1 && iters > 1;
        let changed = (0..per_sweep).any(|i| works.iter().any(|w| w[i] != works[0][i]));
        assert_eq!(changed, moves, "{what}: {works:?}");
    }
}

#[test]
fn sor_ge_and_mandelbrot_declare_their_elements() {
    // sor: both sweeps of an iteration update every interior cell once, whatever the
    // parity of the columns.
    for (rows, cols) in [(17, 9), (20, 16), (9, 3)] {
        let p = SorParams {
            rows,
            cols,
            leaf: 2,
            iters: 2,
            ..SorParams::default()
        };
        let expected = (p.iters * (rows - 2) * (cols - 2)) as u64 * sor::CELL_WORK;
        for split in [Split::Balanced, Split::Unbalanced] {
            let [mut red, mut black] = sor::planes(&p, &sor::initial(&p));
            let ((), work) = declared(|| match split {
                Split::Balanced => sor::solve(&Serial, &p, &mut red, &mut black),
                Split::Unbalanced => sor_ub::solve(&Serial, &p, &mut red, &mut black),
                Split::Loop => unreachable!("sor has no loop form"),
            });
            assert_eq!(work, expected, "sor {rows}x{cols} {split:?}");
        }
    }

    // ge: for pivot k, m = n - k - 1 rows of m updates each.
    for n in [1, 2, 5, 24] {
        let p = GeParams {
            n,
            leaf: 3,
            ..GeParams::default()
        };
        let expected: u64 = (1..n as u64)
            .map(|m| m * (ge::ROW_WORK + m * ge::UPDATE_WORK))
            .sum();
        for split in [Split::Balanced, Split::Unbalanced] {
            let mut a = ge::input(&p);
            let ((), work) = declared(|| match split {
                Split::Balanced => ge::solve(&Serial, &p, &mut a),
                Split::Unbalanced => ge_ub::solve(&Serial, &p, &mut a),
                Split::Loop => unreachable!("ge has no loop form"),
            });
            assert_eq!(work, expected, "ge {n} {split:?}");
        }
    }

    // mandelbrot: the escape counts of the image, and its pixels.
    let p = MandelbrotParams {
        rows: 24,
        cols: 20,
        maxiter: 50,
        leaf: 3,
    };
    let iterations: u64 = mandelbrot::reference(&p)
        .iter()
        .map(|&k| u64::from(k))
        .sum();
    let mut image = vec![0; p.rows * p.cols];
    let ((), work) = declared(|| mandelbrot::render(&Serial, &p, &mut image));
    assert_eq!(
        work,
        iterations * mandelbrot::ITER_WORK + (p.rows * p.cols) as u64 * mandelbrot::PIXEL_WORK
    );
}

#[test]
fn nqueens_declares_the_same_nodes_at_every_depth() {
    for n in [1, 4, 6, 8] {
        let (found, serial_work) = declared(|| nqueens::count(&Serial, n, 0));
        assert_eq!(Some(found), nqueens::known(n));
        assert_eq!(serial_work % nqueens::NODE_WORK, 0, "n = {n}");
        assert!(
            serial_work >= nqueens::NODE_WORK,
            "n = {n}: the root at least"
        );
        for depth in [1, 2, n] {
            let (found, work) = declared(|| nqueens::count(&Serial, n, depth));
            assert_eq!(Some(found), nqueens::known(n));
            assert_eq!(work, serial_work, "n = {n}, depth {depth}");
        }
    }
    // 8 queens: 2057 nodes (counted by a separate search).
    let (_, work) = declared(|| nqueens::count(&Serial, 8, 3));
    assert_eq!(work, 2057 * nqueens::NODE_WORK);
}
