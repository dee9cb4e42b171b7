//! `sor-ub`: the [`crate::sor`] kernel over an unbalanced task tree, CATS's "SOR-ub"
//! (implemented "in the similar way" as Heat-ub, says the CATS paper; Table 1 lists it
//! as memory-bound).
//!
//! Same grid, planes, sweeps, leaf code and footprints as `sor`; every sweep cuts its
//! interior rows along CATS's Algorithm 1 ([`Split::Unbalanced`]) instead of halving
//! them. The result is bitwise equal to sor's serial reference, which this kernel
//! reuses. Parameters and size syntax are sor's ([`SorParams`]).

use crate::exec::Executor;
use crate::sor::{self, SorParams};
use crate::split::Split;
use crate::Outcome;

/// Runs `p.iters` parallel iterations in place on the planes over the unbalanced tree;
/// see [`sor::solve`].
///
/// # Panics
///
/// Panics if the planes are not `rows * ceil(cols / 2)` long, or `leaf` is 0.
pub fn solve<E: Executor>(ex: &E, p: &SorParams, red: &mut [f64], black: &mut [f64]) {
    sor::solve_split(ex, Split::Unbalanced, p, red, black);
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against sor's serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &SorParams) -> Outcome {
    sor::verify_split(ex, Split::Unbalanced, p)
}
