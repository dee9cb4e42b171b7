//! The flags of `locus run`. Every flag comes before `--` (an unknown one is refused,
//! never taken for the program); the program and its arguments come after it.

use clap::Args;
use std::ffi::OsString;
use std::path::PathBuf;

/// What `-h` prints after the flags of `locus run`.
const EXIT_STATUS: &str = "Exit status: the program's own, or 128+N if signal N ended it \
(said on stderr); 2 bad input (a flag, a variable or a library locus refuses; the program \
did not start); 3 the run could not be made (no private folder in TMPDIR, no library \
beside locus, a team's workers that cannot start). SIGTERM, SIGINT and SIGHUP sent to \
locus run are passed to the program.";

/// `locus run`.
#[derive(Debug, Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct RunArgs {
    /// Scheduling policy of the program's teams (sets LOCUS_POLICY; `affinity`, which
    /// follows a schedule file, is not available to OpenMP programs).
    #[arg(long, value_name = "P")]
    pub(crate) policy: Option<String>,
    /// The machine to lay the workers over: a preset, an hwloc synthetic string, SxC, or
    /// an hwloc XML file (sets LOCUS_TOPOLOGY).
    #[arg(long, value_name = "M")]
    pub(crate) machine: Option<String>,
    /// Threads of a team (sets OMP_NUM_THREADS).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<usize>,
    /// Print the pools' statistics when the program exits (sets LOCUS_STATS=1), or say
    /// why there are none.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Write a trace of the program's teams to FILE, for ui.perfetto.dev (sets
    /// LOCUS_TRACE; a team's pool after the first writes FILE with `.N` before its
    /// extension).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// locus's libgomp: the built liblocus_omp.so, or a folder holding it (else
    /// LOCUS_OMP_LIB, else beside this binary); it must be an ELF shared library that
    /// exports locus's symbols.
    #[arg(long, value_name = "PATH")]
    pub(crate) library: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(required = true, trailing_var_arg = true, value_name = "PROGRAM")]
    pub(crate) command: Vec<OsString>,
}
