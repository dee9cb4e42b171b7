//! A real run's timeline as a Chrome trace-event JSON file, in the format and with the
//! conventions of the simulator's traces (`locus-sim`'s `trace.rs`), so that one viewer
//! (ui.perfetto.dev, chrome://tracing) opens both and a simulated and a real run of one
//! kernel can be compared side by side.
//!
//! Tracing is off unless [`crate::ThreadPoolBuilder::trace`] or `LOCUS_TRACE=FILE` asks
//! for it. Off, a pool has no [`Trace`], and the only cost on the task path is one test
//! of a `bool` each worker reads once when it starts (`WorkerThread::execute`).
//!
//! # Who touches what
//! - Each worker owns one [`Log`] and is the only thread that appends to it (events
//!   past the log's capacity are counted as dropped, not stored): no lock on the task
//!   path, no allocation but one segment of [`SEGMENT`] events at a time. A steal and
//!   the slice of the stolen task are kept or dropped together ([`Log::push_pair`]),
//!   and both are recorded when that task ends, so no arrow points at a lost slice.
//! - Any thread may [`Trace::write`] the file while the workers run: it reads each log
//!   up to the length the log has published. Writes are serialised by a lock that the
//!   workers never take. The last write happens when the pool's registry is dropped,
//!   after every worker has left (or at process exit for the global pool, see
//!   `pool.rs`).
//!
//! # Ordering
//! A log's writer stores an event into its slot, then publishes the new length with
//! `Release`; a reader loads the length with `Acquire` and reads only slots below it,
//! so every slot it reads is fully written and never written again (slots are not
//! reused). A segment's pointer is stored (`Release`) before the first event in it is
//! published, and loaded (`Acquire`) after the length, so a reader never follows a
//! segment pointer it cannot see. The loom model `src/tests/loom_trace.rs` checks this.
//!
//! # What the file holds
//! `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`:
//! 1. metadata: one process per squad (pid = squad + 1, named "squad S (package P)",
//!    sorted by squad), one thread per worker (tid = worker + 1, named as the
//!    simulator names it, "worker W (squad S, PU P)", sorted by worker). Perfetto treats
//!    pid 0 and tid 0 as the kernel's, hence the + 1.
//! 2. per worker, its task slices (`"ph": "X"`, named "squad S" after the squad that
//!    ran it and coloured as the simulator colours that squad, `args` `{task: 16 hex
//!    digits, level}`; a broadcast share, an OpenMP team member's whole part, is
//!    named "share"), its idle spells ("idle") and sleeps ("sleep", inside an idle
//!    spell), and the policy's placements as instant events (`"ph": "i"`, named
//!    "placed: squad S" and so on, `args` `{task}`).
//! 3. each steal as a flow from the victim's track at the time the task left it
//!    (`"ph": "s"`) to the thief's track at the time it started there (`"ph": "f"`,
//!    `"bp": "e"`, binding to the thief's slice of the stolen task, which starts at
//!    that same instant), named by the tier crossed: "steal-squad", "steal-node",
//!    "steal-package", "steal-remote" (another package), or "steal-bulk" for a batch
//!    moved between squads' queues (`args` `{tier}`). The victim of a steal from a
//!    squad's queue is the worker that queued the task; from an inter-squad pool, the
//!    squad's head, whose pool it is. A viewer binds a flow's start to the slice
//!    enclosing it on its track and drops an arrow that has none, and the victim may
//!    have been in no slice when the task left (a head asleep while others filled its
//!    squad's pool, a worker between tasks): such an arrow starts instead where and
//!    when the task was placed (its latest placement by then, inside the placing
//!    task's slice), and where that is unknown too it is not written, only counted.
//! 4. `otherData`: `{title, events, dropped_events, cap_per_worker,
//!    steals_not_drawn}`.
//!
//! Times are nanoseconds since the pool started, written as microseconds with three
//! decimals, so each instant is rounded once and a flow's finish equals its slice's
//! start exactly.

use crate::sync::AtomicUsize;
use locus_policy::{Place, WorkerMap};
use locus_topo::SquadTier;
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

#[cfg(loom)]
use loom::cell::UnsafeCell;
#[cfg(loom)]
use loom::sync::atomic::AtomicPtr;
#[cfg(not(loom))]
use std::sync::atomic::AtomicPtr;

/// Events per segment of a log, allocated one at a time as the log grows. Guess: 4096
/// events of 40 bytes are 160 KiB, a page-table's worth of memory at a time.
#[cfg(not(loom))]
pub(crate) const SEGMENT: usize = 4096;
/// Events per segment under loom: two, so a model crosses a segment boundary.
#[cfg(loom)]
pub(crate) const SEGMENT: usize = 2;

/// Events a worker keeps unless the builder says otherwise: about 40 MiB per worker at
/// most, and only as far as used. Guess: a second of `fib` without a cutoff on one
/// worker makes some ten million task slices, far more; a kernel with sensible grains
/// stays well under it.
pub const DEFAULT_TRACE_CAP: usize = 1 << 20;

/// One thing a worker did, in nanoseconds since the pool started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// A task ran from `start` to `end`; `share`: a broadcast's share.
    Task {
        start: u64,
        end: u64,
        task: u64,
        level: u32,
        share: bool,
    },
    /// The task `task`, which starts here at `start`, left `victim` at `time`.
    Steal {
        time: u64,
        start: u64,
        task: u64,
        victim: u32,
        kind: StealKind,
    },
    /// The policy placed the task `task`, spawned here, at `place`; `at_once`: the
    /// place was full and the spawner runs it itself.
    Placed {
        time: u64,
        task: u64,
        place: Place,
        at_once: bool,
    },
    /// The worker searched for work (`sleep`: slept) from `start` to `end`.
    Idle { start: u64, end: u64, sleep: bool },
}

/// How a task moved to its thief: by one task over a tier, or in a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StealKind {
    /// One task, over this tier.
    One(SquadTier),
    /// The first task of a batch moved from another squad's queue, over this tier.
    Bulk(SquadTier),
}

impl StealKind {
    /// The flow's `cat` and `name`.
    fn name(self) -> &'static str {
        match self {
            StealKind::One(SquadTier::SameSquad) => "steal-squad",
            StealKind::One(SquadTier::SameNode) => "steal-node",
            StealKind::One(SquadTier::SamePackage) => "steal-package",
            StealKind::One(SquadTier::OtherPackage) => "steal-remote",
            StealKind::Bulk(_) => "steal-bulk",
        }
    }

    fn tier(self) -> &'static str {
        match self {
            StealKind::One(t) | StealKind::Bulk(t) => match t {
                SquadTier::SameSquad => "same squad",
                SquadTier::SameNode => "same node",
                SquadTier::SamePackage => "same package",
                SquadTier::OtherPackage => "other package",
            },
        }
    }
}

/// One slot of a log: written once by the owner, then only read.
struct Slot(UnsafeCell<MaybeUninit<Event>>);

#[cfg(not(loom))]
use std::cell::UnsafeCell;

impl Slot {
    fn new() -> Slot {
        Slot(UnsafeCell::new(MaybeUninit::uninit()))
    }

    /// # Safety
    /// Only the log's owner calls this, once per slot, before publishing it.
    #[cfg(not(loom))]
    unsafe fn write(&self, event: Event) {
        // SAFETY: the owner is the only writer and no reader reads an unpublished slot.
        unsafe { (*self.0.get()).write(event) };
    }

    /// # Safety
    /// As the other `write`.
    #[cfg(loom)]
    unsafe fn write(&self, event: Event) {
        // SAFETY: as the other `write`.
        self.0.with_mut(|p| unsafe { (*p).write(event) });
    }

    /// # Safety
    /// The slot was published (its index is below a length loaded with `Acquire`).
    #[cfg(not(loom))]
    unsafe fn read(&self) -> Event {
        // SAFETY: published slots are initialised and never written again.
        unsafe { (*self.0.get()).assume_init() }
    }

    /// # Safety
    /// As the other `read`.
    #[cfg(loom)]
    unsafe fn read(&self) -> Event {
        // SAFETY: as the other `read`.
        self.0.with(|p| unsafe { (*p).assume_init() })
    }
}

// SAFETY: a slot is written by one thread before it is published with `Release` and
// read by others only after an `Acquire` load shows it published (module doc).
unsafe impl Sync for Slot {}
// SAFETY: `Event` is plain data.
unsafe impl Send for Slot {}

/// One worker's events: appended by that worker only, read by anyone up to the
/// published length (see the module doc).
pub(crate) struct Log {
    /// `cap / SEGMENT` (rounded up) segments of `SEGMENT` slots, null until first used.
    segments: Box<[AtomicPtr<Slot>]>,
    /// Events published; never more than `cap`.
    len: AtomicUsize,
    /// Events refused for want of room.
    dropped: AtomicUsize,
    cap: usize,
}

impl Log {
    /// An empty log for at most `cap` events (allocates nothing yet).
    pub(crate) fn new(cap: usize) -> Log {
        Log {
            segments: (0..cap.div_ceil(SEGMENT))
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            len: AtomicUsize::new(0),
            dropped: AtomicUsize::new(0),
            cap,
        }
    }

    /// Appends `event`, or counts it as dropped once the log is full.
    ///
    /// # Safety
    /// Only one thread (the log's owner) ever calls `push` on a given log.
    pub(crate) unsafe fn push(&self, event: Event) {
        // Relaxed: only this thread writes `len`.
        let len = self.len.load(Ordering::Relaxed);
        if len >= self.cap {
            let d = self.dropped.load(Ordering::Relaxed);
            self.dropped.store(d + 1, Ordering::Relaxed);
            return;
        }
        let slot = &self.segments[len / SEGMENT];
        let mut segment = slot.load(Ordering::Relaxed);
        if segment.is_null() {
            let fresh: Box<[Slot]> = (0..SEGMENT).map(|_| Slot::new()).collect();
            segment = Box::into_raw(fresh).cast::<Slot>();
            // Release: pairs with the reader's Acquire load of the pointer.
            slot.store(segment, Ordering::Release);
        }
        // SAFETY: `segment` points to SEGMENT slots that live as long as the log;
        // `len % SEGMENT` is in bounds; this is the only writer and slot `len` is not
        // yet published (the caller's contract).
        unsafe { (*segment.add(len % SEGMENT)).write(event) };
        // Release: pairs with the Acquire in `read_into`; the slot is written first.
        self.len.store(len + 1, Ordering::Release);
    }

    /// Appends `first` and `second` both, or counts both as dropped where the log has
    /// no room for two (a steal and the slice of the stolen task: an arrow is never
    /// kept without the slice it ends on).
    ///
    /// # Safety
    /// As [`Log::push`].
    pub(crate) unsafe fn push_pair(&self, first: Event, second: Event) {
        if self.len.load(Ordering::Relaxed) + 2 > self.cap {
            let d = self.dropped.load(Ordering::Relaxed);
            self.dropped.store(d + 2, Ordering::Relaxed);
            return;
        }
        // SAFETY: the caller's contract, passed on.
        unsafe {
            self.push(first);
            self.push(second);
        }
    }

    /// Appends the published events to `out`; returns how many were dropped so far.
    pub(crate) fn read_into(&self, out: &mut Vec<Event>) -> usize {
        let len = self.len.load(Ordering::Acquire);
        for i in 0..len {
            let segment = self.segments[i / SEGMENT].load(Ordering::Acquire);
            debug_assert!(!segment.is_null(), "a published event's segment exists");
            // SAFETY: slot `i` is published (i < len, loaded with Acquire), so its
            // segment pointer was stored before and the slot is initialised.
            out.push(unsafe { (*segment.add(i % SEGMENT)).read() });
        }
        self.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        for slot in self.segments.iter() {
            let segment = slot.load(Ordering::Acquire);
            if !segment.is_null() {
                let whole = std::ptr::slice_from_raw_parts_mut(segment, SEGMENT);
                // SAFETY: made by `Box::into_raw` of a `Box<[Slot]>` of SEGMENT slots in
                // `push`, freed once here (no reader can run: `&mut self`).
                drop(unsafe { Box::from_raw(whole) });
            }
        }
    }
}

/// A worker's place in the machine, for its track's name and group.
#[derive(Debug, Clone, Copy)]
struct TrackInfo {
    squad: usize,
    package: usize,
    pu: usize,
}

/// What a write of the trace file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceReport {
    /// The file written.
    pub path: PathBuf,
    /// Events written.
    pub events: usize,
    /// Events the workers could not keep, their logs being full.
    pub dropped: usize,
    /// The events each worker keeps at most.
    pub cap_per_worker: usize,
}

impl fmt::Display for TraceReport {
    /// One line; it says how many events were dropped and how to keep them, if any were.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "locus: trace {}: {} events written",
            self.path.display(),
            self.events
        )?;
        if self.dropped > 0 {
            write!(
                f,
                "; {} events dropped: a worker's buffer holds {} events \
                 (ThreadPoolBuilder::trace_cap or LOCUS_TRACE_CAP)",
                self.dropped, self.cap_per_worker
            )?;
        }
        Ok(())
    }
}

/// A pool's trace: the workers' logs and where to write them.
pub(crate) struct Trace {
    path: PathBuf,
    title: String,
    logs: Box<[crossbeam_utils::CachePadded<Log>]>,
    tracks: Vec<TrackInfo>,
    cap: usize,
    /// Serialises writes of the file; workers never take it.
    writing: std::sync::Mutex<()>,
}

impl Trace {
    /// A trace of the workers of `map`, to be written to `path`, each keeping at most
    /// `cap` events.
    pub(crate) fn new(path: PathBuf, title: String, map: &WorkerMap, cap: usize) -> Trace {
        let n = map.num_workers();
        Trace {
            path,
            title,
            logs: (0..n)
                .map(|_| crossbeam_utils::CachePadded::new(Log::new(cap)))
                .collect(),
            tracks: (0..n)
                .map(|w| {
                    let squad = map.squad_of(w);
                    TrackInfo {
                        squad,
                        package: map.package_of(squad),
                        pu: map.pu_of(w),
                    }
                })
                .collect(),
            cap,
            writing: std::sync::Mutex::new(()),
        }
    }

    /// Worker `worker`'s log.
    ///
    /// Only that worker may push to it (see [`Log::push`]).
    #[inline]
    pub(crate) fn log(&self, worker: usize) -> &Log {
        &self.logs[worker]
    }

    /// Writes every event published so far to the trace's file (replacing it).
    pub(crate) fn write(&self) -> io::Result<TraceReport> {
        // std's lock even under loom: the models check the logs, not this lock.
        let _guard = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let mut per_worker = Vec::with_capacity(self.logs.len());
        let mut dropped = 0;
        for log in self.logs.iter() {
            let mut events = Vec::new();
            dropped += log.read_into(&mut events);
            per_worker.push(events);
        }
        let file = std::fs::File::create(&self.path)?;
        let events = write_json(
            BufWriter::new(file),
            &self.title,
            &self.tracks,
            &per_worker,
            dropped,
            self.cap,
        )?;
        Ok(TraceReport {
            path: self.path.clone(),
            events,
            dropped,
            cap_per_worker: self.cap,
        })
    }

    /// Writes the file and reports on stderr where that fails or events were dropped
    /// (the last write, when no caller is left to hear it).
    pub(crate) fn write_reporting(&self) {
        match self.write() {
            Ok(report) if report.dropped > 0 => eprintln!("{report}"),
            Ok(_) => {}
            Err(e) => eprintln!(
                "locus: could not write the trace {}: {e}",
                self.path.display()
            ),
        }
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        self.write_reporting();
    }
}

/// Checks that a trace file can be made at `path` (creating it empty), for the
/// builder: a bad path is a build error, not a lost trace at the end of the run.
pub(crate) fn check_path(path: &Path) -> io::Result<()> {
    std::fs::File::create(path).map(drop)
}

/// Colour names reserved by Chrome's trace viewer, in the order squads take them: the
/// simulator's palette (`locus-sim`'s `trace.rs`), so one squad has one colour in both.
const SQUAD_COLOURS: [&str; 12] = [
    "thread_state_runnable",
    "thread_state_iowait",
    "thread_state_running",
    "detailed_memory_dump",
    "background_memory_dump",
    "bad",
    "terrible",
    "thread_state_uninterruptible",
    "good",
    "light_memory_dump",
    "olive",
    "thread_state_unknown",
];

/// `ns` as microseconds with three decimals (exact: no float rounding).
struct Micros(u64);

impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

fn place_name(place: Place, at_once: bool) -> String {
    let mut name = match place {
        Place::Local => "placed: own deque".to_string(),
        Place::Worker(w) => format!("placed: worker {w}"),
        Place::Squad(s) => format!("placed: squad {s}"),
        Place::Central => "placed: central queue".to_string(),
        Place::InterPool(s) => format!("placed: inter-squad pool {s}"),
    };
    if at_once {
        name.push_str(" (full: run at once)");
    }
    name
}

/// `s` as a JSON string, quotes included. Written here rather than taken from
/// `serde_json`: a dependency of `locus` brings its trait impls (`PartialEq<Value>` for
/// the integers) into every program that uses locus, where they break type inference
/// in ordinary code such as `assert_eq!(v, [])`.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes the JSON file; returns the number of trace events (metadata not counted).
fn write_json<W: Write>(
    mut out: W,
    title: &str,
    tracks: &[TrackInfo],
    per_worker: &[Vec<Event>],
    dropped: usize,
    cap: usize,
) -> io::Result<usize> {
    let json = |s: &str| -> io::Result<String> { Ok(json_string(s)) };
    out.write_all(b"{\"traceEvents\":[\n")?;
    let mut first = true;
    let mut sep = |out: &mut W| -> io::Result<()> {
        if !first {
            out.write_all(b",\n")?;
        }
        first = false;
        Ok(())
    };
    let mut squads: Vec<(usize, usize)> = tracks.iter().map(|t| (t.squad, t.package)).collect();
    squads.sort_unstable();
    squads.dedup();
    for (squad, package) in squads {
        let pid = squad + 1;
        sep(&mut out)?;
        let name = json(&format!(
            "squad {squad} (package {package}) \u{2014} {title}"
        ))?;
        write!(
            out,
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{pid},\"args\":{{\"name\":{name}}}}}"
        )?;
        sep(&mut out)?;
        write!(
            out,
            "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{pid},\"args\":{{\"sort_index\":{squad}}}}}"
        )?;
    }
    for (w, t) in tracks.iter().enumerate() {
        let (pid, tid) = (t.squad + 1, w + 1);
        sep(&mut out)?;
        write!(
            out,
            "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":\"worker {w} (squad {}, PU {})\"}}}}",
            t.squad, t.pu
        )?;
        sep(&mut out)?;
        write!(
            out,
            "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{w}}}}}"
        )?;
    }
    let mut count = 0;
    let mut flows = Vec::new();
    let anchors = Anchors::new(per_worker);
    for (w, events) in per_worker.iter().enumerate() {
        let squad = tracks[w].squad;
        let (pid, tid) = (squad + 1, w + 1);
        for event in events {
            match *event {
                Event::Task {
                    start,
                    end,
                    task,
                    level,
                    share,
                } => {
                    sep(&mut out)?;
                    let (name, cname) = if share {
                        ("share".to_string(), "generic_work")
                    } else {
                        (
                            format!("squad {squad}"),
                            SQUAD_COLOURS[squad % SQUAD_COLOURS.len()],
                        )
                    };
                    write!(
                        out,
                        "{{\"name\":\"{name}\",\"cat\":\"task\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"cname\":\"{cname}\",\"args\":{{\"task\":\"{task:016x}\",\"level\":{level}}}}}",
                        Micros(start),
                        Micros(end.saturating_sub(start))
                    )?;
                }
                Event::Idle { start, end, sleep } => {
                    sep(&mut out)?;
                    let (name, cname) = if sleep {
                        ("sleep", "grey")
                    } else {
                        ("idle", "rail_idle")
                    };
                    write!(
                        out,
                        "{{\"name\":\"{name}\",\"cat\":\"idle\",\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"cname\":\"{cname}\"}}",
                        Micros(start),
                        Micros(end.saturating_sub(start))
                    )?;
                }
                Event::Placed {
                    time,
                    task,
                    place,
                    at_once,
                } => {
                    sep(&mut out)?;
                    write!(
                        out,
                        "{{\"name\":\"{}\",\"cat\":\"policy\",\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"args\":{{\"task\":\"{task:016x}\"}}}}",
                        place_name(place, at_once),
                        Micros(time)
                    )?;
                }
                Event::Steal { .. } => {
                    flows.push((w, *event));
                    continue;
                }
            }
            count += 1;
        }
    }
    let mut not_drawn = 0;
    for (id, (thief, event)) in flows.into_iter().enumerate() {
        let Event::Steal {
            time,
            start,
            task,
            victim,
            kind,
        } = event
        else {
            continue;
        };
        let Some((victim, time)) = anchors.start_of(victim as usize, time, task) else {
            not_drawn += 1;
            continue;
        };
        let Some(from) = tracks.get(victim) else {
            not_drawn += 1;
            continue;
        };
        let name = kind.name();
        let tier = kind.tier();
        sep(&mut out)?;
        write!(
            out,
            "{{\"name\":\"{name}\",\"cat\":\"{name}\",\"ph\":\"s\",\"id\":{id},\"pid\":{},\"tid\":{},\"ts\":{},\"args\":{{\"task\":\"{task:016x}\",\"tier\":\"{tier}\"}}}}",
            from.squad + 1,
            victim + 1,
            Micros(time)
        )?;
        sep(&mut out)?;
        write!(
            out,
            "{{\"name\":\"{name}\",\"cat\":\"{name}\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"pid\":{},\"tid\":{},\"ts\":{},\"args\":{{\"task\":\"{task:016x}\",\"tier\":\"{tier}\"}}}}",
            tracks[thief].squad + 1,
            thief + 1,
            Micros(start)
        )?;
        count += 2;
    }
    write!(
        out,
        "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{{\"title\":{},\"events\":{count},\"dropped_events\":{dropped},\"cap_per_worker\":{cap},\"steals_not_drawn\":{not_drawn}}}}}\n",
        json(title)?
    )?;
    out.flush()?;
    Ok(count)
}

/// Where a steal's arrow can start so that a viewer draws it (see the module doc, 3.):
/// per worker, its slices sorted by start with the greatest end so far, and each
/// task's placements.
struct Anchors {
    slices: Vec<Vec<(u64, u64)>>,
    placed: std::collections::HashMap<u64, Vec<(u64, usize)>>,
}

impl Anchors {
    fn new(per_worker: &[Vec<Event>]) -> Anchors {
        let mut placed: std::collections::HashMap<u64, Vec<(u64, usize)>> =
            std::collections::HashMap::new();
        let slices = per_worker
            .iter()
            .enumerate()
            .map(|(w, events)| {
                let mut spans: Vec<(u64, u64)> = Vec::new();
                for event in events {
                    match *event {
                        Event::Task { start, end, .. } | Event::Idle { start, end, .. } => {
                            spans.push((start, end.max(start)))
                        }
                        Event::Placed { time, task, .. } => {
                            placed.entry(task).or_default().push((time, w))
                        }
                        Event::Steal { .. } => {}
                    }
                }
                spans.sort_unstable();
                let mut reach = 0;
                for span in &mut spans {
                    reach = reach.max(span.1);
                    span.1 = reach;
                }
                spans
            })
            .collect();
        for list in placed.values_mut() {
            list.sort_unstable();
        }
        Anchors { slices, placed }
    }

    /// Whether a slice of `worker` encloses `time`.
    fn encloses(&self, worker: usize, time: u64) -> bool {
        let Some(spans) = self.slices.get(worker) else {
            return false;
        };
        let before = spans.partition_point(|&(start, _)| start <= time);
        before > 0 && spans[before - 1].1 >= time
    }

    /// The worker and instant a steal of `task` from `victim` at `time` is drawn from:
    /// there, or at the task's latest placement by then; `None` where neither lies in a
    /// slice.
    fn start_of(&self, victim: usize, time: u64, task: u64) -> Option<(usize, u64)> {
        if self.encloses(victim, time) {
            return Some((victim, time));
        }
        let placed = self.placed.get(&task)?;
        let &(at, by) = placed[..placed.partition_point(|&(t, _)| t <= time)].last()?;
        self.encloses(by, at).then_some((by, at))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn task(start: u64, end: u64) -> Event {
        Event::Task {
            start,
            end,
            task: 7,
            level: 1,
            share: false,
        }
    }

    #[test]
    fn a_log_keeps_events_across_segments_and_counts_what_is_past_its_cap() {
        let log = Log::new(SEGMENT + 3);
        for i in 0..(SEGMENT + 10) as u64 {
            // SAFETY: this test's thread is the log's only writer.
            unsafe { log.push(task(i, i + 1)) };
        }
        let mut out = Vec::new();
        assert_eq!(log.read_into(&mut out), 7);
        assert_eq!(out.len(), SEGMENT + 3);
        assert_eq!(
            out[SEGMENT + 2],
            task(SEGMENT as u64 + 2, SEGMENT as u64 + 3)
        );
    }

    fn steal(time: u64, start: u64, task: u64, victim: u32) -> Event {
        Event::Steal {
            time,
            start,
            task,
            victim,
            kind: StealKind::One(SquadTier::OtherPackage),
        }
    }

    #[test]
    fn an_arrow_starts_in_a_slice_or_at_the_placement_or_is_not_drawn() {
        let placed = |time, task| Event::Placed {
            time,
            task,
            place: Place::InterPool(1),
            at_once: false,
        };
        let per_worker = vec![
            // Worker 0 runs a task over 0..100 and places tasks 7 and 8 inside it.
            vec![task(0, 100), placed(10, 7), placed(20, 8)],
            // Worker 1, squad 1's head, idles over 50..60 only.
            vec![Event::Idle {
                start: 50,
                end: 60,
                sleep: true,
            }],
            // Worker 2 steals from worker 1: at 55 (in its idle spell), at 200 (in no
            // slice: task 7 was placed inside worker 0's slice), at 300 (task 9, never
            // placed).
            vec![
                steal(55, 56, 8, 1),
                task(56, 57),
                steal(200, 201, 7, 1),
                task(201, 202),
                steal(300, 301, 9, 1),
                task(301, 302),
            ],
        ];
        let tracks: Vec<TrackInfo> = [(0, 0, 0), (1, 1, 4), (1, 1, 5)]
            .iter()
            .map(|&(squad, package, pu)| TrackInfo { squad, package, pu })
            .collect();
        let mut out = Vec::new();
        write_json(&mut out, "t", &tracks, &per_worker, 0, 64).unwrap();
        let text = String::from_utf8(out).unwrap();
        let starts: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("\"ph\":\"s\""))
            .collect();
        assert_eq!(starts.len(), 2, "{text}");
        assert!(
            starts[0].contains("\"tid\":2,\"ts\":0.055"),
            "{}",
            starts[0]
        );
        assert!(
            starts[1].contains("\"tid\":1,\"ts\":0.010"),
            "{}",
            starts[1]
        );
        assert!(text.contains("\"steals_not_drawn\":1"), "{text}");
    }

    #[test]
    fn micros_are_exact() {
        assert_eq!(Micros(1_234_567).to_string(), "1234.567");
        assert_eq!(Micros(5).to_string(), "0.005");
    }
}
