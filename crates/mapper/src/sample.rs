//! Per-thread hardware counters of other processes, through `perf_event_open`.
//!
//! [`PerfSource`] is the operating-system [`SampleSource`]. Each round it lists the
//! threads of the selected processes ([`crate::procs`]) and, for each thread it watched
//! the round before, reads its counters and reports the deltas; a thread seen for the
//! first time gets its counters opened now and is reported from the next round on; a
//! thread that is gone is dropped (its descriptors closed). Neither is an error.
//!
//! Each event of the [`EventTable`] is its own counter (no group), observing one thread
//! on any CPU, user mode only (`exclude_kernel`, `exclude_hv`: what
//! `perf_event_paranoid` 2, the usual default, allows for other processes of the same
//! user), with `TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING` read back. There are more events
//! than programmable counters, so the kernel time-shares them; every count is scaled by
//! its own share of the interval ([`Reading::delta`]): `Δvalue × Δenabled / Δrunning`.
//! A per-thread counter's enabled time only advances while the thread runs, so a thread
//! that slept through the interval reads zero, and a counter that was enabled but never
//! on the hardware during the interval reads `None` (for instructions and cycles, which
//! [`Counts`] cannot leave out, 0).
//!
//! Opening the source opens every event of the table once on the calling thread: where
//! instructions or cycles cannot be counted the source is [`SourceError::Unavailable`]
//! with a reason that says what would help ([`explain_open_failure`]); an optional event
//! the kernel refuses is dropped from the table (its field reads `None`) with a warning.
//! Per thread, `EACCES`/`EPERM` (another user's process) logs an error once and the
//! process is left alone from then on.
//!
//! Each watched thread holds one descriptor per event, so the source raises the soft
//! limit on open files to the hard one when it opens.

use crate::events::{CpuId, Encoding, EventTable, Field};
use crate::model::{Counts, SampleSource, SourceError, ThreadSample};
use crate::procs::{error_chain, Caller, Procfs, Selection};
use perf_event::events::{Hardware, Raw, Software};
use perf_event::{Builder, Counter, ReadFormat};
use std::collections::{HashMap, HashSet};
use std::io;

/// Where the kernel's paranoia setting lives.
const PARANOID_PATH: &str = "/proc/sys/kernel/perf_event_paranoid";

/// One read of one counter: the raw count and the kernel's enabled and running times
/// (nanoseconds), all cumulative since the counter was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reading {
    /// The raw count.
    pub value: u64,
    /// Time the counter was enabled (for a per-thread counter: while the thread ran).
    pub time_enabled: u64,
    /// Time the counter was on the hardware.
    pub time_running: u64,
}

impl Reading {
    /// The estimated events between `earlier` and `self`.
    ///
    /// * A reading below `earlier` in any of its three numbers means the counter
    ///   restarted (it was reopened or reset); the interval then counts from zero. The
    ///   kernel keeps 64-bit counts that do not wrap in practice, so a smaller value is
    ///   never read as a wrapped-around huge delta.
    /// * No enabled time: the thread did not run; `Some(Δvalue)` (normally 0).
    /// * Enabled but never running: the counter did not get on the hardware during the
    ///   interval; `None` (unknown, not zero).
    /// * Otherwise `Δvalue × Δenabled / Δrunning`, computed in 128 bits and capped at
    ///   `u64::MAX`; exactly `Δvalue` when it ran the whole time.
    pub fn delta(self, earlier: Reading) -> Option<u64> {
        let restarted = self.value < earlier.value
            || self.time_enabled < earlier.time_enabled
            || self.time_running < earlier.time_running;
        let base = if restarted {
            Reading::default()
        } else {
            earlier
        };
        let value = self.value - base.value;
        let enabled = self.time_enabled - base.time_enabled;
        let running = self.time_running - base.time_running;
        scale(value, enabled, running)
    }
}

/// `value × enabled / running`, the estimate of a count the kernel time-shared (as
/// `perf stat` scales); see [`Reading::delta`] for the cases.
pub fn scale(value: u64, enabled: u64, running: u64) -> Option<u64> {
    if enabled == 0 || running >= enabled {
        return Some(value);
    }
    if running == 0 {
        return None;
    }
    let scaled = u128::from(value) * u128::from(enabled) / u128::from(running);
    Some(u64::try_from(scaled).unwrap_or(u64::MAX))
}

/// The interval's [`Counts`] from each field's readings before and after. Fields not
/// in `now` (the table lacks them) stay `None`.
pub fn counts_between(before: &[(Field, Reading)], now: &[(Field, Reading)]) -> Counts {
    let mut counts = Counts::default();
    for &(field, reading) in now {
        let earlier = before
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(Reading::default(), |&(_, r)| r);
        field.store(&mut counts, reading.delta(earlier));
    }
    counts
}

/// Why `perf_event_open` of `event` failed with `err`, in words that say what would help.
/// `paranoid` is `kernel.perf_event_paranoid` where it could be read, `cpu` the
/// processor where known.
pub fn explain_open_failure(
    event: &str,
    err: &io::Error,
    paranoid: Option<i64>,
    cpu: Option<&CpuId>,
) -> String {
    let head = format!("perf_event_open refused the {event} counter ({err})");
    match err.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) => match cpu {
            Some(cpu) if cpu.hypervisor => format!(
                "{head}: this is a virtual machine without a virtual PMU (cpuinfo lists the \
                 `hypervisor` flag); run on bare metal or give the guest a PMU (e.g. KVM \
                 `-cpu host,pmu=on`)"
            ),
            Some(cpu) => format!(
                "{head}: the kernel offers no hardware counters for this processor ({cpu}); \
                 a kernel with a PMU driver for it is needed"
            ),
            None => format!("{head}: the kernel offers no hardware counters here"),
        },
        Some(libc::EACCES) | Some(libc::EPERM) => match paranoid {
            Some(level) if level > 2 => format!(
                "{head}: kernel.perf_event_paranoid is {level}, which forbids counters to \
                 unprivileged users; lower it with `sudo sysctl kernel.perf_event_paranoid=2` \
                 or run with CAP_PERFMON"
            ),
            Some(level) => format!(
                "{head}: kernel.perf_event_paranoid is {level}, which allows user-mode \
                 counters, so something else forbids them (a seccomp profile or a security \
                 module, as in many containers); run with CAP_PERFMON or outside the container"
            ),
            None => format!(
                "{head}: not permitted, and {PARANOID_PATH} cannot be read; run with CAP_PERFMON"
            ),
        },
        Some(libc::ENOSYS) => {
            format!("{head}: this kernel was built without perf events (CONFIG_PERF_EVENTS)")
        }
        _ => head,
    }
}

/// `kernel.perf_event_paranoid`, where readable.
pub fn perf_event_paranoid() -> Option<i64> {
    std::fs::read_to_string(PARANOID_PATH)
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// Whom a counter observes.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// The calling thread (the probe).
    Caller,
    /// Thread `tid` of another process.
    Thread(u32),
}

/// A builder for one user-mode counter of `target` on any CPU, reading its times.
fn builder(encoding: Encoding, target: Target) -> io::Result<Builder<'static>> {
    let mut b = match encoding {
        Encoding::Instructions => Builder::new(Hardware::INSTRUCTIONS),
        Encoding::Cycles => Builder::new(Hardware::CPU_CYCLES),
        Encoding::CacheMisses => Builder::new(Hardware::CACHE_MISSES),
        Encoding::Raw(config) => Builder::new(Raw::new(config)),
        Encoding::TaskClock => Builder::new(Software::TASK_CLOCK),
        Encoding::PageFaults => Builder::new(Software::PAGE_FAULTS),
        Encoding::ContextSwitches => Builder::new(Software::CONTEXT_SWITCHES),
    };
    match target {
        Target::Caller => {
            b.observe_self();
        }
        Target::Thread(tid) => {
            let pid = libc::pid_t::try_from(tid).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidInput, "thread id out of range")
            })?;
            b.observe_pid(pid);
        }
    }
    b.any_cpu()
        .exclude_kernel(true)
        .exclude_hv(true)
        .inherit(false)
        .read_format(ReadFormat::TOTAL_TIME_ENABLED | ReadFormat::TOTAL_TIME_RUNNING)
        .enabled(true);
    Ok(b)
}

/// Opens (and closes) every event of `table` on the calling thread: the required ones
/// must open, the others are removed from the table where the kernel refuses them.
///
/// # Errors
///
/// [`SourceError::Unavailable`] when instructions or cycles cannot be counted.
pub fn probe(table: &mut EventTable, cpu: Option<&CpuId>) -> Result<(), SourceError> {
    let events = table.events.clone();
    for event in events {
        let opened = builder(event.encoding, Target::Caller).and_then(|b| b.build());
        match opened {
            Ok(_counter) => {}
            Err(err) if event.field.required() => {
                return Err(SourceError::Unavailable {
                    reason: explain_open_failure(event.name, &err, perf_event_paranoid(), cpu),
                })
            }
            Err(err) => {
                tracing::warn!(
                    event = event.name,
                    field = event.field.name(),
                    error = %err,
                    "the kernel refuses this event; its field reads None"
                );
                table.remove(event.field);
            }
        }
    }
    Ok(())
}

/// Raises the soft limit on open files to the hard limit (each watched thread holds one
/// descriptor per event). Failure only costs threads later (`EMFILE`), so it is logged.
fn raise_open_file_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the duration of the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return;
    }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max;
        // SAFETY: `limit` is a valid rlimit read just above, with the soft limit raised
        // to the hard one, which an unprivileged process may do.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
            tracing::debug!(error = %io::Error::last_os_error(), "cannot raise the open-file limit");
        }
    }
}

/// One open counter of a watched thread.
struct OpenCounter {
    field: Field,
    counter: Counter,
    last: Reading,
}

/// A watched thread.
struct Watched {
    pid: u32,
    counters: Vec<OpenCounter>,
}

/// How opening a thread's counters went.
enum Opened {
    Watching(Watched),
    /// The thread exited meanwhile.
    Gone,
    /// The caller may not observe the thread's process.
    Denied(io::Error),
    /// Something else (out of descriptors, a refused event); retried next round.
    Failed(String, io::Error),
}

/// The operating-system counter source: per-thread `perf_event_open` counters of the
/// threads of the selected processes.
pub struct PerfSource {
    procfs: Procfs,
    selection: Selection,
    caller: Caller,
    cpu: Option<CpuId>,
    table: EventTable,
    watched: HashMap<u32, Watched>,
    /// Processes the caller may not observe, left alone.
    denied: HashSet<u32>,
    /// Open failures already logged (by their message), to log each once.
    warned: HashSet<String>,
}

impl std::fmt::Debug for PerfSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerfSource")
            .field("table", &self.table)
            .field("watched", &self.watched.len())
            .finish_non_exhaustive()
    }
}

impl PerfSource {
    /// A source over the system's `/proc` for `selection`, with the event table of this
    /// processor, checked by [`probe`].
    ///
    /// # Errors
    ///
    /// [`SourceError::Unavailable`] when instructions or cycles cannot be counted here,
    /// saying why.
    pub fn open(selection: Selection) -> Result<PerfSource, SourceError> {
        let cpu = match CpuId::this_machine() {
            Ok(cpu) => Some(cpu),
            Err(e) => {
                tracing::warn!(error = %e, "cannot identify the processor; using the generic events");
                None
            }
        };
        let table = cpu
            .as_ref()
            .map_or_else(EventTable::generic, EventTable::for_cpu);
        PerfSource::with_table(Procfs::system(), selection, Caller::current(), cpu, table)
    }

    /// A source over `procfs` with a given table (probed here on the calling thread).
    ///
    /// # Errors
    ///
    /// As [`PerfSource::open`].
    pub fn with_table(
        procfs: Procfs,
        selection: Selection,
        caller: Caller,
        cpu: Option<CpuId>,
        mut table: EventTable,
    ) -> Result<PerfSource, SourceError> {
        probe(&mut table, cpu.as_ref())?;
        raise_open_file_limit();
        tracing::info!(events = %table, "perf counters open");
        Ok(PerfSource {
            procfs,
            selection,
            caller,
            cpu,
            table,
            watched: HashMap::new(),
            denied: HashSet::new(),
            warned: HashSet::new(),
        })
    }

    /// The events counted (after the probe dropped those the kernel refuses).
    pub fn table(&self) -> &EventTable {
        &self.table
    }

    /// The processor, where `/proc/cpuinfo` named it.
    pub fn cpu(&self) -> Option<&CpuId> {
        self.cpu.as_ref()
    }

    /// The number of threads whose counters are open.
    pub fn watched(&self) -> usize {
        self.watched.len()
    }

    fn open_thread(&self, pid: u32, tid: u32) -> Opened {
        let mut counters = Vec::with_capacity(self.table.events.len());
        for event in &self.table.events {
            let built = builder(event.encoding, Target::Thread(tid)).and_then(|b| b.build());
            match built {
                Ok(counter) => counters.push(OpenCounter {
                    field: event.field,
                    counter,
                    last: Reading::default(),
                }),
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return Opened::Gone,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM)) => {
                    return Opened::Denied(e)
                }
                Err(e) => return Opened::Failed(event.name.to_owned(), e),
            }
        }
        Opened::Watching(Watched { pid, counters })
    }

    fn warn_once(&mut self, key: String, message: impl FnOnce() -> String) {
        if self.warned.insert(key) {
            tracing::warn!("{}", message());
        }
    }
}

impl SampleSource for PerfSource {
    fn name(&self) -> &str {
        "perf"
    }

    fn sample(&mut self) -> Result<Vec<ThreadSample>, SourceError> {
        let processes = self
            .procfs
            .select(&self.selection, &self.caller)
            .map_err(|e| SourceError::Io {
                what: format!("the process list under {:?}", self.procfs.root()),
                source: io::Error::other(error_chain(&e)),
            })?;
        let mut samples = Vec::new();
        let mut alive = HashSet::new();
        let mut running_pids = HashSet::new();
        for process in &processes {
            running_pids.insert(process.pid);
            if self.denied.contains(&process.pid) {
                continue;
            }
            for thread in &process.threads {
                let tid = thread.tid;
                // A tid reused by another process is a new thread.
                if self.watched.get(&tid).is_some_and(|w| w.pid != process.pid) {
                    self.watched.remove(&tid);
                }
                if let Some(watched) = self.watched.get_mut(&tid) {
                    let mut before = Vec::with_capacity(watched.counters.len());
                    let mut now = Vec::with_capacity(watched.counters.len());
                    let mut read_failed = false;
                    for c in &mut watched.counters {
                        match c.counter.read_count_and_time() {
                            Ok(r) => {
                                let reading = Reading {
                                    value: r.count,
                                    time_enabled: r.time_enabled,
                                    time_running: r.time_running,
                                };
                                before.push((c.field, c.last));
                                now.push((c.field, reading));
                                c.last = reading;
                            }
                            Err(_) => read_failed = true,
                        }
                    }
                    if read_failed {
                        // The thread went away between the listing and the read.
                        self.watched.remove(&tid);
                        continue;
                    }
                    alive.insert(tid);
                    samples.push(ThreadSample {
                        pid: process.pid,
                        tid,
                        comm: process.comm.clone(),
                        cpu: thread.cpu,
                        counts: counts_between(&before, &now),
                    });
                    continue;
                }
                match self.open_thread(process.pid, tid) {
                    Opened::Watching(w) => {
                        alive.insert(tid);
                        self.watched.insert(tid, w);
                    }
                    Opened::Gone => {}
                    Opened::Denied(e) => {
                        tracing::error!(
                            pid = process.pid,
                            comm = %process.comm,
                            error = %e,
                            "not permitted to watch this process's threads; leaving it alone"
                        );
                        self.denied.insert(process.pid);
                        break;
                    }
                    Opened::Failed(event, e) => {
                        let key = format!("{event}: {e}");
                        self.warn_once(key, || {
                            format!(
                                "cannot open the {event} counter of thread {tid} of pid {} ({}): \
                                 {e}; retrying next round{}",
                                process.pid,
                                process.comm,
                                if e.raw_os_error() == Some(libc::EMFILE) {
                                    " (out of file descriptors: raise `ulimit -n`)"
                                } else {
                                    ""
                                }
                            )
                        });
                    }
                }
            }
        }
        let denied = &self.denied;
        self.watched
            .retain(|tid, w| alive.contains(tid) && !denied.contains(&w.pid));
        self.denied.retain(|pid| running_pids.contains(pid));
        Ok(samples)
    }
}
