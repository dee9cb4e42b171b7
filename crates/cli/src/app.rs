//! What each subcommand does, from parsed arguments to an exit code. Errors are sorted
//! by who must act, so that a script can tell a wrong answer from a missing one:
//!
//! | exit | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | everything ran, and some result failed verification (a wrong answer) |
//! | 2 | bad input: a flag, a variable, a file or a size that locus refuses; nothing ran |
//! | 3 | the run could not be made: a thread that cannot start, counters refused, an output that cannot be written |
//!
//! Bad input is found before anything runs, every file and size included.

use crate::bench::{self, BenchPlan, KernelResult};
use crate::cli::{BenchArgs, Cli, Command, SimArgs, SimCommand, TopoArgs};
use crate::profile;
use crate::report::{self, Report};
use crate::sim;
use crate::topo::{self, TopoPlan};
use anyhow::{Context, Result};
use clap::CommandFactory;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, WeakProgressBar};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Exit status of a run whose results did not all verify.
pub(crate) const EXIT_UNVERIFIED: u8 = 1;
/// Exit status of bad input (clap's own, for flags it refuses).
pub(crate) const EXIT_BAD_INPUT: u8 = 2;
/// Exit status of a run that could not be made.
pub(crate) const EXIT_NOT_RUN: u8 = 3;

/// Why a command did not succeed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The user's input is wrong; nothing ran.
    Input(anyhow::Error),
    /// Something failed while running: the run could not be made.
    Run(anyhow::Error),
    /// Everything ran and was reported, but some results did not verify.
    Unverified(String),
}

impl Failure {
    /// Prints the error line (with its chain of causes) and gives the exit code.
    pub(crate) fn report(self) -> ExitCode {
        match self {
            Failure::Input(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(EXIT_BAD_INPUT)
            }
            Failure::Run(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
            Failure::Run(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(EXIT_NOT_RUN)
            }
            Failure::Unverified(what) => {
                eprintln!("error: {what}");
                ExitCode::from(EXIT_UNVERIFIED)
            }
        }
    }
}

/// A failure while running, as bad input where the input was too large to record (the
/// recorder's own bound, reached where no estimate could foresee it).
pub(crate) fn run_failure(e: anyhow::Error) -> Failure {
    let too_large = e.chain().any(|c| {
        c.downcast_ref::<locus_kernels::RecordError>()
            .is_some_and(locus_kernels::RecordError::is_limit)
    });
    if too_large {
        Failure::Input(e)
    } else {
        Failure::Run(e)
    }
}

/// Output cut short by the reader (`locus topo | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Runs the command line.
pub(crate) fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        None => {
            let mut out = std::io::stdout().lock();
            write!(out, "{}", Cli::command().render_help())
                .context("cannot write the help")
                .map_err(Failure::Run)
        }
        Some(Command::Topo(args)) => run_topo(&args),
        Some(Command::Bench(args)) => run_bench(&args),
        Some(Command::Sim(args)) => run_sim(&args),
        Some(Command::Map(args)) => crate::map::run(&args),
        Some(Command::Profile(args)) => crate::profile::command(&args),
        Some(Command::Run(args)) => crate::run::run(&args),
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
        Some(SimCommand::Threads(threads)) => crate::sim_threads::run(threads)?,
        Some(SimCommand::Matrix(matrix)) => {
            let plan = crate::matrix::MatrixPlan::new(matrix).map_err(Failure::Input)?;
            let bar = progress_bar(0);
            let (text, within) = crate::matrix::run(&plan, &bar).map_err(Failure::Run)?;
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

fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
}

fn run_topo(args: &TopoArgs) -> Result<(), Failure> {
    if args.list_presets {
        return print(&topo::presets()).map_err(Failure::Run);
    }
    let plan = TopoPlan::new(args).map_err(Failure::Input)?;
    print(&plan.render()).map_err(Failure::Run)
}

fn run_bench(args: &BenchArgs) -> Result<(), Failure> {
    let plan = BenchPlan::new(args).map_err(Failure::Input)?;
    tracing::info!(
        threads = plan.threads,
        machine = plan.topology.name(),
        kernels = plan.jobs.len(),
        "bench start"
    );
    let bar = progress_bar(plan.total_runs());
    let mut kernels: Vec<KernelResult> = Vec::with_capacity(plan.jobs.len());
    for params in &plan.jobs {
        let result = bench::run_kernel(&plan, params, &bar)
            .with_context(|| format!("{} {params}", params.kernel()))
            .map_err(Failure::Run)?;
        let sep = if kernels.is_empty() { "" } else { "\n" };
        let text = format!(
            "{sep}{}\n{}",
            report::header(&plan, &result),
            report::table(&result, plan.reps)
        );
        bar.suspend(|| print(&text)).map_err(Failure::Run)?;
        for r in &result.results {
            if let Some(warning) = profile::unmatched_schedule(&r.name, &r.policy_stats) {
                bar.suspend(|| eprintln!("{warning}"));
            }
        }
        if plan.explain {
            let text = report::explanations(&result);
            bar.suspend(|| print(&text)).map_err(Failure::Run)?;
        }
        kernels.push(result);
    }
    bar.finish_and_clear();
    if let Some(path) = &plan.json {
        Report::new(&plan, &kernels)
            .write(path)
            .with_context(|| format!("cannot write --json {path:?}"))
            .map_err(Failure::Run)?;
    }
    match unverified(&kernels) {
        None => Ok(()),
        Some(what) => Err(Failure::Unverified(what)),
    }
}

/// The error line naming every result that did not verify, if any.
fn unverified(kernels: &[KernelResult]) -> Option<String> {
    let failed: Vec<String> = kernels
        .iter()
        .flat_map(|k| {
            k.results
                .iter()
                .filter(|r| !r.verified())
                .map(move |r| format!("{} {} under {}", k.params.kernel(), k.params, r.name))
        })
        .collect();
    match failed.len() {
        0 => None,
        1 => Some(format!("1 result failed verification: {}", failed[0])),
        n => Some(format!(
            "{n} results failed verification: {}",
            failed.join("; ")
        )),
    }
}

/// How often a run whose stderr is not a terminal says how far it has got: rarely
/// enough that a run of a few seconds (every test) prints nothing and a log of a long
/// one stays short, often enough to show that it is alive. Guess.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// A bar over all kernel runs on stderr where stderr is a terminal; elsewhere (a log, a
/// pipe) a line every [`PROGRESS_EVERY`] while the run lasts.
fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        let bar = ProgressBar::hidden();
        bar.set_length(total);
        report_progress(bar.downgrade());
        return bar;
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("[{elapsed_precise}] {wide_bar} {pos}/{len} runs  {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// Prints `bar`'s progress to stderr every [`PROGRESS_EVERY`] until it is finished or
/// dropped: `locus: 20 s, 14/84 done; heat: rep 2/10`. The thread holds only a weak
/// reference, so it ends with the bar (or with the process).
fn report_progress(bar: WeakProgressBar) {
    let start = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("locus-progress".to_owned())
        .spawn(move || loop {
            std::thread::sleep(PROGRESS_EVERY);
            let Some(bar) = bar.upgrade() else { return };
            if bar.is_finished() {
                return;
            }
            let of = bar.length().map_or(String::new(), |n| format!("/{n}"));
            let message = bar.message();
            let sep = if message.is_empty() { "" } else { "; " };
            eprintln!(
                "locus: {} s, {}{of} done{sep}{message}",
                start.elapsed().as_secs(),
                bar.position()
            );
        });
    if let Err(e) = spawned {
        tracing::warn!("no progress will be shown: cannot start its thread: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::ExecResult;
    use locus_kernels::Kernel;

    #[test]
    fn unverified_results_are_named() {
        let ok = ExecResult {
            name: "ws".into(),
            times: vec![],
            failed_runs: 0,
            failure: None,
            stats: None,
            explain: None,
            policy_stats: Vec::new(),
        };
        let bad = ExecResult {
            failed_runs: 2,
            failure: Some("rep 1: wrong".into()),
            name: "mts".into(),
            ..ok.clone()
        };
        let mut k = KernelResult {
            params: Kernel::Fib.parse_size("9").unwrap(),
            results: vec![ok.clone()],
        };
        assert_eq!(unverified(&[k.clone()]), None);
        k.results.push(bad);
        assert_eq!(
            unverified(&[k]).as_deref(),
            Some("1 result failed verification: fib 9,cutoff=0 under mts")
        );
    }
}
