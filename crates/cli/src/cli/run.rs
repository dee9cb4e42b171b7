//! The flags of `locus run`.

use clap::Args;
use std::ffi::OsString;
use std::path::PathBuf;

/// `locus run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Scheduling policy of the program's teams (sets LOCUS_POLICY).
    #[arg(long, value_name = "P")]
    pub(crate) policy: Option<String>,
    /// The machine to lay the workers over: a preset, an hwloc synthetic string, SxC, or
    /// an hwloc XML file (sets LOCUS_TOPOLOGY).
    #[arg(long, value_name = "M")]
    pub(crate) machine: Option<String>,
    /// Threads of a team (sets OMP_NUM_THREADS).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Print the pools' statistics when the program exits (sets LOCUS_STATS=1).
    #[arg(long)]
    pub(crate) stats: bool,
    /// locus's libgomp: the built liblocus_omp.so, or a folder holding it.
    #[arg(long, value_name = "PATH", env = "LOCUS_OMP_LIB")]
    pub(crate) library: Option<PathBuf>,
    /// The program and its arguments.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROGRAM"
    )]
    pub(crate) command: Vec<OsString>,
}
