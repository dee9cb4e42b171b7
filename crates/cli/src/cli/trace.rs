//! The flags of `locus trace`.

use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `--top`: at least 1.
fn top(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("list at least one task".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of tasks".to_owned()),
    }
}

/// `locus trace`.
#[derive(Debug, Args)]
pub(crate) struct TraceArgs {
    /// What to do with a trace.
    #[command(subcommand)]
    pub(crate) command: TraceCommand,
}

/// The subcommands of `locus trace`.
#[derive(Debug, Subcommand)]
pub(crate) enum TraceCommand {
    /// Sum up a trace per squad: tasks run, busy, idle and asleep shares, steals in and
    /// out per tier, the tasks that moved between squads most often, dropped events.
    Summarize(SummarizeArgs),
}

/// `locus trace summarize`.
#[derive(Debug, Args)]
#[command(after_help = super::SHORT_EXIT_CODES, after_long_help = super::EXIT_CODES)]
pub(crate) struct SummarizeArgs {
    /// A trace written by the runtime (`locus bench --trace`, `locus run --trace`,
    /// LOCUS_TRACE) or by the simulator (`locus sim --trace`). It is checked as a viewer
    /// reads it: every slice ends, every track is named, every steal arrow joins two
    /// slices.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// Print the summary as one JSON document instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also draw the busy workers of each squad over time to OUT, an SVG file.
    #[arg(long, value_name = "OUT")]
    pub(crate) plot: Option<PathBuf>,
    /// How many of the tasks that moved between squads most often to list.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = top)]
    pub(crate) top: usize,
}
