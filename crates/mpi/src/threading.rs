//! Starting MPI at the threading level the programs need.
//!
//! The programs call MPI only from the main thread, between runs of the pool: a sweep
//! or a product runs in the pool (`ThreadPool::install` blocks the main thread until it
//! is done), then the main thread trades halo rows or gathers the vector. That is
//! `MPI_THREAD_FUNNELED`. A program whose tasks call MPI themselves (a task sending its
//! own rows as soon as they are computed) needs `MPI_THREAD_MULTIPLE`, or
//! `MPI_THREAD_SERIALIZED` if it makes sure no two calls overlap; see `docs/mpi.md`.

use anyhow::{bail, Result};
use mpi::environment::Universe;
pub use mpi::Threading;

/// The level the programs ask for: only the main thread calls MPI.
pub const REQUIRED: Threading = Threading::Funneled;

/// The levels in the standard's order, weakest first.
fn rank_of(level: Threading) -> u8 {
    match level {
        Threading::Single => 0,
        Threading::Funneled => 1,
        Threading::Serialized => 2,
        Threading::Multiple => 3,
    }
}

/// The standard's name of a level (`MPI_THREAD_FUNNELED`, ...).
pub fn name(level: Threading) -> &'static str {
    match level {
        Threading::Single => "MPI_THREAD_SINGLE",
        Threading::Funneled => "MPI_THREAD_FUNNELED",
        Threading::Serialized => "MPI_THREAD_SERIALIZED",
        Threading::Multiple => "MPI_THREAD_MULTIPLE",
    }
}

/// Whether `provided` allows what `required` asks for.
pub fn suffices(provided: Threading, required: Threading) -> bool {
    rank_of(provided) >= rank_of(required)
}

/// Starts MPI asking for [`REQUIRED`]; returns the universe and the level the library
/// provides.
///
/// # Errors
///
/// When MPI was started already, and when the library provides less than [`REQUIRED`]
/// (the message names both levels).
pub fn init() -> Result<(Universe, Threading)> {
    let Some((universe, provided)) = mpi::initialize_with_threading(REQUIRED) else {
        bail!("MPI was initialised already in this process");
    };
    if !suffices(provided, REQUIRED) {
        bail!(
            "the MPI library provides {} but the programs need {} (the main thread calls \
             MPI while the pool's workers run)",
            name(provided),
            name(REQUIRED)
        );
    }
    Ok((universe, provided))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered() {
        assert!(suffices(Threading::Multiple, REQUIRED));
        assert!(suffices(Threading::Serialized, REQUIRED));
        assert!(suffices(Threading::Funneled, REQUIRED));
        assert!(!suffices(Threading::Single, REQUIRED));
        assert_eq!(name(REQUIRED), "MPI_THREAD_FUNNELED");
    }
}
