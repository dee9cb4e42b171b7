//! What the 2-D grid kernels (heat, sor and their `-ub` variants) share: the
//! `ROWSxCOLS` size syntax, the initial grid, and the bitwise comparison with the
//! reference. No footprint (nothing here runs inside a task).

use crate::rng::SplitMix64;
use crate::size;
use crate::Outcome;

/// Temperature of the hot (top) edge.
const HOT: f64 = 100.0;

/// Parses the main part `ROWSxCOLS` of a grid size (both at least 3, the grid small
/// enough to allocate as `f64`); the error is the reason.
pub(crate) fn parse_shape(main: &str) -> Result<(usize, usize), String> {
    let Some((r, c)) = main.split_once(['x', 'X']) else {
        return Err(format!("grid {main:?} is not of the form ROWSxCOLS"));
    };
    let rows: usize = size::number("ROWS", r)?;
    let cols: usize = size::number("COLS", c)?;
    if rows < 3 || cols < 3 {
        return Err(format!(
            "grid {rows}x{cols} is too small: rows and columns must be at least 3"
        ));
    }
    match rows.checked_mul(cols) {
        Some(cells) if cells <= isize::MAX as usize / std::mem::size_of::<f64>() => {}
        _ => return Err(format!("grid {rows}x{cols} is too large")),
    }
    Ok((rows, cols))
}

/// Parses a `leaf=L` value (at least 1 row).
pub(crate) fn parse_leaf(v: &str) -> Result<usize, String> {
    let leaf = size::number("leaf", v)?;
    if leaf == 0 {
        return Err("leaf must be at least 1 row".to_owned());
    }
    Ok(leaf)
}

/// Panics unless the grid is at least 3x3.
pub(crate) fn check_shape(what: &str, rows: usize, cols: usize) {
    assert!(
        rows >= 3 && cols >= 3,
        "{what}: grid {rows}x{cols} is smaller than 3x3"
    );
}

/// The initial grid (row-major, `rows * cols` cells): hot top edge (100.0), the other
/// edges at 0.0, a seeded uniform `[0, 1)` interior.
///
/// # Panics
///
/// Panics if `rows` or `cols` is below 3.
pub(crate) fn initial(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
    check_shape("grid", rows, cols);
    let mut rng = SplitMix64::new(seed);
    let mut grid = vec![0.0; rows * cols];
    for (r, row) in grid.chunks_exact_mut(cols).enumerate() {
        if r == 0 {
            row.fill(HOT);
        } else if r + 1 < rows {
            let n = row.len();
            for x in &mut row[1..n - 1] {
                *x = rng.next_f64();
            }
        }
    }
    grid
}

/// Compares a final `rows x cols` grid with the reference bit for bit. `what` names the
/// run ("heat 1024x512 after 10 sweeps").
pub(crate) fn compare(what: &str, cols: usize, expected: &[f64], got: &[f64]) -> Outcome {
    if expected.len() != got.len() {
        return Outcome::fail(format!(
            "{what}: result has {} cells, reference {}",
            got.len(),
            expected.len()
        ));
    }
    let mut differ = 0usize;
    let mut first = None;
    for (i, (x, y)) in got.iter().zip(expected).enumerate() {
        if x.to_bits() != y.to_bits() {
            differ += 1;
            first.get_or_insert((i, *x, *y));
        }
    }
    match first {
        None => {
            let sum: f64 = got.iter().sum();
            Outcome::pass(format!(
                "{what}: bitwise equal to the serial reference (sum {sum:.6})"
            ))
        }
        Some((i, x, y)) => Outcome::fail(format!(
            "{what}: {differ} cells differ from the serial reference; \
             first at row {}, column {}: got {x:e}, expected {y:e}",
            i / cols,
            i % cols
        )),
    }
}
