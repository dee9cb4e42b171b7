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
//! takes the file from [`open_input`] and bounds what it builds itself, each line
//! included ([`read_line`]).
//!
//! # Outputs
//!
//! [`check_output`] accepts a path where nothing is yet (in a folder that exists) or where
//! a regular file is. Everything else is refused, before a run starts:
//! - a **symbolic link** is neither followed nor replaced: following it writes a file the
//!   user did not name, and replacing it destroys the link. The message names the target,
//!   so the user can name it instead;
//! - a device, a FIFO or a socket: writing into one sends a document to a device (or
//!   waits for a reader), and renaming a file over one replaces the device node itself;
//! - a folder, or a path in a folder that does not exist. At most the last folder of a
//!   path is ever created ([`create_output_dir`]), never a chain;
//! - an existing regular file that this user could not write with the shell's `>`
//!   ([`may_write`] on its permission bits; the superuser may write any, as with `>`).
//!   Writing beside it and renaming over it would succeed (renaming needs only the
//!   folder's permission), and would reset its mode, its owner and break its hard links.
//!
//! [`write_output`] writes a **new** file as a temporary file beside the target (created
//! exclusively, so it cannot follow a planted link) renamed into place, so readers never
//! see half a document. An **existing** file is written in place, as `>` writes it, so
//! that it keeps its mode, its owner and its hard links (each link sees the new
//! document): it is opened for writing first (without following a link; the kernel's
//! permission check is the final word), the document is written whole to an unnamed
//! spool file, and only then copied over the old content. A writer that fails leaves
//! either file as it was.
//!
//! # This process's memory
//!
//! [`memory`] reads the files Linux keeps about the process's memory limits (its
//! resource limits, its cgroup), which bound what an input may need besides the
//! machine's free memory.
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
pub mod memory;

use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, BufRead, BufWriter, Read, Seek, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
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
    #[error("is not writable by this user (mode {mode:04o}, owner uid {owner}, group gid {group}); locus writes over an existing file only where the shell's `>` could: make it writable (chmod u+w) or name another file")]
    NotWritable { mode: u32, owner: u32, group: u32 },
    #[error("is a symbolic link (to {target:?}); locus does not write into a folder through a link: name the folder itself")]
    FolderLink { target: PathBuf },
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
        Ok(meta) if !may_write(&meta, &Ids::of_process()) => Err(err(Kind::NotWritable {
            mode: meta.mode() & 0o7777,
            owner: meta.uid(),
            group: meta.gid(),
        })),
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

/// The identity the kernel checks a file's permission bits against: the effective user
/// and group and the supplementary groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids {
    /// Effective user id (0: the superuser).
    pub uid: u32,
    /// Effective group id.
    pub gid: u32,
    /// Supplementary group ids.
    pub groups: Vec<u32>,
}

impl Ids {
    /// This process's identity.
    pub fn of_process() -> Ids {
        // SAFETY: geteuid and getegid cannot fail and touch no memory of ours.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        // SAFETY: with a size of 0, getgroups writes nothing and returns the count.
        let n = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        let mut groups: Vec<libc::gid_t> = vec![0; usize::try_from(n).unwrap_or(0)];
        // SAFETY: `groups` holds `groups.len()` elements, the most getgroups writes; a
        // count that changed since the first call makes it fail (-1), leaving none.
        let got = unsafe { libc::getgroups(groups.len() as libc::c_int, groups.as_mut_ptr()) };
        groups.truncate(usize::try_from(got).unwrap_or(0));
        Ids { uid, gid, groups }
    }
}

/// Whether `who` may write a file with `meta`'s owner, group and permission bits, as the
/// kernel decides it for `open(O_WRONLY)`, and so for the shell's `>`: the superuser
/// may write any file; the owner is judged by the owner's bits alone, a member of the
/// file's group (effective or supplementary) by the group's, anyone else by the
/// others'. Access control lists are not read: where one grants more than the bits,
/// the file is refused; where one grants less, opening the file for writing fails and
/// [`write_output`] reports it.
pub fn may_write(meta: &Metadata, who: &Ids) -> bool {
    may_write_mode(meta.mode(), meta.uid(), meta.gid(), who)
}

/// [`may_write`] on a file's mode, owner and group.
pub fn may_write_mode(mode: u32, owner: u32, group: u32, who: &Ids) -> bool {
    if who.uid == 0 {
        return true;
    }
    let bit = if who.uid == owner {
        0o200
    } else if who.gid == group || who.groups.contains(&group) {
        0o020
    } else {
        0o002
    };
    mode & bit != 0
}

/// Writes an output file: `write` produces the whole document before the target is
/// touched. A new file is written beside the target and renamed into place; an existing
/// regular file is written in place, keeping its mode, owner and hard links (see the
/// module documentation). [`check_output`] passes first. On any error before the copy
/// the target is left as it was, and no temporary file is left behind.
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
    if fs::symlink_metadata(path).is_ok() {
        return write_in_place(origin, path, write);
    }
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

/// [`write_output`] over an existing regular file: opened for writing first (no link
/// followed, no waiting on a FIFO), the document spooled whole, then copied over the
/// old content and the file cut to the new length.
fn write_in_place(
    origin: &str,
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    let err = |kind| FileError::new(origin, path, kind);
    let io_err = |verb, err| FileError::new(origin, path, Kind::Io { verb, err });
    let mut target = File::options()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => err(Kind::OutputLink {
                target: fs::read_link(path).unwrap_or_default(),
            }),
            _ => io_err("cannot open it for writing", e),
        })?;
    let meta = target
        .metadata()
        .map_err(|e| io_err("cannot look at it", e))?;
    if !meta.is_file() {
        return Err(err(Kind::OutputNotRegular(kind_of(&meta))));
    }
    let spool = spool_beside(folder_of(path))
        .map_err(|e| io_err("cannot create a temporary file to write it to", e))?;
    let mut out = BufWriter::new(spool);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| io_err("cannot write it", e))?;
    let mut spool = out
        .into_inner()
        .map_err(|e| io_err("cannot write it", e.into_error()))?;
    spool.rewind().map_err(|e| io_err("cannot write it", e))?;
    let copied = io::copy(&mut spool, &mut target)
        .and_then(|n| target.set_len(n))
        .and_then(|()| target.sync_all());
    copied.map_err(|e| io_err("cannot write it", e))
}

/// An unnamed temporary file, in `dir` where this user may create one (the same file
/// system as the output, most likely with room), else in the system's temporary
/// folder: created exclusively, then its name removed at once, so nothing is left
/// behind whatever happens next.
fn spool_beside(dir: &Path) -> io::Result<File> {
    let name = format!(".locus-spool.{}", std::process::id());
    let mut last = None;
    for dir in [dir.to_owned(), std::env::temp_dir()] {
        for attempt in 0..16u32 {
            let path = dir.join(format!("{name}.{attempt}"));
            match File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(file) => {
                    fs::remove_file(&path)?;
                    return Ok(file);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    last = Some(e);
                    break;
                }
            }
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary file name")))
}

/// Reads one line of at most `cap` bytes (its line break not counted) from `reader` into
/// `buf` (appended, the line break included), for a reader of a text format that goes
/// line by line: a file with no line break (a sparse file of zeros, a binary file)
/// would otherwise be read into memory whole. Returns the bytes read (0 at the end of
/// the input); a longer line is an [`io::ErrorKind::InvalidData`] error saying so.
pub fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<usize> {
    let start = buf.len();
    loop {
        let (done, used) = {
            let available = match reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(buf.len() - start);
            }
            match available.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    buf.extend_from_slice(&available[..=i]);
                    (true, i + 1)
                }
                None => {
                    buf.extend_from_slice(available);
                    (false, available.len())
                }
            }
        };
        reader.consume(used);
        let line = buf.len() - start - usize::from(done);
        if line > cap {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a line longer than the {} locus reads for one line (is there a line \
                     break in it?)",
                    Bytes(cap as u64)
                ),
            ));
        }
        if done {
            return Ok(buf.len() - start);
        }
    }
}

/// Creates the folder `path` for the outputs of `origin` if it does not exist; its parent
/// must exist (at most the last folder of a path is created). An existing folder is
/// accepted; what it may already hold is the caller's to judge. A symbolic link is
/// refused, to a folder too: the outputs would land where the user did not name.
pub fn create_output_dir(origin: &str, path: &Path) -> Result<(), FileError> {
    let err = |kind| FileError::new(origin, path, kind);
    if path.as_os_str().is_empty() {
        return Err(err(Kind::Empty));
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) if meta.file_type().is_symlink() => Err(err(Kind::FolderLink {
            target: fs::read_link(path).unwrap_or_default(),
        })),
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
