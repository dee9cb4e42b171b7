//! The matrix a sparse kernel runs on ([`MatrixSpec`]: generated, or read from a Matrix
//! Market file), the sparse kernels' parameters ([`SparseParams`]) and their size
//! strings. No footprint (nothing here runs inside a task).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::generate::{value, Generator};
use super::Csr;
use crate::mtx::{self, MtxError};
use crate::rng::SplitMix64;
use crate::size;

/// A matrix read from a Matrix Market file: its path (as given) and its entries.
///
/// Equal when both the paths and the matrices are; hashed by path.
#[derive(Clone)]
pub struct LoadedMatrix {
    path: PathBuf,
    matrix: Arc<Csr>,
}

impl LoadedMatrix {
    /// Reads the Matrix Market file at `path` ([`mtx::read`]).
    pub fn load(path: impl AsRef<Path>) -> Result<LoadedMatrix, MtxError> {
        let path = path.as_ref();
        let matrix = Arc::new(mtx::read(path)?);
        Ok(LoadedMatrix {
            path: path.to_owned(),
            matrix,
        })
    }

    /// The path the matrix was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The matrix.
    pub fn matrix(&self) -> &Arc<Csr> {
        &self.matrix
    }
}

impl fmt::Debug for LoadedMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedMatrix")
            .field("path", &self.path)
            .field("nrows", &self.matrix.nrows())
            .field("ncols", &self.matrix.ncols())
            .field("nnz", &self.matrix.nnz())
            .finish()
    }
}

impl PartialEq for LoadedMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && (Arc::ptr_eq(&self.matrix, &other.matrix) || self.matrix == other.matrix)
    }
}

impl Eq for LoadedMatrix {}

impl Hash for LoadedMatrix {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.path.hash(state);
    }
}

/// The matrix a sparse kernel runs on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MatrixSpec {
    /// A built-in matrix, generated from the kernel's seed when the input is prepared.
    Generated(Generator),
    /// A matrix read from a Matrix Market file when the parameters were made.
    File(LoadedMatrix),
}

impl MatrixSpec {
    /// Rows, columns and stored entries.
    pub fn shape(&self) -> (usize, usize, usize) {
        match self {
            MatrixSpec::Generated(g) => g.shape(),
            MatrixSpec::File(m) => (m.matrix.nrows(), m.matrix.ncols(), m.matrix.nnz()),
        }
    }

    /// The matrix: generated from `seed`, or the file's.
    pub fn matrix(&self, seed: u64) -> Arc<Csr> {
        match self {
            MatrixSpec::Generated(g) => Arc::new(g.generate(seed)),
            MatrixSpec::File(m) => Arc::clone(&m.matrix),
        }
    }
}

impl fmt::Display for MatrixSpec {
    /// The generator's name, or `matrix=PATH`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatrixSpec::Generated(g) => g.fmt(f),
            MatrixSpec::File(m) => write!(f, "matrix={}", m.path.display()),
        }
    }
}

/// Default seed of the generated matrices and vectors.
const SEED: u64 = 0x5350_4152; // "SPAR"
/// Mixed into the seed for the dense vector `x`, so it differs from the matrix's draws.
const X_SALT: u64 = 0x5645_4354_4F52; // "VECTOR"

/// Parameters of the sparse kernels (spmv-crs, spmv-iter, spmv-ccs, spmm).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SparseParams {
    /// The matrix `A`.
    pub matrix: MatrixSpec,
    /// Times the kernel's loop runs (at least 0).
    pub iters: usize,
    /// Rows (spmv-crs, spmv-iter, spmm) or columns (spmv-ccs) per loop chunk (at least 1).
    pub grain: usize,
    /// Seed of the generated matrix and of the vector `x`.
    pub seed: u64,
}

impl SparseParams {
    /// spmv-crs and spmv-ccs's defaults: `laplace2d:256,iters=10,grain=256` (65,536
    /// rows, 326,656 entries, 256 chunks).
    pub fn spmv_default() -> SparseParams {
        SparseParams {
            matrix: MatrixSpec::Generated(Generator::Laplace2d { n: 256 }),
            iters: 10,
            grain: 256,
            seed: SEED,
        }
    }

    /// spmm's defaults: `laplace2d:64,iters=10,grain=64` (4096 rows, 20,224 entries;
    /// `C`, the 13-point stencil, has 51,972; 64 chunks of 64 rows of `C`).
    pub fn spmm_default() -> SparseParams {
        SparseParams {
            matrix: MatrixSpec::Generated(Generator::Laplace2d { n: 64 }),
            iters: 10,
            grain: 64,
            seed: SEED,
        }
    }

    /// These parameters with the matrix read from the Matrix Market file at `path`.
    pub fn with_matrix(self, path: impl AsRef<Path>) -> Result<SparseParams, MtxError> {
        Ok(SparseParams {
            matrix: MatrixSpec::File(LoadedMatrix::load(path)?),
            ..self
        })
    }

    /// The dense vector `x` of `n` entries, uniform in `[-1, 1)`, from the seed.
    pub fn vector(&self, n: usize) -> Vec<f64> {
        let mut rng = SplitMix64::new(self.seed ^ X_SALT);
        (0..n).map(|_| value(&mut rng)).collect()
    }
}

impl fmt::Display for SparseParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},iters={},grain={}",
            self.matrix, self.iters, self.grain
        )?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax of the sparse kernels, for help and error messages.
pub(crate) const SYNTAX: &str = "MATRIX[,iters=I][,grain=G][,seed=S] with MATRIX one of \
     laplace2d:N, banded:N:B:K, block:N:S:K (S divides N), random:N:K or matrix=PATH (a \
     Matrix Market file; PATH without ','), G >= 1, e.g. \"laplace2d:256,iters=10,grain=256\" \
     or \"matrix=m.mtx,iters=5\"";

/// Why a sparse kernel's size string was refused: a reason, or the matrix file's error.
#[derive(Debug)]
pub(crate) enum SizeError {
    /// What is wrong with the string.
    Reason(String),
    /// The file `matrix=PATH` names could not be read as a matrix.
    Matrix(MtxError),
}

impl From<String> for SizeError {
    fn from(reason: String) -> SizeError {
        SizeError::Reason(reason)
    }
}

/// Parses `MATRIX[,iters=I][,grain=G][,seed=S]`, unspecified options from `defaults`.
/// `matrix=PATH` reads the file.
pub(crate) fn parse(s: &str, defaults: SparseParams) -> Result<SparseParams, SizeError> {
    let t = s.trim();
    // `matrix=PATH` comes first, where `size::split` wants a main part without '='.
    let (file, owned);
    let rest = if let Some(tail) = t.strip_prefix("matrix=") {
        let (path, opts) = match tail.split_once(',') {
            Some((path, opts)) => (path.trim(), Some(opts)),
            None => (tail.trim(), None),
        };
        if path.is_empty() {
            return Err("matrix= names no file".to_owned().into());
        }
        file = Some(path);
        owned = match opts {
            Some(opts) => format!("matrix,{opts}"),
            None => "matrix".to_owned(),
        };
        owned.as_str()
    } else {
        file = None;
        t
    };
    let (main, opts) = size::split(rest)?;
    let mut p = defaults;
    if file.is_none() {
        p.matrix = MatrixSpec::Generated(Generator::parse(main)?);
    }
    size::loop_options(opts, "", &mut p.iters, &mut p.grain, &mut p.seed)?;
    if let Some(path) = file {
        p.matrix = MatrixSpec::File(LoadedMatrix::load(path).map_err(SizeError::Matrix)?);
    }
    Ok(p)
}

/// Bytes of a compressed storage with `major` pointers and `nnz` entries.
pub(crate) fn compressed_bytes(major: usize, nnz: usize) -> u64 {
    let ptr = (major as u64)
        .saturating_add(1)
        .saturating_mul(std::mem::size_of::<usize>() as u64);
    let entry = (std::mem::size_of::<u32>() + std::mem::size_of::<f64>()) as u64;
    ptr.saturating_add((nnz as u64).saturating_mul(entry))
}
