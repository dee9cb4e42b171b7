//! `ge-ub`: the [`crate::ge`] kernel over an unbalanced task tree, CATS's "GE-ub"
//! (implemented "in the similar way" as Heat-ub, says the CATS paper; Table 1 lists it
//! as memory-bound).
//!
//! Same matrix, same pivot steps, leaf code and footprints as `ge`; the rows below each
//! pivot are cut along CATS's Algorithm 1 ([`Split::Unbalanced`]) instead of halved. The
//! result is bitwise equal to ge's serial reference, which this kernel reuses.
//! Parameters and size syntax are ge's ([`GeParams`]).

use crate::exec::Executor;
use crate::ge::{self, GeParams};
use crate::split::Split;
use crate::Outcome;

/// Eliminates `a` in place on `ex` over the unbalanced tree; see [`ge::solve`].
///
/// # Panics
///
/// Panics if `a` is not `n * n` long or `leaf` is 0.
pub fn solve<E: Executor>(ex: &E, p: &GeParams, a: &mut [f64]) {
    ge::solve_split(ex, Split::Unbalanced, p, a);
}

/// Runs the kernel on `ex` (inside its pool) and checks it against ge's serial
/// reference and by the residual of a solve.
pub fn verify<E: Executor>(ex: &E, p: &GeParams) -> Outcome {
    ge::verify_split(ex, Split::Unbalanced, p)
}
