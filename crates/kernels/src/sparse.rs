//! Sparse matrices for the sparse kernels ([`crate::spmv`], [`crate::spmm`]): compressed
//! row storage ([`Csr`], the paper's CRS) and compressed column storage ([`Ccs`]) and
//! the conversions between them (here), seeded generators ([`Generator`],
//! `sparse/generate.rs`), and the matrix and parameters a kernel runs on
//! ([`MatrixSpec`]: generated, or read from a Matrix Market file by [`crate::mtx`];
//! [`SparseParams`]; `sparse/spec.rs`).
//!
//! Invariants of both storages, kept by every constructor: the pointer array has one
//! entry per row (column) plus one, starts at 0, never decreases and ends at the number
//! of stored entries; within a row (column) the indices are strictly increasing (sorted,
//! no duplicates) and below the other dimension; every value is finite. Dimensions are
//! at most `u32::MAX`, so indices are stored as `u32` (the paper's C `int` arrays).
//! Explicit zeros may be stored (a generated or read entry is kept as given).
//!
//! No footprint (nothing here runs inside a task).

mod generate;
mod spec;

pub(crate) use generate::below;
pub use generate::Generator;
pub(crate) use spec::{compressed_bytes, parse, SizeError, SYNTAX};
pub use spec::{LoadedMatrix, MatrixSpec, SparseParams};

/// Why raw entries do not make a sparse matrix ([`Csr::from_triplets`]). Indices in the
/// message are 0-based, as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparseError {
    /// A dimension exceeds `u32::MAX`.
    #[error(
        "a {rows} x {cols} matrix is too large: dimensions are at most {}",
        u32::MAX
    )]
    TooLarge {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// An entry lies outside the matrix.
    #[error("entry ({row}, {col}) lies outside the {rows} x {cols} matrix")]
    OutOfRange {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
        /// The matrix's rows.
        rows: usize,
        /// The matrix's columns.
        cols: usize,
    },
    /// Two entries name the same place.
    #[error("entry ({row}, {col}) is given twice")]
    Duplicate {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// A value is NaN or infinite.
    #[error("entry ({row}, {col}) is not finite")]
    NotFinite {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
    },
}

/// A sparse matrix in compressed row storage: row `i`'s entries are
/// `col_idx[row_ptr[i]..row_ptr[i + 1]]` with values at the same positions of `vals`.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    nrows: usize,
    ncols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
    vals: Vec<f64>,
}

/// Values are finite (every constructor refuses NaN), so equality is reflexive.
impl Eq for Csr {}

/// A sparse matrix in compressed column storage: column `j`'s entries are
/// `row_idx[col_ptr[j]..col_ptr[j + 1]]` with values at the same positions of `vals`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ccs {
    nrows: usize,
    ncols: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<u32>,
    vals: Vec<f64>,
}

/// Values are finite (every constructor refuses NaN), so equality is reflexive.
impl Eq for Ccs {}

/// Checks that a `rows x cols` matrix fits `u32` indices.
fn check_dims(rows: usize, cols: usize) -> Result<(), SparseError> {
    if rows > u32::MAX as usize || cols > u32::MAX as usize {
        return Err(SparseError::TooLarge { rows, cols });
    }
    Ok(())
}

/// Compresses entries sorted by (major, minor) index, without duplicates, into a
/// pointer array over `major` slots, the minor indices and the values.
fn compress(major: usize, entries: &[(u32, u32, f64)]) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
    let mut ptr = vec![0usize; major + 1];
    for &(m, _, _) in entries {
        ptr[m as usize + 1] += 1;
    }
    for i in 0..major {
        ptr[i + 1] += ptr[i];
    }
    let idx = entries.iter().map(|e| e.1).collect();
    let vals = entries.iter().map(|e| e.2).collect();
    (ptr, idx, vals)
}

impl Csr {
    /// The matrix holding `entries` (`(row, column, value)`, 0-based, any order).
    /// Refuses entries outside the matrix, a place given twice, and values that are not
    /// finite.
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        entries: &[(usize, usize, f64)],
    ) -> Result<Csr, SparseError> {
        check_dims(nrows, ncols)?;
        let mut sorted = Vec::with_capacity(entries.len());
        for &(row, col, v) in entries {
            if row >= nrows || col >= ncols {
                return Err(SparseError::OutOfRange {
                    row,
                    col,
                    rows: nrows,
                    cols: ncols,
                });
            }
            if !v.is_finite() {
                return Err(SparseError::NotFinite { row, col });
            }
            sorted.push((row as u32, col as u32, v));
        }
        sorted.sort_unstable_by_key(|e| (e.0, e.1));
        if let Some(w) = sorted
            .windows(2)
            .find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        {
            return Err(SparseError::Duplicate {
                row: w[0].0 as usize,
                col: w[0].1 as usize,
            });
        }
        Ok(Csr::from_sorted(nrows, ncols, &sorted))
    }

    /// The matrix of `entries` already sorted by (row, column), without duplicates,
    /// inside the matrix and finite (checked in debug builds only).
    pub(crate) fn from_sorted(nrows: usize, ncols: usize, entries: &[(u32, u32, f64)]) -> Csr {
        debug_assert!(entries
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
        debug_assert!(entries
            .iter()
            .all(|e| (e.0 as usize) < nrows && (e.1 as usize) < ncols && e.2.is_finite()));
        let (row_ptr, col_idx, vals) = compress(nrows, entries);
        Csr {
            nrows,
            ncols,
            row_ptr,
            col_idx,
            vals,
        }
    }

    /// Rows.
    #[inline]
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Columns.
    #[inline]
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Stored entries.
    #[inline]
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// The row pointers (`nrows + 1` of them).
    #[inline]
    pub fn row_ptr(&self) -> &[usize] {
        &self.row_ptr
    }

    /// The column index of each stored entry, row by row.
    #[inline]
    pub fn col_idx(&self) -> &[u32] {
        &self.col_idx
    }

    /// The value of each stored entry, row by row.
    #[inline]
    pub fn vals(&self) -> &[f64] {
        &self.vals
    }

    /// Row `i`'s column indices and values.
    ///
    /// # Panics
    ///
    /// Panics if `i >= nrows`.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        (&self.col_idx[r.clone()], &self.vals[r])
    }

    /// The entry at `(i, j)`, 0.0 where none is stored.
    ///
    /// # Panics
    ///
    /// Panics if `i >= nrows`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let (cols, vals) = self.row(i);
        match u32::try_from(j).map(|j| cols.binary_search(&j)) {
            Ok(Ok(k)) => vals[k],
            _ => 0.0,
        }
    }

    /// The same matrix in compressed column storage (a counting sort by column: rows
    /// stay in increasing order within each column).
    pub fn to_ccs(&self) -> Ccs {
        let (col_ptr, row_idx, vals) = transpose_arrays(
            self.nrows,
            self.ncols,
            &self.row_ptr,
            &self.col_idx,
            &self.vals,
        );
        Ccs {
            nrows: self.nrows,
            ncols: self.ncols,
            col_ptr,
            row_idx,
            vals,
        }
    }

    /// The transpose, in compressed row storage.
    pub fn transpose(&self) -> Csr {
        let Ccs {
            col_ptr,
            row_idx,
            vals,
            ..
        } = self.to_ccs();
        Csr {
            nrows: self.ncols,
            ncols: self.nrows,
            row_ptr: col_ptr,
            col_idx: row_idx,
            vals,
        }
    }

    /// The matrix as a dense row-major array (for tests and small matrices).
    pub fn to_dense(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.nrows * self.ncols];
        for i in 0..self.nrows {
            let (cols, vals) = self.row(i);
            for (&j, &v) in cols.iter().zip(vals) {
                out[i * self.ncols + j as usize] = v;
            }
        }
        out
    }
}

/// The compressed arrays of the transpose: a counting sort of the entries by their
/// minor index. Walking the major slots in order keeps the new minor indices sorted.
fn transpose_arrays(
    major: usize,
    minor: usize,
    ptr: &[usize],
    idx: &[u32],
    vals: &[f64],
) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
    let mut tptr = vec![0usize; minor + 1];
    for &j in idx {
        tptr[j as usize + 1] += 1;
    }
    for j in 0..minor {
        tptr[j + 1] += tptr[j];
    }
    let mut next = tptr.clone();
    let mut tidx = vec![0u32; idx.len()];
    let mut tvals = vec![0.0; vals.len()];
    for i in 0..major {
        for k in ptr[i]..ptr[i + 1] {
            let j = idx[k] as usize;
            tidx[next[j]] = i as u32;
            tvals[next[j]] = vals[k];
            next[j] += 1;
        }
    }
    (tptr, tidx, tvals)
}

impl Ccs {
    /// Rows.
    #[inline]
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Columns.
    #[inline]
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Stored entries.
    #[inline]
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// The column pointers (`ncols + 1` of them).
    #[inline]
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }

    /// The row index of each stored entry, column by column.
    #[inline]
    pub fn row_idx(&self) -> &[u32] {
        &self.row_idx
    }

    /// The value of each stored entry, column by column.
    #[inline]
    pub fn vals(&self) -> &[f64] {
        &self.vals
    }

    /// Column `j`'s row indices and values.
    ///
    /// # Panics
    ///
    /// Panics if `j >= ncols`.
    #[inline]
    pub fn col(&self, j: usize) -> (&[u32], &[f64]) {
        let r = self.col_ptr[j]..self.col_ptr[j + 1];
        (&self.row_idx[r.clone()], &self.vals[r])
    }

    /// The entry at `(i, j)`, 0.0 where none is stored.
    ///
    /// # Panics
    ///
    /// Panics if `j >= ncols`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let (rows, vals) = self.col(j);
        match u32::try_from(i).map(|i| rows.binary_search(&i)) {
            Ok(Ok(k)) => vals[k],
            _ => 0.0,
        }
    }

    /// The same matrix in compressed row storage.
    pub fn to_csr(&self) -> Csr {
        let (row_ptr, col_idx, vals) = transpose_arrays(
            self.ncols,
            self.nrows,
            &self.col_ptr,
            &self.row_idx,
            &self.vals,
        );
        Csr {
            nrows: self.nrows,
            ncols: self.ncols,
            row_ptr,
            col_idx,
            vals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_ccs_round_trip() {
        let a = Generator::Random { n: 30, per_row: 4 }.generate(9);
        let c = a.to_ccs();
        assert_eq!(c.nnz(), a.nnz());
        for i in 0..30 {
            for j in 0..30 {
                assert_eq!(a.get(i, j).to_bits(), c.get(i, j).to_bits());
            }
        }
        assert_eq!(c.to_csr(), a);
        assert_eq!(a.transpose().transpose(), a);
        let t = a.transpose();
        assert_eq!(t.get(3, 7), a.get(7, 3));
    }

    #[test]
    fn triplets_are_checked() {
        let m = Csr::from_triplets(2, 3, &[(1, 2, 5.0), (0, 1, -1.0), (1, 0, 2.0)]).unwrap();
        assert_eq!(m.to_dense(), [0.0, -1.0, 0.0, 2.0, 0.0, 5.0]);
        assert_eq!(
            Csr::from_triplets(2, 3, &[(2, 0, 1.0)]),
            Err(SparseError::OutOfRange {
                row: 2,
                col: 0,
                rows: 2,
                cols: 3
            })
        );
        assert_eq!(
            Csr::from_triplets(2, 3, &[(1, 1, 1.0), (1, 1, 2.0)]),
            Err(SparseError::Duplicate { row: 1, col: 1 })
        );
        assert_eq!(
            Csr::from_triplets(2, 3, &[(0, 0, f64::NAN)]),
            Err(SparseError::NotFinite { row: 0, col: 0 })
        );
        assert!(Csr::from_triplets(usize::MAX, 1, &[]).is_err());
    }
}
