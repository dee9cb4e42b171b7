//! Why a command did not succeed, and the exit code that says so. Errors are sorted by
//! who must act, so that a script can tell a wrong answer from a missing one:
//!
//! | exit | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | everything ran, and some result failed verification (a wrong answer) |
//! | 2 | bad input: a flag, a variable, a file or a size that locus refuses; nothing ran |
//! | 3 | the run could not be made: a thread that cannot start, counters refused, an output that cannot be written |
//!
//! Bad input is found before anything runs, every file and size included.

use std::process::ExitCode;

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
/// recorder's own bound, reached where no estimate could foresee it) or to simulate
/// ([`crate::limits::OverLimit`]).
pub(crate) fn run_failure(e: anyhow::Error) -> Failure {
    let too_large = e.chain().any(|c| {
        c.downcast_ref::<locus_kernels::RecordError>()
            .is_some_and(locus_kernels::RecordError::is_limit)
            || c.is::<crate::limits::OverLimit>()
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
