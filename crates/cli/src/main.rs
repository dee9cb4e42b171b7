//! `locus`: the command-line front end of the locus runtime (docs/design.md, "cli").
//!
//! `main` only sets up logging, parses the command line and turns the outcome into an
//! exit code. The modules come in three layers, each using only those below it
//! (`tests/suite/modules.rs` holds them so):
//!
//! - the top: [`app`], which sends each subcommand to its module;
//! - the subcommands, which know the shared modules and not each other: [`topo`],
//!   [`bench`](mod@bench), [`sim`] (with [`matrix`] and [`sim_threads`]), [`profile`],
//!   [`map`], [`run`], [`trace`];
//! - the shared modules: [`cli`] (the flags, clap's structs), [`given`] (a flag or its
//!   variable), [`policies`] (the lists of policies, from the policy crate's table),
//!   [`inputs`] (kernel inputs, machine, workers), [`limits`], [`failure`] (errors and
//!   exit codes: 0 success, 1 an unverified result, 2 bad input, 3 a run not made),
//!   [`report`] (number formats, stdout, JSON) and [`progress`].

mod app;
mod bench;
mod cli;
mod failure;
mod given;
mod inputs;
mod limits;
mod map;
mod matrix;
mod policies;
mod profile;
mod progress;
mod report;
mod run;
mod sim;
mod sim_threads;
mod topo;
mod trace;

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
