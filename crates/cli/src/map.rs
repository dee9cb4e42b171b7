//! `locus map`: the sharing-aware thread mapper (after SAM-MPH) as a command.
//!
//! With `--source perf` (the default) it watches the threads of the processes selected
//! by `--pid`, `--comm` or `--user` through per-thread hardware counters, decides every
//! `--interval` with the decision library ([`locus_mapper::Mapper`]) on this machine's
//! topology, and pins threads with `sched_setaffinity` (or, with `--dry-run`, only
//! prints what it would do). Where hardware counters cannot be opened (most virtual
//! machines), it says why and exits 1 before touching anything. With `--source sim` it
//! runs the same loop on the simulated machine of `locus sim threads`, over a workload
//! mix, and asks nothing of real processes.
//!
//! Every argument is checked before anything runs (bad input exits 2). Each round and
//! each move is a line on stdout, the closing summary too; errors and warnings go to
//! stderr through the log. SIGINT and SIGTERM end the loop after the current round
//! (`--restore` then puts the original CPU masks back); a second signal ends the
//! process at once.

use crate::app::Failure;
use anyhow::{anyhow, Context};
use clap::{Args, ValueEnum};
use locus_mapper::act::{Actuator, SystemCpuBinding};
use locus_mapper::daemon::{self, DaemonError, LoopConfig};
use locus_mapper::procs::{Caller, Procfs, Selection};
use locus_mapper::sample::PerfSource;
use locus_mapper::workload::{linux_placement, MixSpec, SimSource, World, MIXES};
use locus_mapper::{Config, MachineShape, Mapper, SampleSource};
use locus_topo::Topology;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The first line of the error for a run without a selection.
pub(crate) const NO_SELECTION: &str = "select processes with --pid, --comm or --user";

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

impl MapArgs {
    fn selection(&self) -> Selection {
        Selection {
            pids: self.pid.clone(),
            comms: self.comm.clone(),
            user: self.user,
        }
    }

    fn loop_config(&self) -> LoopConfig {
        LoopConfig {
            interval: self.interval,
            rounds: self.rounds,
            dry_run: self.dry_run,
            restore: self.restore,
        }
    }
}

/// Runs `locus map`.
pub(crate) fn run(args: &MapArgs) -> Result<(), Failure> {
    match args.source {
        SourceKind::Perf => run_perf(args),
        SourceKind::Sim => run_sim(args),
    }
}

/// This machine as the mapper sees it: every CPU sysfs lists, not only those this
/// process may use (the watched processes may be allowed others).
fn this_machine() -> anyhow::Result<MachineShape> {
    let root = Path::new("/sys/devices/system");
    let topology = Topology::from_sysfs(root, None)
        .with_context(|| format!("cannot read this machine's topology from {root:?}"))?;
    Ok(MachineShape::from_topology(&topology))
}

fn run_perf(args: &MapArgs) -> Result<(), Failure> {
    let selection = args.selection();
    if selection.is_empty() {
        return Err(Failure::Input(anyhow!(
            "{NO_SELECTION} (or --source sim for a simulated machine)"
        )));
    }
    for (given, flag) in [
        (args.mix.is_some(), "--mix"),
        (args.machine.is_some(), "--machine"),
    ] {
        if given {
            return Err(Failure::Input(anyhow!(
                "{flag} describes the simulated machine of --source sim; with --source perf \
                 the mapper watches this machine"
            )));
        }
    }
    let caller = Caller::current();
    Procfs::system()
        .check(&selection, &caller)
        .map_err(|e| Failure::Input(e.into()))?;
    let machine = this_machine().map_err(Failure::Run)?;
    let mut source = PerfSource::open(selection.clone())
        .context("locus map needs per-thread hardware counters (--source sim runs the same loop on a simulated machine)")
        .map_err(Failure::Run)?;
    let mut mapper = Mapper::try_new(machine.clone(), Config::default())
        .context("cannot build the mapper for this machine")
        .map_err(Failure::Run)?;
    let header = format!(
        "locus map: watching {} with perf ({}) every {:?} on this machine ({} socket(s), {} PUs){}\n",
        describe(&selection),
        source.table(),
        args.interval,
        machine.sockets.len(),
        machine.num_pus(),
        if args.dry_run { "; dry run: nothing is changed" } else { "" }
    );
    let mut actuator = Actuator::new(SystemCpuBinding::new());
    let actuator = if args.dry_run {
        None
    } else {
        Some(&mut actuator)
    };
    run_loop(args, &header, &mut source, &mut mapper, actuator)
}

fn run_sim(args: &MapArgs) -> Result<(), Failure> {
    if !args.selection().is_empty() {
        return Err(Failure::Input(anyhow!(
            "--pid, --comm and --user select real processes; --source sim simulates its own \
             threads and touches no process"
        )));
    }
    let SimSetup {
        mut source,
        machine,
        description,
    } = SimSetup::new(args.mix.as_deref(), args.machine.as_deref()).map_err(Failure::Input)?;
    let mut mapper = Mapper::try_new(machine, Config::default())
        .context("cannot build the mapper for the simulated machine")
        .map_err(Failure::Run)?;
    let header = format!(
        "locus map: {description}, a decision round every {:?}{}\n",
        args.interval,
        if args.dry_run {
            "; dry run: the simulated threads stay where they are"
        } else {
            ""
        }
    );
    run_loop::<SystemCpuBinding>(args, &header, &mut source, &mut mapper, None)
}

/// The machine `--source sim` simulates when none is given: the paper's 40-CPU Ivy Bridge.
pub(crate) const DEFAULT_SIM_MACHINE: &str = "xeon-e5-2660v2";

/// The seed of the simulated mix's phases and noise.
const SIM_SEED: u64 = 1;

/// The simulated machine and mix of `--source sim`.
struct SimSetup {
    source: SimSource,
    machine: MachineShape,
    description: String,
}

impl SimSetup {
    /// The mix (default: the first of [`MIXES`]) on the machine (default:
    /// [`DEFAULT_SIM_MACHINE`]), its threads spread as Linux would start them.
    fn new(mix: Option<&str>, machine: Option<&str>) -> anyhow::Result<SimSetup> {
        let names = || MIXES.iter().map(|m| m.name).collect::<Vec<_>>().join(", ");
        let mix = match mix {
            Some(name) => MixSpec::find(name)
                .with_context(|| format!("unknown --mix {name:?}; the mixes are: {}", names()))?,
            None => MIXES
                .first()
                .context("the simulator lists no workload mix")?,
        };
        let spec = machine.unwrap_or(DEFAULT_SIM_MACHINE);
        let topology =
            Topology::parse_spec(spec).with_context(|| format!("bad --machine {spec:?}"))?;
        let shape = MachineShape::from_topology(&topology);
        let placement = linux_placement(&shape, mix.threads());
        let world = World::new(mix, &topology, SIM_SEED, &placement)
            .with_context(|| format!("cannot simulate mix {:?} on {spec:?}", mix.name))?;
        let description = format!(
            "simulating mix {} ({}; {} threads) on {} ({} socket(s), {} PUs), threads spread \
             as Linux starts them",
            mix.name,
            mix.description,
            mix.threads(),
            topology.name(),
            shape.sockets.len(),
            shape.num_pus()
        );
        Ok(SimSetup {
            source: SimSource::new(world),
            machine: shape,
            description,
        })
    }
}

/// The selection in words.
fn describe(selection: &Selection) -> String {
    let mut parts = Vec::new();
    if !selection.pids.is_empty() {
        let pids: Vec<String> = selection.pids.iter().map(u32::to_string).collect();
        parts.push(format!("pid {}", pids.join(", ")));
    }
    if !selection.comms.is_empty() {
        parts.push(format!("command {}", selection.comms.join(", ")));
    }
    if selection.user {
        parts.push("every process of this user".to_owned());
    }
    parts.join("; ")
}

fn run_loop<A: locus_mapper::act::CpuBinding>(
    args: &MapArgs,
    header: &str,
    source: &mut dyn SampleSource,
    mapper: &mut Mapper,
    actuator: Option<&mut Actuator<A>>,
) -> Result<(), Failure> {
    let stop = daemon::stop_on_signals()
        .context("cannot install the SIGINT/SIGTERM handlers")
        .map_err(Failure::Run)?;
    let mut out = std::io::stdout().lock();
    out.write_all(header.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
        .map_err(Failure::Run)?;
    let config = args.loop_config();
    let mut writer = FlushingLines(&mut out);
    match daemon::run(source, mapper, actuator, &config, &stop, &mut writer) {
        Ok(summary) => {
            writeln!(out, "locus map: {summary}")
                .and_then(|()| out.flush())
                .context("cannot write to stdout")
                .map_err(Failure::Run)?;
            Ok(())
        }
        Err(DaemonError::Source {
            round,
            source: e,
            summary,
        }) => {
            let _ = writeln!(out, "locus map: {summary}");
            Err(Failure::Run(
                anyhow::Error::new(e).context(format!("round {round}: sampling failed")),
            ))
        }
        Err(e @ DaemonError::Output(_)) => Err(Failure::Run(e.into())),
    }
}

/// Flushes after every line, so each round shows as it happens even through a pipe.
struct FlushingLines<'a, W: Write>(&'a mut W);

impl<W: Write> Write for FlushingLines<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        if buf[..n].contains(&b'\n') {
            self.0.flush()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
