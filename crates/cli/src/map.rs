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

use crate::cli::{MapArgs, SourceKind};
use crate::failure::Failure;
use anyhow::{anyhow, Context};
use locus_mapper::act::{Actuator, SystemCpuBinding};
use locus_mapper::daemon::{self, DaemonError, LoopConfig};
use locus_mapper::procs::{Caller, Procfs, Selection};
use locus_mapper::sample::PerfSource;
use locus_mapper::workload::{linux_placement, MixSpec, SimSource, World, MIXES};
use locus_mapper::{Config, MachineShape, Mapper, SampleSource};
use locus_topo::Topology;
use std::io::Write;
use std::path::Path;

/// The first line of the error for a run without a selection.
pub(crate) const NO_SELECTION: &str = "select processes with --pid, --comm or --user";

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
