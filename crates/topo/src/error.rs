//! The one error type of this crate.
//!
//! [`TopoError`] is opaque: callers print it (its `Display` names the input, the
//! position inside it and what was expected there) or walk `source()` for the
//! underlying I/O or XML error. Every fallible function of the crate returns it;
//! nothing in the crate panics on user input.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// An error while discovering, parsing, or restricting a topology.
///
/// The message always names the input (the string itself, the file path, or the
/// sysfs path), where in it the problem is (a byte offset for strings, a
/// `line:column` for XML), and what was expected.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct TopoError(#[from] Kind);

/// What went wrong. Private so that variants can change without breaking callers.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Kind {
    /// A synthetic string or `SxCxT` shorthand is malformed.
    #[error("invalid topology string {input:?} at byte {offset}: {msg}")]
    Synthetic {
        input: String,
        offset: usize,
        msg: String,
    },
    /// The XML is not well-formed.
    #[error("invalid hwloc XML in {source_name:?} at {line}:{column}: not well-formed XML")]
    XmlSyntax {
        source_name: String,
        line: u32,
        column: u32,
        #[source]
        err: roxmltree::Error,
    },
    /// The XML is well-formed but does not describe a usable machine.
    #[error("invalid hwloc XML in {source_name:?} at {line}:{column}: {msg}")]
    Xml {
        source_name: String,
        line: u32,
        column: u32,
        msg: String,
    },
    /// A file the user named is not a regular file, is too large, or could not be read.
    #[error(transparent)]
    File(#[from] locus_files::FileError),
    /// A file could not be read.
    #[error("cannot read {what} {path:?}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        err: io::Error,
    },
    /// A sysfs file has unexpected content.
    #[error("invalid content in {path:?} at byte {offset}: {msg}")]
    SysfsContent {
        path: PathBuf,
        offset: usize,
        msg: String,
    },
    /// A sysfs tree is readable but describes no usable machine.
    #[error("invalid sysfs tree {root:?}: {msg}")]
    Sysfs { root: PathBuf, msg: String },
    /// `sched_getaffinity` failed or is unsupported here.
    #[error("cannot read the CPU affinity of this process")]
    CpuMask {
        #[source]
        err: io::Error,
    },
    /// A spec names nothing that locus knows.
    #[error("unknown machine {spec:?}: expected a preset name ({presets}), a path to an hwloc .xml file, an hwloc synthetic string such as \"pack:2 core:4 pu:1\", or a shorthand such as \"2x4\" or \"2x10x2\"")]
    UnknownSpec { spec: String, presets: String },
    /// `restrict` got a bad PU list, or a machine ended up with no PU.
    #[error("cannot restrict machine {name:?}: {msg}")]
    Restrict { name: String, msg: String },
    /// A machine description has no PU at all (after restriction, for instance).
    #[error("machine {name:?} has no PU")]
    NoPu { name: String },
}

impl From<locus_files::FileError> for TopoError {
    fn from(e: locus_files::FileError) -> Self {
        Kind::File(e).into()
    }
}

impl TopoError {
    pub(crate) fn synthetic(input: &str, offset: usize, msg: impl fmt::Display) -> Self {
        Kind::Synthetic {
            input: input.to_owned(),
            offset,
            msg: msg.to_string(),
        }
        .into()
    }

    pub(crate) fn xml(source_name: &str, pos: roxmltree::TextPos, msg: impl fmt::Display) -> Self {
        Kind::Xml {
            source_name: source_name.to_owned(),
            line: pos.row,
            column: pos.col,
            msg: msg.to_string(),
        }
        .into()
    }

    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, err: io::Error) -> Self {
        Kind::Io {
            what,
            path: path.into(),
            err,
        }
        .into()
    }

    pub(crate) fn sysfs_content(
        path: impl Into<PathBuf>,
        offset: usize,
        msg: impl fmt::Display,
    ) -> Self {
        Kind::SysfsContent {
            path: path.into(),
            offset,
            msg: msg.to_string(),
        }
        .into()
    }

    pub(crate) fn sysfs(root: impl Into<PathBuf>, msg: impl fmt::Display) -> Self {
        Kind::Sysfs {
            root: root.into(),
            msg: msg.to_string(),
        }
        .into()
    }

    pub(crate) fn restrict(name: &str, msg: impl fmt::Display) -> Self {
        Kind::Restrict {
            name: name.to_owned(),
            msg: msg.to_string(),
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_send_sync_static() {
        fn check<T: Send + Sync + 'static + std::error::Error>() {}
        check::<TopoError>();
    }
}
