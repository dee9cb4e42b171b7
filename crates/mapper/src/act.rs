//! Carrying out [`Move`]s with `sched_setaffinity`, and undoing them.
//!
//! The [`Actuator`] knows which threads are selected now ([`Actuator::observe`], called
//! every round with the threads of the selected processes) and, for each, the CPU set
//! it was allowed when first seen: its **original mask**. A move is applied only
//!
//! 1. to a thread observed in the current round, as a thread of the process the move
//!    names (a move naming any other thread is skipped with a log line), and
//! 2. within the original mask: the move's CPUs are intersected with it, and a move
//!    whose intersection is empty is skipped with a log line. The mapper never widens
//!    what a thread was allowed, nor places it where its owner had forbidden it.
//!
//! A thread that has exited is dropped silently; `EPERM` (a thread the caller may not
//! change) is logged as an error and the mapper carries on. [`Actuator::restore`] puts
//! the original mask back on every thread the actuator changed that still exists.
//! Threads the actuator changed stay remembered for `restore` after they leave the
//! selection; unchanged ones are forgotten.
//!
//! The system calls sit behind the [`CpuBinding`] trait so that tests drive the actuator
//! with a fake; [`SystemCpuBinding`] is the real one. Before each call it checks that
//! `/proc/PID/task/TID` still exists, so that a recycled thread id of another process
//! is never touched, and the actuator compares the thread's start time with the one
//! it read when it first saw the thread, so that an id the kernel gave again to a new
//! thread of the same process is not taken for the thread the actuator changed. What
//! remains: the microseconds between those checks and the call, and an id given again
//! within the same clock tick (start times count ticks, 10 ms at `USER_HZ` 100).

use crate::model::Move;
use crate::procs::{self, Procfs};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io;

/// Reading and setting the CPUs a thread may run on.
pub trait CpuBinding {
    /// The CPUs thread `tid` of process `pid` may run on, sorted.
    ///
    /// # Errors
    ///
    /// `ESRCH` (or `NotFound`) when the thread is gone; `EPERM` when not permitted.
    fn get(&mut self, pid: u32, tid: u32) -> io::Result<Vec<usize>>;

    /// Restricts thread `tid` of process `pid` to `cpus` (sorted, not empty).
    ///
    /// # Errors
    ///
    /// As [`CpuBinding::get`]; `EINVAL` when no CPU of `cpus` is online.
    fn set(&mut self, pid: u32, tid: u32, cpus: &[usize]) -> io::Result<()>;

    /// When thread `tid` of process `pid` started: any value that differs between two
    /// threads given the same id one after the other, or `None` where it cannot be told.
    ///
    /// # Errors
    ///
    /// As [`CpuBinding::get`].
    fn start_time(&mut self, pid: u32, tid: u32) -> io::Result<Option<u64>>;
}

/// The real [`CpuBinding`]: `sched_getaffinity` and `sched_setaffinity` on the thread,
/// after checking under `/proc` that the thread still belongs to the process.
#[derive(Debug, Clone, Default)]
pub struct SystemCpuBinding {
    procfs: Procfs,
}

impl SystemCpuBinding {
    /// Over the system's `/proc`.
    pub fn new() -> SystemCpuBinding {
        SystemCpuBinding {
            procfs: Procfs::system(),
        }
    }

    fn check(&self, pid: u32, tid: u32) -> io::Result<()> {
        if self.procfs.has_thread(pid, tid) {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(libc::ESRCH))
        }
    }
}

impl CpuBinding for SystemCpuBinding {
    fn get(&mut self, pid: u32, tid: u32) -> io::Result<Vec<usize>> {
        self.check(pid, tid)?;
        procs::allowed_cpus(tid)
    }

    fn set(&mut self, pid: u32, tid: u32, cpus: &[usize]) -> io::Result<()> {
        self.check(pid, tid)?;
        set_allowed_cpus(tid, cpus)
    }

    /// Field 22 of `/proc/PID/task/TID/stat` (clock ticks since boot); `None` when the
    /// line lacks it or cannot be parsed.
    fn start_time(&mut self, pid: u32, tid: u32) -> io::Result<Option<u64>> {
        match self.procfs.thread_stat(pid, tid) {
            Ok(stat) => Ok(stat.start_time),
            Err(procs::ProcError::Io { source, .. }) => Err(source),
            Err(_) => Ok(None),
        }
    }
}

/// `sched_setaffinity(tid, cpus)`.
///
/// # Errors
///
/// The system call's error: `ESRCH` when the thread is gone, `EPERM` when the caller may
/// not change it, `EINVAL` when `cpus` holds no online CPU (or is empty).
pub fn set_allowed_cpus(tid: u32, cpus: &[usize]) -> io::Result<()> {
    if cpus.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let tid = libc::pid_t::try_from(tid)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "thread id out of range"))?;
    let mask = procs::cpus_to_mask(cpus);
    // SAFETY: `mask` is a live buffer of exactly `mask.len() * 8` bytes, the size passed;
    // the kernel only reads it, as a bit array like cpu_set_t's.
    let rc = unsafe {
        libc::sched_setaffinity(
            tid,
            std::mem::size_of_val(mask.as_slice()),
            mask.as_ptr().cast::<libc::cpu_set_t>(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// What became of one move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The thread may now run on exactly these CPUs (the move's, within its original
    /// mask).
    Moved {
        /// The CPUs set.
        cpus: Vec<usize>,
    },
    /// Not applied, and why.
    Skipped {
        /// One line.
        why: String,
    },
    /// The thread exited before the move.
    Gone,
    /// The system call failed.
    Failed {
        /// The error.
        error: String,
    },
}

/// One move and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The move as decided.
    pub decided: Move,
    /// What happened.
    pub outcome: Outcome,
}

/// What [`Actuator::restore`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Restored {
    /// Threads given their original mask back.
    pub restored: usize,
    /// Changed threads that had exited.
    pub gone: usize,
    /// Threads whose mask could not be set back.
    pub failed: usize,
}

impl fmt::Display for Restored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "restored {} thread(s)", self.restored)?;
        if self.gone > 0 {
            write!(f, ", {} had exited", self.gone)?;
        }
        if self.failed > 0 {
            write!(f, ", {} failed", self.failed)?;
        }
        Ok(())
    }
}

/// What the actuator knows of one thread.
#[derive(Debug, Clone)]
struct Known {
    pid: u32,
    /// Its start time when first observed ([`CpuBinding::start_time`]).
    start: Option<u64>,
    /// The mask when first observed.
    original: Vec<usize>,
    /// Whether the actuator set its mask since (and not restored it).
    changed: bool,
    /// Whether it was among the threads of the last [`Actuator::observe`].
    present: bool,
}

/// Applies moves to the selected threads and restores their original masks.
#[derive(Debug)]
pub struct Actuator<A> {
    affinity: A,
    known: HashMap<u32, Known>,
}

impl<A: CpuBinding> Actuator<A> {
    /// An actuator that knows no thread yet.
    pub fn new(affinity: A) -> Actuator<A> {
        Actuator {
            affinity,
            known: HashMap::new(),
        }
    }

    /// The affinity backend (tests inspect their fake through it).
    pub fn affinity(&self) -> &A {
        &self.affinity
    }

    /// The affinity backend, mutably (tests change their fake's threads through it).
    pub fn affinity_mut(&mut self) -> &mut A {
        &mut self.affinity
    }

    /// The original mask of thread `tid`, if observed.
    pub fn original(&self, tid: u32) -> Option<&[usize]> {
        self.known.get(&tid).map(|k| k.original.as_slice())
    }

    /// The threads (pid, tid) of the selected processes this round. New threads get
    /// their original mask read; threads no longer listed are forgotten unless the
    /// actuator changed them (kept for [`Actuator::restore`]).
    pub fn observe(&mut self, threads: impl IntoIterator<Item = (u32, u32)>) {
        let mut current = HashSet::new();
        for (pid, tid) in threads {
            current.insert(tid);
            match self.known.get_mut(&tid) {
                Some(k)
                    if k.pid == pid && !started_again(&mut self.affinity, pid, tid, k.start) =>
                {
                    k.present = true;
                    continue;
                }
                // A recycled tid (of another process, or of this one with a later start):
                // the thread we changed is gone, nothing to restore.
                Some(_) => {
                    self.known.remove(&tid);
                }
                None => {}
            }
            let start = match self.affinity.start_time(pid, tid) {
                Ok(start) => start,
                Err(e) if procs::is_gone(&e) => continue,
                Err(_) => None,
            };
            match self.affinity.get(pid, tid) {
                Ok(original) => {
                    self.known.insert(
                        tid,
                        Known {
                            pid,
                            start,
                            original,
                            changed: false,
                            present: true,
                        },
                    );
                }
                Err(e) if procs::is_gone(&e) => {}
                Err(e) => {
                    tracing::warn!(pid, tid, error = %e, "cannot read the thread's CPU mask; it will not be moved");
                }
            }
        }
        self.known.retain(|tid, k| {
            k.present = current.contains(tid);
            k.present || k.changed
        });
    }

    /// Applies `moves` (see the module doc for which are refused).
    pub fn apply(&mut self, moves: &[Move]) -> Vec<Applied> {
        moves
            .iter()
            .map(|m| Applied {
                decided: m.clone(),
                outcome: self.apply_one(m),
            })
            .collect()
    }

    fn apply_one(&mut self, m: &Move) -> Outcome {
        let Some(known) = self
            .known
            .get_mut(&m.tid)
            .filter(|k| k.pid == m.pid && k.present)
        else {
            let why = format!(
                "thread {} is not a thread of a selected process with pid {}",
                m.tid, m.pid
            );
            tracing::warn!(pid = m.pid, tid = m.tid, "move skipped: {why}");
            return Outcome::Skipped { why };
        };
        let mut cpus: Vec<usize> = m
            .cpus
            .iter()
            .copied()
            .filter(|c| known.original.contains(c))
            .collect();
        cpus.sort_unstable();
        cpus.dedup();
        if cpus.is_empty() {
            let why = format!(
                "none of CPUs {} is in the thread's original allowed set {}",
                cpu_list(&m.cpus),
                cpu_list(&known.original)
            );
            tracing::info!(pid = m.pid, tid = m.tid, "move skipped: {why}");
            return Outcome::Skipped { why };
        }
        if started_again(&mut self.affinity, m.pid, m.tid, known.start) {
            self.known.remove(&m.tid);
            return Outcome::Gone;
        }
        match self.affinity.set(m.pid, m.tid, &cpus) {
            Ok(()) => {
                known.changed = true;
                tracing::info!(pid = m.pid, tid = m.tid, cpus = %cpu_list(&cpus), reason = %m.reason, "migrated");
                Outcome::Moved { cpus }
            }
            Err(e) if procs::is_gone(&e) => {
                self.known.remove(&m.tid);
                Outcome::Gone
            }
            Err(e) => {
                tracing::error!(pid = m.pid, tid = m.tid, error = %e, "cannot set the thread's CPU mask");
                Outcome::Failed {
                    error: e.to_string(),
                }
            }
        }
    }

    /// Gives every thread the actuator changed its original mask back.
    pub fn restore(&mut self) -> Restored {
        let mut done = Restored::default();
        let mut tids: Vec<u32> = self
            .known
            .iter()
            .filter(|(_, k)| k.changed)
            .map(|(&tid, _)| tid)
            .collect();
        tids.sort_unstable();
        for tid in tids {
            let Some(k) = self.known.get_mut(&tid) else {
                continue;
            };
            if started_again(&mut self.affinity, k.pid, tid, k.start) {
                self.known.remove(&tid);
                done.gone += 1;
                continue;
            }
            match self.affinity.set(k.pid, tid, &k.original) {
                Ok(()) => {
                    k.changed = false;
                    done.restored += 1;
                }
                Err(e) if procs::is_gone(&e) => {
                    self.known.remove(&tid);
                    done.gone += 1;
                }
                Err(e) => {
                    tracing::error!(pid = k.pid, tid, error = %e, "cannot restore the thread's CPU mask");
                    done.failed += 1;
                }
            }
        }
        self.known.retain(|_, k| k.present || k.changed);
        done
    }
}

/// Whether thread id `tid` of `pid` now names a thread that started at another time than
/// `start`: the thread the actuator knew exited and the kernel gave its id to a new one.
/// Not when either start is unknown or cannot be read (a thread that is gone is then
/// found gone by the call that follows, as before).
fn started_again<A: CpuBinding>(affinity: &mut A, pid: u32, tid: u32, start: Option<u64>) -> bool {
    match (start, affinity.start_time(pid, tid)) {
        (Some(then), Ok(Some(now))) => then != now,
        _ => false,
    }
}

/// A sorted CPU list in cpulist form (`0-3,8`).
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    if parts.is_empty() {
        "(none)".to_owned()
    } else {
        parts.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_collapse_runs() {
        assert_eq!(cpu_list(&[3, 0, 1, 2, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[]), "(none)");
    }

    #[test]
    fn an_empty_set_is_refused_before_the_system_call() {
        let err = set_allowed_cpus(1, &[]).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EINVAL));
    }
}
