//! The flags of `locus sim` and its subcommands: `sweep`, `threads` and `matrix`.

use crate::policies::{self, Engine};
use clap::{Args, Subcommand};
use locus_mapper::workload::MIXES;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;

/// The machine `locus sim` simulates when none is given: the CATS/CAB papers' Opteron.
pub(crate) const DEFAULT_MACHINE: &str = "opteron-8380";

/// `locus sim`: one kernel input, several policies; or `locus sim sweep`.
#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = super::SHORT_KERNELS_HELP,
    after_long_help = super::kernels_help(Some(Engine::Simulator))
)]
pub(crate) struct SimArgs {
    /// `sweep`: the same simulation over a range of one parameter.
    #[command(subcommand)]
    pub(crate) sweep: Option<SimCommand>,
    #[command(flatten)]
    pub(crate) run: SimRunArgs,
}

/// The subcommands of `locus sim`.
#[derive(Debug, Subcommand)]
pub(crate) enum SimCommand {
    /// Simulate over a range of one parameter and plot the makespan.
    ///
    /// The parameter: input rows, cab's boundary level BL, or the mts batch.
    Sweep(Box<SweepArgs>),
    /// Simulate multi-threaded applications under the thread mapper.
    ///
    /// The applications run on a simulated multi-socket machine under linux-like
    /// spreading, sam, sam-mph and the best static placement, and their progress is
    /// compared.
    Threads(ThreadsArgs),
    /// Compare policies with ws over every kernel, size and machine; the worst ratios.
    ///
    /// Every kernel at sizes from the defaults to the papers' largest and beyond, on
    /// several machines, with each policy's worst ratio (`--quick`: the same in seconds,
    /// scaled down).
    Matrix(MatrixArgs),
}

/// Flags shared by `locus sim` and `locus sim sweep`.
#[derive(Debug, Args)]
pub(crate) struct SimCommonArgs {
    /// The simulated machine. [default: LOCUS_TOPOLOGY if set, else opteron-8380]
    ///
    /// A preset (`locus topo --list-presets`), an hwloc synthetic string, SxC shorthand,
    /// or an hwloc XML file (`lstopo --of xml`).
    #[arg(long, short = 'm', value_name = "M")]
    pub(crate) machine: Option<String>,

    /// Simulated workers, one per PU at most. [default: LOCUS_NUM_THREADS if set, else
    /// one per PU of the machine]
    #[arg(long, short = 't', value_name = "N", value_parser = super::threads)]
    pub(crate) threads: Option<usize>,

    /// The kernel's input (syntax under --help). [default: the kernel's default size]
    ///
    /// For heat the default is the CATS paper's 1024x512, 8-row leaves, 10 iterations.
    #[arg(long, short = 's', value_name = "S")]
    pub(crate) size: Option<String>,

    /// A Matrix Market file (.mtx) whose matrix replaces the one --size names.
    ///
    /// For the sparse kernels (spmv-crs, spmv-iter, spmv-ccs, spmm); the size's other
    /// options (iters, grain, seed) stay. Refused for other kernels and with a --size
    /// that names matrix=PATH itself.
    #[arg(long, value_name = "FILE")]
    pub(crate) matrix: Option<PathBuf>,

    /// Seed of the simulated workers' random victim choices and wake-up delays.
    ///
    /// The same seed and inputs give bit-identical results.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub(crate) seed: u64,

    /// A JSON file overriding some of the machine's latencies.
    ///
    /// Keys: clock_ghz, ipc, l1_hit, l2_hit, l3_hit, near_cache, remote_cache,
    /// local_dram, near_dram, remote_dram, spawn, probe_local, probe_remote, steal_local,
    /// steal_remote, in cycles; fill_buffers, per core; dram_gbps, per NUMA node, and
    /// link_gbps, per direction between two packages, in GB/s (0.1 to 100000; clock_ghz
    /// 0.1 to 10, ipc 0.01 to 64); l3_victim (true or false), prefetch_degree and
    /// prefetch_distance, in lines. [default: the preset's documented table, or generic
    /// values]
    #[arg(long, value_name = "FILE")]
    pub(crate) latencies: Option<PathBuf>,

    /// The memory clock: `overlap` or `serial`.
    ///
    /// `overlap`: misses overlap up to the core's fill buffers, and share each memory
    /// node's and each link's bandwidth, with queueing. `serial`: each access costs its
    /// latency, one after another, bandwidth unlimited (the simulator's first clock,
    /// kept for comparison).
    #[arg(long, value_name = "CLOCK", default_value = "overlap", value_parser = super::clock_kind)]
    pub(crate) clock: locus_sim::clock::ClockKind,

    /// Where a page's memory goes when it is first touched: `first-touch` or `interleave`.
    ///
    /// `first-touch`: the NUMA node of the core that touches it first, Linux's default.
    /// `interleave`: page p on node p mod nodes, as `numactl --interleave=all` places a
    /// program's memory.
    #[arg(long, value_name = "PLACEMENT", default_value = "first-touch", value_parser = super::placement)]
    pub(crate) memory: locus_sim::machine::Placement,

    /// Also write every result (per core and per socket counters included) as JSON.
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,

    /// Simulate even when the simulator's work (cache-line accesses and tasks, summed
    /// over the policies) is above its bound of 2^30 events, about two and a half
    /// minutes of one core.
    #[arg(long)]
    pub(crate) no_limit: bool,
}

/// `locus sim KERNEL`.
#[derive(Debug, Args)]
pub(crate) struct SimRunArgs {
    /// The kernel to record and simulate.
    #[arg(value_name = "KERNEL")]
    pub(crate) kernel: Option<String>,

    #[command(flatten)]
    pub(crate) common: SimCommonArgs,

    // Help: the policies' table (crate::policies).
    #[arg(long, short = 'p', value_name = "P", help = sim_policy_help())]
    pub(crate) policy: Option<String>,

    /// The schedule file --policy affinity follows (DIR/schedule.json of `locus
    /// profile KERNEL --out DIR`).
    ///
    /// It must have been made for this kernel and input (--size, --matrix, --iters) on
    /// this --machine with as many --threads; needs affinity in --policy.
    #[arg(long, value_name = "FILE")]
    pub(crate) schedule: Option<PathBuf>,

    /// Iterations of an iterative kernel, replacing the size's. [default: the size's]
    ///
    /// For the iterative kernels (heat, heat-ub, heat-loop, heat-iter, heat-moving, sor,
    /// sor-ub, spmv-crs, spmv-iter, spmv-ccs, spmm, radix, irreg, mapreduce), replacing
    /// the iterations their size gives.
    #[arg(long, value_name = "K")]
    pub(crate) iters: Option<usize>,

    /// Write a Chrome trace-event timeline (one track per simulated worker) that
    /// Perfetto opens; needs a single --policy.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,

    /// Print what each policy decided and its statistics.
    #[arg(long)]
    pub(crate) explain: bool,

    /// Also print L2 and L3 misses and DRAM accesses per socket.
    #[arg(long)]
    pub(crate) per_socket: bool,
}

/// The parameter a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SweepParam {
    /// The input's first number: grid rows (heat, sor, ge, mandelbrot), n otherwise.
    Rows,
    /// cab's boundary level BL (runs cab:bl=N; ws once as the reference; the plot marks
    /// Eq. 4's choice).
    Bl,
    /// The mts batch: tasks per bulk steal (runs mts:N; ws once as the reference).
    #[value(alias = "chunk")]
    Batch,
}

impl SweepParam {
    pub(crate) fn name(self) -> &'static str {
        match self {
            SweepParam::Rows => "rows",
            SweepParam::Bl => "bl",
            SweepParam::Batch => "batch",
        }
    }

    pub(crate) fn axis(self) -> &'static str {
        match self {
            SweepParam::Rows => "input rows (n)",
            SweepParam::Bl => "boundary level BL",
            SweepParam::Batch => "mts batch (tasks per bulk steal)",
        }
    }
}

/// `locus sim sweep KERNEL --param P --values V`.
#[derive(Debug, Args)]
#[command(
    after_help = super::SHORT_KERNELS_HELP,
    after_long_help = super::kernels_help(Some(Engine::Simulator))
)]
pub(crate) struct SweepArgs {
    /// The kernel to record and simulate.
    #[arg(value_name = "KERNEL")]
    pub(crate) kernel: String,

    /// The parameter to vary.
    #[arg(long, value_enum)]
    pub(crate) param: SweepParam,

    /// Its values: a comma-separated list of whole numbers and ranges A-B, e.g. 0-6 or
    /// 512,1024,2048.
    #[arg(long, value_name = "LIST")]
    pub(crate) values: String,

    #[command(flatten)]
    pub(crate) common: SimCommonArgs,

    // Help: the locality policies of the table (crate::policies).
    #[arg(long, short = 'p', value_name = "P", help = sweep_policy_help())]
    pub(crate) policy: Option<String>,

    /// Refused with an explanation: a schedule is for one input and a sweep runs several
    /// settings (`locus sim KERNEL --policy affinity --schedule FILE` runs one).
    #[arg(long, value_name = "FILE", hide = true)]
    pub(crate) schedule: Option<PathBuf>,

    /// Iterations of an iterative kernel (those `locus sim --help` lists), replacing the
    /// size's.
    #[arg(long, value_name = "K")]
    pub(crate) iters: Option<usize>,

    /// For a bl sweep: the input size S_d that Eq. 4's marker uses, e.g. 48MiB (the CAB
    /// paper counts one heat matrix). [default: the kernel's data size, every array]
    #[arg(long, value_name = "SIZE", value_parser = size_bytes)]
    pub(crate) data_bytes: Option<u64>,

    /// Write an SVG plot of the makespan against the parameter.
    #[arg(long, value_name = "FILE")]
    pub(crate) plot: Option<PathBuf>,
}

/// `--data-bytes`: a size with hwloc's units.
fn size_bytes(s: &str) -> Result<u64, String> {
    locus_topo::parse_size(s).map_err(|e| e.to_string())
}

/// The help of `locus sim KERNEL --policy`: the table's, and its default.
fn sim_policy_help() -> String {
    format!(
        "{} [default: LOCUS_POLICY if set, else all]",
        policies::flag_help(Engine::Simulator)
    )
}

/// The help of a sweep's `--policy`: its default, from the table's locality policies.
fn sweep_policy_help() -> String {
    format!(
        "Policies for a rows sweep [default: LOCUS_POLICY if set, else ws,{}]; for a bl \
         sweep, cab (with iteration \
         affinity, the default) or cab-paper (the published CAB). Not affinity: its schedule \
         is for one input (run `locus sim KERNEL --schedule FILE` instead)",
        policies::locality_list()
    )
}

/// The machine `locus sim threads` simulates when none is given: the SAM-MPH paper's
/// 40-CPU Ivy Bridge.
pub(crate) const THREADS_MACHINE: &str = "xeon-e5-2660v2";

/// The list of mixes under `--help`.
fn mixes_help() -> String {
    let mut s = String::from("Mixes:\n");
    for m in MIXES {
        let _ = writeln!(s, "  {:<10} {}", m.name, m.description);
    }
    s
}

/// `locus sim threads`.
#[derive(Debug, Args)]
#[command(after_help = mixes_help())]
pub(crate) struct ThreadsArgs {
    /// The workload mix (listed below), or `all`.
    #[arg(long, value_name = "NAME", default_value = "all")]
    pub(crate) mix: String,

    /// The simulated machine: a preset (`locus topo --list-presets`), an hwloc synthetic
    /// string, SxC or SxCxT shorthand, or an hwloc XML file. It needs at least as many
    /// PUs as the mix has threads.
    #[arg(long, short = 'm', value_name = "M", default_value = THREADS_MACHINE)]
    pub(crate) machine: String,

    /// Simulated seconds per run, in 100 ms intervals (above 0, at most 86400).
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub(crate) seconds: f64,

    /// Seed of the applications' phases and of the noise; the same seed gives the same
    /// table.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) seed: u64,

    /// Also write every result (per application, with the final placements) as JSON.
    #[arg(long, value_name = "FILE")]
    pub(crate) json: Option<PathBuf>,
}

/// `locus sim matrix`.
#[derive(Debug, Args)]
#[command(after_help = super::SHORT_EXIT_CODES, after_long_help = super::EXIT_CODES)]
pub(crate) struct MatrixArgs {
    /// Small inputs on a machine with a sixteenth of opteron-8380's caches, which behave
    /// as the full inputs do on the real machine: the matrix in seconds.
    #[arg(long)]
    pub(crate) quick: bool,

    /// The simulated machines, comma-separated (presets or synthetic strings).
    /// [default: opteron-8380,xeon-x7550,epyc-7763-2s; with --quick, the scaled machine]
    #[arg(long, short = 'm', value_name = "LIST")]
    pub(crate) machine: Option<String>,

    /// The policies compared with ws, comma-separated (the names `locus sim --policy`
    /// takes).
    #[arg(long, short = 'p', value_name = "P", default_value = policies::locality_list())]
    pub(crate) policy: String,

    /// Only these kernels, comma-separated. [default: every kernel of the matrix]
    #[arg(long, short = 'k', value_name = "LIST")]
    pub(crate) kernel: Option<String>,

    /// Exit with status 1 when a policy's worst ratio to ws is above this.
    #[arg(long, value_name = "RATIO", value_parser = limit)]
    pub(crate) limit: Option<f64>,

    /// Seed of the simulated workers' random choices.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub(crate) seed: u64,

    /// Run every case with N seeds (SEED to SEED+N-1) and report each policy's mean
    /// makespan over ws's: a program of a few dozen coarse tasks moves by 10% or more
    /// from one seed to the next, under ws too (1 to 100).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(crate) seeds: u32,

    /// Leave out what the runtime pays for each policy's own work (its placement calls,
    /// task events, profiling, shared queues), which the matrix charges by default from
    /// the runtime's calibration (crates/sim/calibration/runtime.toml).
    #[arg(long, conflicts_with = "calibration")]
    pub(crate) no_policy_costs: bool,

    /// Charge the policies' runtime costs from this calibration file instead of the one
    /// locus ships (the same format; `cargo bench -p locus --bench hot_path -- policy/`
    /// measures them).
    #[arg(long, value_name = "FILE")]
    pub(crate) calibration: Option<PathBuf>,
}

fn limit(s: &str) -> Result<f64, String> {
    match f64::from_str(s) {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("expected a ratio above 0, such as 1.05, not {s:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_positive_ratios() {
        assert_eq!(limit("1.05"), Ok(1.05));
        for bad in ["0", "-1", "nan", "inf", "x", ""] {
            assert!(limit(bad).is_err(), "{bad}");
        }
    }
}
