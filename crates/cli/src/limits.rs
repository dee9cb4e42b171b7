//! The bounds a kernel's input is held to before anything is prepared, so that an input
//! this machine cannot run is refused as bad input (exit 2) instead of aborting on a
//! failed allocation or running for hours:
//!
//! - **memory**: [`Params::estimate`]'s bytes against the memory this machine has
//!   available ([`locus_kernels::available_memory`]: `MemAvailable` of `/proc/meminfo`);
//! - **work**: the instructions of preparing the input and one run against
//!   [`locus_kernels::MAX_WORK`];
//! - **recording** (`sim`, `profile`): the task tree against the simulator's recorder
//!   ([`locus_kernels::record::check`], `MAX_TASKS`).
//!
//! Iterations (`iters=` in a size, `--iters`) are bounded by the size parser and
//! [`locus_kernels::check_iters`], repetitions by the flags' own parsers
//! ([`crate::cli`]). Every message names how the input was given: the flags that set it
//! (`--size`, `--matrix`, `--iters`), or the kernel's default size.

use anyhow::{bail, Result};
use locus_files::Bytes;
use locus_kernels::{Params, MAX_WORK};
use std::path::Path;

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
    if let Some(available) = locus_kernels::available_memory() {
        if estimate.bytes > available.bytes {
            bail!(
                "{given}: {what} needs about {} of memory, more than the {} this machine has \
                 available ({}); give a smaller size",
                Bytes(estimate.bytes),
                Bytes(available.bytes),
                available.source
            );
        }
    }
    if let Some(work) = estimate.work.filter(|&w| w > MAX_WORK) {
        bail!(
            "{given}: {what} takes about {} instructions to prepare and run once, more than \
             the {} locus allows one input (about a minute and a half of one core, before \
             the first timed run); give a smaller size or fewer iterations",
            sci(work),
            sci(MAX_WORK)
        );
    }
    if recorded {
        if let Err(e) = locus_kernels::record::check(params) {
            bail!("{given}: {e}");
        }
    }
    Ok(())
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
        let words = [
            "2^38".to_owned(),
            format!("({})", sci(MAX_WORK)),
            "above the recorder's 2^24 tasks".to_owned(),
            "2^24 tasks or 2^27 steps".to_owned(),
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
}
