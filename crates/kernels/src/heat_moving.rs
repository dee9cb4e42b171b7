//! `heat-moving`: the [`crate::heat`] stencil with a hot band of rows that moves between
//! sweeps, so the work under a subtree changes from one iteration to the next.
//!
//! Same grid, same initial state, same sweeps, same balanced row tree
//! ([`Split::Balanced`]) and same leaf arithmetic as `heat`, but in sweep `t` (0-based)
//! the interior rows inside the hot band are computed [`HeatMovingParams::hot`] times
//! instead of once. Every repetition recomputes the same destination row from the same
//! source rows (with [`std::hint::black_box`] on the destination in between, so the
//! compiler keeps them all), so the result is bitwise equal to heat's serial reference
//! ([`heat::reference`]), which this kernel reuses.
//!
//! The band is [`HeatMovingParams::band_len`] interior rows long (default
//! `max(1, (rows - 2) / 4)`) and starts at interior row
//! `(t * (rows - 2) / iters) % (rows - 2)` ([`HeatMovingParams::band_start`]; interior
//! row `i` is grid row `i + 1`), wrapping around the end of the interior. Over a run it
//! thus sweeps across the whole grid, and a subtree of the row tree is hot in some sweeps
//! and cold in others: the task tree and the data each task touches stay heat's, only
//! the time each task takes moves.
//!
//! Footprint, declared once per leaf and sweep, as heat's leaf: a read of source rows
//! `[lo - 1, hi + 1)` and a write of destination rows `[lo, hi)`. Work, declared with
//! it: [`CELL_WORK`] per interior cell of each of the leaf's rows, times the row's
//! repetitions in this sweep ([`HeatMovingParams::repetitions`]: `hot` inside the band,
//! 1 outside). Inner tasks only split and join and declare nothing. A sweep of a
//! `rows x cols` grid so declares
//! `((rows - 2) + (hot - 1) * band) * (cols - 2) * CELL_WORK`, whatever the leaves.
//! Under [`crate::Serial`] callgrind counts about 4% fewer instructions than that at
//! the default size, and with the whole interior hot, as for heat.
//!
//! Size syntax: heat's ([`HeatParams`]) plus `band=B` and `hot=H`
//! ([`HeatMovingParams`]).

use locus::footprint::{read_slice, work, write_slice};

use crate::exec::Executor;
use crate::heat::{self, HeatParams, CELL_WORK};
use crate::size;
use crate::split::Split;
use crate::Outcome;

/// The kernel's name.
const NAME: &str = "heat-moving";

/// Default number of times a row inside the hot band is computed.
pub const DEFAULT_HOT: usize = 8;

/// Parameters of the heat-moving kernel: heat's, and the hot band's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeatMovingParams {
    /// The grid, leaf size, sweeps and seed, as for heat.
    pub heat: HeatParams,
    /// Interior rows in the hot band, from 1 to `rows - 2`; `None` for the default,
    /// `max(1, (rows - 2) / 4)` (see [`HeatMovingParams::band_len`]).
    pub band: Option<usize>,
    /// Times a row inside the hot band is computed per sweep (at least 1; 1 makes the
    /// kernel heat).
    pub hot: usize,
}

impl Default for HeatMovingParams {
    /// Heat's default grid (1024x512, 8-row leaves, 10 sweeps), a quarter of the
    /// interior hot, computed [`DEFAULT_HOT`] times.
    fn default() -> Self {
        HeatMovingParams {
            heat: HeatParams::default(),
            band: None,
            hot: DEFAULT_HOT,
        }
    }
}

impl std::fmt::Display for HeatMovingParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.heat.fmt(f)?;
        if let Some(band) = self.band {
            write!(f, ",band={band}")?;
        }
        write!(f, ",hot={}", self.hot)
    }
}

impl HeatMovingParams {
    /// Interior rows of the grid: `rows - 2` (0 for a grid too small to have any).
    pub fn interior_rows(&self) -> usize {
        self.heat.rows.saturating_sub(2)
    }

    /// Interior rows in the hot band: `band`, or by default `max(1, (rows - 2) / 4)`.
    pub fn band_len(&self) -> usize {
        self.band.unwrap_or((self.interior_rows() / 4).max(1))
    }

    /// The interior row (0-based, grid row minus 1) where the band starts in sweep
    /// `sweep` (0-based): `(sweep * (rows - 2) / iters) % (rows - 2)`. 0 where the grid
    /// has no interior or there are no sweeps.
    pub fn band_start(&self, sweep: usize) -> usize {
        let n = self.interior_rows();
        if n == 0 || self.heat.iters == 0 {
            return 0;
        }
        // In u128: `sweep * n` may exceed usize for huge (if unrunnable) parameters.
        let start = (sweep as u128 * n as u128 / self.heat.iters as u128) % n as u128;
        start as usize
    }

    /// How many times grid row `row` is computed in sweep `sweep`: `hot` if its
    /// interior row (`row - 1`) lies in the band `band_start(sweep)..` of `band_len()`
    /// rows, taken modulo the interior rows (the band wraps), else 1. Rows outside the
    /// interior (the boundary) are never computed: 0.
    pub fn repetitions(&self, sweep: usize, row: usize) -> usize {
        Band::of(self, sweep).repetitions(row)
    }
}

/// The hot band of one sweep, resolved.
#[derive(Debug, Clone, Copy)]
struct Band {
    /// Interior rows.
    n: usize,
    /// First interior row of the band.
    start: usize,
    /// Rows in the band.
    len: usize,
    /// Repetitions of a hot row.
    hot: usize,
}

impl Band {
    fn of(p: &HeatMovingParams, sweep: usize) -> Band {
        Band {
            n: p.interior_rows(),
            start: p.band_start(sweep),
            len: p.band_len(),
            hot: p.hot,
        }
    }

    /// Repetitions of grid row `row`.
    fn repetitions(&self, row: usize) -> usize {
        if row == 0 || row > self.n {
            return 0;
        }
        let offset = (row - 1 + self.n - self.start) % self.n;
        if offset < self.len {
            self.hot
        } else {
            1
        }
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str =
    "ROWSxCOLS[,leaf=L][,iters=I][,seed=S][,band=B][,hot=H] with ROWS, COLS >= 3, L >= 1, \
     B from 1 to ROWS - 2 (default max(1, (ROWS - 2) / 4)), H >= 1 (default 8), \
     e.g. \"1024x512\" or \"1024x512,iters=10,band=64,hot=4\"";

/// Parses `ROWSxCOLS[,leaf=L][,iters=I][,seed=S][,band=B][,hot=H]`; the error is the
/// reason.
pub(crate) fn parse(s: &str) -> Result<HeatMovingParams, String> {
    let (heat, mut opts) = heat::parse_with(s, &["band", "hot"])?;
    let mut p = HeatMovingParams {
        heat,
        ..HeatMovingParams::default()
    };
    if let Some(v) = opts.take("band") {
        let band: usize = size::number("band", v)?;
        let interior = p.interior_rows();
        if band == 0 {
            return Err("band must be at least 1 row".to_owned());
        }
        if band > interior {
            return Err(format!(
                "band {band} is longer than the {interior} interior rows of the {}x{} grid",
                heat.rows, heat.cols
            ));
        }
        p.band = Some(band);
    }
    if let Some(v) = opts.take("hot") {
        p.hot = size::number("hot", v)?;
        if p.hot == 0 {
            return Err("hot must be at least 1 (times a hot row is computed)".to_owned());
        }
    }
    Ok(p)
}

/// The initial grid: heat's ([`heat::initial`]).
///
/// # Panics
///
/// Panics if `rows` or `cols` is below 3.
pub fn initial(p: &HeatMovingParams) -> Vec<f64> {
    heat::initial(&p.heat)
}

/// The serial reference: heat's ([`heat::reference`]), since repeating a row changes
/// nothing in it. Declares no footprint.
pub fn reference(p: &HeatMovingParams, initial: &[f64]) -> Vec<f64> {
    heat::reference(&p.heat, initial)
}

/// Runs `iters` parallel sweeps over heat's balanced row tree, computing the rows of
/// each sweep's hot band `hot` times, starting from `a` (which must hold the initial
/// state); returns the grid holding the final state: `a` if `iters` is even, else `b`.
/// `b` must hold the same boundary as `a`; its interior is overwritten.
///
/// # Panics
///
/// Panics if the grids are not both `rows * cols` long, the grid is smaller than 3x3,
/// `leaf` or `hot` is 0, or the band is empty or longer than the interior.
pub fn solve<'g, E: Executor>(
    ex: &E,
    p: &HeatMovingParams,
    a: &'g mut [f64],
    b: &'g mut [f64],
) -> &'g [f64] {
    let h = &p.heat;
    assert!(p.hot >= 1, "{NAME}: hot must be at least 1");
    assert!(
        (1..=p.interior_rows()).contains(&p.band_len()),
        "{NAME}: band of {} rows outside 1..={}",
        p.band_len(),
        p.interior_rows()
    );
    let cols = h.cols;
    heat::sweeps(
        ex,
        Split::Balanced,
        NAME,
        h,
        a,
        b,
        &|sweep, from, rows, lo| leaf(from, rows, lo, cols, Band::of(p, sweep)),
    )
}

/// Computes destination rows `lo..hi` (`dst` holds exactly those rows) from source rows
/// `lo - 1..hi + 1`, each as many times as `band` says. Declares heat's footprint and
/// the repeated rows' work, then computes runs of rows with equal repetitions.
fn leaf(src: &[f64], dst: &mut [f64], lo: usize, cols: usize, band: Band) {
    let hi = lo + dst.len() / cols;
    read_slice(&src[(lo - 1) * cols..(hi + 1) * cols]);
    write_slice(dst);
    let rows: u64 = (lo..hi).map(|r| band.repetitions(r) as u64).sum();
    work(
        rows.saturating_mul((cols - 2) as u64)
            .saturating_mul(CELL_WORK),
    );
    let mut first = lo;
    let mut rest = dst;
    while first < hi {
        let reps = band.repetitions(first);
        let end = (first + 1..hi)
            .find(|&r| band.repetitions(r) != reps)
            .unwrap_or(hi);
        let (run, tail) = rest.split_at_mut((end - first) * cols);
        for _ in 0..reps {
            heat::compute(src, run, first, cols);
            std::hint::black_box(&mut *run);
        }
        rest = tail;
        first = end;
    }
}

/// Compares a final grid with the reference bit for bit.
pub(crate) fn compare(p: &HeatMovingParams, expected: &[f64], got: &[f64]) -> Outcome {
    heat::compare(NAME, &p.heat, expected, got)
}

/// Runs the kernel on `ex` (inside its pool) and checks it bitwise against heat's serial
/// reference.
pub fn verify<E: Executor>(ex: &E, p: &HeatMovingParams) -> Outcome {
    heat::verify_with(ex, NAME, &p.heat, |a, b| solve(ex, p, a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Serial;

    fn params(rows: usize, iters: usize, band: Option<usize>, hot: usize) -> HeatMovingParams {
        HeatMovingParams {
            heat: HeatParams {
                rows,
                cols: 5,
                leaf: 3,
                iters,
                ..HeatParams::default()
            },
            band,
            hot,
        }
    }

    /// The hot grid rows of sweep `t`, in order.
    fn hot_rows(p: &HeatMovingParams, t: usize) -> Vec<usize> {
        (1..p.heat.rows - 1)
            .filter(|&r| p.repetitions(t, r) == p.hot)
            .collect()
    }

    #[test]
    fn band_moves_across_the_interior() {
        // 20 interior rows, 4 sweeps: starts 0, 5, 10, 15; default band 5.
        let p = params(22, 4, None, 3);
        assert_eq!(p.interior_rows(), 20);
        assert_eq!(p.band_len(), 5);
        let starts: Vec<_> = (0..4).map(|t| p.band_start(t)).collect();
        assert_eq!(starts, [0, 5, 10, 15]);
        assert_eq!(hot_rows(&p, 0), [1, 2, 3, 4, 5]);
        assert_eq!(hot_rows(&p, 1), [6, 7, 8, 9, 10]);
        assert_eq!(hot_rows(&p, 3), [16, 17, 18, 19, 20]);
        // Every interior row is hot in exactly one sweep here.
        for r in 1..=20 {
            let hot = (0..4).filter(|&t| p.repetitions(t, r) == 3).count();
            assert_eq!(hot, 1, "row {r}");
        }
        // Cold rows are computed once, the boundary never.
        assert_eq!(p.repetitions(0, 6), 1);
        assert_eq!(p.repetitions(0, 0), 0);
        assert_eq!(p.repetitions(0, 21), 0);
    }

    #[test]
    fn band_wraps_around_the_end_of_the_interior() {
        // 10 interior rows, 3 sweeps: starts 0, 3, 6; a band of 7 ends at the last
        // interior row in sweep 1 and wraps to the first three in sweep 2.
        let p = params(12, 3, Some(7), 2);
        let starts: Vec<_> = (0..3).map(|t| p.band_start(t)).collect();
        assert_eq!(starts, [0, 3, 6]);
        assert_eq!(hot_rows(&p, 0), [1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(hot_rows(&p, 1), [4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(hot_rows(&p, 2), [1, 2, 3, 7, 8, 9, 10]);
        // A band of the whole interior is hot everywhere, every sweep.
        let all = params(12, 3, Some(10), 2);
        for t in 0..3 {
            assert_eq!(hot_rows(&all, t), (1..=10).collect::<Vec<_>>());
        }
        // Tiny grid: one interior row, default band 1.
        let one = params(3, 5, None, 4);
        assert_eq!(one.band_len(), 1);
        assert!((0..5).all(|t| one.repetitions(t, 1) == 4));
    }

    #[test]
    fn more_sweeps_than_rows_start_at_every_row() {
        // 4 interior rows, 10 sweeps: starts floor(t * 4 / 10).
        let p = params(6, 10, Some(1), 2);
        let starts: Vec<_> = (0..10).map(|t| p.band_start(t)).collect();
        assert_eq!(starts, [0, 0, 0, 1, 1, 2, 2, 2, 3, 3]);
        assert_eq!(params(6, 0, None, 2).band_start(0), 0);
    }

    #[test]
    fn solve_matches_heat_bit_for_bit() {
        for (rows, iters, band, hot) in [
            (12, 3, Some(7), 2),
            (22, 4, None, 3),
            (3, 2, None, 5),
            (37, 5, Some(1), 1),
            (20, 0, None, 8),
        ] {
            let p = params(rows, iters, band, hot);
            let outcome = verify(&Serial, &p);
            assert!(outcome.verified, "{p}: {outcome}");
            assert!(outcome.detail.starts_with(NAME), "{outcome}");
        }
    }

    #[test]
    fn sizes_round_trip() {
        let d = HeatMovingParams::default();
        assert_eq!(d.to_string(), "1024x512,leaf=8,iters=10,hot=8");
        assert_eq!(parse(&d.to_string()).unwrap(), d);
        assert_eq!(d.band_len(), 255);
        let p = parse("64x32, hot = 3, band=62 ,seed=5,leaf=2").unwrap();
        assert_eq!(p.band, Some(62));
        assert_eq!(p.hot, 3);
        assert_eq!(p.heat.leaf, 2);
        assert_eq!(p.heat.seed, 5);
        assert_eq!(p.to_string(), "64x32,leaf=2,iters=10,seed=5,band=62,hot=3");
        assert_eq!(parse(&p.to_string()).unwrap(), p);
        assert_eq!(parse("3x3,band=1").unwrap().band, Some(1));
    }

    #[test]
    fn broken_sizes_name_the_option() {
        for (s, reason) in [
            ("64x32,band=0", "band must be at least 1"),
            (
                "64x32,band=63",
                "band 63 is longer than the 62 interior rows",
            ),
            ("3x3,band=2", "band 2 is longer than the 1 interior rows"),
            ("64x32,hot=0", "hot must be at least 1"),
            ("64x32,warm=2", "unknown option \"warm\""),
            (
                "64x32,band=wide",
                "band \"wide\" is not a non-negative integer",
            ),
            ("64x32,hot=-1", "hot \"-1\" is not a non-negative integer"),
            ("64x32,hot=1,hot=2", "option \"hot\" is given twice"),
            ("64x32,leaf=0", "leaf"),
            ("64", "ROWSxCOLS"),
        ] {
            let err = parse(s).expect_err(s);
            assert!(err.contains(reason), "{s:?}: {err:?} lacks {reason:?}");
        }
        let err = parse("64x32,warm=2").unwrap_err();
        assert!(err.contains("band, hot"), "{err}");
    }
}
