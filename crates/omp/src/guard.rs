//! The boundary with C: every entry point (`abi/`) and every thread locus-omp starts
//! runs its Rust code under [`guard`], so that a panic prints and aborts instead of
//! unwinding into C or out of a thread nobody joins.

/// Runs `f`; a panic is printed, naming `what`, and the process aborts.
pub(crate) fn guard<R>(what: &str, f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            eprintln!("locus: internal error in {what}; aborting");
            std::process::abort()
        }
    }
}
