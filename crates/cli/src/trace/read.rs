//! Reading a trace file as the runtime (`locus`'s `trace.rs`) and the simulator
//! (`locus-sim`'s `trace.rs`) write it, and checking that a viewer would draw it as
//! written. Pure functions of the bytes; every error says what is wrong and where (the
//! event's index in `traceEvents`, its phase and name, or the line and column where
//! the JSON itself breaks), and the caller prefixes the file.
//!
//! # What is accepted
//! The JSON object format, `{"traceEvents": [...], "otherData": {...}}`, where:
//! - every track an event is on has a `thread_name` of the writers' form, "worker W
//!   (squad S, PU P)", and its pid a `process_name`;
//! - a slice is a complete event (`X`, finite `ts >= 0`, `dur >= 0`) or a `B` closed by
//!   an `E` on the same track; a task slice (`cat` "task") carries `args.task`, 16 hex
//!   digits;
//! - every flow is a steal (`steal-squad`, `-node`, `-package`, `-remote`, `-bulk`)
//!   with one start (`s`) and one finish (`f`) of one `id`, each bound to a slice of
//!   its track as Perfetto binds it: the start and a finish with `"bp": "e"` to a slice
//!   enclosing its time, another finish to the next slice starting at or after it.
//!
//! Other phases of the format (counters, instants, async events) are read past;
//! instants of `cat` "policy" are counted as placements. Times become whole nanoseconds
//! as Perfetto rounds them (`ts * 1000`, to nearest).

use serde::Deserialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// The steal tiers, in the order tables show them.
pub(crate) const TIERS: [&str; 5] = ["squad", "node", "package", "remote", "bulk"];

/// A trace, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Trace {
    /// `otherData.title`, else the first process's name.
    pub(crate) title: String,
    /// Which engine wrote it.
    pub(crate) source: Source,
    /// The workers, by index.
    pub(crate) workers: BTreeMap<usize, Worker>,
    /// Every slice, in file order.
    pub(crate) slices: Vec<Slice>,
    /// Every steal, in file order.
    pub(crate) steals: Vec<Steal>,
    /// The policy's placements (instant events).
    pub(crate) placements: usize,
}

/// Which engine wrote a trace, by its `otherData`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Source {
    /// The runtime: it says how many events its workers dropped.
    Runtime {
        /// Events the workers could not keep.
        dropped: u64,
        /// The events a worker keeps at most.
        cap_per_worker: u64,
        /// Steals the writer left out, their arrows binding to no slice (0 where the
        /// writer does not say).
        not_drawn: u64,
    },
    /// The simulator (a `clock_ghz`), or a writer that says nothing of dropped events.
    Simulator,
}

/// One worker's track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Worker {
    /// Its squad.
    pub(crate) squad: usize,
    /// Its processing unit.
    pub(crate) pu: usize,
}

/// What a slice was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A task (or, in a simulated trace, a part of one).
    Task {
        /// Its id.
        id: u64,
        /// `args.iteration`, where the writer gives it (the simulator).
        iteration: Option<u32>,
    },
    /// A broadcast's share (an OpenMP team member's part).
    Share,
    /// Searching for work.
    Idle,
    /// Asleep (inside an idle spell).
    Sleep,
    /// Anything else.
    Other,
}

/// A slice on a worker's track, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slice {
    /// The worker.
    pub(crate) worker: usize,
    /// Start.
    pub(crate) start: i64,
    /// End, at least `start`.
    pub(crate) end: i64,
    /// What it was.
    pub(crate) kind: Kind,
}

/// A steal, checked to join two slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Steal {
    /// Index into [`TIERS`].
    pub(crate) tier: usize,
    /// The worker the task left.
    pub(crate) victim: usize,
    /// The worker that ran it.
    pub(crate) thief: usize,
    /// The stolen task, from the flow's `args.task` or the thief's task slice that
    /// starts where the flow finishes.
    pub(crate) task: Option<u64>,
}

#[derive(Deserialize)]
struct RawFile<'a> {
    #[serde(rename = "traceEvents", borrow)]
    events: Vec<RawEvent<'a>>,
    #[serde(rename = "otherData", default, borrow)]
    other: Option<RawOther<'a>>,
}

#[derive(Deserialize)]
struct RawOther<'a> {
    #[serde(default, borrow)]
    title: Option<Cow<'a, str>>,
    #[serde(default)]
    dropped_events: Option<u64>,
    #[serde(default)]
    cap_per_worker: Option<u64>,
    #[serde(default)]
    steals_not_drawn: Option<u64>,
}

#[derive(Deserialize)]
struct RawEvent<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ph: Cow<'a, str>,
    #[serde(default, borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(default)]
    pid: Option<u64>,
    #[serde(default)]
    tid: Option<u64>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default, borrow)]
    bp: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    args: Option<RawArgs<'a>>,
}

#[derive(Deserialize)]
struct RawArgs<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    task: Option<Cow<'a, str>>,
    #[serde(default)]
    iteration: Option<u32>,
}

/// The latest time accepted, in microseconds (126 years): a start and a duration in
/// nanoseconds then add up within an `i64`.
const MAX_MICROS: f64 = 4e15;

/// The phases of the trace-event format that this reader reads past.
const OTHER_PHASES: &[&str] = &[
    "i", "I", "C", "b", "n", "e", "t", "P", "N", "O", "D", "(", ")", "R", "c", "S", "T", "F",
];

impl RawEvent<'_> {
    fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }

    /// "event 12 (X "squad 0")", for messages.
    fn at(&self, index: usize) -> String {
        format!("event {index} ({} {:?})", self.ph, self.name())
    }

    fn track(&self, index: usize) -> Result<(u64, u64), String> {
        match (self.pid, self.tid) {
            (Some(pid), Some(tid)) => Ok((pid, tid)),
            _ => Err(format!("{}: needs a pid and a tid", self.at(index))),
        }
    }

    fn time(&self, index: usize, field: &str, value: Option<f64>) -> Result<i64, String> {
        match value {
            Some(v) if (0.0..MAX_MICROS).contains(&v) => Ok((v * 1000.0).round() as i64),
            Some(v) => Err(format!(
                "{}: {field} is {v}; it must be a finite number of microseconds, at least 0",
                self.at(index)
            )),
            None => Err(format!("{}: has no {field}", self.at(index))),
        }
    }
}

/// A slice being read: its track, times, kind.
struct Open {
    track: (u64, u64),
    start: i64,
    kind: Kind,
    index: usize,
}

/// Reads and checks a trace; the error says what is wrong and where, not which file.
pub(crate) fn parse(bytes: &[u8]) -> Result<Trace, String> {
    let raw: RawFile<'_> = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "not a trace in the Chrome trace-event object format \
             ({{\"traceEvents\": [...], \"otherData\": {{...}}}}): {e}"
        )
    })?;
    let mut processes: HashMap<u64, String> = HashMap::new();
    let mut tracks: HashMap<(u64, u64), usize> = HashMap::new();
    let mut workers: BTreeMap<usize, Worker> = BTreeMap::new();
    for (i, e) in raw.events.iter().enumerate() {
        if e.ph != "M" {
            continue;
        }
        let name = e.args.as_ref().and_then(|a| a.name.as_deref());
        match e.name() {
            "process_name" => {
                let pid = e.pid.ok_or_else(|| format!("{}: needs a pid", e.at(i)))?;
                let name = name.ok_or_else(|| format!("{}: has no args.name", e.at(i)))?;
                processes.insert(pid, name.to_owned());
            }
            "thread_name" => {
                let track = e.track(i)?;
                let name = name.ok_or_else(|| format!("{}: has no args.name", e.at(i)))?;
                let (w, worker) = worker_name(name).ok_or_else(|| {
                    format!(
                        "{}: the track is named {name:?}, not as a locus worker's \
                         (\"worker W (squad S, PU P)\")",
                        e.at(i)
                    )
                })?;
                if let Some(&other) = tracks.get(&track) {
                    if other != w {
                        return Err(format!(
                            "{}: pid {} tid {} is named both worker {other} and worker {w}",
                            e.at(i),
                            track.0,
                            track.1
                        ));
                    }
                }
                if let Some(old) = workers.insert(w, worker) {
                    let taken = tracks.iter().any(|(t, &x)| x == w && *t != track);
                    if old != worker || taken {
                        return Err(format!(
                            "{}: worker {w} is named on two tracks or in two squads",
                            e.at(i)
                        ));
                    }
                }
                tracks.insert(track, w);
            }
            _ => {}
        }
    }
    for &(pid, _) in tracks.keys() {
        if !processes.contains_key(&pid) {
            return Err(format!(
                "pid {pid} holds worker tracks but no process_name metadata names it"
            ));
        }
    }
    let worker_of = |e: &RawEvent<'_>, i: usize| -> Result<usize, String> {
        let track = e.track(i)?;
        tracks.get(&track).copied().ok_or_else(|| {
            format!(
                "{}: is on pid {} tid {}, a track no thread_name metadata names",
                e.at(i),
                track.0,
                track.1
            )
        })
    };

    let mut slices = Vec::new();
    let mut open: HashMap<usize, Vec<Open>> = HashMap::new();
    let mut flows: HashMap<u64, [Option<usize>; 2]> = HashMap::new();
    let mut placements = 0;
    for (i, e) in raw.events.iter().enumerate() {
        match &*e.ph {
            "M" => {}
            "X" => {
                let worker = worker_of(e, i)?;
                let start = e.time(i, "ts", e.ts)?;
                let dur = e.time(i, "dur", e.dur)?;
                slices.push(Slice {
                    worker,
                    start,
                    end: start + dur,
                    kind: kind(e, i)?,
                });
            }
            "B" => {
                let worker = worker_of(e, i)?;
                let start = e.time(i, "ts", e.ts)?;
                open.entry(worker).or_default().push(Open {
                    track: e.track(i)?,
                    start,
                    kind: kind(e, i)?,
                    index: i,
                });
            }
            "E" => {
                let worker = worker_of(e, i)?;
                let end = e.time(i, "ts", e.ts)?;
                let begun = open.get_mut(&worker).and_then(Vec::pop).ok_or_else(|| {
                    format!(
                        "{}: ends a slice on worker {worker}, but none is open",
                        e.at(i)
                    )
                })?;
                if end < begun.start {
                    return Err(format!(
                        "{}: ends the slice of event {} before it began",
                        e.at(i),
                        begun.index
                    ));
                }
                slices.push(Slice {
                    worker,
                    start: begun.start,
                    end,
                    kind: begun.kind,
                });
            }
            "s" | "f" => {
                worker_of(e, i)?;
                e.time(i, "ts", e.ts)?;
                let id =
                    e.id.ok_or_else(|| format!("{}: a flow event needs an id", e.at(i)))?;
                let end = usize::from(e.ph == "f");
                let ends = flows.entry(id).or_default();
                if let Some(other) = ends[end] {
                    return Err(format!(
                        "{}: flow id {id} has a second {}, after event {other}",
                        e.at(i),
                        if end == 0 { "start" } else { "finish" }
                    ));
                }
                ends[end] = Some(i);
            }
            "i" | "I" if e.cat.as_deref() == Some("policy") => placements += 1,
            ph if OTHER_PHASES.contains(&ph) => {}
            ph => return Err(format!("{}: {ph:?} is not a trace-event phase", e.at(i))),
        }
    }
    if let Some(begun) = open.values().flat_map(|v| v.iter()).min_by_key(|o| o.index) {
        return Err(format!(
            "{}: a slice without end: pid {} tid {} has no E after it",
            raw.events[begun.index].at(begun.index),
            begun.track.0,
            begun.track.1
        ));
    }

    let bind = Binder::new(&slices);
    let mut ids: Vec<_> = flows.into_iter().collect();
    ids.sort_unstable_by_key(|(_, ends)| ends.iter().flatten().min().copied());
    let mut steals = Vec::with_capacity(ids.len());
    for (id, ends) in ids {
        let (s, f) = match ends {
            [Some(s), Some(f)] => (s, f),
            [Some(i), None] | [None, Some(i)] => {
                return Err(format!(
                    "{}: flow id {id} is a flow to nowhere: it has no {}",
                    raw.events[i].at(i),
                    if ends[0].is_some() {
                        "finish (f)"
                    } else {
                        "start (s)"
                    }
                ))
            }
            [None, None] => continue,
        };
        let (start, finish) = (&raw.events[s], &raw.events[f]);
        let tier = TIERS
            .iter()
            .position(|t| start.name().strip_prefix("steal-") == Some(*t))
            .ok_or_else(|| {
                format!(
                    "{}: a flow that is not a steal (steal-squad, steal-node, steal-package, \
                     steal-remote, steal-bulk)",
                    start.at(s)
                )
            })?;
        if finish.name() != start.name() {
            return Err(format!(
                "{}: flow id {id} starts as {:?} at event {s}",
                finish.at(f),
                start.name()
            ));
        }
        let victim = worker_of(start, s)?;
        let thief = worker_of(finish, f)?;
        let left = start.time(s, "ts", start.ts)?;
        let began = finish.time(f, "ts", finish.ts)?;
        if bind.enclosing(victim, left).is_none() {
            return Err(format!(
                "{}: flow id {id} starts at {left} ns on worker {victim}, where no slice is",
                start.at(s)
            ));
        }
        let enclosing = finish.bp.as_deref() == Some("e");
        let bound = if enclosing {
            bind.enclosing(thief, began)
        } else {
            bind.next(thief, began)
        };
        if bound.is_none() {
            return Err(format!(
                "{}: flow id {id} finishes at {began} ns on worker {thief}, where no slice {}",
                finish.at(f),
                if enclosing {
                    "is"
                } else {
                    "starts then or later"
                }
            ));
        }
        let task = match finish.args.as_ref().and_then(|a| a.task.as_deref()) {
            Some(hex) => Some(task_id(hex).ok_or_else(|| {
                format!("{}: args.task {hex:?} is not 16 hex digits", finish.at(f))
            })?),
            None => bind.task_starting(thief, began),
        };
        steals.push(Steal {
            tier,
            victim,
            thief,
            task,
        });
    }

    let other = raw.other.as_ref();
    let source = match other.map(|o| (o.dropped_events, o.cap_per_worker)) {
        Some((Some(dropped), Some(cap_per_worker))) => Source::Runtime {
            dropped,
            cap_per_worker,
            not_drawn: other.and_then(|o| o.steals_not_drawn).unwrap_or(0),
        },
        Some((Some(_), None)) => {
            return Err("otherData has dropped_events but no cap_per_worker".to_owned())
        }
        _ => Source::Simulator,
    };
    let title = other
        .and_then(|o| o.title.as_deref())
        .or_else(|| processes.values().min().map(String::as_str))
        .unwrap_or("")
        .to_owned();
    Ok(Trace {
        title,
        source,
        workers,
        slices,
        steals,
        placements,
    })
}

/// A slice's kind from its `cat`, `name` and `args`.
fn kind(e: &RawEvent<'_>, index: usize) -> Result<Kind, String> {
    Ok(match (e.cat.as_deref(), e.name()) {
        (Some("task"), "share") => Kind::Share,
        (Some("task"), _) => {
            let args = e.args.as_ref();
            let hex = args
                .and_then(|a| a.task.as_deref())
                .ok_or_else(|| format!("{}: a task slice needs args.task", e.at(index)))?;
            Kind::Task {
                id: task_id(hex).ok_or_else(|| {
                    format!("{}: args.task {hex:?} is not 16 hex digits", e.at(index))
                })?,
                iteration: args.and_then(|a| a.iteration),
            }
        }
        (Some("idle"), "sleep") => Kind::Sleep,
        (Some("idle"), _) => Kind::Idle,
        _ => Kind::Other,
    })
}

fn task_id(hex: &str) -> Option<u64> {
    (hex.len() == 16)
        .then(|| u64::from_str_radix(hex, 16).ok())
        .flatten()
}

/// "worker W (squad S, PU P)" as (W, its squad and PU).
fn worker_name(name: &str) -> Option<(usize, Worker)> {
    let rest = name.strip_prefix("worker ")?;
    let (w, rest) = rest.split_once(" (squad ")?;
    let (squad, rest) = rest.split_once(", PU ")?;
    let pu = rest.strip_suffix(')')?;
    let number = |s: &str| -> Option<usize> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    Some((
        number(w)?,
        Worker {
            squad: number(squad)?,
            pu: number(pu)?,
        },
    ))
}

/// Finds the slices a flow binds to, per worker: slices sorted by start, with the
/// greatest end so far, so "some slice encloses t" is one binary search.
struct Binder {
    per_worker: HashMap<usize, Vec<(i64, i64, Kind)>>,
}

impl Binder {
    fn new(slices: &[Slice]) -> Binder {
        let mut per_worker: HashMap<usize, Vec<(i64, i64, Kind)>> = HashMap::new();
        for s in slices {
            per_worker
                .entry(s.worker)
                .or_default()
                .push((s.start, s.end, s.kind));
        }
        for v in per_worker.values_mut() {
            v.sort_unstable_by_key(|&(start, end, _)| (start, end));
            let mut reach = i64::MIN;
            for (_, end, _) in v.iter_mut() {
                reach = reach.max(*end);
                *end = reach;
            }
        }
        Binder { per_worker }
    }

    /// The slices of `worker` starting at or before `t`, their ends made running maxima.
    fn upto(&self, worker: usize, t: i64) -> &[(i64, i64, Kind)] {
        let v = self.per_worker.get(&worker).map_or(&[][..], Vec::as_slice);
        &v[..v.partition_point(|&(start, _, _)| start <= t)]
    }

    fn enclosing(&self, worker: usize, t: i64) -> Option<()> {
        self.upto(worker, t)
            .last()
            .filter(|&&(_, reach, _)| reach >= t)
            .map(drop)
    }

    fn next(&self, worker: usize, t: i64) -> Option<()> {
        let v = self.per_worker.get(&worker)?;
        (v.partition_point(|&(start, _, _)| start < t) < v.len()).then_some(())
    }

    /// The task of a task slice of `worker` that starts at `t`.
    fn task_starting(&self, worker: usize, t: i64) -> Option<u64> {
        self.upto(worker, t)
            .iter()
            .rev()
            .take_while(|&&(start, _, _)| start == t)
            .find_map(|&(_, _, kind)| match kind {
                Kind::Task { id, .. } => Some(id),
                _ => None,
            })
    }
}
