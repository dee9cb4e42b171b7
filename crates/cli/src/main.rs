//! `locus`: the command-line front end of the locus runtime (DESIGN.md, "cli").
//!
//! `main` only sets up logging, parses the command line and turns the outcome into an
//! exit code; the work lives in the modules: [`cli`] (the flags), [`topo`],
//! [`bench`](mod@bench) and [`sim`] (the subcommands), [`report`] (tables and JSON), [`app`] (dispatch and
//! exit codes: 0 success, 1 a failed run or unverified result, 2 bad input).

mod app;
mod bench;
mod cli;
mod given;
mod limits;
mod map;
mod matrix;
mod profile;
mod report;
mod run;
mod sim;
mod sim_threads;
mod topo;

use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::WARN.into())
        .from_env_lossy();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    match app::run(cli::Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
