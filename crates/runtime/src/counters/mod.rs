//! Per-thread counter sources: what a task touched, read around each task.
//!
//! CATS (papers/cats-cache-aware-task-stealing.txt, 3.2.1) profiles each task's Size Of
//! Involved Data (SOID) from the misses of the last-level *private* data cache (L2 on
//! the papers' Opteron) times the line size, and tells CPU-bound tasks from
//! memory-bound ones by cache misses per instruction (CMPI, 3.5). This module supplies
//! those numbers. A [`CounterSource`] is opened once per run; each worker thread calls
//! [`CounterSource::open_thread`] once at start and then [`ThreadCounters::read`] before
//! and after every task it profiles; [`Sample::delta`] of the two reads is the task's
//! share. Three sources stand behind the one interface ([`CounterKind`]):
//!
//! - `perf`: hardware counters through `perf_event_open` (pid 0, cpu -1, user mode
//!   only): one group per thread of cycles, instructions and the private last-level
//!   data-cache miss event chosen for this CPU from a small table (`events.rs`; the
//!   generic `PERF_TYPE_HW_CACHE` last-level read miss where no entry fits). Bytes are
//!   misses x line size. Only the opening thread's own execution is counted.
//! - `declared`: the bytes and cache lines that tasks declare through
//!   [`crate::footprint`], counted on the declaring thread. It stands in where hardware
//!   counters are absent (most virtual machines, CI) and says so in
//!   [`CounterSource::describe`], which reports print: a SOID from declarations is what
//!   the code claims to touch, not what missed in a cache; instructions are the work the
//!   tasks declare (`footprint::work`), and no cycles.
//! - `off`: reads zeros.
//!
//! [`auto`] takes `perf` where it works and `declared` otherwise, keeping the reason;
//! [`open`] with an explicit `perf` fails with the reason instead of falling back.
//!
//! # Threads
//! A source is `Send + Sync` and shared by all workers of all pools. A
//! [`ThreadCounters`] is not `Send`: it counts the thread that opened it and is read
//! only there. Cumulative values start at zero when the thread opens its counters.
//!
//! # Overhead
//! `perf`: one `read(2)` of the group per [`ThreadCounters::read`] (around a microsecond
//! on current kernels; no allocation), and the counters themselves run in hardware.
//! `declared`: a read is two thread-local loads; but from the first thread counters
//! opened until the source is released ([`CounterSource::release`]) or dropped, every
//! footprint declaration in the process takes the listening path (a lock-free flag, a
//! read lock, and a few adds per declaration). A pool's workers open their counters at
//! the first task they measure, and the pool releases its source once its policy stops
//! asking for task events (a profile that ended), so the listener goes away with the
//! last profile. `off`: nothing.
//!
//! # Known compromises
//! The `declared` source owns the single process-wide [`crate::footprint`] sink: it is
//! installed while some `declared` source has opened thread counters and is neither
//! released nor dropped; another listener installed meanwhile (a profiler) replaces it,
//! after which declared counts stop growing, and is removed with it.
//! Counts of a `perf` group that the kernel time-shared with other events are scaled by
//! enabled/running time, as `perf stat` does.

mod declared;
mod events;
mod perf;

use serde::Serialize;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// The environment variable [`from_env`] reads.
pub const ENV_VAR: &str = "LOCUS_COUNTERS";

/// Which counter source; parses from and displays as `perf`, `declared` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CounterKind {
    /// Hardware counters through `perf_event_open`.
    Perf,
    /// Bytes and lines declared through [`crate::footprint`].
    Declared,
    /// Nothing counted; reads are zero.
    Off,
}

impl CounterKind {
    /// Every kind, in the order the error message lists them.
    pub const ALL: [CounterKind; 3] = [CounterKind::Perf, CounterKind::Declared, CounterKind::Off];

    /// The name that parses back to this kind.
    pub fn name(self) -> &'static str {
        match self {
            CounterKind::Perf => "perf",
            CounterKind::Declared => "declared",
            CounterKind::Off => "off",
        }
    }
}

impl fmt::Display for CounterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CounterKind {
    type Err = CounterError;

    /// Case-insensitive, surrounding blanks ignored.
    fn from_str(s: &str) -> Result<CounterKind, CounterError> {
        let name = s.trim().to_ascii_lowercase();
        CounterKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                CounterError::new(ErrorKind::UnknownKind {
                    input: s.to_string(),
                    var: None,
                })
            })
    }
}

/// Cumulative counts of one thread since it opened its counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// Misses of the last-level *private* data cache (L2 on the papers' machines).
    /// `declared`: the cache lines the declared ranges cover.
    pub private_llc_misses: u64,
    /// Instructions retired in user mode; 0 when the source cannot count them.
    pub instructions: u64,
    /// Core cycles in user mode; 0 when unknown.
    pub cycles: u64,
    /// `perf`: misses x line size; `declared`: bytes declared.
    pub bytes: u64,
}

impl Sample {
    /// What was counted since `earlier` (a read of the same thread's counters), field
    /// by field, saturating at zero.
    pub fn delta(&self, earlier: &Sample) -> Sample {
        Sample {
            private_llc_misses: self
                .private_llc_misses
                .saturating_sub(earlier.private_llc_misses),
            instructions: self.instructions.saturating_sub(earlier.instructions),
            cycles: self.cycles.saturating_sub(earlier.cycles),
            bytes: self.bytes.saturating_sub(earlier.bytes),
        }
    }
}

/// A source of per-thread counters, shared by all workers.
pub trait CounterSource: Send + Sync + fmt::Debug {
    /// Which source this is.
    fn kind(&self) -> CounterKind;

    /// One line for reports: what is counted and how.
    fn describe(&self) -> String;

    /// Opens the calling thread's counters; call once on each worker thread at start.
    fn open_thread(&self) -> Result<Box<dyn ThreadCounters>, CounterError>;

    /// Line size, in bytes, used to turn misses into bytes (and declarations into lines).
    fn line_size(&self) -> u32;

    /// Nobody will read this source's counters again: what it costs the rest of the
    /// process may stop (the `declared` source stops listening to footprint
    /// declarations). Called by a pool once its policy asks for no more costs; from then
    /// on what a source cannot count any more (`declared`'s counts) stops growing.
    fn release(&self) {}
}

/// The counters of one thread; read only on that thread.
pub trait ThreadCounters {
    /// Cumulative counts since the thread opened its counters. Cheap: called around
    /// every task while profiling. Never fails: a `perf` read the kernel refuses
    /// repeats the last good sample (so the task's delta is zero) and logs once.
    fn read(&mut self) -> Sample;
}

/// Why a counter source could not be chosen or opened.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct CounterError {
    kind: ErrorKind,
}

#[derive(Debug, thiserror::Error)]
enum ErrorKind {
    #[error(
        "{}unknown counter source {input:?} (choose perf, declared or off)",
        var_prefix(var)
    )]
    UnknownKind {
        input: String,
        var: Option<&'static str>,
    },
    #[error(
        "could not open the hardware counter for {what} on this thread with perf_event_open{hint}"
    )]
    Open {
        what: String,
        hint: String,
        #[source]
        source: std::io::Error,
    },
    #[error("could not read the hardware counter group of this thread")]
    Read {
        #[source]
        source: std::io::Error,
    },
    #[error("malformed perf group read: {reason}")]
    GroupFormat { reason: String },
    #[error("line size {line_size}: {reason}")]
    LineSize {
        line_size: u32,
        reason: &'static str,
    },
}

fn var_prefix(var: &Option<&'static str>) -> String {
    var.map(|v| format!("{v}: ")).unwrap_or_default()
}

impl CounterError {
    fn new(kind: ErrorKind) -> CounterError {
        CounterError { kind }
    }
}

/// Chooses the source from `LOCUS_COUNTERS` (`perf`, `declared` or `off`; unset or blank
/// means [`auto`]).
pub fn from_env(line_size: u32) -> Result<Arc<dyn CounterSource>, CounterError> {
    match std::env::var(ENV_VAR).ok().filter(|v| !v.trim().is_empty()) {
        None => Ok(auto(line_size)),
        Some(value) => {
            let kind = value.parse::<CounterKind>().map_err(|_| {
                CounterError::new(ErrorKind::UnknownKind {
                    input: value.clone(),
                    var: Some(ENV_VAR),
                })
            })?;
            open(kind, line_size)
        }
    }
}

/// Opens a source of the given kind. `Perf` where `perf_event_open` fails is an error
/// with the reason, never a quiet fallback; it is tried on the calling thread.
pub fn open(kind: CounterKind, line_size: u32) -> Result<Arc<dyn CounterSource>, CounterError> {
    check_line_size(line_size)?;
    Ok(match kind {
        CounterKind::Perf => Arc::new(perf::PerfSource::open(line_size)?),
        CounterKind::Declared => Arc::new(declared::DeclaredSource::open(line_size, None)?),
        CounterKind::Off => Arc::new(OffSource {
            line_size,
            why: None,
        }),
    })
}

/// `perf` when it works on this machine, else `declared`, with the reason kept for
/// [`CounterSource::describe`]. (`off` only if `declared` cannot be opened either, for
/// example with a zero line size.)
pub fn auto(line_size: u32) -> Arc<dyn CounterSource> {
    let perf_failed = match open(CounterKind::Perf, line_size) {
        Ok(source) => return source,
        Err(e) => crate::error_chain(&e),
    };
    let declared_failed = match declared::DeclaredSource::open(line_size, Some(perf_failed.clone()))
    {
        Ok(source) => return Arc::new(source),
        Err(e) => crate::error_chain(&e),
    };
    Arc::new(OffSource {
        line_size,
        why: Some(format!("{perf_failed}; {declared_failed}")),
    })
}

/// Whether hardware counters can be opened here, and if not why: opens (and closes) a
/// user-mode cycles counter for the calling thread.
pub fn probe_perf() -> Result<(), CounterError> {
    perf::probe()
}

fn check_line_size(line_size: u32) -> Result<(), CounterError> {
    if line_size == 0 {
        return Err(CounterError::new(ErrorKind::LineSize {
            line_size,
            reason: "a cache line must hold at least one byte",
        }));
    }
    Ok(())
}

/// Counts nothing.
#[derive(Debug)]
struct OffSource {
    line_size: u32,
    /// Why `auto` ended here, if it did.
    why: Option<String>,
}

impl CounterSource for OffSource {
    fn kind(&self) -> CounterKind {
        CounterKind::Off
    }

    fn describe(&self) -> String {
        match &self.why {
            None => "off: nothing counted".to_string(),
            Some(why) => format!("off: nothing counted ({why})"),
        }
    }

    fn open_thread(&self) -> Result<Box<dyn ThreadCounters>, CounterError> {
        Ok(Box::new(OffThread))
    }

    fn line_size(&self) -> u32 {
        self.line_size
    }
}

struct OffThread;

impl ThreadCounters for OffThread {
    fn read(&mut self) -> Sample {
        Sample::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_subtracts_and_saturates() {
        let earlier = Sample {
            private_llc_misses: 10,
            instructions: 1000,
            cycles: 5,
            bytes: 640,
        };
        let later = Sample {
            private_llc_misses: 25,
            instructions: 900,
            cycles: 5,
            bytes: 1600,
        };
        assert_eq!(
            later.delta(&earlier),
            Sample {
                private_llc_misses: 15,
                instructions: 0,
                cycles: 0,
                bytes: 960
            }
        );
        assert_eq!(earlier.delta(&later).private_llc_misses, 0);
        let max = Sample {
            private_llc_misses: u64::MAX,
            instructions: u64::MAX,
            cycles: u64::MAX,
            bytes: u64::MAX,
        };
        assert_eq!(max.delta(&Sample::default()), max);
        assert_eq!(Sample::default().delta(&max), Sample::default());
    }

    #[test]
    fn kind_parses_and_displays() {
        for kind in CounterKind::ALL {
            assert_eq!(kind.to_string().parse::<CounterKind>().unwrap(), kind);
        }
        assert_eq!(" Perf ".parse::<CounterKind>().unwrap(), CounterKind::Perf);
        assert_eq!(
            "DECLARED".parse::<CounterKind>().unwrap(),
            CounterKind::Declared
        );
    }

    #[test]
    fn kind_rejects_bad_input_naming_it_and_the_choices() {
        for bad in [
            "",
            "  ",
            "perf,off",
            "hw",
            "of",
            "perf-event",
            "declared2",
            "\u{0}",
        ] {
            let err = bad.parse::<CounterKind>().unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")), "{err}");
            assert!(err.contains("perf, declared or off"), "{err}");
        }
    }

    #[test]
    fn zero_line_size_is_refused() {
        for kind in CounterKind::ALL {
            let err = open(kind, 0).unwrap_err().to_string();
            assert!(err.contains("line size 0"), "{err}");
        }
    }

    #[test]
    fn off_reads_zeros() {
        let source = open(CounterKind::Off, 64).unwrap();
        assert_eq!(source.kind(), CounterKind::Off);
        assert_eq!(source.line_size(), 64);
        let mut counters = source.open_thread().unwrap();
        assert_eq!(counters.read(), Sample::default());
        assert_eq!(source.describe(), "off: nothing counted");
    }
}
