//! The built-in matrices ([`Generator`]), each deterministic from its seed:
//!
//! - `laplace2d:N`: the five-point Laplacian of an `N x N` grid (`N^2` rows; 4 on the
//!   diagonal, -1 for each grid neighbour), rows in row-major grid order.
//! - `banded:N:B:K`: `N x N`, each row `K` distinct columns drawn uniformly within the
//!   band `|i - j| <= B` (all of the band where it holds fewer near the corners).
//! - `block:N:S:K`: `N x N` cut in `S x S` blocks (`S` divides `N`), each block row `K`
//!   distinct block columns drawn uniformly, every entry of a drawn block stored.
//! - `random:N:K`: `N x N`, each row `K` distinct columns drawn uniformly.
//!
//! Values of the random generators are uniform in `[-1, 1)`. No footprint (nothing here
//! runs inside a task).

use std::fmt;

use super::Csr;
use crate::rng::SplitMix64;
use crate::size;

/// A built-in matrix, generated from a seed (see [`crate::sparse`]'s `generate` module
/// for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Generator {
    /// `laplace2d:N`: the five-point Laplacian of an `N x N` grid.
    Laplace2d {
        /// Grid side (the matrix has `n * n` rows).
        n: usize,
    },
    /// `banded:N:B:K`: `per_row` random columns per row within half-bandwidth
    /// `half_band`.
    Banded {
        /// Rows and columns.
        n: usize,
        /// Half-bandwidth `B`: row `i` may hold columns `i - B ..= i + B`.
        half_band: usize,
        /// Entries per row `K` (fewer where the band is cut by the matrix's corners).
        per_row: usize,
    },
    /// `block:N:S:K`: `per_row` dense `block x block` blocks per block row.
    Block {
        /// Rows and columns (a multiple of `block`).
        n: usize,
        /// Block side `S`.
        block: usize,
        /// Blocks per block row `K`.
        per_row: usize,
    },
    /// `random:N:K`: `per_row` uniformly random columns per row.
    Random {
        /// Rows and columns.
        n: usize,
        /// Entries per row `K`.
        per_row: usize,
    },
}

/// Most stored entries a generated matrix may have (its arrays then take 12 bytes an
/// entry, 24 GiB at this bound).
const MAX_NNZ: usize = 1 << 31;

impl Generator {
    /// The syntax of a generator's name, for help and error messages.
    pub(crate) const SYNTAX: &'static str =
        "laplace2d:N, banded:N:B:K, block:N:S:K (S divides N) or random:N:K";

    /// Rows, columns and stored entries of the generated matrix (exact, without
    /// generating it).
    pub fn shape(&self) -> (usize, usize, usize) {
        match *self {
            Generator::Laplace2d { n } => (n * n, n * n, (5 * n * n).saturating_sub(4 * n)),
            Generator::Banded {
                n,
                half_band,
                per_row,
            } => {
                let nnz = (0..n)
                    .map(|i| per_row.min(band(i, n, half_band).len()))
                    .sum();
                (n, n, nnz)
            }
            Generator::Block { n, block, per_row } => (n, n, n * block * per_row),
            Generator::Random { n, per_row } => (n, n, n * per_row),
        }
    }

    /// Generates the matrix; the same `seed` gives the same matrix.
    pub fn generate(&self, seed: u64) -> Csr {
        let (rows, cols, nnz) = self.shape();
        let mut rng = SplitMix64::new(seed);
        let mut entries: Vec<(u32, u32, f64)> = Vec::with_capacity(nnz);
        match *self {
            Generator::Laplace2d { n } => {
                for i in 0..n {
                    for j in 0..n {
                        let r = (i * n + j) as u32;
                        let n32 = n as u32;
                        if i > 0 {
                            entries.push((r, r - n32, -1.0));
                        }
                        if j > 0 {
                            entries.push((r, r - 1, -1.0));
                        }
                        entries.push((r, r, 4.0));
                        if j + 1 < n {
                            entries.push((r, r + 1, -1.0));
                        }
                        if i + 1 < n {
                            entries.push((r, r + n32, -1.0));
                        }
                    }
                }
            }
            Generator::Banded {
                n,
                half_band,
                per_row,
            } => {
                for i in 0..n {
                    let b = band(i, n, half_band);
                    for j in distinct_sorted(&mut rng, b.start, b.len(), per_row) {
                        entries.push((i as u32, j, value(&mut rng)));
                    }
                }
            }
            Generator::Block { n, block, per_row } => {
                for bi in 0..n / block {
                    let chosen = distinct_sorted(&mut rng, 0, n / block, per_row);
                    for i in bi * block..(bi + 1) * block {
                        for &bj in &chosen {
                            let lo = bj as usize * block;
                            for j in lo..lo + block {
                                entries.push((i as u32, j as u32, value(&mut rng)));
                            }
                        }
                    }
                }
            }
            Generator::Random { n, per_row } => {
                for i in 0..n {
                    for j in distinct_sorted(&mut rng, 0, n, per_row) {
                        entries.push((i as u32, j, value(&mut rng)));
                    }
                }
            }
        }
        debug_assert_eq!(entries.len(), nnz);
        Csr::from_sorted(rows, cols, &entries)
    }

    /// Parses a generator's name; the error is the reason.
    pub(crate) fn parse(s: &str) -> Result<Generator, String> {
        let mut parts = s.split(':').map(str::trim);
        let kind = parts.next().unwrap_or_default();
        let nums: Vec<&str> = parts.collect();
        let want = |count: usize, form: &str| -> Result<Vec<usize>, String> {
            if nums.len() != count {
                return Err(format!("matrix {s:?} is not of the form {form}"));
            }
            let names = form.split(':').skip(1);
            nums.iter()
                .zip(names)
                .map(|(v, name)| size::number(name, v))
                .collect()
        };
        let g = match kind {
            "laplace2d" => {
                let v = want(1, "laplace2d:N")?;
                Generator::Laplace2d { n: v[0] }
            }
            "banded" => {
                let v = want(3, "banded:N:B:K")?;
                Generator::Banded {
                    n: v[0],
                    half_band: v[1],
                    per_row: v[2],
                }
            }
            "block" => {
                let v = want(3, "block:N:S:K")?;
                Generator::Block {
                    n: v[0],
                    block: v[1],
                    per_row: v[2],
                }
            }
            "random" => {
                let v = want(2, "random:N:K")?;
                Generator::Random {
                    n: v[0],
                    per_row: v[1],
                }
            }
            _ => {
                return Err(format!(
                    "unknown matrix {kind:?} (built-in matrices: {}; or matrix=PATH)",
                    Generator::SYNTAX
                ))
            }
        };
        g.check()?;
        Ok(g)
    }

    /// Checks the numbers; the error is the reason.
    fn check(&self) -> Result<(), String> {
        let n = match *self {
            Generator::Laplace2d { n }
            | Generator::Banded { n, .. }
            | Generator::Block { n, .. }
            | Generator::Random { n, .. } => n,
        };
        if n == 0 {
            return Err("N must be at least 1".to_owned());
        }
        let side = match *self {
            Generator::Laplace2d { n } => n.checked_mul(n),
            _ => Some(n),
        };
        if side.is_none_or(|rows| rows > u32::MAX as usize) {
            return Err(format!(
                "N = {n} makes too many rows (at most {})",
                u32::MAX
            ));
        }
        match *self {
            Generator::Laplace2d { .. } => {}
            Generator::Banded {
                n,
                half_band,
                per_row,
            } => {
                let width = half_band.saturating_mul(2).saturating_add(1).min(n);
                if per_row == 0 || per_row > width {
                    return Err(format!(
                        "K = {per_row} entries per row: must be 1 to {width} (the band's \
                         width 2B+1, at most N)"
                    ));
                }
            }
            Generator::Block { n, block, per_row } => {
                if block == 0 || n % block != 0 {
                    return Err(format!(
                        "block size S = {block} must be at least 1 and divide N = {n}"
                    ));
                }
                if per_row == 0 || per_row > n / block {
                    return Err(format!(
                        "K = {per_row} blocks per block row: must be 1 to N/S = {}",
                        n / block
                    ));
                }
            }
            Generator::Random { n, per_row } => {
                if per_row == 0 || per_row > n {
                    return Err(format!(
                        "K = {per_row} entries per row: must be 1 to N = {n}"
                    ));
                }
            }
        }
        let too_many = match *self {
            Generator::Laplace2d { n } => n.checked_mul(n).and_then(|r| r.checked_mul(5)),
            Generator::Banded { n, per_row, .. } | Generator::Random { n, per_row } => {
                n.checked_mul(per_row)
            }
            Generator::Block { n, block, per_row } => {
                n.checked_mul(block).and_then(|x| x.checked_mul(per_row))
            }
        }
        .is_none_or(|nnz| nnz > MAX_NNZ);
        if too_many {
            return Err(format!(
                "matrix {self} has too many entries (at most {MAX_NNZ})"
            ));
        }
        Ok(())
    }
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Generator::Laplace2d { n } => write!(f, "laplace2d:{n}"),
            Generator::Banded {
                n,
                half_band,
                per_row,
            } => write!(f, "banded:{n}:{half_band}:{per_row}"),
            Generator::Block { n, block, per_row } => write!(f, "block:{n}:{block}:{per_row}"),
            Generator::Random { n, per_row } => write!(f, "random:{n}:{per_row}"),
        }
    }
}

/// The columns of row `i`'s band in an `n`-column matrix of half-bandwidth `b`.
fn band(i: usize, n: usize, b: usize) -> std::ops::Range<usize> {
    i.saturating_sub(b)..i.saturating_add(b).saturating_add(1).min(n)
}

/// A uniform value in `[-1, 1)`.
pub(super) fn value(rng: &mut SplitMix64) -> f64 {
    2.0 * rng.next_f64() - 1.0
}

/// A uniform integer in `[0, n)` (`n >= 1`; Lemire's multiply, bias below `n / 2^64`).
pub(crate) fn below(rng: &mut SplitMix64, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// `min(k, width)` distinct values drawn uniformly from `lo..lo + width`, sorted.
fn distinct_sorted(rng: &mut SplitMix64, lo: usize, width: usize, k: usize) -> Vec<u32> {
    let k = k.min(width);
    let mut out: Vec<u32> = if 2 * k > width {
        // Dense: a partial Fisher-Yates shuffle of the whole range.
        let mut all: Vec<u32> = (lo..lo + width).map(|j| j as u32).collect();
        for t in 0..k {
            let s = t + below(rng, width - t);
            all.swap(t, s);
        }
        all.truncate(k);
        all
    } else {
        // Sparse: rejection, at most two draws per value on average.
        let mut set: Vec<u32> = Vec::with_capacity(k);
        while set.len() < k {
            let j = (lo + below(rng, width)) as u32;
            if let Err(at) = set.binary_search(&j) {
                set.insert(at, j);
            }
        }
        set
    };
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_deterministic_and_match_their_shape() {
        for g in [
            Generator::Laplace2d { n: 7 },
            Generator::Laplace2d { n: 1 },
            Generator::Banded {
                n: 50,
                half_band: 4,
                per_row: 5,
            },
            Generator::Banded {
                n: 10,
                half_band: 30,
                per_row: 10,
            },
            Generator::Block {
                n: 24,
                block: 4,
                per_row: 2,
            },
            Generator::Random { n: 40, per_row: 6 },
            Generator::Random { n: 9, per_row: 9 },
        ] {
            let a = g.generate(3);
            assert_eq!(a, g.generate(3), "{g}");
            let (r, c, nnz) = g.shape();
            assert_eq!((a.nrows(), a.ncols(), a.nnz()), (r, c, nnz), "{g}");
            assert_eq!(a.row_ptr().len(), r + 1);
            for i in 0..a.nrows() {
                let (cols, vals) = a.row(i);
                assert!(cols.windows(2).all(|w| w[0] < w[1]), "{g} row {i}");
                assert!(cols.iter().all(|&j| (j as usize) < c));
                assert!(vals.iter().all(|v| v.is_finite()));
            }
            if !matches!(g, Generator::Laplace2d { .. }) {
                assert_ne!(a, g.generate(4), "{g}: the seed matters");
            }
        }
    }

    #[test]
    fn generators_have_their_structure() {
        let a = Generator::Laplace2d { n: 3 }.generate(0);
        // Row 4 is the grid's centre: all four neighbours.
        assert_eq!(a.row(4).0, [1, 3, 4, 5, 7]);
        assert_eq!(a.row(4).1, [-1.0, -1.0, 4.0, -1.0, -1.0]);
        assert_eq!(a.row(0).0, [0, 1, 3]);
        let b = Generator::Banded {
            n: 100,
            half_band: 3,
            per_row: 4,
        }
        .generate(1);
        for i in 0..100 {
            assert!(b.row(i).0.iter().all(|&j| (j as usize).abs_diff(i) <= 3));
        }
        assert_eq!(b.row(0).0.len(), 4, "the corner's band holds exactly 4");
        let k = Generator::Block {
            n: 12,
            block: 3,
            per_row: 2,
        }
        .generate(2);
        for i in 0..12 {
            let cols = k.row(i).0;
            assert_eq!(cols.len(), 6);
            // Whole blocks, the same in every row of a block row.
            assert!(cols.chunks(3).all(|c| c[0] % 3 == 0 && c[2] == c[0] + 2));
            assert_eq!(cols, k.row(i / 3 * 3).0);
        }
    }

    #[test]
    fn generator_names_parse_and_print() {
        for s in [
            "laplace2d:256",
            "banded:1000:8:5",
            "block:64:8:2",
            "random:100000:8",
        ] {
            assert_eq!(Generator::parse(s).unwrap().to_string(), s);
        }
        for (s, why) in [
            ("laplace2d", "laplace2d:N"),
            ("laplace2d:0", "at least 1"),
            ("laplace2d:70000", "too many rows"),
            ("random:10:11", "1 to N = 10"),
            ("random:10", "random:N:K"),
            ("banded:10:1:4", "1 to 3"),
            ("block:10:3:1", "divide"),
            ("block:12:3:5", "1 to N/S = 4"),
            ("dense:10", "unknown matrix"),
            ("random:x:3", "N \"x\""),
            ("random:4000000000:4000000000", "too many entries"),
        ] {
            let e = Generator::parse(s).unwrap_err();
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
