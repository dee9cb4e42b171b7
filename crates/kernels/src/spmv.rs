//! `spmv-crs` and `spmv-ccs`: the iterative sparse matrix-vector product `y = A x` of
//! the affinity-graph paper (Song, Moore and Dongarra, HPDC'07, Section 4.1 and Fig. 7),
//! with `A` in compressed row storage (CRS) or compressed column storage (CCS).
//!
//! Each of the `iters` iterations recomputes `y = A x` from the same `x` (Fig. 7's
//! loop); every iteration opens the same parallel loop ([`Executor::for_range`]), so
//! loop chunk `i` has the same task id in every iteration.
//!
//! - **CRS** (`spmv-crs`): chunks of `grain` rows; a chunk computes
//!   `y[i] = sum_k vals[k] * x[col[k]]` for its rows, in storage order, and writes its
//!   own part of `y`. Rows share only `x`: the data reuse a schedule can create.
//! - **CCS** (`spmv-ccs`): chunks of `grain` columns; a chunk adds `A[:, j] * x[j]` into
//!   `y` for its columns, in storage order. Chunks whose columns have rows in common
//!   update the same `y` entries (the false and true sharing the paper's schedule
//!   reduces), so `y` is one shared array of `AtomicU64` holding `f64` bits, and each
//!   update is a compare-and-swap loop on one entry (Relaxed: each entry's updates are
//!   totally ordered by the atomic itself, and the loop's end, a join, orders them
//!   before anything reads `y`). Before the products, a loop of `grain`-row chunks
//!   zeroes `y`; it runs in the first half of a join (`chunks::side_loop`) so
//!   its chunks' ids differ from the product's.
//!
//! Footprints, declared once per chunk and iteration while a listener is installed:
//! CRS reads its rows' `row_ptr` entries (`lo..=hi`) and their `col_idx` and `vals`
//! ranges, reads `x` at the columns its entries name, as the runs of consecutive
//! columns (one range per run, so chunks reading different parts of `x` never appear to
//! share), and writes its part of `y`. CCS reads its columns' `col_ptr` entries, their
//! `row_idx` and `vals` ranges and its part of `x`, and writes `y` at the runs of rows
//! its entries name; a zeroing chunk writes its rows of `y`. Work, declared with them:
//! CRS [`CRS_ENTRY_WORK`] per stored entry and [`CRS_ROW_WORK`] per row; CCS
//! [`CCS_ENTRY_WORK`] per stored entry and [`CCS_COL_WORK`] per column, and
//! [`ZERO_WORK`] per zeroed entry.
//!
//! spmv-iter ([`crate::iters`]) is spmv-crs written with parallel iterators: the same
//! chunks of `grain` rows (`par_chunks_mut` of `y`), the same chunk code
//! (`crs_chunk`), the same footprint (the write of its part of `y` declared by the
//! slice source), checked against the same reference.
//!
//! Verification: the serial references run the same per-row (CRS) or per-column (CCS)
//! code in order. CRS sums each row in the same order whatever the schedule: equal bit
//! for bit. CCS's concurrent adds reach an entry of `y` in an order the schedule
//! decides, so its result is checked within a bound: `y[i]` sums the `m` products
//! `p_k = a_ik x_k` (computed identically in both), and any order of summation from 0
//! gives `s` with `|s - sum p_k| <= gamma(m - 1) * sum |p_k|`, where
//! `gamma(n) = n u / (1 - n u)` and `u = EPSILON / 2` (Higham, "Accuracy and Stability
//! of Numerical Algorithms", 2nd ed., Eq. 4.4); two orders therefore differ by at most
//! `2 gamma(m - 1) sum |p_k|`, which the check bounds above by
//! `(m - 1) * EPSILON * sum |p_k| * (1 + m EPSILON)`. Under [`crate::Serial`] the order
//! is the reference's and the result is bitwise equal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use locus::footprint::{is_listening, read_slice, work, write_slice};

use crate::chunks::{self, side_loop, Half, Parts};
use crate::exec::Executor;
use crate::prepared::{timed_run, Run};
use crate::sparse::{Ccs, Csr, SparseParams};
use crate::Outcome;

/// Instructions per stored entry of a CRS row, an estimate: load the column and the
/// value, bounds-check the column, load `x`, multiply, add, loop control. This and the
/// next are a fit of callgrind's counts under `Serial` over three matrices of 2 to 20
/// entries a row (`laplace2d:256`, `random:16384:20`, `random:65536:2`: 9.0 and 23.7);
/// the declared totals are within 1% of callgrind's on all three.
pub const CRS_ENTRY_WORK: u64 = 9;
/// Instructions per CRS row besides its entries: two row pointers and the slices with
/// their checks, the store, the outer loop's control (fit: 23.7).
pub const CRS_ROW_WORK: u64 = 24;
/// Instructions per stored entry of a CCS column: load the row index and the value,
/// multiply, bounds-check, load `y`, add, `lock cmpxchg`, its test, loop control. This
/// and the next are a fit of callgrind's counts over the same three matrices (15.1, and
/// 35.9 per column and zeroed row together); within 1% on all three.
pub const CCS_ENTRY_WORK: u64 = 15;
/// Instructions per CCS column besides its entries: the column pointers and slices with
/// their checks, load `x`, the outer loop's control (fit: 32, with [`ZERO_WORK`]).
pub const CCS_COL_WORK: u64 = 32;
/// Instructions per entry of `y` zeroed before a CCS product: a store, loop control
/// (callgrind: 4.1).
pub const ZERO_WORK: u64 = 4;

/// Computes `y = A x` `iters` times in chunks of `grain` rows (the CRS kernel).
///
/// # Panics
///
/// Panics if `x` is not `a.ncols()` long, `y` not `a.nrows()` long, or `grain` is 0.
pub fn crs<E: Executor>(ex: &E, a: &Csr, x: &[f64], y: &mut [f64], iters: usize, grain: usize) {
    assert!(grain >= 1, "spmv-crs: grain must be at least 1");
    assert!(
        x.len() == a.ncols() && y.len() == a.nrows(),
        "spmv-crs: vector length mismatch"
    );
    for _ in 0..iters {
        let parts = Parts::even(y, grain);
        ex.for_range(0..a.nrows(), grain, |rows| {
            let (lo, out) = parts.take(rows.start / grain);
            if is_listening() {
                declare_reads(a, x, lo, lo + out.len());
                write_slice(out);
            }
            crs_chunk(a, x, lo, out);
        });
    }
}

/// A CRS chunk without its footprint: declares the work of rows
/// `lo..lo + out.len()` and computes them. spmv-iter's leaf ([`crate::iters`]) runs it
/// after [`crs_reads`], its slice source declaring the write of `out`.
pub(crate) fn crs_chunk(a: &Csr, x: &[f64], lo: usize, out: &mut [f64]) {
    let hi = lo + out.len();
    let nnz = a.row_ptr()[hi] - a.row_ptr()[lo];
    work(nnz as u64 * CRS_ENTRY_WORK + out.len() as u64 * CRS_ROW_WORK);
    crs_rows(a, x, lo, out);
}

/// Declares what a CRS chunk of rows `lo..hi` reads, if a listener is installed.
pub(crate) fn crs_reads(a: &Csr, x: &[f64], lo: usize, hi: usize) {
    if is_listening() {
        declare_reads(a, x, lo, hi);
    }
}

/// Declares what a CRS chunk of rows `lo..hi` reads: its row pointers, entries and the
/// runs of `x` they name.
fn declare_reads(a: &Csr, x: &[f64], lo: usize, hi: usize) {
    read_slice(&a.row_ptr()[lo..=hi]);
    let entries = a.row_ptr()[lo]..a.row_ptr()[hi];
    read_slice(&a.col_idx()[entries.clone()]);
    read_slice(&a.vals()[entries.clone()]);
    let mut cols = a.col_idx()[entries].to_vec();
    chunks::read_runs(x, &chunks::runs(&mut cols));
}

/// `out[i - lo] = (A x)[i]` for rows `lo..lo + out.len()`, each row summed from 0.0 in
/// storage order.
fn crs_rows(a: &Csr, x: &[f64], lo: usize, out: &mut [f64]) {
    for (i, y) in (lo..).zip(out.iter_mut()) {
        let (cols, vals) = a.row(i);
        let mut s = 0.0;
        for (&j, &v) in cols.iter().zip(vals) {
            s += v * x[j as usize];
        }
        *y = s;
    }
}

/// The CRS reference: `A x` by the same row code, serially, declaring nothing.
pub fn crs_reference(a: &Csr, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; a.nrows()];
    crs_rows(a, x, 0, &mut y);
    y
}

/// Computes `y = A x` `iters` times in chunks of `grain` columns (the CCS kernel), `y`
/// holding `f64` bits; each iteration first zeroes `y` in chunks of `grain` rows.
///
/// # Panics
///
/// Panics if `x` is not `a.ncols()` long, `y` not `a.nrows()` long, or `grain` is 0.
pub fn ccs<E: Executor>(ex: &E, a: &Ccs, x: &[f64], y: &[AtomicU64], iters: usize, grain: usize) {
    assert!(grain >= 1, "spmv-ccs: grain must be at least 1");
    assert!(
        x.len() == a.ncols() && y.len() == a.nrows(),
        "spmv-ccs: vector length mismatch"
    );
    for _ in 0..iters {
        side_loop(ex, Half::First, || {
            ex.for_range(0..a.nrows(), grain, |rows| {
                let part = &y[rows];
                write_slice(part);
                work(part.len() as u64 * ZERO_WORK);
                for cell in part {
                    cell.store(0.0f64.to_bits(), Ordering::Relaxed);
                }
            });
        });
        ex.for_range(0..a.ncols(), grain, |cols| {
            if is_listening() {
                declare_cols(a, x, y, cols.clone());
            }
            let nnz = a.col_ptr()[cols.end] - a.col_ptr()[cols.start];
            work(nnz as u64 * CCS_ENTRY_WORK + cols.len() as u64 * CCS_COL_WORK);
            for j in cols {
                let (rows, vals) = a.col(j);
                let xj = x[j];
                for (&i, &v) in rows.iter().zip(vals) {
                    add(&y[i as usize], v * xj);
                }
            }
        });
    }
}

/// Declares a CCS chunk's footprint: columns `cols`.
fn declare_cols(a: &Ccs, x: &[f64], y: &[AtomicU64], cols: std::ops::Range<usize>) {
    read_slice(&a.col_ptr()[cols.start..=cols.end]);
    let entries = a.col_ptr()[cols.start]..a.col_ptr()[cols.end];
    read_slice(&a.row_idx()[entries.clone()]);
    read_slice(&a.vals()[entries.clone()]);
    read_slice(&x[cols]);
    let mut rows = a.row_idx()[entries].to_vec();
    chunks::write_runs(y, &chunks::runs(&mut rows));
}

/// Adds `v` to the `f64` whose bits `cell` holds (a compare-and-swap loop; Relaxed, see
/// the module doc).
#[inline]
pub(crate) fn add(cell: &AtomicU64, v: f64) {
    let mut cur = cell.load(Ordering::Relaxed);
    loop {
        let new = (f64::from_bits(cur) + v).to_bits();
        match cell.compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(now) => cur = now,
        }
    }
}

/// The CCS reference: `A x` by the same column code, serially, and for each row the
/// bound on how far another summation order may land (see the module doc).
pub fn ccs_reference(a: &Ccs, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut y = vec![0.0; a.nrows()];
    let mut abs = vec![0.0f64; a.nrows()];
    let mut count = vec![0usize; a.nrows()];
    for (j, &xj) in x.iter().enumerate() {
        let (rows, vals) = a.col(j);
        for (&i, &v) in rows.iter().zip(vals) {
            let p = v * xj;
            y[i as usize] += p;
            abs[i as usize] += p.abs();
            count[i as usize] += 1;
        }
    }
    let bound = abs
        .iter()
        .zip(&count)
        .map(|(&s, &m)| {
            let m = m as f64;
            (m - 1.0).max(0.0) * f64::EPSILON * s * (1.0 + m * f64::EPSILON)
        })
        .collect();
    (y, bound)
}

/// What a result is of, for the outcome's detail.
fn describe(name: &str, p: &SparseParams) -> String {
    let (rows, cols, nnz) = p.matrix.shape();
    format!(
        "{name} of {} ({rows} x {cols}, {nnz} entries), {} iterations, grain {}",
        p.matrix, p.iters, p.grain
    )
}

/// Compares `y` with the reference: bit for bit where `bound` is `None`, else each
/// entry within its bound.
pub(crate) fn compare(what: &str, expected: &[f64], bound: Option<&[f64]>, got: &[f64]) -> Outcome {
    if got.len() != expected.len() {
        return Outcome::fail(format!(
            "{what}: result has {} entries, reference {}",
            got.len(),
            expected.len()
        ));
    }
    let mut exact = true;
    let mut worst: Option<(usize, f64)> = None;
    let mut outside = 0usize;
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        if g.to_bits() == e.to_bits() {
            continue;
        }
        exact = false;
        let diff = (g - e).abs();
        let ok = bound.is_some_and(|b| diff <= b[i]);
        if !ok {
            outside += 1;
            if worst.is_none() {
                worst = Some((i, diff));
            }
        }
    }
    match worst {
        None if exact => Outcome::pass(format!("{what}: bitwise equal to the serial reference")),
        None => Outcome::pass(format!(
            "{what}: within the summation-order bound of the serial reference"
        )),
        Some((i, diff)) => {
            let limit = bound.map_or(0.0, |b| b[i]);
            Outcome::fail(format!(
                "{what}: {outside} entries differ from the serial reference beyond their \
                 bound; first at {i}: got {:e}, expected {:e} (difference {diff:e}, bound \
                 {limit:e})",
                got[i], expected[i]
            ))
        }
    }
}

/// `y` as `f64`s.
pub(crate) fn values(y: &[AtomicU64]) -> Vec<f64> {
    y.iter()
        .map(|c| f64::from_bits(c.load(Ordering::Relaxed)))
        .collect()
}

/// `n` cells holding 0.0.
pub(crate) fn zeros(n: usize) -> Vec<AtomicU64> {
    (0..n).map(|_| AtomicU64::new(0.0f64.to_bits())).collect()
}

/// How a CRS product is written: spmv-crs or spmv-iter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrsForm {
    /// spmv-crs: [`crs`], one [`Executor::for_range`] loop an iteration.
    Loop,
    /// spmv-iter: [`crate::iters::spmv_crs`], the same loop written with parallel
    /// iterators.
    Iter,
}

impl CrsForm {
    /// The kernel's name.
    fn name(self) -> &'static str {
        match self {
            CrsForm::Loop => "spmv-crs",
            CrsForm::Iter => "spmv-iter",
        }
    }
}

/// spmv-crs's (or spmv-iter's) input, reference and result, for [`crate::Prepared`].
#[derive(Debug)]
pub(crate) struct CrsRun {
    form: CrsForm,
    p: SparseParams,
    a: Arc<Csr>,
    x: Vec<f64>,
    y: Vec<f64>,
    expected: Vec<f64>,
    ran: bool,
}

impl CrsRun {
    /// Generates (or takes) the matrix, the vector and the reference.
    pub(crate) fn new(form: CrsForm, p: &SparseParams) -> CrsRun {
        let a = p.matrix.matrix(p.seed);
        let x = p.vector(a.ncols());
        let expected = if p.iters == 0 {
            vec![0.0; a.nrows()]
        } else {
            crs_reference(&a, &x)
        };
        CrsRun {
            form,
            p: p.clone(),
            y: vec![0.0; a.nrows()],
            a,
            x,
            expected,
            ran: false,
        }
    }
}

impl Run for CrsRun {
    /// Clears `y`, so a run that writes nothing cannot pass.
    fn reset(&mut self) {
        self.y.fill(0.0);
        self.ran = false;
    }

    fn execute<E: Executor>(&mut self, ex: &E) {
        let (a, x, y) = (&*self.a, &self.x, &mut self.y);
        let (iters, grain) = (self.p.iters, self.p.grain);
        match self.form {
            CrsForm::Loop => ex.install(|| crs(ex, a, x, y, iters, grain)),
            CrsForm::Iter => ex.install(|| crate::iters::spmv_crs(ex, a, x, y, iters, grain)),
        }
        self.ran = true;
    }

    fn verify(&self) -> Option<Outcome> {
        self.ran.then(|| {
            compare(
                &describe(self.form.name(), &self.p),
                &self.expected,
                None,
                &self.y,
            )
        })
    }
}

/// spmv-ccs's input, reference and result, for [`crate::Prepared`].
#[derive(Debug)]
pub(crate) struct CcsRun {
    p: SparseParams,
    a: Ccs,
    x: Vec<f64>,
    y: Vec<AtomicU64>,
    expected: Vec<f64>,
    bound: Vec<f64>,
    ran: bool,
}

impl CcsRun {
    /// Generates (or takes) the matrix, converts it, and computes the reference.
    pub(crate) fn new(p: &SparseParams) -> CcsRun {
        let a = p.matrix.matrix(p.seed).to_ccs();
        let x = p.vector(a.ncols());
        let (expected, bound) = if p.iters == 0 {
            (vec![0.0; a.nrows()], vec![0.0; a.nrows()])
        } else {
            ccs_reference(&a, &x)
        };
        CcsRun {
            p: p.clone(),
            y: zeros(a.nrows()),
            a,
            x,
            expected,
            bound,
            ran: false,
        }
    }
}

impl Run for CcsRun {
    /// Clears `y`, so a run that writes nothing cannot pass.
    fn reset(&mut self) {
        for cell in &self.y {
            cell.store(0.0f64.to_bits(), Ordering::Relaxed);
        }
        self.ran = false;
    }

    fn execute<E: Executor>(&mut self, ex: &E) {
        let (a, x, y) = (&self.a, &self.x, &self.y);
        let (iters, grain) = (self.p.iters, self.p.grain);
        ex.install(|| ccs(ex, a, x, y, iters, grain));
        self.ran = true;
    }

    fn verify(&self) -> Option<Outcome> {
        self.ran.then(|| {
            compare(
                &describe("spmv-ccs", &self.p),
                &self.expected,
                Some(&self.bound),
                &values(&self.y),
            )
        })
    }
}

/// Runs spmv-crs on `ex` (inside its pool), timed, and checks it bitwise against the
/// serial reference.
pub fn verify_crs<E: Executor>(ex: &E, p: &SparseParams) -> Outcome {
    timed_run(CrsRun::new(CrsForm::Loop, p), ex)
}

/// Runs spmv-iter (spmv-crs written with parallel iterators, [`crate::iters`]) on `ex`
/// (inside its pool), timed, and checks it bitwise against spmv-crs's serial reference.
pub fn verify_iter<E: Executor>(ex: &E, p: &SparseParams) -> Outcome {
    timed_run(CrsRun::new(CrsForm::Iter, p), ex)
}

/// Runs spmv-ccs on `ex` (inside its pool), timed, and checks it against the serial
/// reference within the summation-order bound.
pub fn verify_ccs<E: Executor>(ex: &E, p: &SparseParams) -> Outcome {
    timed_run(CcsRun::new(p), ex)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Locus, Serial};
    use crate::sparse::{Generator, MatrixSpec};

    fn params(g: Generator, grain: usize) -> SparseParams {
        SparseParams {
            matrix: MatrixSpec::Generated(g),
            iters: 2,
            grain,
            ..SparseParams::spmv_default()
        }
    }

    fn locus(threads: usize) -> Locus {
        Locus::new(
            locus::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap(),
        )
    }

    #[test]
    fn crs_and_ccs_match_a_dense_product() {
        let a = Csr::from_triplets(3, 4, &[(0, 0, 2.0), (0, 3, 1.0), (2, 1, -3.0)]).unwrap();
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(crs_reference(&a, &x), [6.0, 0.0, -6.0]);
        let (y, bound) = ccs_reference(&a.to_ccs(), &x);
        assert_eq!(y, [6.0, 0.0, -6.0]);
        assert_eq!(bound[1], 0.0);
        assert!(bound[0] > 0.0 && bound[0] < 1e-14);
        let mut out = vec![9.0; 3];
        crs(&Serial, &a, &x, &mut out, 1, 2);
        assert_eq!(out, [6.0, 0.0, -6.0]);
        let cells = zeros(3);
        ccs(&Serial, &a.to_ccs(), &x, &cells, 3, 1);
        assert_eq!(values(&cells), [6.0, 0.0, -6.0]);
    }

    #[test]
    fn verified_under_serial_and_locus() {
        let ex = locus(3);
        for (g, grain) in [
            (Generator::Laplace2d { n: 12 }, 7),
            (Generator::Random { n: 100, per_row: 9 }, 1),
            (
                Generator::Block {
                    n: 60,
                    block: 5,
                    per_row: 3,
                },
                13,
            ),
            (
                Generator::Banded {
                    n: 77,
                    half_band: 6,
                    per_row: 4,
                },
                200,
            ),
        ] {
            let p = params(g, grain);
            let serial = verify_ccs(&Serial, &p);
            assert!(serial.detail.contains("bitwise"), "{serial}");
            for outcome in [
                verify_crs(&Serial, &p),
                verify_crs(&ex, &p),
                serial,
                verify_ccs(&ex, &p),
            ] {
                assert!(outcome.verified, "{g}: {outcome}");
            }
        }
    }

    #[test]
    fn the_check_catches_a_wrong_entry() {
        let expected = [1.0, 2.0, 3.0];
        let bound = [1e-15, 1e-15, 1e-15];
        assert!(compare("t", &expected, Some(&bound), &[1.0, 2.0, 3.0]).verified);
        assert!(compare("t", &expected, Some(&bound), &[1.0, 2.0 + 1e-15, 3.0]).verified);
        let off = compare("t", &expected, Some(&bound), &[1.0, 2.0 + 1e-12, 3.0]);
        assert!(!off.verified && off.detail.contains("first at 1"), "{off}");
        assert!(!compare("t", &expected, None, &[1.0, 2.0 + 1e-15, 3.0]).verified);
    }
}
