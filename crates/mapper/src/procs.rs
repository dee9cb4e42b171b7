//! Which processes and threads the mapper watches, read from `/proc`.
//!
//! A [`Selection`] names processes by pid (`--pid`), by command name (`--comm`, compared
//! with `/proc/PID/comm`) or as every process of the calling user (`--user`, the real
//! uid of `/proc/PID/status`); a process matching any of them is selected. Two kinds are
//! never selected: the mapper's own process, and kernel threads (`PF_KTHREAD` in the
//! flags of `/proc/PID/stat`). Threads are the entries of `/proc/PID/task`; each
//! thread's last CPU is field 39 of `/proc/PID/task/TID/stat`.
//!
//! `/proc` changes while it is read: a process or thread that disappears between
//! listing and reading is skipped without a word. Files with malformed content are
//! errors naming the file. [`Procfs`] reads under any root, so tests use recorded trees.
//!
//! [`allowed_cpus`] wraps `sched_getaffinity`, the one system call of this module.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// `PF_KTHREAD` in the flags of `/proc/PID/stat` (`include/linux/sched.h`).
const PF_KTHREAD: u64 = 0x0020_0000;

/// The kernel keeps 15 bytes of a command name (`TASK_COMM_LEN` is 16 with the NUL).
pub const COMM_LEN: usize = 15;

/// Which processes to watch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Process ids (`--pid`).
    pub pids: Vec<u32>,
    /// Command names (`--comm`); names longer than [`COMM_LEN`] bytes are compared on
    /// their first [`COMM_LEN`] bytes, as the kernel truncates them.
    pub comms: Vec<String>,
    /// Every process of the calling user (`--user`).
    pub user: bool,
}

impl Selection {
    /// Whether the selection names nothing.
    pub fn is_empty(&self) -> bool {
        self.pids.is_empty() && self.comms.is_empty() && !self.user
    }

    /// Whether a process with this pid, command name (the bytes of `/proc/PID/comm`
    /// without the newline) and real uid is selected by `caller` (the mapper's own
    /// process is never selected).
    pub fn matches(&self, pid: u32, comm: &[u8], uid: Option<u32>, caller: &Caller) -> bool {
        if pid == caller.pid {
            return false;
        }
        self.pids.contains(&pid)
            || self.comms.iter().any(|c| comm_matches(c, comm))
            || (self.user && uid == Some(caller.uid))
    }
}

/// Whether `wanted` (as the user typed it) names the command `comm` (the bytes the
/// kernel keeps: at most [`COMM_LEN`], cut anywhere, even inside a UTF-8 character).
pub fn comm_matches(wanted: &str, comm: &[u8]) -> bool {
    let wanted = wanted.as_bytes();
    wanted == comm
        || (wanted.len() > COMM_LEN && comm.len() == COMM_LEN && wanted[..COMM_LEN] == *comm)
}

/// The process running the mapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    /// Its pid.
    pub pid: u32,
    /// Its real uid.
    pub uid: u32,
}

impl Caller {
    /// The calling process.
    pub fn current() -> Caller {
        // SAFETY: getuid has no preconditions and cannot fail (POSIX).
        let uid = unsafe { libc::getuid() };
        Caller {
            pid: std::process::id(),
            uid,
        }
    }
}

/// Why `/proc` could not be read as expected.
#[derive(Debug, thiserror::Error)]
pub enum ProcError {
    /// A `stat` line is malformed.
    #[error("malformed stat line {line:?}: {reason}")]
    Stat {
        /// The line (cut to 200 characters).
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `status` text lacks a well-formed `Uid:` line.
    #[error("malformed status text: {reason}")]
    Status {
        /// What is wrong with it.
        reason: String,
    },
    /// A file or folder could not be read.
    #[error("cannot read {path:?}")]
    Io {
        /// What was read.
        path: PathBuf,
        /// Why not.
        #[source]
        source: io::Error,
    },
    /// A `--pid` names no running process.
    #[error("--pid {pid}: no such process")]
    NoSuchProcess {
        /// The pid.
        pid: u32,
    },
    /// A `--pid` names the mapper itself.
    #[error("--pid {pid} is the mapper's own process, which it never maps")]
    SelfSelected {
        /// The pid.
        pid: u32,
    },
    /// A `--pid` names a kernel thread.
    #[error("--pid {pid} ({comm}) is a kernel thread, which the mapper never maps")]
    KernelThread {
        /// The pid.
        pid: u32,
        /// Its command name.
        comm: String,
    },
}

impl ProcError {
    /// Whether the error only says the process or thread is gone (it exited while
    /// being read), which callers skip silently.
    pub fn is_gone(&self) -> bool {
        match self {
            ProcError::Io { source, .. } => is_gone(source),
            _ => false,
        }
    }
}

/// Whether an I/O error on a `/proc/PID/...` path means the process or thread exited.
pub fn is_gone(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ESRCH)
}

/// The fields of a `/proc/PID/task/TID/stat` line the mapper uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// Field 1: the thread (or process) id.
    pub id: u32,
    /// Field 2: the command name, without its parentheses.
    pub comm: String,
    /// Field 3: the state letter (`R`, `S`, `D`, `Z`, ...).
    pub state: char,
    /// Field 9: the kernel's `PF_*` flags.
    pub flags: u64,
    /// Field 22: when the thread started, in clock ticks since boot, where the line is
    /// long enough. With the id it names one thread: an id the kernel gives again to a
    /// later thread comes with a later start.
    pub start_time: Option<u64>,
    /// Field 39: the CPU the thread last ran on, where the line is long enough (kernels
    /// since 2.2.8 print it).
    pub processor: Option<usize>,
}

impl Stat {
    /// Whether the flags mark a kernel thread.
    pub fn is_kernel_thread(&self) -> bool {
        self.flags & PF_KTHREAD != 0
    }
}

/// Parses one `stat` line. The command name may hold spaces and parentheses, so it is
/// taken from the first `(` to the *last* `)`; fields after it are counted from there.
///
/// # Errors
///
/// [`ProcError::Stat`] when the id, the parentheses, the state or the flags are missing
/// or malformed, or field 22 or 39 is present but not a number.
pub fn parse_stat(line: &str) -> Result<Stat, ProcError> {
    let bad = |reason: &str| ProcError::Stat {
        line: line.chars().take(200).collect(),
        reason: reason.to_owned(),
    };
    let line = line.trim_end_matches(['\n', '\0']);
    let open = line
        .find('(')
        .ok_or_else(|| bad("no '(' before the command name"))?;
    let close = line
        .rfind(')')
        .ok_or_else(|| bad("no ')' after the command name"))?;
    if close < open {
        return Err(bad("')' comes before '('"));
    }
    let id = line[..open]
        .trim()
        .parse()
        .map_err(|_| bad("field 1 (the id) is not a number"))?;
    let comm = line[open + 1..close].to_owned();
    // Field n (n >= 3) is rest[n - 3].
    let rest: Vec<&str> = line[close + 1..].split_ascii_whitespace().collect();
    let state = match rest.first().map(|s| s.chars().collect::<Vec<_>>()) {
        Some(c) if c.len() == 1 && c[0].is_ascii_alphabetic() => c[0],
        Some(_) => return Err(bad("field 3 (the state) is not one letter")),
        None => return Err(bad("the line ends after the command name")),
    };
    let flags = rest
        .get(9 - 3)
        .ok_or_else(|| bad("the line ends before field 9 (the flags)"))?
        .parse()
        .map_err(|_| bad("field 9 (the flags) is not a number"))?;
    // Field n (n >= 3) where the line is long enough: absent is not an error (old
    // kernels, odd tasks), present and not a number is.
    let optional = |n: usize, what: &str| -> Result<Option<u64>, ProcError> {
        rest.get(n - 3)
            .map(|field| {
                field
                    .parse()
                    .map_err(|_| bad(&format!("field {n} ({what}) is not a number")))
            })
            .transpose()
    };
    let start_time = optional(22, "the start time")?;
    let processor = optional(39, "the last CPU")?
        .map(usize::try_from)
        .transpose()
        .map_err(|_| bad("field 39 (the last CPU) is out of range"))?;
    Ok(Stat {
        id,
        comm,
        state,
        flags,
        start_time,
        processor,
    })
}

/// The real uid of a `/proc/PID/status` text (the first number of its `Uid:` line).
///
/// # Errors
///
/// [`ProcError::Status`] when there is no `Uid:` line or its first field is not a number.
pub fn parse_status_uid(text: &str) -> Result<u32, ProcError> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .ok_or_else(|| ProcError::Status {
            reason: "no \"Uid:\" line".to_owned(),
        })?;
    let first = line.split_whitespace().next().unwrap_or("");
    first.parse().map_err(|_| ProcError::Status {
        reason: format!("the real uid {first:?} is not a number"),
    })
}

/// A selected process and its threads, as read in one pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// The pid.
    pub pid: u32,
    /// `/proc/PID/comm`.
    pub comm: String,
    /// Its threads (the process's own id among them), sorted by tid.
    pub threads: Vec<Thread>,
}

/// One thread of a selected process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thread {
    /// The thread id.
    pub tid: u32,
    /// The CPU it last ran on (stat field 39).
    pub cpu: Option<usize>,
}

/// A `/proc` tree: the system's, or a recorded one for tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Procfs {
    root: PathBuf,
}

impl Default for Procfs {
    fn default() -> Self {
        Procfs::system()
    }
}

impl Procfs {
    /// The system's `/proc`.
    pub fn system() -> Procfs {
        Procfs {
            root: PathBuf::from("/proc"),
        }
    }

    /// A tree shaped like `/proc` under `root`.
    pub fn at(root: impl Into<PathBuf>) -> Procfs {
        Procfs { root: root.into() }
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn read(&self, path: PathBuf) -> Result<String, ProcError> {
        fs::read_to_string(&path).map_err(|source| ProcError::Io { path, source })
    }

    /// The numeric entries of a folder (pids under the root, tids under `PID/task`),
    /// sorted.
    fn numeric_entries(&self, dir: PathBuf) -> Result<Vec<u32>, ProcError> {
        let entries = fs::read_dir(&dir).map_err(|source| ProcError::Io {
            path: dir.clone(),
            source,
        })?;
        let mut ids = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| ProcError::Io {
                path: dir.clone(),
                source,
            })?;
            if let Some(id) = entry.file_name().to_str().and_then(|n| n.parse().ok()) {
                ids.push(id);
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }

    /// Every process id.
    ///
    /// # Errors
    ///
    /// When the root cannot be listed.
    pub fn pids(&self) -> Result<Vec<u32>, ProcError> {
        self.numeric_entries(self.root.clone())
    }

    /// The bytes of `/proc/PID/comm`, without its newline.
    ///
    /// # Errors
    ///
    /// When the file cannot be read ([`ProcError::is_gone`] if the process exited).
    pub fn comm_bytes(&self, pid: u32) -> Result<Vec<u8>, ProcError> {
        let path = self.root.join(pid.to_string()).join("comm");
        let mut bytes = fs::read(&path).map_err(|source| ProcError::Io { path, source })?;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        Ok(bytes)
    }

    /// `/proc/PID/comm` as text (bytes that are not UTF-8 shown as U+FFFD).
    ///
    /// # Errors
    ///
    /// As [`Procfs::comm_bytes`].
    pub fn comm(&self, pid: u32) -> Result<String, ProcError> {
        Ok(String::from_utf8_lossy(&self.comm_bytes(pid)?).into_owned())
    }

    /// The real uid of a process.
    ///
    /// # Errors
    ///
    /// When `/proc/PID/status` cannot be read or has no well-formed `Uid:` line.
    pub fn uid(&self, pid: u32) -> Result<u32, ProcError> {
        parse_status_uid(&self.read(self.root.join(pid.to_string()).join("status"))?)
    }

    /// The process's own `stat` line, parsed.
    ///
    /// # Errors
    ///
    /// When it cannot be read or is malformed.
    pub fn stat(&self, pid: u32) -> Result<Stat, ProcError> {
        let path = self.root.join(pid.to_string()).join("stat");
        parse_stat(&self.read(path)?)
    }

    /// The thread ids of a process, sorted.
    ///
    /// # Errors
    ///
    /// When `/proc/PID/task` cannot be listed.
    pub fn tids(&self, pid: u32) -> Result<Vec<u32>, ProcError> {
        self.numeric_entries(self.root.join(pid.to_string()).join("task"))
    }

    /// One thread's `stat` line, parsed.
    ///
    /// # Errors
    ///
    /// When it cannot be read or is malformed.
    pub fn thread_stat(&self, pid: u32, tid: u32) -> Result<Stat, ProcError> {
        let path = self
            .root
            .join(pid.to_string())
            .join("task")
            .join(tid.to_string())
            .join("stat");
        parse_stat(&self.read(path)?)
    }

    /// Whether `tid` is (still) a thread of `pid`.
    pub fn has_thread(&self, pid: u32, tid: u32) -> bool {
        self.root
            .join(pid.to_string())
            .join("task")
            .join(tid.to_string())
            .exists()
    }

    /// Checks the `--pid`s of a selection before the mapper starts: each must be running,
    /// not be the mapper itself and not be a kernel thread.
    ///
    /// # Errors
    ///
    /// The first pid that fails, as [`ProcError::NoSuchProcess`],
    /// [`ProcError::SelfSelected`] or [`ProcError::KernelThread`].
    pub fn check(&self, selection: &Selection, caller: &Caller) -> Result<(), ProcError> {
        for &pid in &selection.pids {
            if pid == caller.pid {
                return Err(ProcError::SelfSelected { pid });
            }
            match self.stat(pid) {
                Ok(stat) if stat.is_kernel_thread() => {
                    return Err(ProcError::KernelThread {
                        pid,
                        comm: stat.comm,
                    })
                }
                Ok(_) => {}
                Err(e) if e.is_gone() => return Err(ProcError::NoSuchProcess { pid }),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The selected processes with their threads, read now. Processes and threads that
    /// exit while being read are left out; processes whose files are malformed are left
    /// out with a warning in the log (one process's odd file must not stop the mapper).
    ///
    /// # Errors
    ///
    /// Only when the root itself cannot be listed.
    pub fn select(
        &self,
        selection: &Selection,
        caller: &Caller,
    ) -> Result<Vec<Process>, ProcError> {
        let candidates = if selection.comms.is_empty() && !selection.user {
            selection.pids.clone()
        } else {
            self.pids()?
        };
        let mut processes = Vec::new();
        for pid in candidates {
            match self.read_process(pid, selection, caller) {
                Ok(Some(process)) => processes.push(process),
                Ok(None) => {}
                Err(e) if e.is_gone() => {}
                Err(e) => tracing::warn!(pid, error = %error_chain(&e), "skipping a process"),
            }
        }
        processes.sort_by_key(|p| p.pid);
        processes.dedup_by_key(|p| p.pid);
        Ok(processes)
    }

    /// One process, if selected.
    fn read_process(
        &self,
        pid: u32,
        selection: &Selection,
        caller: &Caller,
    ) -> Result<Option<Process>, ProcError> {
        if pid == caller.pid {
            return Ok(None);
        }
        let comm = self.comm_bytes(pid)?;
        let uid = if selection.user {
            Some(self.uid(pid)?)
        } else {
            None
        };
        if !selection.matches(pid, &comm, uid, caller) {
            return Ok(None);
        }
        let comm = String::from_utf8_lossy(&comm).into_owned();
        if self.stat(pid)?.is_kernel_thread() {
            return Ok(None);
        }
        let mut threads = Vec::new();
        for tid in self.tids(pid)? {
            match self.thread_stat(pid, tid) {
                Ok(stat) => threads.push(Thread {
                    tid,
                    cpu: stat.processor,
                }),
                Err(e) if e.is_gone() => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Some(Process { pid, comm, threads }))
    }
}

/// An error and its causes on one line, `a: b: c`.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Bits per word of an affinity mask.
const WORD_BITS: usize = u64::BITS as usize;
/// The largest mask [`allowed_cpus`] asks the kernel for, in words (262,144 CPUs).
const MAX_MASK_WORDS: usize = 4096;

/// The CPUs thread `tid` may run on (`sched_getaffinity`), sorted.
///
/// # Errors
///
/// The system call's error: `ESRCH` when the thread is gone, `EPERM` when the caller may
/// not look at it.
pub fn allowed_cpus(tid: u32) -> io::Result<Vec<usize>> {
    let tid = libc::pid_t::try_from(tid)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "thread id out of range"))?;
    // Start at the size of glibc's cpu_set_t (1024 CPUs) and grow while the kernel
    // answers EINVAL (its mask is larger than ours).
    let mut words = 16;
    loop {
        let mut mask = vec![0u64; words];
        // SAFETY: `mask` is a live, writable buffer of exactly `words * 8` bytes, the
        // size passed; the kernel writes at most that many bytes and treats the buffer
        // as a bit array (cpu_set_t is such an array of unsigned longs).
        let rc = unsafe {
            libc::sched_getaffinity(
                tid,
                words * std::mem::size_of::<u64>(),
                mask.as_mut_ptr().cast::<libc::cpu_set_t>(),
            )
        };
        if rc == 0 {
            return Ok(mask_to_cpus(&mask));
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EINVAL) && words < MAX_MASK_WORDS {
            words *= 2;
            continue;
        }
        return Err(err);
    }
}

/// The CPUs set in a mask of 64-bit words.
pub(crate) fn mask_to_cpus(mask: &[u64]) -> Vec<usize> {
    let mut cpus = Vec::new();
    for (w, &word) in mask.iter().enumerate() {
        for bit in 0..WORD_BITS {
            if word & (1 << bit) != 0 {
                cpus.push(w * WORD_BITS + bit);
            }
        }
    }
    cpus
}

/// A mask of 64-bit words with `cpus` set.
pub(crate) fn cpus_to_mask(cpus: &[usize]) -> Vec<u64> {
    let words = cpus.iter().max().map_or(1, |&m| m / WORD_BITS + 1);
    let mut mask = vec![0u64; words.max(16)];
    for &cpu in cpus {
        mask[cpu / WORD_BITS] |= 1 << (cpu % WORD_BITS);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_round_trip() {
        let cpus = vec![0, 3, 63, 64, 130, 1500];
        assert_eq!(mask_to_cpus(&cpus_to_mask(&cpus)), cpus);
        assert_eq!(mask_to_cpus(&cpus_to_mask(&[])), Vec::<usize>::new());
        assert_eq!(cpus_to_mask(&[1]).len(), 16);
    }

    #[test]
    fn truncated_command_names_match() {
        assert!(comm_matches("bash", b"bash"));
        assert!(!comm_matches("bas", b"bash"));
        assert!(!comm_matches("bash", b"bas"));
        assert!(comm_matches("a-very-long-program-name", b"a-very-long-pro"));
        assert!(!comm_matches("a-very-long-program-name", b"a-very"));
        assert!(!comm_matches(
            "a-very-long-program-name",
            b"b-very-long-pro"
        ));
        // Cut inside the two bytes of 'é' (0xC3 0xA9): the kernel kept 0xC3 only.
        let wanted = "abcdefghijklmné-suffix";
        assert_eq!(wanted.as_bytes()[14], 0xC3);
        assert!(comm_matches(wanted, &wanted.as_bytes()[..COMM_LEN]));
    }
}
