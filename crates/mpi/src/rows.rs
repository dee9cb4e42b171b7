//! How `n` items (grid rows, matrix rows) are dealt to the ranks: in consecutive blocks
//! whose lengths differ by at most one, the longer ones first, as `MPI_Scatterv`
//! programs usually cut. Pure arithmetic, no MPI.

use std::ops::Range;

/// The block of `0..n` that part `part` of `parts` owns.
///
/// # Panics
///
/// Panics if `parts` is 0 or `part >= parts`.
pub fn block(n: usize, parts: usize, part: usize) -> Range<usize> {
    assert!(parts > 0 && part < parts, "block {part} of {parts}");
    let base = n / parts;
    let extra = n % parts;
    let start = part * base + part.min(extra);
    let len = base + usize::from(part < extra);
    start..start + len
}

/// The lengths of every part's block, in order.
pub fn lengths(n: usize, parts: usize) -> Vec<usize> {
    (0..parts).map(|p| block(n, parts, p).len()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_in_order() {
        for n in 0..40 {
            for parts in 1..9 {
                let mut next = 0;
                for p in 0..parts {
                    let b = block(n, parts, p);
                    assert_eq!(b.start, next);
                    assert!(b.len() == n / parts || b.len() == n / parts + 1);
                    next = b.end;
                }
                assert_eq!(next, n);
                assert_eq!(lengths(n, parts).iter().sum::<usize>(), n);
            }
        }
    }
}
