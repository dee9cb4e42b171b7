//! `heat-ub`: the [`crate::heat`] kernel over an unbalanced task tree, CATS's "Heat-ub"
//! (Algorithm 1 of the CATS paper; Table 1 lists it as memory-bound).
//!
//! Same grid, same initial state, same sweeps, same leaf code and footprints as `heat`;
//! only the cut of the interior rows into leaves differs: binary nodes (`heat`) and
//! quaternary nodes (`heat2`) alternate as in Algorithm 1 ([`Split::Unbalanced`], whose
//! doc says how a 4-way spawn maps onto binary joins). Leaves still hold at most `leaf`
//! rows, but they sit at different depths and hold different row counts. The result is
//! bitwise equal to heat's serial reference, which this kernel reuses.
//!
//! Parameters and size syntax are heat's ([`HeatParams`]).

use crate::exec::Executor;
use crate::heat::{self, HeatParams};
use crate::split::Split;
use crate::Outcome;

/// Runs `p.iters` parallel sweeps over the unbalanced tree; see [`heat::solve`] for the
/// grids' roles and the returned state.
///
/// # Panics
///
/// Panics if the grids are not both `rows * cols` long, or `leaf` is 0.
pub fn solve<'g, E: Executor>(
    ex: &E,
    p: &HeatParams,
    a: &'g mut [f64],
    b: &'g mut [f64],
) -> &'g [f64] {
    heat::solve_split(ex, Split::Unbalanced, p, a, b)
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against heat's serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &HeatParams) -> Outcome {
    heat::verify_split(ex, Split::Unbalanced, p)
}
