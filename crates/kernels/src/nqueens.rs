//! `nqueens`: counts the ways to place `n` non-attacking queens on an `n x n` board.
//!
//! Backtracking row by row over bitmasks (free columns, both diagonals). In the top
//! `depth` rows the candidate columns of a row are explored in parallel by recursive
//! halving of the candidate set with `join` (a binary tree of joins per row, so the tree
//! is irregular and unbalanced); from row `depth` down the search is serial. The serial
//! reference is the same bitmask search from the empty board; results are also checked
//! against the known counts (OEIS A000170) for `n <= 18`.
//!
//! Footprint: none. The search state lives in registers and on the stack. Work:
//! [`NODE_WORK`] per search node (a partial placement). A node of the parallel rows
//! declares its own; a serial subtree is counted node by node, while a listener is
//! installed only, and declared once by the task that runs it; the halvings of a
//! candidate set only split and join, and declare nothing. Whatever the depth, the
//! nodes declared are those of the whole search.

use std::time::Instant;

use locus::footprint::{is_listening, work};

use crate::exec::Executor;
use crate::size::{self, Opts};
use crate::Outcome;

/// The largest board accepted (the known-count table ends here; the serial reference
/// already takes long at this size).
pub const MAX_N: u32 = 18;

/// Instructions per search node, an estimate: guess from the serial search (per node,
/// the frame, the full-board test, the free squares in 4 operations; per candidate, the
/// lowest bit, the 3 new masks, the call and the add), which callgrind counts at 48.1
/// per node for n = 10 and 12.
pub const NODE_WORK: u64 = 48;

/// Solution counts for n = 0..=18 (OEIS A000170; the empty board has one solution).
const KNOWN: [u64; 19] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
    95815104, 666090624,
];

/// The known number of solutions for an `n x n` board, if `n <= 18`.
pub fn known(n: u32) -> Option<u64> {
    KNOWN.get(n as usize).copied()
}

/// Parameters of the nqueens kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NqueensParams {
    /// Board size (1..=[`MAX_N`]).
    pub n: u32,
    /// Number of top rows whose candidates are explored in parallel; rows below run
    /// serially. 0 runs the whole search serially; `depth >= n` is fully parallel.
    pub depth: u32,
}

impl Default for NqueensParams {
    fn default() -> Self {
        // n = 12 runs some milliseconds, long enough to time the search rather than the
        // pool's start; depth 3: about n^3 / 2 serial subtrees (≈ 860 at n = 12), enough
        // slack for dozens of workers without drowning the leaves in joins (guess).
        NqueensParams { n: 12, depth: 3 }
    }
}

impl std::fmt::Display for NqueensParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},depth={}", self.n, self.depth)
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "N[,depth=D] with N in 1..=18, e.g. \"11\" or \"11,depth=3\"";

/// Parses `N[,depth=D]`; the error is the reason, without the input.
pub(crate) fn parse(s: &str) -> Result<NqueensParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = NqueensParams {
        n: size::number("N", main)?,
        ..NqueensParams::default()
    };
    if !(1..=MAX_N).contains(&p.n) {
        return Err(format!("board size N = {} is outside 1..={MAX_N}", p.n));
    }
    let mut opts = Opts::new(opts, &["depth"])?;
    if let Some(v) = opts.take("depth") {
        p.depth = size::number("depth", v)?;
    }
    Ok(p)
}

/// Mask of the `n` board columns.
fn board(n: u32) -> u32 {
    assert!(n <= MAX_N, "nqueens: n = {n} exceeds {MAX_N}");
    (1u32 << n) - 1
}

/// Counts solutions in parallel on `ex`: candidates of the top `depth` rows are split by
/// recursive halving with `join`, rows below are searched serially.
pub fn count<E: Executor>(ex: &E, n: u32, depth: u32) -> u64 {
    par_row(ex, board(n), 0, 0, 0, depth)
}

/// Counts solutions serially: the reference. Declares nothing.
pub fn reference(n: u32) -> u64 {
    serial::<false>(board(n), 0, 0, 0, &mut 0)
}

/// Serial backtracking from a partial placement: `cols` are the occupied columns, `d1`
/// and `d2` the squares of the current row attacked along either diagonal. If `COUNT`,
/// adds the nodes visited (this one included) to `nodes`; otherwise `nodes` is unused.
fn serial<const COUNT: bool>(all: u32, cols: u32, d1: u32, d2: u32, nodes: &mut u64) -> u64 {
    if COUNT {
        *nodes += 1;
    }
    if cols == all {
        return 1;
    }
    let mut avail = all & !(cols | d1 | d2);
    let mut total = 0;
    while avail != 0 {
        let bit = avail & avail.wrapping_neg();
        avail ^= bit;
        total += serial::<COUNT>(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1, nodes);
    }
    total
}

/// A serial subtree, run by the calling task: counts its nodes and declares their work
/// while a listener is installed, runs the plain search otherwise.
fn serial_task(all: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    if is_listening() {
        let mut nodes = 0;
        let total = serial::<true>(all, cols, d1, d2, &mut nodes);
        work(nodes.saturating_mul(NODE_WORK));
        total
    } else {
        serial::<false>(all, cols, d1, d2, &mut 0)
    }
}

/// One row of the parallel part: serial once `depth` rows have been placed in parallel.
fn par_row<E: Executor>(ex: &E, all: u32, cols: u32, d1: u32, d2: u32, depth: u32) -> u64 {
    if depth == 0 || cols == all {
        return serial_task(all, cols, d1, d2);
    }
    work(NODE_WORK);
    let avail = all & !(cols | d1 | d2);
    candidates(ex, all, cols, d1, d2, avail, depth)
}

/// Explores the candidate columns `cand` of the current row: halves the set and joins
/// until one candidate is left, which is placed and the next row explored.
fn candidates<E: Executor>(
    ex: &E,
    all: u32,
    cols: u32,
    d1: u32,
    d2: u32,
    cand: u32,
    depth: u32,
) -> u64 {
    match cand.count_ones() {
        0 => 0,
        1 => par_row(
            ex,
            all,
            cols | cand,
            (d1 | cand) << 1,
            (d2 | cand) >> 1,
            depth - 1,
        ),
        k => {
            let low = lowest_bits(cand, k / 2);
            let high = cand ^ low;
            let (a, b) = ex.join(
                || candidates(ex, all, cols, d1, d2, low, depth),
                || candidates(ex, all, cols, d1, d2, high, depth),
            );
            a + b
        }
    }
}

/// The `k` lowest set bits of `mask`.
fn lowest_bits(mut mask: u32, k: u32) -> u32 {
    let mut low = 0;
    for _ in 0..k {
        let bit = mask & mask.wrapping_neg();
        low |= bit;
        mask ^= bit;
    }
    low
}

/// Compares a count with the serial reference and, where known, the published count.
pub(crate) fn compare(p: &NqueensParams, expected: u64, got: u64) -> Outcome {
    let known = known(p.n);
    if got != expected {
        return Outcome::fail(format!(
            "nqueens({}): got {got}, serial reference {expected}",
            p.n
        ));
    }
    match known {
        Some(k) if k != got => Outcome::fail(format!(
            "nqueens({}): got {got} (as the serial reference), but the known count is {k}",
            p.n
        )),
        _ => Outcome::pass(format!("nqueens({}) = {got}", p.n)),
    }
}

/// Runs the kernel on `ex` (inside its pool) and checks it against the serial reference
/// and the known counts.
pub fn verify<E: Executor>(ex: &E, p: &NqueensParams) -> Outcome {
    let start = Instant::now();
    let got = ex.install(|| count(ex, p.n, p.depth));
    let elapsed = start.elapsed();
    compare(p, reference(p.n), got).timed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_bits_splits_by_count() {
        assert_eq!(lowest_bits(0b1011_0110, 2), 0b0000_0110);
        assert_eq!(lowest_bits(0b1011_0110, 0), 0);
        assert_eq!(lowest_bits(0b1011_0110, 5), 0b1011_0110);
    }
}
