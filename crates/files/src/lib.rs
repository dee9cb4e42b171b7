//! The files a locus user names: what the `locus` command and the libraries read from a
//! path given on the command line or in the environment, and what they write to one.
//!
//! Every function here names the file by the *flag or variable it came from* (`--json`,
//! `LOCUS_TOPOLOGY`, "hwloc XML file") and says what is wrong with it; nothing panics.
//!
//! # Inputs
//!
//! [`open_input`], [`read_input`] and [`read_input_string`] follow symbolic links (a link
//! to a regular file is an input like any other) and then accept only a **regular file**:
//! a device, a FIFO or a socket could be read for ever (`/dev/zero`, `/dev/urandom`) and a
//! folder not at all. The size is checked on the opened file's own metadata against a cap
//! the caller gives for its format, and reading stops one byte past the cap, so a file
//! that grows while it is read cannot run away either. A streaming reader (Matrix Market)
//! takes the file from [`open_input`] and bounds what it builds itself.
//!
//! # Outputs
//!
//! [`check_output`] accepts a path where nothing is yet (in a folder that exists) or where
//! a regular file is. Everything else is refused, before a run starts:
//! - a **symbolic link** is neither followed nor replaced: following it writes a file the
//!   user did not name, and replacing it destroys the link. The message names the target,
//!   so the user can name it instead;
//! - a device, a FIFO or a socket: writing a temporary file and renaming it over one
//!   (which is how outputs are written, below) would replace the device node itself;
//! - a folder, or a path in a folder that does not exist. At most the last folder of a
//!   path is ever created ([`create_output_dir`]), never a chain.
//!
//! [`write_output`] writes a new temporary file beside the target (created exclusively,
//! so it cannot follow a planted link) and renames it over the target, so readers never
//! see half a document; the target is checked once more right before the rename.
//!
//! # One run's files
//!
//! [`RunFiles`] collects the inputs and outputs of one run by the flag that named them,
//! and refuses an output that is one of the run's inputs or another of its outputs: the
//! same file by device and inode (hard links, links, `./x` and `x` alike), or the same
//! canonical path for files that do not exist yet.

#![deny(missing_docs)]

#[cfg(feature = "fuzz")]
pub mod fuzz;

use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A file a user named could not be used; the message names the flag or variable it came
/// from, the path, and the reason.
#[derive(Debug, thiserror::Error)]
#[error("{origin} {path:?}: {kind}")]
pub struct FileError {
    origin: String,
    path: PathBuf,
    kind: Kind,
}

impl FileError {
    fn new(origin: &str, path: &Path, kind: Kind) -> Self {
        FileError {
            origin: origin.to_owned(),
            path: path.to_owned(),
            kind,
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong with the file, without the origin and path the message starts
    /// with, for a caller whose own message names them already.
    pub fn reason(&self) -> String {
        self.kind.to_string()
    }

    /// Whether the error is an operating-system failure while reading or writing (a full
    /// disk, a permission), as opposed to a path that locus refuses to use.
    pub fn is_io(&self) -> bool {
        matches!(self.kind, Kind::Io { .. })
    }
}

#[derive(Debug, thiserror::Error)]
enum Kind {
    #[error("{verb}: {err}")]
    Io { verb: &'static str, err: io::Error },
    #[error("is {0}, not a regular file; locus reads inputs only from regular files")]
    InputNotRegular(&'static str),
    #[error("is {} bytes, more than the {} locus reads for {what}", .len, Bytes(*.cap))]
    TooLarge {
        len: u64,
        cap: u64,
        what: &'static str,
    },
    #[error("is a symbolic link (to {target:?}); locus neither writes through a link nor replaces it: name the file itself")]
    OutputLink { target: PathBuf },
    #[error("is {0}; locus writes an output only to a new file or over a regular file")]
    OutputNotRegular(&'static str),
    #[error("is a folder, not a file")]
    OutputIsFolder,
    #[error("the file name is empty")]
    Empty,
    #[error("folder {0:?} does not exist (locus creates at most the last folder of a path)")]
    NoFolder(PathBuf),
    #[error("{0:?} is {1}, not a folder")]
    ParentNotFolder(PathBuf, &'static str),
    #[error("is also this run's {other}; {}", if *.input { "an output never overwrites the run's own inputs" } else { "two outputs of one run need two files" })]
    Collision { other: String, input: bool },
    #[error("is {0}, not a folder")]
    NotAFolder(&'static str),
}

/// A byte count as a person reads it: `64 MiB`, `1.5 GiB`, `512 bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
        if self.0 < 1024 {
            return write!(f, "{} bytes", self.0);
        }
        let mut value = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < UNITS.len() {
            value /= 1024.0;
            unit += 1;
        }
        if value.fract() == 0.0 || value >= 100.0 {
            write!(f, "{value:.0} {}", UNITS[unit])
        } else {
            write!(f, "{value:.1} {}", UNITS[unit])
        }
    }
}

/// What a file that is not regular is, in words.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        "a file"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// Opens an input file that must be a regular file (symbolic links followed), and gives
/// it with its length. `origin` names where the path came from (`--matrix`, "hwloc XML
/// file").
pub fn open_input(origin: &str, path: &Path) -> Result<(File, u64), FileError> {
    let err = |kind| FileError::new(origin, path, kind);
    // Refuse before opening: opening a FIFO for reading blocks until a writer comes.
    let meta = fs::metadata(path).map_err(|e| {
        err(Kind::Io {
            verb: "cannot read it",
            err: e,
        })
    })?;
    if !meta.is_file() {
        return Err(err(Kind::InputNotRegular(kind_of(&meta))));
    }
    let file = File::open(path).map_err(|e| {
        err(Kind::Io {
            verb: "cannot open it",
            err: e,
        })
    })?;
    // The path may have changed between the two calls: judge the file that was opened.
    let meta = file.metadata().map_err(|e| {
        err(Kind::Io {
            verb: "cannot read it",
            err: e,
        })
    })?;
    if !meta.is_file() {
        return Err(err(Kind::InputNotRegular(kind_of(&meta))));
    }
    Ok((file, meta.len()))
}

/// Reads a whole input file of at most `cap` bytes; `what` names the format in the
/// message of a larger file ("an hwloc XML file").
pub fn read_input(
    origin: &str,
    path: &Path,
    cap: u64,
    what: &'static str,
) -> Result<Vec<u8>, FileError> {
    let (file, len) = open_input(origin, path)?;
    let too_large = |len| FileError::new(origin, path, Kind::TooLarge { len, cap, what });
    if len > cap {
        return Err(too_large(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| {
            FileError::new(
                origin,
                path,
                Kind::Io {
                    verb: "cannot read it",
                    err: e,
                },
            )
        })?;
    if bytes.len() as u64 > cap {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_input`] for a text file: the bytes must be UTF-8.
pub fn read_input_string(
    origin: &str,
    path: &Path,
    cap: u64,
    what: &'static str,
) -> Result<String, FileError> {
    let bytes = read_input(origin, path, cap, what)?;
    String::from_utf8(bytes).map_err(|e| {
        FileError::new(
            origin,
            path,
            Kind::Io {
                verb: "cannot read it as text",
                err: io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()),
            },
        )
    })
}

/// Checks that `path` may be written as an output of the flag `origin`: nothing there yet
/// in an existing folder, or a regular file (see the module documentation).
pub fn check_output(origin: &str, path: &Path) -> Result<(), FileError> {
    let err = |kind| FileError::new(origin, path, kind);
    if path.as_os_str().is_empty() {
        return Err(err(Kind::Empty));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = fs::read_link(path).unwrap_or_default();
            Err(err(Kind::OutputLink { target }))
        }
        Ok(meta) if meta.is_dir() => Err(err(Kind::OutputIsFolder)),
        Ok(meta) if !meta.is_file() => Err(err(Kind::OutputNotRegular(kind_of(&meta)))),
        Ok(_) => Ok(()),
        // Not there, or its folder is not a folder (ENOTDIR): judge the folder first.
        Err(e) => {
            missing_folder(folder_of(path)).map_err(err)?;
            if e.kind() == io::ErrorKind::NotFound {
                Ok(())
            } else {
                Err(err(Kind::Io {
                    verb: "cannot look at it",
                    err: e,
                }))
            }
        }
    }
}

/// Why `dir`, where a new file or folder is to go, cannot hold it, if it cannot.
fn missing_folder(dir: &Path) -> Result<(), Kind> {
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => Err(Kind::ParentNotFolder(dir.to_owned(), kind_of(&meta))),
        Err(_) => Err(Kind::NoFolder(dir.to_owned())),
    }
}

/// The folder a file path is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes an output file atomically: `write` fills a new temporary file beside `path`,
/// which is then renamed over it, after [`check_output`] has passed once more. On any
/// error the temporary file is removed and the target is left as it was.
pub fn write_output(
    origin: &str,
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    check_output(origin, path)?;
    let io_err = |verb, err| FileError::new(origin, path, Kind::Io { verb, err });
    let name = path.file_name().ok_or_else(|| {
        io_err(
            "cannot write it",
            io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"),
        )
    })?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| io_err("cannot create a temporary file beside it", e))?;
        let mut out = BufWriter::new(file);
        write(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| io_err("cannot write it", e))?;
        let file = out
            .into_inner()
            .map_err(|e| io_err("cannot write it", e.into_error()))?;
        file.sync_all().map_err(|e| io_err("cannot write it", e))?;
        check_output(origin, path)?;
        fs::rename(&tmp, path).map_err(|e| io_err("cannot put it in place", e))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Creates the folder `path` for the outputs of `origin` if it does not exist; its parent
/// must exist (at most the last folder of a path is created). An existing folder is
/// accepted; what it may already hold is the caller's to judge.
pub fn create_output_dir(origin: &str, path: &Path) -> Result<(), FileError> {
    let err = |kind| FileError::new(origin, path, kind);
    if path.as_os_str().is_empty() {
        return Err(err(Kind::Empty));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) if meta.file_type().is_symlink() && path.is_dir() => Ok(()),
        Ok(meta) => Err(err(Kind::NotAFolder(kind_of(&meta)))),
        // Not there, or its folder is not a folder (ENOTDIR): judge the folder first.
        Err(e) => {
            missing_folder(folder_of(path)).map_err(err)?;
            if e.kind() != io::ErrorKind::NotFound {
                return Err(err(Kind::Io {
                    verb: "cannot look at it",
                    err: e,
                }));
            }
            fs::create_dir(path).map_err(|e| {
                err(Kind::Io {
                    verb: "cannot create it",
                    err: e,
                })
            })
        }
    }
}

/// Which file a path names, as far as the file system can tell.
#[derive(Debug, Clone)]
struct FileKey {
    /// The canonical path, or for a file not yet there its canonical folder and name.
    canonical: PathBuf,
    /// Device and inode, for a file that exists.
    id: Option<(u64, u64)>,
}

impl FileKey {
    fn of(path: &Path) -> FileKey {
        if let Ok(meta) = fs::metadata(path) {
            let canonical = fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
            return FileKey {
                canonical,
                id: Some((meta.dev(), meta.ino())),
            };
        }
        let dir = fs::canonicalize(folder_of(path)).unwrap_or_else(|_| folder_of(path).into());
        let canonical = match path.file_name() {
            Some(name) => dir.join(name),
            None => path.to_owned(),
        };
        FileKey {
            canonical,
            id: None,
        }
    }

    fn same(&self, other: &FileKey) -> bool {
        self.canonical == other.canonical || (self.id.is_some() && self.id == other.id)
    }
}

/// The inputs and outputs of one run, each with the flag or variable that named it; see
/// the module documentation.
#[derive(Debug, Default)]
pub struct RunFiles {
    files: Vec<(String, bool, FileKey)>,
}

impl RunFiles {
    /// No files yet.
    pub fn new() -> Self {
        RunFiles::default()
    }

    /// Notes an input of the run; refused if it is one of the run's outputs already noted.
    pub fn input(&mut self, origin: &str, path: &Path) -> Result<(), FileError> {
        self.note(origin, path, true)
    }

    /// Checks an output with [`check_output`] and notes it; refused if it is one of the
    /// run's inputs or outputs already noted.
    pub fn output(&mut self, origin: &str, path: &Path) -> Result<(), FileError> {
        check_output(origin, path)?;
        self.note(origin, path, false)
    }

    fn note(&mut self, origin: &str, path: &Path, input: bool) -> Result<(), FileError> {
        let key = FileKey::of(path);
        for (other, other_input, other_key) in &self.files {
            // Two inputs may well be one file (a matrix named twice); anything else not.
            if (input && *other_input) || !key.same(other_key) {
                continue;
            }
            let (blamed, other, other_is_input) = if input {
                // The output was noted first; blame it, naming this input.
                (other.as_str(), origin, true)
            } else {
                (origin, other.as_str(), *other_input)
            };
            let other = if other_is_input {
                format!("{other} input")
            } else {
                format!("{other} output")
            };
            return Err(FileError::new(
                blamed,
                path,
                Kind::Collision {
                    other,
                    input: other_is_input,
                },
            ));
        }
        self.files.push((origin.to_owned(), input, key));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
