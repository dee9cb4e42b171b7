//! `locus-mpi`: one rank of a distributed heat or spmv, MPI between the ranks and a
//! locus pool inside each. Run it under `mpirun`; rank 0 prints every rank's report
//! line (see `locus_mpi::report`) and a summary, and the exit status is 0 only when
//! every rank verified and kept its workers inside its binding; otherwise `locus`'s
//! (`locus_mpi::limits`): 1 a rank's result failed its check, 2 bad input, 3 a run
//! that could not be made.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use locus::{Pinning, PolicyKind, ThreadPoolBuilder};
use locus_kernels::heat::HeatParams;
use locus_kernels::sparse::SparseParams;
use locus_kernels::{check_iters, Kernel, Locus, Params};
use locus_mpi::limits::{self, BadInput, EXIT_BAD_INPUT, EXIT_NOT_RUN, EXIT_UNVERIFIED};
use locus_mpi::placement::{self, Placement};
use locus_mpi::report::RankReport;
use locus_mpi::{threading, Checked};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{CommunicatorCollectives, Destination, Source};

const ABOUT: &str = "One MPI rank of a distributed heat or spmv, with a locus pool inside.";

const LONG_ABOUT: &str = "\
One MPI rank of a distributed heat or spmv: MPI moves data between the ranks, and each
rank runs its share in a locus pool under the chosen policy. Start it with mpirun, one
rank per socket or NUMA node, bound there, for example

    mpirun -n 2 --map-by ppr:1:socket --bind-to socket locus-mpi heat

Each rank's pool has one worker per CPU of the rank's affinity mask (its binding),
grouped into that part of the machine's squads. Rank 0 prints one line per rank (rank,
binding, squads, pool size, the CPUs each worker may run on, whether the rank's part
verified against the serial kernel) and a summary. Exit status 0 only when every rank
verified and kept its workers inside its binding; 1 when a rank failed its check (or
put a worker outside its binding), 2 for bad input (a size that the ranks cannot share,
or that needs more memory than the ranks on a machine may take, or more than 2^38
instructions), 3 when the run could not be made.

Only the main thread calls MPI (MPI_THREAD_FUNNELED); a library that provides less is
refused. LOCUS_POLICY, LOCUS_PIN and LOCUS_NUM_THREADS are read as by the library; the
options below override them.";

#[derive(Debug, Parser)]
#[command(name = "locus-mpi", version, about = ABOUT, long_about = LONG_ABOUT)]
struct Cli {
    #[command(subcommand)]
    program: Program,
}

#[derive(Debug, Subcommand)]
enum Program {
    /// Heat: the grid's rows split across the ranks, halo rows traded every sweep.
    Heat {
        #[command(flatten)]
        run: RunArgs,
        /// The whole grid, as `locus bench heat` takes it:
        /// ROWSxCOLS[,leaf=L][,iters=I][,seed=S]; at least one interior row per rank.
        #[arg(long, default_value = "66x64,leaf=4")]
        size: String,
    },
    /// Spmv: a power iteration x <- A x / max|A x| over spmv-crs, A's rows split across
    /// the ranks, x gathered on every rank after each product.
    Spmv {
        #[command(flatten)]
        run: RunArgs,
        /// The whole matrix, as `locus bench spmv-crs` takes it:
        /// MATRIX[,iters=I][,grain=G][,seed=S], MATRIX one of laplace2d:N, banded:N:B:K,
        /// block:N:S:K, random:N:K, matrix=PATH; it must be square.
        #[arg(long, default_value = "laplace2d:32,grain=64")]
        size: String,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The scheduling policy of each rank's pool, any locus policy name (ws, ws:near,
    /// mts, ...; `locus policies` lists them). Default: LOCUS_POLICY, else ws.
    #[arg(long, value_parser = parse_policy)]
    policy: Option<PolicyKind>,
    /// Where the workers run inside the rank's binding: pu (each its own CPU), squad
    /// (its squad's CPUs) or none. Default: LOCUS_PIN, else the policy's.
    #[arg(long, value_parser = parse_pinning)]
    pin: Option<Pinning>,
    /// Workers per rank. Default: LOCUS_NUM_THREADS, else one per CPU of the binding.
    #[arg(long, value_parser = parse_threads)]
    threads: Option<usize>,
    /// Sweeps (heat) or products (spmv); overrides the size's iters. Default: 10.
    #[arg(long, value_parser = parse_iters)]
    iters: Option<usize>,
}

fn parse_policy(s: &str) -> Result<PolicyKind, String> {
    s.parse::<PolicyKind>().map_err(|e| e.to_string())
}

fn parse_pinning(s: &str) -> Result<Pinning, String> {
    s.parse()
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=locus::MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of workers from 1 to {}",
            locus::MAX_THREADS
        )),
    }
}

fn parse_iters(s: &str) -> Result<usize, String> {
    let n = s
        .trim()
        .parse::<usize>()
        .map_err(|_| "expected a whole number of iterations".to_owned())?;
    check_iters(n)
}

/// What to run, its input parsed.
enum Job {
    Heat(HeatParams),
    Spmv(SparseParams),
}

impl Job {
    /// The job, its flags and its input as `locus` takes it, for the bounds.
    fn from_cli(program: &Program) -> Result<(Job, &RunArgs, Params, String)> {
        let (kernel, size, run) = match program {
            Program::Heat { run, size } => (Kernel::Heat, size, run),
            Program::Spmv { run, size } => (Kernel::SpmvCrs, size, run),
        };
        let params = kernel
            .parse_size(size)
            .map_err(|e| BadInput(format!("--size {size:?}: {e:#}")))?;
        let given = match run.iters {
            Some(k) => format!("--size {size:?} --iters {k}"),
            None => format!("--size {size:?}"),
        };
        let job = match params {
            Params::Heat(mut p) => {
                p.iters = run.iters.unwrap_or(p.iters);
                Job::Heat(p)
            }
            Params::SpmvCrs(mut p) => {
                p.iters = run.iters.unwrap_or(p.iters);
                Job::Spmv(p)
            }
            other => unreachable!("{kernel:?} parsed as {other:?}"),
        };
        let params = match &job {
            Job::Heat(p) => Params::Heat(*p),
            Job::Spmv(p) => Params::SpmvCrs(p.clone()),
        };
        Ok((job, run, params, given))
    }

    fn name(&self) -> &'static str {
        match self {
            Job::Heat(_) => "heat",
            Job::Spmv(_) => "spmv",
        }
    }

    fn run(&self, world: &SimpleCommunicator, ex: &Locus) -> Result<Checked> {
        match self {
            Job::Heat(p) => locus_mpi::heat::run(world, ex, p),
            Job::Spmv(p) => locus_mpi::spmv::run(world, ex, p),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(EXIT_UNVERIFIED),
        Err(e) => {
            eprintln!("locus-mpi: {e:#}");
            if e.chain().any(|c| c.is::<BadInput>()) {
                ExitCode::from(EXIT_BAD_INPUT)
            } else {
                ExitCode::from(EXIT_NOT_RUN)
            }
        }
    }
}

/// Runs this rank; `Ok(false)` when some rank failed its check.
fn run(cli: &Cli) -> Result<bool> {
    let (job, args, params, given) = Job::from_cli(&cli.program)?;
    // One rank's share, before MPI starts: an input no process here could hold.
    limits::check(&params, &given, 1, locus_kernels::available_memory())?;
    // The binding mpirun gave, read before any thread of ours exists.
    let binding = placement::binding()?;
    let (universe, provided) = threading::init()?;
    let world = universe.world();
    let rank = world.rank() as usize;
    // Then the ranks that share this machine, each holding the whole input; every rank
    // learns whether any refused, so that none waits for a rank that left.
    let here = world.split_shared(rank as i32).size() as usize;
    let refused = limits::check(&params, &given, here, locus_kernels::available_memory());
    let refused_here = u32::from(refused.is_err());
    let mut refusals = 0u32;
    world.all_reduce_into(
        &refused_here,
        &mut refusals,
        mpi::collective::SystemOperation::sum(),
    );
    refused?;
    if refusals > 0 {
        return Err(BadInput(format!(
            "{given}: refused by {refusals} of the {} ranks (their messages say why)",
            world.size()
        ))
        .into());
    }
    let mut builder = ThreadPoolBuilder::from_env().context("reading LOCUS_* settings")?;
    if let Some(policy) = args.policy.clone() {
        builder = builder.policy(policy);
    }
    if let Some(pin) = args.pin {
        builder = builder.pinning(pin);
    }
    if let Some(n) = args.threads {
        builder = builder.num_threads(n);
    }
    let pool = builder
        .build()
        .with_context(|| format!("building rank {rank}'s pool"))?;
    let placement = Placement::probe(&pool, binding)?;
    let policy = pool.policy_name().to_owned();
    let ex = Locus::new(pool);
    let checked = job.run(&world, &ex)?;
    let report = RankReport {
        rank,
        ranks: world.size() as usize,
        host: mpi::environment::processor_name().unwrap_or_else(|_| "?".to_owned()),
        threading: threading::name(provided).to_owned(),
        policy,
        binding: placement.binding.clone(),
        squads: placement.squads.clone(),
        workers: placement.workers.clone(),
        kernel: job.name().to_owned(),
        verified: checked.verified,
        ms: checked.elapsed.as_secs_f64() * 1e3,
        detail: checked.detail,
    };
    let failed_here = u32::from(!report.ok());
    let mut failed = 0u32;
    world.all_reduce_into(
        &failed_here,
        &mut failed,
        mpi::collective::SystemOperation::sum(),
    );
    gather_and_print(&world, &report);
    if rank == 0 {
        let ranks = world.size();
        if failed == 0 {
            println!(
                "{}: all {ranks} ranks verified, every worker inside its rank's binding",
                job.name()
            );
        } else {
            println!("{}: {failed} of {ranks} ranks failed (not verified, or a worker outside its binding)", job.name());
        }
    }
    Ok(failed == 0)
}

/// Rank 0 prints every rank's report line, in rank order; the others send theirs to it.
fn gather_and_print(world: &SimpleCommunicator, report: &RankReport) {
    let line = report.to_line();
    if world.rank() == 0 {
        println!("{line}");
        for r in 1..world.size() {
            let (bytes, _) = world.process_at_rank(r).receive_vec::<u8>();
            println!("{}", String::from_utf8_lossy(&bytes));
        }
    } else {
        world.process_at_rank(0).send(line.as_bytes());
    }
}
