//! Row-range task trees: how the grid kernels (heat, sor, ge and their `-ub` variants,
//! mandelbrot) cut a block of rows into leaf tasks.
//!
//! A block is a `&mut [T]` holding whole rows `lo..lo + n` of a row-major grid with
//! `cols` elements per row; the tree cuts it with `split_at_mut` at row boundaries, so
//! each leaf owns its rows and the kernels stay safe code. Leaves receive their rows and
//! the index of their first row; a leaf covers at most `leaf` rows and at least one, and
//! the leaves of one call cover every row exactly once. An empty block yields no leaf.
//!
//! Two shapes:
//!
//! - [`Split::Balanced`]: halve the rows with `join` until at most `leaf` are left (the
//!   heat benchmark of the CATS and CAB papers). Every inner node has branching 2.
//! - [`Split::Unbalanced`]: Algorithm 1 of the CATS paper ("Heat-ub"). Procedure `heat`
//!   (a binary node) spawns `heat2` on the first half and `heat` on the second; `heat2`
//!   (a quaternary node) cuts its rows in quarters `q = n / 4` and spawns `heat`,
//!   `heat`, `heat2`, `heat` on them (the last quarter takes the remainder). The tree is
//!   deliberately lopsided. Where `n / 4` is 0 (2 or 3 rows above the leaf size), a
//!   `heat2` node acts as a `heat` node rather than spawning empty tasks.
//!
//! Cilk spawns the four children of `heat2` from one frame; fork-join with
//! [`Executor::join`] has only binary nodes, so a quaternary node is
//! `join(|| join(a, b), || join(c, d))`: three binary joins, two of them extra tasks
//! that do nothing but spawn. The leaves, their rows and their order are those of
//! Algorithm 1; the task count and the task ids are not. For CAB's branching degree B
//! (Eq. 4) these kernels report 2 (see [`crate::Params::branching`]).
//!
//! No footprint and no work is declared here: the leaves declare theirs, and an inner
//! node only splits and joins (which the kernels declare as nothing, see the crate
//! doc).

use crate::chunks::Parts;
use crate::exec::Executor;

/// The shape of the task tree over a block of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Split {
    /// Recursive halving: a balanced binary tree.
    Balanced,
    /// CATS Algorithm 1: binary and quaternary nodes mixed, an unbalanced tree.
    Unbalanced,
    /// A flat parallel loop ([`Executor::for_range`]) over blocks of `leaf` rows: one
    /// task per block, all children of the task that runs the loop (OpenMP's
    /// `parallel for` with a static chunk). Block `i` is loop chunk `i` every time.
    Loop,
}

/// Cuts `block` (whole rows `lo..lo + block.len() / cols`) into leaves of at most
/// `leaf` rows along the `split` tree, joining on `ex`, and calls `body(rows, first)`
/// on each leaf.
///
/// # Panics
///
/// Panics if `cols` or `leaf` is 0 or `block` is not a whole number of rows.
pub fn rows<E, T, F>(
    ex: &E,
    split: Split,
    block: &mut [T],
    lo: usize,
    cols: usize,
    leaf: usize,
    body: &F,
) where
    E: Executor,
    T: Send,
    F: Fn(&mut [T], usize) + Sync,
{
    assert!(
        cols >= 1 && leaf >= 1,
        "split: cols and leaf must be at least 1"
    );
    assert!(
        block.len() % cols == 0,
        "split: block of {} elements is not a whole number of {cols}-element rows",
        block.len()
    );
    if block.is_empty() {
        return;
    }
    let tree = Tree {
        ex,
        cols,
        leaf,
        body,
    };
    match split {
        Split::Balanced => tree.halves(block, lo),
        Split::Unbalanced => tree.binary(block, lo),
        Split::Loop => tree.flat(block, lo),
    }
}

/// The fixed arguments of one recursion.
struct Tree<'a, E, F> {
    ex: &'a E,
    cols: usize,
    leaf: usize,
    body: &'a F,
}

impl<E, F> Tree<'_, E, F>
where
    E: Executor,
{
    /// Rows in `block`.
    fn count<T>(&self, block: &[T]) -> usize {
        block.len() / self.cols
    }

    /// Loop: one chunk of the executor's loop per block of `leaf` rows, each handed its
    /// own rows through [`Parts`].
    fn flat<T>(&self, block: &mut [T], lo: usize)
    where
        T: Send,
        F: Fn(&mut [T], usize) + Sync,
    {
        let n = self.count(block);
        let blocks = Parts::even(block, self.leaf * self.cols);
        self.ex.for_range(0..n, self.leaf, |rows| {
            let (_, rows_block) = blocks.take(rows.start / self.leaf);
            (self.body)(rows_block, lo + rows.start);
        });
    }

    /// Balanced: halve down to `leaf` rows.
    fn halves<T>(&self, block: &mut [T], lo: usize)
    where
        T: Send,
        F: Fn(&mut [T], usize) + Sync,
    {
        let n = self.count(block);
        if n <= self.leaf {
            (self.body)(block, lo);
            return;
        }
        let half = n / 2;
        let (top, bottom) = block.split_at_mut(half * self.cols);
        self.ex
            .join(|| self.halves(top, lo), || self.halves(bottom, lo + half));
    }

    /// Algorithm 1's `heat`: `heat2` on the first half, `heat` on the second.
    fn binary<T>(&self, block: &mut [T], lo: usize)
    where
        T: Send,
        F: Fn(&mut [T], usize) + Sync,
    {
        let n = self.count(block);
        if n <= self.leaf {
            (self.body)(block, lo);
            return;
        }
        let mid = n / 2;
        let (top, bottom) = block.split_at_mut(mid * self.cols);
        self.ex.join(
            || self.quaternary(top, lo),
            || self.binary(bottom, lo + mid),
        );
    }

    /// Algorithm 1's `heat2`: `heat`, `heat`, `heat2`, `heat` on the four quarters, as
    /// two levels of binary joins.
    fn quaternary<T>(&self, block: &mut [T], lo: usize)
    where
        T: Send,
        F: Fn(&mut [T], usize) + Sync,
    {
        let n = self.count(block);
        if n <= self.leaf {
            (self.body)(block, lo);
            return;
        }
        let q = n / 4;
        if q == 0 {
            self.binary(block, lo);
            return;
        }
        let (first, rest) = block.split_at_mut(q * self.cols);
        let (second, rest) = rest.split_at_mut(q * self.cols);
        let (third, fourth) = rest.split_at_mut(q * self.cols);
        self.ex.join(
            || {
                self.ex
                    .join(|| self.binary(first, lo), || self.binary(second, lo + q))
            },
            || {
                self.ex.join(
                    || self.quaternary(third, lo + 2 * q),
                    || self.binary(fourth, lo + 3 * q),
                )
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::exec::Serial;

    /// The leaves `(first row, rows)` of a split of `n` rows starting at row 1, in order.
    fn leaves(split: Split, n: usize, leaf: usize) -> Vec<(usize, usize)> {
        let cols = 3;
        let mut block = vec![0u8; n * cols];
        let seen = Mutex::new(Vec::new());
        rows(
            &Serial,
            split,
            &mut block,
            1,
            cols,
            leaf,
            &|r: &mut [u8], lo| {
                r.fill(r.first().copied().unwrap_or(0) + 1);
                seen.lock().unwrap().push((lo, r.len() / cols));
            },
        );
        assert!(block.iter().all(|&x| x == 1), "every row once");
        seen.into_inner().unwrap()
    }

    #[test]
    fn leaves_cover_every_row_once_in_order() {
        for split in [Split::Balanced, Split::Unbalanced] {
            for n in [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 100, 1022] {
                for leaf in [1, 2, 3, 8, 2000] {
                    let got = leaves(split, n, leaf);
                    let mut next = 1;
                    for &(lo, k) in &got {
                        assert_eq!(lo, next, "{split:?} n={n} leaf={leaf}: {got:?}");
                        assert!((1..=leaf).contains(&k), "{split:?} n={n} leaf={leaf}");
                        next = lo + k;
                    }
                    assert_eq!(next, n + 1, "{split:?} n={n} leaf={leaf}");
                }
            }
        }
    }

    #[test]
    fn unbalanced_follows_algorithm_1() {
        // 16 rows, leaf 1: heat(0,16) -> heat2(0,8) + heat(8,16);
        // heat2(0,8) -> heat(0,2), heat(2,4), heat2(4,6), heat(6,8). The leaf sizes are
        // all 1, but the depths differ: count leaves under the first half.
        assert_eq!(leaves(Split::Unbalanced, 16, 1).len(), 16);
        // With leaf 4, heat2(0,8) cuts quarters of 2 rows: four leaves of 2, then
        // heat(8,16) -> heat2(8,12) (a leaf of 4) + heat(12,16) (a leaf of 4).
        assert_eq!(
            leaves(Split::Unbalanced, 16, 4),
            [(1, 2), (3, 2), (5, 2), (7, 2), (9, 4), (13, 4)]
        );
        assert_eq!(
            leaves(Split::Balanced, 16, 4),
            [(1, 4), (5, 4), (9, 4), (13, 4)]
        );
    }
}
