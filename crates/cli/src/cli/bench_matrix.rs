//! The flags of `locus bench matrix`.

use crate::policies;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::str::FromStr;

/// The subcommands of `locus bench`.
#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time every locality policy against ws over every kernel, fine- and
    /// coarse-grained, on virtual machines of several squads, with the noise measured.
    ///
    /// Each machine runs ws twice (two pools): the spread of ws against itself is the
    /// row's noise, and a policy loses a row only when its ratio to ws is above both
    /// --limit and that noise. One machine has more workers than this machine has CPUs
    /// and is marked oversubscribed.
    Matrix(Box<BenchMatrixArgs>),
}

/// `locus bench matrix`.
#[derive(Debug, Args)]
#[command(after_help = super::SHORT_EXIT_CODES, after_long_help = super::EXIT_CODES)]
pub(crate) struct BenchMatrixArgs {
    /// Small inputs of five kernels and fewer repetitions: the matrix in seconds.
    #[arg(long)]
    pub(crate) quick: bool,

    /// The virtual machines, comma-separated (presets, synthetic strings or SxC).
    #[arg(long, short = 'm', value_name = "LIST", default_value = "2x1,2x2")]
    pub(crate) machine: String,

    /// Workers of every pool on the machines of --machine.
    #[arg(long, short = 't', value_name = "N", default_value_t = 2,
          value_parser = super::threads)]
    pub(crate) threads: usize,

    /// Leave out the oversubscribed machine (two squads of as many workers as this
    /// process has CPUs each, so twice as many workers as CPUs).
    #[arg(long)]
    pub(crate) no_oversubscribed: bool,

    /// The policies compared with ws, comma-separated (the names `locus bench --policy`
    /// takes).
    #[arg(long, short = 'p', value_name = "P", default_value = policies::locality_list())]
    pub(crate) policy: String,

    /// Only these kernels, comma-separated. [default: every kernel of the matrix]
    #[arg(long, short = 'k', value_name = "LIST")]
    pub(crate) kernel: Option<String>,

    /// Timed repetitions per pool, interleaved across the pools (at most 10000).
    /// [default: 11; with --quick, 3]
    #[arg(long, short = 'r', value_name = "R", value_parser = super::reps)]
    pub(crate) reps: Option<usize>,

    /// Untimed warm-up runs per pool (at most 1000). [default: 2; with --quick, 1]
    #[arg(long, short = 'w', value_name = "W", value_parser = super::warmups)]
    pub(crate) warmup: Option<usize>,

    /// Exit with status 1 when a policy's ratio to ws is above this on a row where it is
    /// also above the row's noise (ws against itself).
    #[arg(long, value_name = "RATIO", value_parser = limit)]
    pub(crate) limit: Option<f64>,

    /// Also write every row as one JSON document to FILE. [default: no JSON]
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
}

/// `--limit`: a ratio above 0.
fn limit(s: &str) -> Result<f64, String> {
    match f64::from_str(s) {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("expected a ratio above 0, such as 1.03, not {s:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_positive_ratios() {
        assert_eq!(limit("1.03"), Ok(1.03));
        for bad in ["0", "-1", "nan", "inf", "x", ""] {
            assert!(limit(bad).is_err(), "{bad}");
        }
    }
}
