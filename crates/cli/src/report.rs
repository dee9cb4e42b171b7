//! Writing reports: the number formats every table shares, stdout, and JSON documents.
//! Pure functions of their inputs (but for the writing), so they are tested without
//! running anything. Each command lays out its own tables from these.

use anyhow::{Context, Result};
use serde::ser::Serialize;
use std::io::Write;
use std::path::Path;

/// `v` with three significant digits (no exponent; large values keep all their
/// integer digits): `0.0123`, `1.23`, `12.3`, `123`, `1234`.
pub(crate) fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".to_owned();
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).max(0) as usize;
    let text = format!("{v:.decimals$}");
    // Rounding may add a digit (9.996 -> "10.00"): one decimal fewer then.
    let rounded: f64 = text.parse().unwrap_or(v);
    if decimals > 0 && rounded.abs() >= 10f64.powi(magnitude + 1) {
        return format!("{v:.prec$}", prec = decimals - 1);
    }
    text
}

/// A per-repetition count: exact below 100,000 (one decimal when fractional, as an
/// average over repetitions can be), else three significant digits with k or M.
pub(crate) fn count(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", sig3(v / 1e6))
    } else if v >= 1e5 {
        format!("{}k", sig3(v / 1e3))
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Writes `doc` as JSON to the output of `flag` (`--json`): atomically, and only to a new
/// or regular file (see [`locus_files::write_output`]).
pub(crate) fn write_json(flag: &str, path: &Path, doc: &impl Serialize) -> Result<()> {
    locus_files::write_output(flag, path, |out| {
        serde_json::to_writer_pretty(&mut *out, doc)?;
        out.write_all(b"\n")
    })?;
    Ok(())
}

/// Writes `text` to stdout and flushes it.
pub(crate) fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(0.012345), "0.0123");
        assert_eq!(sig3(1.2345), "1.23");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(123.45), "123");
        assert_eq!(sig3(1234.5), "1234");
        assert_eq!(sig3(9.996), "10.0");
        assert_eq!(sig3(10.275), "10.3");
        assert_eq!(sig3(0.09996), "0.100");
        assert_eq!(sig3(99.96), "100");
        assert_eq!(sig3(0.0), "0");
    }

    #[test]
    fn counts() {
        assert_eq!(count(42.0), "42");
        assert_eq!(count(2.5), "2.5");
        assert_eq!(count(99_999.0), "99999");
        assert_eq!(count(1_346_268.0), "1.35M");
        assert_eq!(count(250_000.0), "250k");
    }
}
