//! The flags of `locus map`.

use clap::{Args, ValueEnum};
use locus_mapper::daemon;
use std::time::Duration;

/// `--interval`: a duration with a unit.
fn interval(s: &str) -> Result<Duration, String> {
    daemon::parse_interval(s).map_err(|e| e.to_string())
}

/// `--rounds`: at least 1.
fn rounds(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("at least one round is needed".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of rounds".to_owned()),
    }
}

/// `--pid`: a process id (above 0).
fn pid(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("0 is not a process id".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a process id (a whole number)".to_owned()),
    }
}

/// Where the counters come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SourceKind {
    /// Hardware counters of the selected processes' threads (perf_event_open); moves
    /// are applied with sched_setaffinity.
    Perf,
    /// The simulated machine of `locus sim threads` running --mix; no real process is
    /// watched or touched.
    Sim,
}

/// `locus map`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  locus map --comm myapp --dry-run          print what would be done for myapp's threads
  locus map --user --restore                map all my processes; undo on Ctrl-C
  locus map --source sim --rounds 50        the decision loop on a simulated machine

Each round prints one line, and one line per move with its reason. Hardware counters
must be available (bare metal, or a virtual machine with a virtual PMU, and
kernel.perf_event_paranoid at 2 or lower); where they are not, locus map says why and
exits 1 without touching anything.")]
pub(crate) struct MapArgs {
    /// Watch the process with this id (repeatable).
    #[arg(long, value_name = "PID", value_parser = pid)]
    pub(crate) pid: Vec<u32>,

    /// Watch every process whose command name (/proc/PID/comm) is NAME (repeatable).
    /// The kernel keeps 15 bytes of a name; longer names are compared on those.
    #[arg(long, value_name = "NAME")]
    pub(crate) comm: Vec<String>,

    /// Watch every process of the user running locus map (never locus map itself,
    /// never kernel threads).
    #[arg(long)]
    pub(crate) user: bool,

    /// Time between the starts of two decision rounds: a number and a unit (us, ms, s,
    /// min), from 1ms to 1h.
    #[arg(long, value_name = "D", default_value = "100ms", value_parser = interval)]
    pub(crate) interval: Duration,

    /// Print the decisions instead of applying them: no thread's CPU mask is changed
    /// (with --source sim, no simulated thread moves either).
    #[arg(long)]
    pub(crate) dry_run: bool,

    /// When stopping (after --rounds, or on SIGINT or SIGTERM), give every thread the
    /// mapper moved its original CPU mask back. [default: moved threads stay pinned]
    #[arg(long)]
    pub(crate) restore: bool,

    /// Stop after N rounds. [default: run until SIGINT or SIGTERM]
    #[arg(long, value_name = "N", value_parser = rounds)]
    pub(crate) rounds: Option<u64>,

    /// Where the counters come from.
    #[arg(long, value_enum, value_name = "SOURCE", default_value = "perf")]
    pub(crate) source: SourceKind,

    /// With --source sim: the workload mix to simulate (`locus sim threads --help`
    /// lists them). [default: the first mix of that list]
    #[arg(long, value_name = "NAME")]
    pub(crate) mix: Option<String>,

    /// With --source sim: the simulated machine, a preset (`locus topo
    /// --list-presets`). [default: xeon-e5-2660v2, the paper's 2-socket Ivy Bridge]
    /// With --source perf the mapper uses this machine's own topology.
    #[arg(long, short = 'm', value_name = "PRESET")]
    pub(crate) machine: Option<String>,
}
