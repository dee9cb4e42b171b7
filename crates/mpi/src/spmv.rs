//! Distributed spmv: a power iteration `x <- A x / max_i |(A x)_i|` over spmv-crs, the
//! rows of `A` dealt to the ranks in blocks ([`crate::rows::block`]).
//!
//! Each iteration, every rank computes its block of `y = A x` with spmv-crs's loop
//! (`spmv::crs`, one product, chunks of `grain` rows) in its pool, from the whole `x`
//! it holds; the ranks agree on `max |y_i|` (`MPI_Allreduce` with `MPI_MAX`), scale
//! their blocks by it, and gather the blocks into every rank's `x`
//! (`MPI_Allgatherv`). The scale keeps the values bounded over many iterations; it is
//! also the estimate of `A`'s largest eigenvalue in magnitude that a power iteration
//! gives. Each row is summed by spmv-crs's row code in storage order, and a maximum
//! does not depend on the order it is taken in, so the result equals the same loop
//! over `spmv::crs_reference` ([`reference`]) bit for bit. Each rank checks the whole
//! gathered `x` and the last scale.
//!
//! Every rank builds the whole matrix from the seed and keeps its rows; a program at
//! scale would read or generate only its own.

use std::time::Instant;

use anyhow::{Context, Result};
use locus_kernels::sparse::{Csr, SparseParams};
use locus_kernels::{spmv, Executor, Locus};
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::Communicator;
use mpi::traits::CommunicatorCollectives;
use mpi::Count;

use crate::heat::first_difference;
use crate::limits::BadInput;
use crate::rows;
use crate::Checked;

/// Runs `p.iters` steps of the power iteration over `world`'s ranks, this rank's rows in
/// `ex`'s pool, and checks the result against [`reference`].
///
/// # Errors
///
/// When the matrix is not square, has fewer rows than there are ranks, or more than an
/// MPI count can address.
pub fn run<C: Communicator>(world: &C, ex: &Locus, p: &SparseParams) -> Result<Checked> {
    let ranks = world.size() as usize;
    let rank = world.rank() as usize;
    let a = p.matrix.matrix(p.seed);
    let n = a.nrows();
    if a.ncols() != n {
        return Err(BadInput(format!(
            "--size: spmv {}: a power iteration needs a square matrix, this one is {} x {}",
            p.matrix,
            n,
            a.ncols()
        ))
        .into());
    }
    if n < ranks {
        return Err(BadInput(format!(
            "--size: spmv {}: its {n} rows cannot be shared by {ranks} ranks (each needs at \
             least one); give a larger matrix",
            p.matrix
        ))
        .into());
    }
    let counts: Vec<Count> = rows::lengths(n, ranks)
        .into_iter()
        .map(Count::try_from)
        .collect::<Result<_, _>>()
        .with_context(|| format!("spmv {}: too many rows for an MPI count", p.matrix))?;
    let displs: Vec<Count> = counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect();
    let own = rows::block(n, ranks, rank);
    let mine = row_block(&a, own.clone())?;
    let x0 = p.vector(n);
    let mut x = x0.clone();
    let mut y = vec![0.0; own.len()];
    let mut scale = 0.0f64;
    let start = Instant::now();
    for _ in 0..p.iters {
        ex.install(|| spmv::crs(ex, &mine, &x, &mut y, 1, p.grain));
        let local = max_abs(&y);
        world.all_reduce_into(&local, &mut scale, SystemOperation::max());
        divide(&mut y, scale);
        let mut gathered = PartitionMut::new(&mut x[..], &counts[..], &displs[..]);
        world.all_gather_varcount_into(&y[..], &mut gathered);
    }
    let elapsed = start.elapsed();
    let (expected, expected_scale) = reference(&a, &x0, p.iters);
    let what = format!(
        "spmv {} ({n} rows) after {} products, rows {}..{} of rank {rank}, x gathered",
        p.matrix, p.iters, own.start, own.end
    );
    let (verified, detail) = match first_difference(&x, &expected) {
        None if scale.to_bits() == expected_scale.to_bits() => (
            true,
            format!(
                "{what}: bitwise equal to the serial reference (scale {scale:.6}, the \
                 largest eigenvalue in magnitude as the iteration estimates it)"
            ),
        ),
        None => (
            false,
            format!("{what}: scale {scale:e}, the serial reference's {expected_scale:e}"),
        ),
        Some((i, differ)) => (
            false,
            format!(
                "{what}: {differ} entries differ from the serial reference; first x[{i}]: \
                 got {:e}, expected {:e}",
                x[i], expected[i]
            ),
        ),
    };
    Ok(Checked {
        verified,
        detail,
        elapsed,
    })
}

/// The serial power iteration: `iters` times `y = A x` by `spmv::crs_reference`, then
/// `x = y / max |y_i|` (unscaled when `y` is zero). Returns `x` and the last scale.
pub fn reference(a: &Csr, x0: &[f64], iters: usize) -> (Vec<f64>, f64) {
    let mut x = x0.to_vec();
    let mut scale = 0.0;
    for _ in 0..iters {
        let mut y = spmv::crs_reference(a, &x);
        scale = max_abs(&y);
        divide(&mut y, scale);
        x = y;
    }
    (x, scale)
}

/// The largest magnitude in `v` (0 for an empty or zero `v`).
fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `v /= scale`, unless `scale` is 0.
fn divide(v: &mut [f64], scale: f64) {
    if scale > 0.0 {
        v.iter_mut().for_each(|x| *x /= scale);
    }
}

/// Rows `rows` of `a`, all its columns, as a matrix of their own.
fn row_block(a: &Csr, rows: std::ops::Range<usize>) -> Result<Csr> {
    let (lo, len) = (rows.start, rows.len());
    let entries: Vec<(usize, usize, f64)> = rows
        .flat_map(|i| {
            let (cols, vals) = a.row(i);
            cols.iter()
                .zip(vals)
                .map(move |(&j, &v)| (i - lo, j as usize, v))
        })
        .collect();
    Csr::from_triplets(len, a.ncols(), &entries)
        .context("cutting the rank's rows out of the matrix")
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_kernels::sparse::Generator;

    #[test]
    fn row_blocks_hold_the_rows() {
        let a = Generator::Random { n: 50, per_row: 4 }.generate(7);
        let b = row_block(&a, 10..20).unwrap();
        assert_eq!((b.nrows(), b.ncols()), (10, 50));
        for i in 0..10 {
            assert_eq!(b.row(i), a.row(i + 10));
        }
    }

    #[test]
    fn the_reference_is_scaled_to_one() {
        let a = Generator::Laplace2d { n: 8 }.generate(1);
        let (x, scale) = reference(&a, &vec![1.0; 64], 30);
        assert!((max_abs(&x) - 1.0).abs() < 1e-12);
        assert!(scale > 4.0 && scale <= 8.0, "{scale}");
    }
}
