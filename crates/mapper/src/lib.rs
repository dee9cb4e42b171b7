//! The sharing-aware thread mapper of locus, after SAM-MPH (Srikanthan, Dwarkadas
//! and Shen, "Coherence stalls or latency tolerance: informed CPU scheduling for
//! socket and core sharing"; `papers/sam-mph-sharing-aware-mapper.txt`).
//!
//! The mapper watches the operating-system threads of several programs through
//! per-thread hardware counters and pins them to sockets, cores and hyperthreads:
//! applications whose threads share data are consolidated on a socket (the least
//! latency-tolerant first), high-IPC threads are kept off shared cores, very
//! latency-bound sharers are paired on hyperthreads, and memory-bound threads are
//! spread next to their memory. A history of the last intervals keeps transient
//! behaviour from moving threads.
//!
//! The crate has two halves that meet in [`model`]:
//!
//! * the decisions, with no system call in them: [`classify`] (one interval's
//!   classes), [`history`] (classes over the last intervals), [`decide`] (the
//!   round: [`Mapper::decide`], samples in, [`Move`]s out) and the placement it
//!   uses; and [`workload`], a closed-loop simulator of multi-threaded
//!   applications on a multi-socket machine, which drives the same [`Mapper`]
//!   through a [`SampleSource`] and compares it with a Linux-like placement, the
//!   SAM variant and the best static placement;
//! * the operating-system side: per-thread counters, the choice of processes,
//!   and `sched_setaffinity`.
//!
//! Nothing here panics on bad input: samples with missing events, threads that
//! come and go, empty rounds and machines of one socket are all ordinary.

#![deny(missing_docs)]

pub mod act;
pub mod classify;
pub mod daemon;
pub mod decide;
pub mod events;
pub mod history;
pub mod model;
mod place;
pub mod procs;
pub mod sample;
pub mod workload;

pub use classify::Level;
pub use decide::{AppClass, Config, Mapper, MapperError, ThreadClass};
pub use model::*;
