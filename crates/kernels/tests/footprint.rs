//! Declared footprints: heat and heat-ub leaves declare their source rows with one halo
//! row on each side and their destination rows, covering each interior row once per
//! sweep; sor leaves the same on the colour planes, per sweep; sort declares every leaf
//! and merge. Own test binary, and one test, because the footprint sink is process-wide.

use std::sync::{Arc, Mutex};

use locus::footprint::{self, Access, FootprintSink};
use locus_kernels::heat::{self, HeatParams};
use locus_kernels::sor::{self, SorParams};
use locus_kernels::split::Split;
use locus_kernels::{heat_ub, sor_ub, sort, Serial};

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
