//! The top of the command: from parsed arguments to the subcommand's module, and from
//! its outcome to an exit code ([`crate::failure`]). The only module that knows every
//! subcommand; the subcommands know the shared modules below them and not each other.

use crate::cli::{Cli, Command, SimArgs, SimCommand};
use crate::failure::{run_failure, Failure};
use crate::progress::progress_bar;
use crate::report::print;
use crate::{bench, matrix, sim, sim_threads, topo};
use anyhow::Context;
use clap::CommandFactory;
use std::io::Write;

/// Runs the command line.
pub(crate) fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        None => {
            let mut out = std::io::stdout().lock();
            write!(out, "{}", Cli::command().render_help())
                .context("cannot write the help")
                .map_err(Failure::Run)
        }
        Some(Command::Topo(args)) => topo::command(&args),
        Some(Command::Bench(args)) => bench::command(&args),
        Some(Command::Sim(args)) => run_sim(&args),
        Some(Command::Map(args)) => crate::map::run(&args),
        Some(Command::Profile(args)) => crate::profile::command(&args),
        Some(Command::Run(args)) => crate::run::run(&args),
        Some(Command::Trace(args)) => crate::trace::command(&args),
    }
}

fn run_sim(args: &SimArgs) -> Result<(), Failure> {
    let text = match &args.sweep {
        Some(SimCommand::Sweep(sweep)) => {
            let plan = sim::SweepPlan::new(sweep).map_err(Failure::Input)?;
            let bar = progress_bar(0);
            let text = sim::sweep(&plan, &bar).map_err(run_failure)?;
            bar.finish_and_clear();
            text
        }
        Some(SimCommand::Threads(threads)) => sim_threads::run(threads)?,
        Some(SimCommand::Matrix(matrix)) => {
            let plan = matrix::MatrixPlan::new(matrix).map_err(Failure::Input)?;
            let bar = progress_bar(0);
            let (text, within) = matrix::run(&plan, &bar).map_err(Failure::Run)?;
            bar.finish_and_clear();
            if !within {
                print(&text).map_err(Failure::Run)?;
                return Err(Failure::Unverified(
                    "a policy's worst ratio to ws is above --limit".to_string(),
                ));
            }
            text
        }
        None => {
            let plan = sim::RunPlan::new(&args.run).map_err(Failure::Input)?;
            let bar = progress_bar(0);
            let text = sim::run(&plan, &bar)
                .with_context(|| format!("{} {}", plan.params.kernel(), plan.params))
                .map_err(run_failure)?;
            bar.finish_and_clear();
            text
        }
    };
    print(&text).map_err(Failure::Run)
}
