//! locus inside MPI ranks: MPI moves data between ranks, one rank per socket or NUMA
//! node and bound there, and a locus pool runs each rank's share of the work
//! (docs/design.md, "Beyond one machine").
//!
//! Two programs, each checked against its serial kernel in `locus-kernels`:
//! - [`heat`]: the rows of heat's grid split across the ranks; every sweep, each rank
//!   runs heat's own sweep over its rows in its pool, then trades its edge rows with
//!   its neighbours (halo rows). The result is bitwise equal to `heat::reference`.
//! - [`spmv`]: a power iteration `x <- A x / max |A x|` over spmv-crs, each rank's
//!   block of rows of `A` in its pool, the blocks of `x` gathered on every rank after
//!   each product. Bitwise equal to the same loop over `spmv::crs_reference`.
//!
//! # What holds
//! - Each rank's pool comes from the rank's own affinity mask: the runtime's discovery
//!   keeps only the CPUs `sched_getaffinity` allows, so a rank that `mpirun` bound to a
//!   socket gets that socket's squads ([`placement`]). Each rank reports its binding,
//!   squads, pool size and the CPUs each worker thread may run on, read on that worker
//!   ([`report`]).
//! - Only the thread that called `MPI_Init_thread` calls MPI: tasks compute, the main
//!   thread communicates between the pool's runs. [`threading`] asks for
//!   `MPI_THREAD_FUNNELED` and refuses to run with less.
//! - An input no rank could hold, or too large to run, is refused before anything is
//!   prepared, with `locus`'s exit statuses ([`limits`]).

#![deny(missing_docs)]

pub mod heat;
pub mod limits;
pub mod placement;
pub mod report;
pub mod rows;
pub mod spmv;
pub mod threading;

use std::time::Duration;

/// A rank's part of a distributed run, checked against the serial kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Whether the rank's part equals the serial kernel's bit for bit.
    pub verified: bool,
    /// What was compared, or the first difference.
    pub detail: String,
    /// Wall time of the sweeps or products, the communication between them included.
    pub elapsed: Duration,
}
