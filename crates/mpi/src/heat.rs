//! Distributed heat: the interior rows of heat's grid dealt to the ranks in blocks
//! ([`crate::rows::block`]), each rank sweeping its rows with heat's own kernel in its
//! pool, halo rows traded with the neighbouring ranks after every sweep.
//!
//! A rank holds its rows and one row on each side: the row above its first and the row
//! below its last (a halo row, a copy of a neighbour's edge row, or the grid's fixed
//! boundary at the top and bottom ranks). That local grid is itself a heat grid whose
//! first and last rows are fixed during a sweep, so one sweep is `heat::solve` with
//! `iters = 1` over it, run under the pool's policy with heat's leaves. Between sweeps
//! the main thread sends its first row up and its last row down and receives the halo
//! rows (non-blocking sends and receives, then a wait: no ordering between neighbours
//! can deadlock). Every cell is computed by heat's expression from the same operands
//! as in `heat::reference`, so each rank's rows must equal the reference's bit for bit;
//! each rank checks its own rows.
//!
//! Every rank builds the whole initial grid (`heat::initial`, a sequence of seeded
//! draws) and, to verify, runs the serial reference over the whole grid: fine at test
//! sizes, and what keeps the check independent of the distribution. A program at scale
//! would initialise only its rows.

use std::time::Instant;

use anyhow::Result;
use locus_kernels::heat::{self, HeatParams};
use locus_kernels::{Executor, Locus};
use mpi::topology::Communicator;
use mpi::traits::{Destination, Source};

use crate::limits::BadInput;
use crate::rows;
use crate::Checked;

/// Tag of a row sent to the rank above (the sender's first row).
const TAG_UP: i32 = 1;
/// Tag of a row sent to the rank below (the sender's last row).
const TAG_DOWN: i32 = 2;

/// Runs `p.iters` sweeps of heat over `world`'s ranks, this rank's in `ex`'s pool, and
/// checks this rank's rows against the serial reference.
///
/// # Errors
///
/// When the grid has fewer interior rows than there are ranks (each rank needs one).
pub fn run<C: Communicator>(world: &C, ex: &Locus, p: &HeatParams) -> Result<Checked> {
    let ranks = world.size() as usize;
    let rank = world.rank() as usize;
    let interior = p.rows - 2;
    if interior < ranks {
        return Err(BadInput(format!(
            "--size: heat {}x{}: its {interior} interior rows cannot be shared by {ranks} \
             ranks (each needs at least one); give more rows",
            p.rows, p.cols
        ))
        .into());
    }
    let own = rows::block(interior, ranks, rank);
    // Global rows first..end are this rank's; the local grid adds one row each side.
    let (first, end) = (own.start + 1, own.end + 1);
    let cols = p.cols;
    let init = heat::initial(p);
    let mut a = init[(first - 1) * cols..(end + 1) * cols].to_vec();
    let mut b = a.clone();
    let local = HeatParams {
        rows: end - first + 2,
        iters: 1,
        ..*p
    };
    let start = Instant::now();
    let (mut from, mut to) = (&mut a, &mut b);
    for sweep in 0..p.iters {
        ex.install(|| {
            heat::solve(ex, &local, from, to);
        });
        std::mem::swap(&mut from, &mut to);
        if sweep + 1 < p.iters {
            trade_halos(world, rank, ranks, cols, from);
        }
    }
    let elapsed = start.elapsed();
    let expected = heat::reference(p, &init);
    let got = &from[cols..from.len() - cols];
    let want = &expected[first * cols..end * cols];
    let what = format!(
        "heat {}x{} after {} sweeps, rows {first}..{end} of rank {rank}",
        p.rows, p.cols, p.iters
    );
    let (verified, detail) = match first_difference(got, want) {
        None => (
            true,
            format!("{what}: bitwise equal to the serial reference"),
        ),
        Some((i, differ)) => (
            false,
            format!(
                "{what}: {differ} cells differ from the serial reference; first at row {}, \
                 column {}: got {:e}, expected {:e}",
                first + i / cols,
                i % cols,
                got[i],
                want[i]
            ),
        ),
    };
    Ok(Checked {
        verified,
        detail,
        elapsed,
    })
}

/// The index of the first cell of `got` whose bits differ from `want`'s, and how many
/// differ; `None` when all are equal.
pub fn first_difference(got: &[f64], want: &[f64]) -> Option<(usize, usize)> {
    let mut differ = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (x, y))| x.to_bits() != y.to_bits());
    let (first, _) = differ.next()?;
    Some((first, 1 + differ.count()))
}

/// Sends this rank's first owned row of `grid` (its local row 1) to the rank above and
/// its last (row `len - 2`) to the rank below, and receives the halo rows 0 and
/// `len - 1` from them. Ranks at the top and bottom keep the grid's fixed boundary row.
fn trade_halos<C: Communicator>(
    world: &C,
    rank: usize,
    ranks: usize,
    cols: usize,
    grid: &mut [f64],
) {
    let (top, rest) = grid.split_at_mut(cols);
    let (owned, bottom) = rest.split_at_mut(rest.len() - cols);
    let first_row = &owned[..cols];
    let last_row = &owned[owned.len() - cols..];
    mpi::request::scope(|scope| {
        let mut requests = Vec::with_capacity(4);
        if rank > 0 {
            let up = world.process_at_rank(rank as i32 - 1);
            requests.push(up.immediate_receive_into_with_tag(scope, top, TAG_DOWN));
            requests.push(up.immediate_send_with_tag(scope, first_row, TAG_UP));
        }
        if rank + 1 < ranks {
            let down = world.process_at_rank(rank as i32 + 1);
            requests.push(down.immediate_receive_into_with_tag(scope, bottom, TAG_UP));
            requests.push(down.immediate_send_with_tag(scope, last_row, TAG_DOWN));
        }
        for request in requests {
            request.wait();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_counted_from_the_first() {
        assert_eq!(first_difference(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(
            first_difference(&[1.0, 2.0, 3.0], &[1.0, 0.0, 0.0]),
            Some((1, 2))
        );
        // Bits, not values: -0.0 differs from 0.0.
        assert_eq!(first_difference(&[-0.0], &[0.0]), Some((0, 1)));
    }
}
