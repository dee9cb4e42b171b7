//! The bounds a kernel's input is held to before anything is prepared, so that an input
//! this machine cannot run is refused as bad input (exit 2) instead of aborting on a
//! failed allocation or running for hours:
//!
//! - **work**: the instructions of preparing the input and one run against
//!   [`locus_kernels::MAX_WORK`], first, because it is the same on every machine;
//! - **memory**: [`Params::estimate`]'s bytes against the memory this process may
//!   take ([`locus_kernels::available_memory`]: `MemAvailable` of `/proc/meminfo`, or
//!   less where the process's `RLIMIT_AS` or `RLIMIT_DATA` or its cgroup's `memory.max`
//!   leave less, [`locus_files::memory`]);
//! - **recording** (`sim`, `profile`): the task tree against the simulator's recorder
//!   ([`locus_kernels::record::check`], `MAX_TASKS`);
//! - **simulation** (`sim`): the simulator's events, the recorded cache-line accesses
//!   and tasks times the simulations that replay them, against [`MAX_SIM_EVENTS`]
//!   ([`check_simulation`], once the input is recorded and before anything is
//!   simulated; `--no-limit` lifts it). Found after the run began, it is still bad
//!   input ([`OverLimit`]).
//!
//! Iterations (`iters=` in a size, `--iters`) are bounded by the size parser and
//! [`locus_kernels::check_iters`], repetitions by the flags' own parsers
//! ([`crate::cli`]). Every message names how the input was given: the flags that set it
//! (`--size`, `--matrix`, `--iters`), or the kernel's default size.

use anyhow::{bail, Result};
use locus_files::Bytes;
use locus_kernels::{Available, Params, MAX_WORK};
use locus_task::workload::Workload;
use std::fmt;
use std::path::Path;

/// The most simulator events (cache-line accesses and tasks, summed over the
/// simulations of one command) a `sim` command runs without `--no-limit`: about two and
/// a half minutes of one core, spread over the cores the simulations run on, at the
/// simulator's measured 7 million events a second (`locus sim heat --machine
/// epyc-9654-2s --size 2048x2048,leaf=1,iters=10 --policy ws`, 2.1e7 events, 3 s of CPU
/// recording included, on a development build, whose simulator is optimised).
pub(crate) const MAX_SIM_EVENTS: u64 = 1 << 30;

/// An input over a bound that could be judged only once the run had begun (the
/// simulator's work is known once the kernel is recorded): bad input all the same, as
/// [`crate::failure`] reports it.
#[derive(Debug)]
pub(crate) struct OverLimit(String);

impl fmt::Display for OverLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OverLimit {}

/// How an input was given, for messages: `--size "40"`, `--size "1024x512" --iters 5`,
/// `--matrix "m.mtx"`, or `the default size of heat`.
pub(crate) fn given(
    params: &Params,
    size: Option<&str>,
    matrix: Option<&Path>,
    iters: Option<usize>,
) -> String {
    let mut words = Vec::new();
    if let Some(size) = size {
        words.push(format!("--size {size:?}"));
    }
    if let Some(path) = matrix {
        words.push(format!("--matrix {path:?}"));
    }
    if let Some(k) = iters {
        words.push(format!("--iters {k}"));
    }
    if words.is_empty() {
        format!("the default size of {}", params.kernel())
    } else {
        words.join(" ")
    }
}

/// Refuses `params` (given as `given` says) above this machine's memory or the work
/// bound, and, where `recorded`, above what the simulator's recorder holds.
pub(crate) fn check(params: &Params, given: &str, recorded: bool) -> Result<()> {
    let estimate = params.estimate();
    let what = format!("{} {params}", params.kernel());
    // The work bound first: it is the same on every machine, so an input over it is
    // refused in the same words wherever it is given, however much memory is free.
    if let Some(work) = estimate.work.filter(|&w| w > MAX_WORK) {
        bail!(
            "{given}: {what} takes about {} instructions to prepare and run once, more than \
             the {} locus allows one input (about a minute and a half of one core, before \
             the first timed run); give a smaller size or fewer iterations",
            sci(work),
            sci(MAX_WORK)
        );
    }
    if let Some(reason) = over_memory(estimate.bytes, locus_kernels::available_memory()) {
        bail!("{given}: {what} {reason}; give a smaller size");
    }
    if recorded {
        if let Err(e) = locus_kernels::record::check(params) {
            bail!("{given}: {e}");
        }
    }
    Ok(())
}

/// Why `bytes` do not fit in `available` (the memory this process may take), if they
/// do not: "needs about 3 GiB of memory, more than the 2 GiB available to this process
/// (SOURCE)".
pub(crate) fn over_memory(bytes: u64, available: Option<Available>) -> Option<String> {
    let available = available.filter(|a| bytes > a.bytes)?;
    Some(format!(
        "needs about {} of memory, more than the {} available to this process ({})",
        Bytes(bytes),
        Bytes(available.bytes),
        available.source
    ))
}

/// The simulator's events for `work`, each workload with the number of simulations
/// that replay it: its cache-line accesses and its tasks, once per simulation.
pub(crate) fn simulation_events(work: &[(&Workload, usize)]) -> u64 {
    work.iter().fold(0u64, |sum, (w, runs)| {
        let one = w.line_accesses().saturating_add(w.tasks().len() as u64);
        sum.saturating_add(one.saturating_mul(*runs as u64))
    })
}

/// Refuses simulations whose events ([`simulation_events`]) are above
/// [`MAX_SIM_EVENTS`], unless `no_limit`; the error is an [`OverLimit`].
pub(crate) fn check_simulation(work: &[(&Workload, usize)], no_limit: bool) -> Result<()> {
    let events = simulation_events(work);
    if no_limit || events <= MAX_SIM_EVENTS {
        return Ok(());
    }
    let runs: usize = work.iter().map(|(_, runs)| runs).sum();
    let what: Vec<&str> = work.iter().map(|(w, _)| w.name.as_str()).collect();
    Err(OverLimit(format!(
        "the simulation{} of {} take{} about {} events (cache-line accesses and tasks, summed \
         over {runs} simulation{}), more than the {} locus simulates without --no-limit \
         (minutes of this machine's cores); give a smaller size, fewer iterations or fewer \
         policies (--policy), or --no-limit to run it anyway",
        if runs == 1 { "" } else { "s" },
        what.join(", "),
        if runs == 1 { "s" } else { "" },
        sci(events),
        if runs == 1 { "" } else { "s" },
        sci(MAX_SIM_EVENTS)
    ))
    .into())
}

/// A large count in words a person reads: `2.7e11`.
fn sci(n: u64) -> String {
    format!("{:.1e}", n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_kernels::Kernel;

    #[test]
    fn the_help_states_the_bounds_in_force() {
        let help = crate::cli::EXIT_CODES;
        assert_eq!(MAX_WORK, 1 << 38);
        assert_eq!(locus_kernels::record::MAX_TASKS, 1 << 24);
        assert_eq!(locus_kernels::record::MAX_STEPS, 1 << 27);
        assert_eq!(MAX_SIM_EVENTS, 1 << 30);
        let words = [
            "2^38".to_owned(),
            format!("({})", sci(MAX_WORK)),
            "above the recorder's 2^24 tasks".to_owned(),
            "2^24 tasks or 2^27 steps".to_owned(),
            "sim, simulations above 2^30 events".to_owned(),
            "ulimit -v or -d or a cgroup's memory.max".to_owned(),
            format!("are 1 to {}", locus_kernels::MAX_ITERS),
            format!("--reps 1 to {}", crate::cli::MAX_REPS),
            format!("--warmup 0 to {}", crate::cli::MAX_WARMUP),
        ];
        for w in words {
            assert!(help.contains(&w), "{w:?} missing from:\n{help}");
        }
    }

    #[test]
    fn inputs_are_named_as_they_were_given() {
        let heat = Kernel::Heat.default_params();
        assert_eq!(given(&heat, None, None, None), "the default size of heat");
        assert_eq!(
            given(&heat, Some("64x64"), None, Some(3)),
            "--size \"64x64\" --iters 3"
        );
        assert_eq!(
            given(&heat, None, Some(Path::new("m.mtx")), None),
            "--matrix \"m.mtx\""
        );
    }

    #[test]
    fn defaults_pass_and_runaway_inputs_do_not() {
        for kernel in Kernel::ALL {
            check(&kernel.default_params(), "default", true).unwrap();
        }
        let fib = Kernel::Fib.parse_size("40").unwrap();
        check(&fib, "--size \"40\"", false).unwrap();
        let e = check(&fib, "--size \"40\"", true).unwrap_err().to_string();
        assert!(e.starts_with("--size \"40\": recording fib 40"), "{e}");
        let irreg = Kernel::Irreg.parse_size("100000000:100000000").unwrap();
        let e = check(&irreg, "--size \"x\"", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("instructions") || e.contains("memory"), "{e}");
        assert_eq!(sci(274_877_906_944), "2.7e11");
    }

    #[test]
    fn memory_is_held_to_the_smallest_bound_given() {
        let limit = Available {
            bytes: 2 << 30,
            source: "RLIMIT_AS (ulimit -v) less the address space in use",
        };
        let e = over_memory(3 << 30, Some(limit)).unwrap();
        assert_eq!(
            e,
            "needs about 3 GiB of memory, more than the 2 GiB available to this process \
             (RLIMIT_AS (ulimit -v) less the address space in use)"
        );
        assert_eq!(
            over_memory(2 << 30, Some(limit)),
            None,
            "exactly the room fits"
        );
        assert_eq!(over_memory(u64::MAX, None), None, "no figure, no refusal");
    }

    #[test]
    fn simulations_are_bounded_by_their_events_unless_told() {
        let params = Kernel::Heat.parse_size("34x32,leaf=4,iters=1").unwrap();
        let w = locus_kernels::record::record(&params).unwrap();
        let one = simulation_events(&[(&w, 1)]);
        assert_eq!(one, w.line_accesses() + w.tasks().len() as u64);
        assert!(w.line_accesses() > 0 && !w.tasks().is_empty());
        assert_eq!(simulation_events(&[(&w, 3), (&w, 2)]), 5 * one);
        // As many simulations as fit, and one more.
        let fit = (MAX_SIM_EVENTS / one) as usize;
        check_simulation(&[(&w, fit)], false).unwrap();
        let e = check_simulation(&[(&w, fit + 1)], false).unwrap_err();
        assert!(e.is::<OverLimit>(), "bad input, as failure.rs reports it");
        let m = e.to_string();
        assert!(
            m.starts_with("the simulations of heat 34x32")
                && m.contains("--no-limit")
                && m.contains("1.1e9"),
            "{m}"
        );
        check_simulation(&[(&w, fit + 1)], true).unwrap();
    }
}
