//! The bounds a rank's input is held to before anything is prepared, as `locus` holds
//! its own (`crates/cli/src/limits.rs`), and the exit statuses `locus` gives
//! (`crates/cli/src/failure.rs`), so that a script tells a wrong answer from bad input:
//!
//! | exit | meaning |
//! | --- | --- |
//! | 0 | every rank verified, every worker inside its rank's binding |
//! | 1 | everything ran, and some rank's result failed its check |
//! | 2 | bad input (a flag, a size), refused before anything ran |
//! | 3 | the run could not be made (MPI, the pool, the binding) |
//!
//! Every rank holds the whole input and the serial reference it checks its rows
//! against, besides its own rows: one rank needs about the kernel's own estimate
//! ([`locus_kernels::Params::estimate`]), and the ranks on one machine that many times
//! over. [`check`] holds that against the memory this process may take
//! ([`locus_kernels::available_memory`]: `MemAvailable`, the process's resource limits,
//! its cgroup), and the instructions of preparing the input and one run against
//! [`locus_kernels::MAX_WORK`]. A size the ranks cannot share (fewer rows than ranks) is
//! bad input too ([`BadInput`]).

use std::fmt;

use locus_files::Bytes;
use locus_kernels::{Available, Params, MAX_WORK};

/// Exit status of a run some rank of which did not verify.
pub const EXIT_UNVERIFIED: u8 = 1;
/// Exit status of bad input; nothing ran.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit status of a run that could not be made.
pub const EXIT_NOT_RUN: u8 = 3;

/// An input refused: the message names the flag and what is wrong. Found in a rank's
/// program (a grid with fewer rows than ranks), it is bad input all the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Refuses `params` (given as `given` says: `--size "100000x100000"`) where
/// `ranks_here` ranks on this machine would need more memory than `available`, or
/// where preparing it and running it once is above [`MAX_WORK`].
pub fn check(
    params: &Params,
    given: &str,
    ranks_here: usize,
    available: Option<Available>,
) -> Result<(), BadInput> {
    let estimate = params.estimate();
    let what = format!("{} {params}", params.kernel());
    let bytes = estimate.bytes.saturating_mul(ranks_here.max(1) as u64);
    if let Some(available) = available.filter(|a| bytes > a.bytes) {
        let each = if ranks_here > 1 {
            format!(
                " ({} for each of the {ranks_here} ranks on this machine, which each hold \
                 the whole input and its reference)",
                Bytes(estimate.bytes)
            )
        } else {
            String::new()
        };
        return Err(BadInput(format!(
            "{given}: {what} needs about {} of memory{each}, more than the {} available \
             to this process ({}); give a smaller size",
            Bytes(bytes),
            Bytes(available.bytes),
            available.source
        )));
    }
    if let Some(work) = estimate.work.filter(|&w| w > MAX_WORK) {
        return Err(BadInput(format!(
            "{given}: {what} takes about {:.1e} instructions to prepare and run once, more \
             than the {:.1e} locus allows one input (each rank also runs the serial \
             reference); give a smaller size or fewer iterations",
            work as f64, MAX_WORK as f64
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_kernels::Kernel;

    fn room(bytes: u64) -> Option<Available> {
        Some(Available {
            bytes,
            source: "memory.max of this process's cgroup less its use",
        })
    }

    #[test]
    fn every_rank_on_a_machine_holds_the_whole_input() {
        let p = Kernel::Heat.parse_size("4000x4000,iters=1").unwrap();
        let one = p.estimate().bytes;
        check(&p, "--size", 1, room(one)).unwrap();
        check(&p, "--size", 2, room(2 * one)).unwrap();
        let e = check(&p, "--size \"4000x4000,iters=1\"", 2, room(2 * one - 1))
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("--size \"4000x4000,iters=1\": heat 4000x4000")
                && e.contains("each of the 2 ranks")
                && e.contains("memory.max"),
            "{e}"
        );
        check(&p, "--size", 64, None).unwrap();
    }

    #[test]
    fn a_grid_no_machine_holds_is_refused_for_memory_or_work() {
        let p = Kernel::Heat.parse_size("100000x100000").unwrap();
        let e = check(&p, "--size", 1, room(1 << 30)).unwrap_err().0;
        assert!(e.contains("of memory") && e.contains("GiB"), "{e}");
        let e = check(&p, "--size", 1, None).unwrap_err().0;
        assert!(e.contains("instructions"), "{e}");
    }
}
