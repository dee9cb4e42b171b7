//! `spmm`: the sparse matrix-matrix product `C = A B` with `B = A^T` of the
//! affinity-graph paper (Song, Moore and Dongarra, HPDC'07, Section 4.2, Fig. 8 and
//! Section 5.3), repeated `iters` times.
//!
//! As in the paper, `A` is stored by rows (CRS) and `B` by columns (CCS, a copy of its
//! own), each entry `C[i][j]` is the dot product of row `i` of `A` and column `j` of `B`,
//! and a task computes whole rows of `C` (the paper's coarse-grained threads, here
//! `grain` rows per loop chunk). Two departures, both for size: the paper's `C` is a
//! dense `N x N` array and its inner loops test every pair of entries of the two
//! vectors (`O(k^2)` per dot product); here `C` is stored sparse, with the pattern of
//! `A A^T` computed once when the input is prepared (the symbolic product; every
//! iteration recomputes all the values), and each dot product merges the two sorted
//! index lists (`O(k)`). Only the entries that can be nonzero are computed, so a task
//! reads just the columns of `B` its rows of `C` name: rows `i` and `i'` of `C` share
//! data where their patterns share columns, which is what the affinity graph sees.
//!
//! Footprint, declared once per chunk and iteration while a listener is installed: a
//! read of its rows of `A` (`row_ptr` entries `lo..=hi`, the `col_idx` and `vals`
//! ranges), a read of its rows of `C`'s pattern (`row_ptr`, `col_idx`), for each run of
//! consecutive columns `j0..j1` of `B` its rows name a read of `B`'s `col_ptr` entries
//! `j0..=j1` and of the `row_idx` and `vals` ranges of those columns, and a write of its
//! rows' values of `C`. Work, declared with it: [`STEP_WORK`] per step of the merges
//! and [`MATCH_WORK`] per matching pair (both counted as the merges run, at a few
//! instructions per entry), [`ENTRY_WORK`] per entry of `C` and [`ROW_WORK`] per row.
//!
//! The serial reference runs the same row code over all rows; every entry is summed in
//! the same order, so results must be bitwise equal.

use std::sync::Arc;

use locus::footprint::{is_listening, read_slice, work, write_slice};

use crate::chunks::{self, Parts};
use crate::exec::Executor;
use crate::prepared::{timed_run, Run};
use crate::sparse::{Ccs, Csr, SparseParams};
use crate::spmv;
use crate::Outcome;

/// Instructions per step of a merge, an estimate: two index loads with their bounds
/// checks, the compare, the two branch-free index updates, the loop's tests. This and
/// the next three are a fit of callgrind's counts under `Serial` over four matrices
/// (`laplace2d:64`, `random:1024:8`, `random:4096:2`, `banded:2048:16:8`: 13.9, 7.9,
/// 43 and 46); on four others the declared totals are within 2% of callgrind's.
pub const STEP_WORK: u64 = 14;
/// Instructions per matching pair of a merge: the two value loads with their bounds
/// checks, the product, the sum, the count (fit: 7.9).
pub const MATCH_WORK: u64 = 8;
/// Instructions per entry of `C` besides its merge: `B`'s column pointers and slices
/// with their checks, the merge's set-up and result, the store (fit: 43).
pub const ENTRY_WORK: u64 = 43;
/// Instructions per row of `C` besides its entries: `A`'s and `C`'s row pointers and
/// slices with their checks, loop control (fit: 46).
pub const ROW_WORK: u64 = 46;

/// The pattern of `A A^T` (all values 0.0): row `i` holds every `j` such that rows `i`
/// and `j` of `A` share a column, sorted.
pub fn pattern(a: &Csr) -> Csr {
    let by_col = a.to_ccs();
    let n = a.nrows();
    let mut mark = vec![usize::MAX; n];
    let mut entries: Vec<(u32, u32, f64)> = Vec::new();
    let mut row: Vec<u32> = Vec::new();
    for i in 0..n {
        row.clear();
        for &k in a.row(i).0 {
            for &j in by_col.col(k as usize).0 {
                if mark[j as usize] != i {
                    mark[j as usize] = i;
                    row.push(j);
                }
            }
        }
        row.sort_unstable();
        entries.extend(row.iter().map(|&j| (i as u32, j, 0.0)));
    }
    Csr::from_sorted(n, n, &entries)
}

/// `B = A^T` in compressed column storage: column `j` of `B` holds row `j` of `A`.
pub fn transpose_by_columns(a: &Csr) -> Ccs {
    a.transpose().to_ccs()
}

/// Computes the values of `C = A B` on `C`'s pattern `c` into `values` (in `c`'s
/// storage order), `iters` times, in chunks of `grain` rows.
///
/// # Panics
///
/// Panics if the shapes do not fit (`B` is `a.ncols() x a.nrows()`, `c` is
/// `a.nrows() x b.ncols()`, `values` has `c.nnz()` entries) or `grain` is 0.
pub fn multiply<E: Executor>(
    ex: &E,
    a: &Csr,
    b: &Ccs,
    c: &Csr,
    values: &mut [f64],
    iters: usize,
    grain: usize,
) {
    assert!(grain >= 1, "spmm: grain must be at least 1");
    assert!(
        b.nrows() == a.ncols()
            && c.nrows() == a.nrows()
            && c.ncols() == b.ncols()
            && values.len() == c.nnz(),
        "spmm: shape mismatch"
    );
    let n = a.nrows();
    let bounds: Vec<usize> = chunks::even_bounds(n, grain)
        .into_iter()
        .map(|i| c.row_ptr()[i])
        .collect();
    for _ in 0..iters {
        let parts = Parts::at(values, bounds.clone());
        ex.for_range(0..n, grain, |rows| {
            let (_, out) = parts.take(rows.start / grain);
            if is_listening() {
                declare(a, b, c, rows.clone(), out);
            }
            let (steps, matches) = compute(a, b, c, rows.clone(), out);
            work(
                steps * STEP_WORK
                    + matches * MATCH_WORK
                    + out.len() as u64 * ENTRY_WORK
                    + rows.len() as u64 * ROW_WORK,
            );
        });
    }
}

/// Declares a chunk's footprint: rows `rows` of `C`, whose values are `out`.
fn declare(a: &Csr, b: &Ccs, c: &Csr, rows: std::ops::Range<usize>, out: &[f64]) {
    let (lo, hi) = (rows.start, rows.end);
    read_slice(&a.row_ptr()[lo..=hi]);
    let ea = a.row_ptr()[lo]..a.row_ptr()[hi];
    read_slice(&a.col_idx()[ea.clone()]);
    read_slice(&a.vals()[ea]);
    read_slice(&c.row_ptr()[lo..=hi]);
    let ec = c.row_ptr()[lo]..c.row_ptr()[hi];
    read_slice(&c.col_idx()[ec.clone()]);
    let mut cols = c.col_idx()[ec].to_vec();
    for run in chunks::runs(&mut cols) {
        read_slice(&b.col_ptr()[run.start..=run.end]);
        let eb = b.col_ptr()[run.start]..b.col_ptr()[run.end];
        read_slice(&b.row_idx()[eb.clone()]);
        read_slice(&b.vals()[eb]);
    }
    write_slice(out);
}

/// The values of rows `rows` of `C` into `out`; returns the merges' steps and matches
/// (for the declared work).
fn compute(a: &Csr, b: &Ccs, c: &Csr, rows: std::ops::Range<usize>, out: &mut [f64]) -> (u64, u64) {
    let (mut steps, mut matches) = (0u64, 0u64);
    let mut slots = out.iter_mut();
    for i in rows {
        let (ai, av) = a.row(i);
        for &j in c.row(i).0 {
            let (bj, bv) = b.col(j as usize);
            let Some(slot) = slots.next() else {
                unreachable!("out holds the chunk's entries of C")
            };
            let (value, n, m) = dot(ai, av, bj, bv);
            *slot = value;
            steps += n as u64;
            matches += m as u64;
        }
    }
    (steps, matches)
}

/// The dot product of two sparse vectors with sorted indices, summed from 0.0 in index
/// order. The indices advance without branches (the merge's three-way branch is
/// unpredictable); only the rarer match branches.
#[inline]
fn dot(ai: &[u32], av: &[f64], bj: &[u32], bv: &[f64]) -> (f64, usize, usize) {
    let (mut p, mut q, mut s, mut matches) = (0, 0, 0.0, 0);
    while p < ai.len() && q < bj.len() {
        let (x, y) = (ai[p], bj[q]);
        if x == y {
            s += av[p] * bv[q];
            matches += 1;
        }
        p += usize::from(x <= y);
        q += usize::from(y <= x);
    }
    // Each step advanced one index, or both on a match.
    (s, p + q - matches, matches)
}

/// The reference: the values of `C` on its pattern by the same row code, serially,
/// declaring nothing.
pub fn reference(a: &Csr, b: &Ccs, c: &Csr) -> Vec<f64> {
    let mut out = vec![0.0; c.nnz()];
    compute(a, b, c, 0..a.nrows(), &mut out);
    out
}

/// Stored entries of `A A^T` (the symbolic product; costs about as much as one
/// iteration of the kernel).
pub fn product_nnz(a: &Csr) -> usize {
    pattern(a).nnz()
}

/// spmm's input, reference and result, for [`crate::Prepared`].
#[derive(Debug)]
pub(crate) struct SpmmRun {
    p: SparseParams,
    a: Arc<Csr>,
    b: Ccs,
    c: Csr,
    values: Vec<f64>,
    expected: Vec<f64>,
    ran: bool,
}

impl SpmmRun {
    /// Generates (or takes) `A`, builds `B` and `C`'s pattern, and computes the
    /// reference.
    pub(crate) fn new(p: &SparseParams) -> SpmmRun {
        let a = p.matrix.matrix(p.seed);
        let b = transpose_by_columns(&a);
        let c = pattern(&a);
        let expected = if p.iters == 0 {
            vec![0.0; c.nnz()]
        } else {
            reference(&a, &b, &c)
        };
        SpmmRun {
            p: p.clone(),
            values: vec![0.0; c.nnz()],
            a,
            b,
            c,
            expected,
            ran: false,
        }
    }
}

impl Run for SpmmRun {
    /// Clears `C`'s values, so a run that writes nothing cannot pass.
    fn reset(&mut self) {
        self.values.fill(0.0);
        self.ran = false;
    }

    fn execute<E: Executor>(&mut self, ex: &E) {
        let (a, b, c, values) = (&*self.a, &self.b, &self.c, &mut self.values);
        let (iters, grain) = (self.p.iters, self.p.grain);
        ex.install(|| multiply(ex, a, b, c, values, iters, grain));
        self.ran = true;
    }

    fn verify(&self) -> Option<Outcome> {
        self.ran.then(|| {
            let (rows, cols, nnz) = self.p.matrix.shape();
            let what = format!(
                "spmm of {} ({rows} x {cols}, {nnz} entries) times its transpose ({} \
                 entries of C), {} iterations, grain {}",
                self.p.matrix,
                self.c.nnz(),
                self.p.iters,
                self.p.grain
            );
            spmv::compare(&what, &self.expected, None, &self.values)
        })
    }
}

/// Runs spmm on `ex` (inside its pool), timed, and checks it bitwise against the serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &SparseParams) -> Outcome {
    timed_run(SpmmRun::new(p), ex)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Locus, Serial};
    use crate::sparse::{Generator, MatrixSpec};

    #[test]
    fn product_matches_a_dense_product() {
        let a = Generator::Random { n: 20, per_row: 3 }.generate(5);
        let b = transpose_by_columns(&a);
        // Column j of B is row j of A.
        assert_eq!(b.col_ptr(), a.row_ptr());
        assert_eq!(b.row_idx(), a.col_idx());
        let c = pattern(&a);
        let got = reference(&a, &b, &c);
        let d = a.to_dense();
        for i in 0..20 {
            for j in 0..20 {
                let want: f64 = (0..20).map(|k| d[i * 20 + k] * d[j * 20 + k]).sum();
                let pos = c.row(i).0.binary_search(&(j as u32));
                match pos {
                    Ok(k) => {
                        let at = c.row_ptr()[i] + k;
                        assert!((got[at] - want).abs() < 1e-12, "({i}, {j})");
                    }
                    Err(_) => assert_eq!(want, 0.0, "({i}, {j}) outside the pattern"),
                }
            }
        }
        assert!(c.row(3).0.contains(&3), "the diagonal of A A^T");
        // The Laplacian's square couples grid points up to 2 apart (Manhattan): the
        // 13-point stencil, 51,972 entries on a 64 x 64 grid.
        let lap = Generator::Laplace2d { n: 64 }.generate(0);
        assert_eq!(product_nnz(&lap), 51_972);
        assert_eq!(pattern(&lap).row(64 * 32 + 32).0.len(), 13);
    }

    #[test]
    fn verified_under_serial_and_locus() {
        let ex = Locus::new(
            locus::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        );
        for (g, grain) in [
            (Generator::Random { n: 90, per_row: 5 }, 4),
            (Generator::Laplace2d { n: 9 }, 1),
            (
                Generator::Block {
                    n: 40,
                    block: 4,
                    per_row: 2,
                },
                100,
            ),
        ] {
            let p = SparseParams {
                matrix: MatrixSpec::Generated(g),
                iters: 2,
                grain,
                ..SparseParams::spmm_default()
            };
            for outcome in [verify(&Serial, &p), verify(&ex, &p)] {
                assert!(outcome.verified, "{g}: {outcome}");
                assert!(outcome.detail.contains("bitwise"), "{outcome}");
            }
        }
    }
}
