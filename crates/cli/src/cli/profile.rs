//! The flags of `locus profile`.

use clap::Args;
use locus_profile::graph::{DEFAULT_DENSE_RATIO, DEFAULT_MAX_EDGES};
use locus_profile::partition::DEFAULT_TOLERANCE;
use locus_profile::profile::DEFAULT_CAP;
use std::path::PathBuf;

/// `locus profile KERNEL --out DIR`.
#[derive(Debug, Args)]
#[command(
    after_help = super::SHORT_KERNELS_HELP,
    after_long_help = super::kernels_help(None)
)]
pub(crate) struct ProfileArgs {
    /// The kernel to record and profile.
    #[arg(value_name = "KERNEL")]
    pub(crate) kernel: String,

    /// The kernel's input (syntax below). [default: the kernel's default size]
    #[arg(long, short = 's', value_name = "S")]
    pub(crate) size: Option<String>,

    /// A Matrix Market file (.mtx) whose matrix replaces the one --size names, for the
    /// sparse kernels (spmv-crs, spmv-iter, spmv-ccs, spmm); the schedule is then for this file's
    /// content. Refused for other kernels and with a --size that names matrix=PATH.
    #[arg(long, value_name = "FILE")]
    pub(crate) matrix: Option<PathBuf>,

    /// The machine the schedule is for: a preset (`locus topo --list-presets`), an hwloc
    /// synthetic string, SxC shorthand, or an hwloc XML file. Later runs follow the
    /// schedule only on this machine with this many workers. [default: LOCUS_TOPOLOGY if
    /// set, else this machine]
    #[arg(long, short = 'm', value_name = "M")]
    pub(crate) machine: Option<String>,

    /// Workers to place tasks on; worker i runs on PU i in tree order, wrapping around,
    /// as in a locus pool. [default: LOCUS_NUM_THREADS if set, else one per PU of the
    /// machine]
    #[arg(long, short = 't', value_name = "N", value_parser = super::threads)]
    pub(crate) threads: Option<usize>,

    /// The folder to write profile.json, graph.dot, graph.metis and schedule.json into.
    /// Created if missing (its parent must exist); a folder that already holds a profile
    /// is refused unless --force is given.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub(crate) out: PathBuf,

    /// Replace the profile files already in --out (files of other names are left alone).
    #[arg(long)]
    pub(crate) force: bool,

    /// DenseRatio: a cache line touched by more than this fraction of the tasks is left
    /// out of the affinity graph (a global every task reads would link every pair). 0
    /// gives no edges, 1 keeps every pair that shares a line.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_DENSE_RATIO,
          value_parser = dense_ratio)]
    pub(crate) dense_ratio: f64,

    /// Balance tolerance: the most a worker's work may exceed its share, as a ratio
    /// (1.05: 5% more). Split evenly over the levels of the hierarchy the partition
    /// goes through (NUMA nodes or packages, squads, workers).
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE,
          value_parser = tolerance)]
    pub(crate) tolerance: f64,

    /// Most edges the affinity graph may have; a graph with more is refused (lower
    /// --dense-ratio, or raise this where memory allows: each million edges costs about
    /// 40 MB while building and partitioning).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EDGES, value_parser = max_edges)]
    pub(crate) max_edges: usize,

    /// Most runs of contiguous cache lines kept per task; a task past it keeps its
    /// lowest-addressed runs and is counted as truncated.
    #[arg(long, value_name = "RUNS", default_value_t = DEFAULT_CAP, value_parser = cap)]
    pub(crate) cap: usize,
}

/// `--dense-ratio`: a fraction in [0, 1].
fn dense_ratio(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err("expected a fraction from 0 (no edges) to 1 (every shared line)".to_owned()),
    }
}

/// `--tolerance`: above 1, at most 10.
fn tolerance(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 1.0 && t <= locus_profile::partition::MAX_TOLERANCE => Ok(t),
        _ => Err("expected a ratio above 1 and at most 10, e.g. 1.05".to_owned()),
    }
}

/// `--max-edges`: 1 up to what METIS's 32-bit indices take.
fn max_edges(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=1 << 29).contains(&n) => Ok(n),
        _ => Err("expected a whole number of edges from 1 to 536870912 (2^29)".to_owned()),
    }
}

/// `--cap`: at least 1.
fn cap(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number of runs, at least 1".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values_are_checked() {
        assert_eq!(dense_ratio("0.5"), Ok(0.5));
        assert!(dense_ratio("1.5").is_err() && dense_ratio("x").is_err());
        assert!(dense_ratio("NaN").is_err());
        assert_eq!(tolerance("1.1"), Ok(1.1));
        assert!(tolerance("1").is_err() && tolerance("11").is_err());
        assert_eq!(cap("7"), Ok(7));
        assert!(cap("0").is_err());
        assert!(super::super::threads("0").is_err());
    }
}
