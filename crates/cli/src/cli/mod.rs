//! The command line as clap sees it: one subcommand per job, every flag documented with
//! its default. Only syntax is checked here (numbers, ranges); names (kernels, policies,
//! machines, sizes) are resolved by the subcommand's module so that their errors carry
//! the libraries' own explanations.
//!
//! Flags that the library also reads from the environment (`LOCUS_NUM_THREADS`,
//! `LOCUS_POLICY`, `LOCUS_TOPOLOGY`, `LOCUS_COUNTERS`) take it from there when not given;
//! that fallback is [`crate::given`]'s, so that errors name the variable.

mod bench_matrix;
mod map;
mod profile;
mod run;
mod sim;
mod trace;

pub(crate) use bench_matrix::{BenchCommand, BenchMatrixArgs};
pub(crate) use map::{MapArgs, SourceKind};
pub(crate) use profile::ProfileArgs;
pub(crate) use run::RunArgs;
#[cfg(test)]
pub(crate) use sim::THREADS_MACHINE;
pub(crate) use sim::{
    MatrixArgs, SimArgs, SimCommand, SimCommonArgs, SimRunArgs, SweepArgs, SweepParam, ThreadsArgs,
    DEFAULT_MACHINE,
};
pub(crate) use trace::{SummarizeArgs, TraceArgs, TraceCommand};

use crate::policies::{self, Engine};
use clap::{Args, Parser, Subcommand};
use locus_kernels::Kernel;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The exit statuses, as every subcommand's `--help` lists them.
pub(crate) const EXIT_CODES: &str = "Exit status: 0 success; 1 a result failed verification; \
2 bad input (a flag, variable, file or size locus refuses; nothing ran); 3 the run could not \
be made (a thread that cannot start, counters refused, an output that cannot be written).

Files: outputs (--json, --trace, --plot, profile --out) are written only to a new file or \
over a regular file this user could write with `>` (written in place: its mode and links \
stay), never through a symbolic link, to a device or FIFO, or over one of the run's own \
inputs; inputs are read only from regular files, up to a cap per format (a Matrix Market \
line: 1 MiB).

Limits: an input whose estimated memory is above what this process has available \
(MemAvailable in /proc/meminfo, or less under ulimit -v or -d or a cgroup's memory.max), \
or whose preparation and one run take more than 2^38 (2.7e11) instructions, is refused \
before anything is allocated, as is, for sim and profile, a task tree above the \
recorder's 2^24 tasks (a recording also stops at 2^24 tasks or 2^27 steps), and, for \
sim, simulations above 2^30 events (cache-line accesses and tasks, over every policy; \
--no-limit runs them); iterations (iters=, --iters) are 1 to 10000, --reps 1 to 10000, \
--warmup 0 to 1000.

Progress: on a terminal, bench and sim draw a bar on stderr; otherwise a run still going \
after 10 s prints a line to stderr every 10 s (locus: 20 s, 14/84 done; heat: rep 2/10).";

/// What `-h` prints after the flags of a command without kernels; `--help` prints
/// [`EXIT_CODES`] in full.
pub(crate) const SHORT_EXIT_CODES: &str = "Exit status: 0 success; 1 a result failed \
verification; 2 bad input; 3 the run could not be made. More (files, limits, progress): --help.";

/// What `-h` prints after the flags of a command that takes kernels; `--help` prints
/// [`kernels_help`].
pub(crate) const SHORT_KERNELS_HELP: &str = "Kernels with their --size syntax, the policies, \
exit status, files, limits and progress: --help.";

/// `--threads` (and `LOCUS_NUM_THREADS`): 1 up to the runtime's limit.
pub(crate) fn threads(s: &str) -> Result<usize, String> {
    let n = whole(s, "threads")?;
    match n {
        0 => Err("a pool needs at least one thread".to_owned()),
        n if n > locus::MAX_THREADS => Err(format!(
            "locus allows at most {} threads",
            locus::MAX_THREADS
        )),
        n => Ok(n),
    }
}

/// Most timed repetitions per executor: a median of 10,000 runs is as good as it gets,
/// and a typo of a few more digits should not run for days.
pub(crate) const MAX_REPS: usize = 10_000;

/// Most warm-up runs per executor (caches and pools are warm after a few).
pub(crate) const MAX_WARMUP: usize = 1_000;

/// `--reps`: 1 to [`MAX_REPS`].
fn reps(s: &str) -> Result<usize, String> {
    match whole(s, "repetitions")? {
        0 => Err("at least one timed repetition is needed".to_owned()),
        n if n > MAX_REPS => Err(format!(
            "at most {MAX_REPS} repetitions (a median settles long before)"
        )),
        n => Ok(n),
    }
}

/// `--warmup`: 0 to [`MAX_WARMUP`].
fn warmups(s: &str) -> Result<usize, String> {
    match whole(s, "warm-up runs")? {
        n if n > MAX_WARMUP => Err(format!("at most {MAX_WARMUP} warm-up runs")),
        n => Ok(n),
    }
}

fn whole(s: &str, what: &str) -> Result<usize, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("expected a whole number of {what}"))
}

/// locus: a locality-aware fork-join runtime for multi-socket machines.
///
/// Log verbosity follows RUST_LOG (default: warn), e.g. RUST_LOG=locus=debug. Logs go
/// to stderr.
#[derive(Debug, Parser)]
#[command(
    name = "locus",
    version,
    propagate_version = true,
    after_help = SHORT_EXIT_CODES,
    after_long_help = EXIT_CODES
)]
pub(crate) struct Cli {
    /// What to do; without one, this help is printed.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Show a machine's topology and the squads a pool would form on it.
    Topo(TopoArgs),
    /// Time the benchmark kernels under every policy against rayon, verifying each run.
    Bench(BenchArgs),
    /// Run the policies on a simulated multi-socket machine over a kernel's recorded
    /// task tree and measure its caches (`locus sim sweep --help` for sweeps).
    Sim(Box<SimArgs>),
    /// Map the threads of running programs onto sockets and hyperthreads from their
    /// hardware counters (the sharing-aware mapper, after SAM-MPH).
    Map(Box<MapArgs>),
    /// Profile a kernel's tasks (the cache lines each touches), build their affinity
    /// graph, partition it onto a machine's workers and write the schedule later runs
    /// follow.
    Profile(Box<ProfileArgs>),
    /// Run an OpenMP program (built with gcc -fopenmp) on locus's libgomp.
    Run(Box<RunArgs>),
    /// Read a trace of a real or simulated run (`--trace`): per squad, tasks, busy and
    /// idle shares, steals per tier, the tasks that moved most; `--plot` for an SVG.
    Trace(TraceArgs),
}

/// `locus topo`.
#[derive(Debug, Args)]
#[command(after_help = SHORT_EXIT_CODES, after_long_help = EXIT_CODES)]
pub(crate) struct TopoArgs {
    /// The machine to show: a preset (see --list-presets), an hwloc synthetic string
    /// ("pack:2 l3:1(size=32MiB) core:8 pu:2"), the shorthand SxC or SxCxT ("2x8"), or
    /// an hwloc XML file. [default: LOCUS_TOPOLOGY if set, else this machine, as far as
    /// the process's affinity mask allows]
    #[arg(long, short = 'm', value_name = "M")]
    pub(crate) machine: Option<String>,

    /// Number of workers whose squads to show; worker i runs on PU i in tree order,
    /// wrapping around. [default: LOCUS_NUM_THREADS if set, else the machine's PU count]
    #[arg(long, short = 't', value_name = "N", value_parser = threads)]
    pub(crate) threads: Option<usize>,

    /// Print the names of the built-in machines (with their synthetic strings) and exit.
    #[arg(long, conflicts_with_all = ["machine", "threads"])]
    pub(crate) list_presets: bool,
}

/// `locus bench`.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = SHORT_KERNELS_HELP,
    after_long_help = kernels_help(Some(Engine::Runtime))
)]
pub(crate) struct BenchArgs {
    /// `matrix`: every locality policy against ws, with the noise measured.
    #[command(subcommand)]
    pub(crate) command: Option<BenchCommand>,

    /// The kernel to run (one of those below), or `all` for every kernel at its default
    /// size.
    #[arg(value_name = "KERNEL", default_value = "all")]
    pub(crate) kernel: String,

    // Help: the policies' table (crate::policies).
    #[arg(long, short = 'p', value_name = "P", help = policies::flag_help(Engine::Runtime))]
    pub(crate) policy: Option<String>,

    /// Worker threads of every pool, locus and rayon alike.
    ///
    /// [default: the number of CPUs this process may use; with --machine, the
    /// described machine's PU count; LOCUS_NUM_THREADS if set]
    #[arg(long, short = 't', value_name = "N", value_parser = threads)]
    pub(crate) threads: Option<usize>,

    /// A described machine to lay under the locus pools.
    ///
    /// A virtual topology: squads follow the description, threads run on this machine's
    /// CPUs. A preset, an hwloc synthetic string, SxC shorthand or an hwloc XML file.
    /// Rayon is unaffected. [default: LOCUS_TOPOLOGY if set, else this machine]
    #[arg(long, short = 'm', value_name = "M")]
    pub(crate) machine: Option<String>,

    /// The kernel's problem size (syntax below); only with a single KERNEL.
    /// [default: the kernel's default size]
    #[arg(long, short = 's', value_name = "S")]
    pub(crate) size: Option<String>,

    /// A Matrix Market file (.mtx) whose matrix replaces the one --size names.
    ///
    /// For a single sparse KERNEL (spmv-crs, spmv-iter, spmv-ccs, spmm); the size's other
    /// options stay. Refused with a --size that names matrix=PATH itself.
    #[arg(long, value_name = "FILE")]
    pub(crate) matrix: Option<PathBuf>,

    /// The schedule file --policy affinity follows (DIR/schedule.json of `locus
    /// profile KERNEL --out DIR`).
    ///
    /// It must have been made for this KERNEL and input (--size, --matrix) on the
    /// machine the pools use (--machine, or this one) with as many --threads; needs
    /// affinity in --policy.
    #[arg(long, value_name = "FILE")]
    pub(crate) schedule: Option<PathBuf>,

    /// Timed repetitions per executor, interleaved across executors (at most 10000).
    #[arg(long, short = 'r', value_name = "R", default_value_t = 10,
          value_parser = reps)]
    pub(crate) reps: usize,

    /// Untimed warm-up runs per executor before the timed ones (verified all the same; at
    /// most 1000).
    #[arg(long, short = 'w', value_name = "W", default_value_t = 2,
          value_parser = warmups)]
    pub(crate) warmup: usize,

    /// Also write all results as one JSON document to FILE (written atomically).
    /// [default: no JSON]
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,

    /// Leave rayon out (no baseline, so no ratios). [default: rayon is run]
    #[arg(long)]
    pub(crate) no_rayon: bool,

    /// After each kernel, print what each policy decided and from what.
    ///
    /// For cab the inputs of Eq. 4 and the boundary level; for cats the counter source,
    /// the SOIDs at the top levels, the leaf inter-squad tasks and whether the program
    /// was judged CPU-bound; and every policy's own statistics (inter-squad tasks per
    /// squad, busy refusals, profile iterations). Also written to --json.
    #[arg(long)]
    pub(crate) explain: bool,

    /// Counter source for policies that measure tasks: perf, declared or off.
    ///
    /// Used by cats, and by cab learning B and S_d: perf (hardware counters; an error
    /// where they cannot be opened), declared (the bytes tasks declare through
    /// locus::footprint), or off. [default: perf where it works, else declared, and the
    /// output says which; LOCUS_COUNTERS if set]
    #[arg(long, value_name = "SOURCE", value_parser = counter_kind)]
    pub(crate) counters: Option<locus::counters::CounterKind>,

    /// Where the locus pools' workers run: pu, squad or none.
    ///
    /// pu: each on its own CPU; squad: each on the CPUs of its squad (a library that
    /// sizes a pool of its own inside a task sees the squad's CPUs, not one); none: the
    /// kernel places them. ws-unpinned is never pinned. [default: pu; LOCUS_PIN if set]
    #[arg(long, value_name = "WHERE", value_parser = pinning)]
    pub(crate) pin: Option<locus::Pinning>,

    /// Write a trace of each locus pool's run to FILE, for ui.perfetto.dev.
    ///
    /// Chrome trace-event JSON, as `locus sim --trace` writes: one track per worker
    /// grouped by squad, a slice per task, steals as arrows from victim to thief with
    /// the tier crossed, the policy's placements, idle spells. With several policies or
    /// kernels, each pool writes FILE with `.KERNEL.POLICY` before its extension.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
}

/// The `--help` text listing the kernels, their size syntax and default sizes, and the
/// policies `engine` runs, if the command takes `--policy`.
pub(crate) fn kernels_help(engine: Option<Engine>) -> String {
    let mut out = String::from("Kernels (KERNEL) and their --size syntax:\n");
    for k in Kernel::ALL {
        let _ = writeln!(
            out,
            "  {:<11} {}\n  {:<11} [default size: {}]",
            k.name(),
            k.size_syntax(),
            "",
            k.default_params()
        );
    }
    if let Some(engine) = engine {
        out.push('\n');
        out.push_str(&policies::section(engine));
    }
    out.push_str("\nEvery run is verified against a serial reference.\n");
    out.push_str(EXIT_CODES);
    out
}

/// `--pin` (and `LOCUS_PIN`): pu, squad or none.
pub(crate) fn pinning(s: &str) -> Result<locus::Pinning, String> {
    s.parse()
}

/// `--clock`: the simulator's memory clock, `overlap` or `serial`.
pub(crate) fn clock_kind(s: &str) -> Result<locus_sim::clock::ClockKind, String> {
    locus_sim::clock::ClockKind::parse(s).ok_or_else(|| {
        format!("unknown clock {s:?}; expected overlap (fill buffers and bandwidth) or serial")
    })
}

/// `--memory`: the simulator's page placement, `first-touch` or `interleave`.
pub(crate) fn placement(s: &str) -> Result<locus_sim::machine::Placement, String> {
    locus_sim::machine::Placement::parse(s).ok_or_else(|| {
        format!(
            "unknown memory placement {s:?}; expected first-touch (the node of the first \
             core to touch a page) or interleave (pages round-robin over the nodes)"
        )
    })
}

/// `--counters` (and `LOCUS_COUNTERS`): perf, declared or off.
pub(crate) fn counter_kind(s: &str) -> Result<locus::counters::CounterKind, String> {
    s.parse()
        .map_err(|e: locus::counters::CounterError| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn bench_defaults() {
        let cli = Cli::try_parse_from(["locus", "bench"]).unwrap();
        let Some(Command::Bench(b)) = cli.command else {
            panic!("not bench")
        };
        assert_eq!(b.kernel, "all");
        assert_eq!((b.reps, b.warmup, b.no_rayon), (10, 2, false));
        assert!(b.size.is_none() && b.json.is_none());
    }

    #[test]
    fn zero_threads_and_reps_are_refused() {
        assert!(Cli::try_parse_from(["locus", "bench", "--threads", "0"]).is_err());
        assert!(Cli::try_parse_from(["locus", "bench", "--reps", "0"]).is_err());
        assert!(Cli::try_parse_from(["locus", "topo", "--threads", "0"]).is_err());
        assert!(Cli::try_parse_from(["locus", "bench", "--threads", "4097"]).is_err());
        assert!(Cli::try_parse_from(["locus", "bench", "--threads", "x"]).is_err());
        assert!(Cli::try_parse_from(["locus", "bench", "--warmup", "0"]).is_ok());
    }

    /// The `--help` text of a subcommand path, e.g. `["sim"]`.
    fn help(path: &[&str]) -> String {
        let mut cmd = Cli::command();
        let mut sub = &mut cmd;
        for name in path {
            sub = sub.find_subcommand_mut(name).expect("a subcommand");
        }
        sub.render_long_help().to_string()
    }

    #[test]
    fn sim_and_bench_help_explain_schedules_and_matrices() {
        for path in [&["sim"][..], &["bench"]] {
            let help = help(path);
            for text in ["--schedule", "--matrix", "static", "affinity", "`all`: ws"] {
                assert!(
                    help.contains(text),
                    "{path:?}: {text} missing from:\n{help}"
                );
            }
        }
        let sim = help(&["sim"]);
        assert!(sim.contains("schedule(static)"), "{sim}");
        assert!(sim.contains("mapreduce), replacing"), "--iters: {sim}");
        let sweep = help(&["sim", "sweep"]);
        assert!(
            !sweep.contains("--schedule <FILE>"),
            "sweeps take no schedule: {sweep}"
        );
    }
}
