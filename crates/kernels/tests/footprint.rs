//! Declared footprints: heat leaves declare their source rows with one halo row on each
//! side and their destination rows; sort declares every leaf and merge. Own test binary
//! because the footprint sink is process-wide.

use std::sync::{Arc, Mutex};

use locus::footprint::{self, Access, FootprintSink};
use locus_kernels::heat::{self, HeatParams};
use locus_kernels::sort;
use locus_kernels::Serial;

#[derive(Default)]
struct Log(Mutex<Vec<(Access, usize, usize)>>);

impl FootprintSink for Log {
    fn record(&self, access: Access, addr: usize, len: usize) {
        self.0.lock().unwrap().push((access, addr, len));
    }
}

const F64: usize = std::mem::size_of::<f64>();

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

    // Sort: 16 leaves of 6 or 7 elements and 15 merges; every leaf's write and the
    // root merge's write covers data or buf; the root merge writes all of `data`.
    let writes: Vec<_> = sort_log.iter().filter(|e| e.0 == Access::Write).collect();
    assert_eq!(writes.len(), 16 + 15, "{sort_log:?}");
    let last = sort_log.last().unwrap();
    assert_eq!(*last, (Access::Write, data.as_ptr() as usize, 100 * 8));
    let reads = sort_log.iter().filter(|e| e.0 == Access::Read).count();
    assert!(reads >= 30, "each merge reads two halves");
}
