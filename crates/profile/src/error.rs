//! The error of profiling, graph building and partitioning ([`ProfileError`]). Schedule
//! files have their own, [`crate::ScheduleError`], because what a reader of a file must
//! do differs from what a caller with bad options must do.
//!
//! The error is opaque: callers print it (its `Display` names the input and what is
//! wrong with it) or walk `source()` for an underlying I/O or METIS error.

use std::io;
use std::path::PathBuf;

/// Why a profile, an affinity graph or a partition could not be made.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct ProfileError(#[from] Kind);

/// What went wrong. Private so that variants can change without breaking callers.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Kind {
    /// An option is outside its range.
    #[error("{what} {value}: expected {expected}")]
    BadOption {
        what: &'static str,
        value: String,
        expected: &'static str,
    },
    /// A machine description with no worker, or inconsistent squads.
    #[error("machine {name:?}: {msg}")]
    Machine { name: String, msg: String },
    /// The recorded program has no leaf task that declares an access.
    #[error(
        "{what}: no leaf task declares a memory access, so there is nothing to profile \
         (kernels that declare footprints: heat, sor, ge, sort and their variants)"
    )]
    NoTasks { what: String },
    /// More tasks than METIS's 32-bit indices (with headroom for weights) can hold.
    #[error("{what}: {tasks} tasks, more than the {limit} a partition can take")]
    TooManyTasks {
        what: String,
        tasks: usize,
        limit: usize,
    },
    /// The affinity graph would have more edges than the limit.
    #[error(
        "the affinity graph would have more than {limit} edges ({found} so far, dense ratio \
         {dense_ratio}): lower the dense ratio (--dense-ratio) so that lines shared by many \
         tasks are dropped, or raise the limit (--max-edges) where memory allows"
    )]
    TooManyEdges {
        found: u64,
        limit: usize,
        dense_ratio: f64,
    },
    /// CSR arrays given by hand are malformed.
    #[error("invalid graph: {msg}")]
    Graph { msg: String },
    /// The graph and the machine do not go together, or the graph is empty.
    #[error("cannot partition: {msg}")]
    Partition { msg: String },
    /// METIS refused or failed.
    #[error("METIS failed while splitting {what}")]
    Metis {
        what: String,
        #[source]
        err: metis::Error,
    },
    /// A file could not be read.
    #[error("cannot read {what} {path:?}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        err: io::Error,
    },
    /// A file the user named is not a regular file, or could not be opened.
    #[error(transparent)]
    File(#[from] locus_files::FileError),
}

impl ProfileError {
    pub(crate) fn option(what: &'static str, value: impl ToString, expected: &'static str) -> Self {
        Kind::BadOption {
            what,
            value: value.to_string(),
            expected,
        }
        .into()
    }

    pub(crate) fn graph(msg: impl Into<String>) -> Self {
        Kind::Graph { msg: msg.into() }.into()
    }

    pub(crate) fn partition(msg: impl Into<String>) -> Self {
        Kind::Partition { msg: msg.into() }.into()
    }
}
