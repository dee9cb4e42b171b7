//! Schedule files: where each task runs, for one machine and one input, as later runs
//! follow it (the paper's "feedback file").
//!
//! # The file
//! A JSON object:
//!
//! ```text
//! {
//!   "format": "locus-schedule",
//!   "version": 1,
//!   "machine": {"topology": "opteron-8380", "workers": 16, "squads": [...]},
//!   "input": "heat 64x64,leaf=8,iters=2",
//!   "summary": {"tasks": 64, "edges": 112, "edge_cut": 40, ...},
//!   "entries": [
//!     {"task": "1b3a0c9e5d7f2468", "squad": 0, "worker": 1, "order": 0},
//!     ...
//!   ],
//!   "checksum": "fnv1a64:0123456789abcdef"
//! }
//! ```
//!
//! The checksum is FNV-1a over the *canonical body*: the compact JSON of every field but
//! `checksum`, in the order above, as this crate writes it. It is recomputed from the
//! parsed fields, so whitespace does not matter but every value does. Integers only: a
//! float that did not survive a round trip through text bit for bit would break the
//! checksum, so the imbalance is kept in millionths.
//!
//! # Loading
//! [`load`] (and [`Schedule::parse`]) trust nothing: the text must be JSON, complete,
//! of this format and version, with every field, an intact checksum, made for this
//! machine and this input, and its entries must place each task once, on a worker of the
//! squad they name, in orders that are a permutation per worker. Each failure has its
//! own [`ScheduleError`] message saying what is wrong and what to do. The file must be a
//! regular file of at most [`MAX_FILE_BYTES`]; JSON nests at most 128 deep (serde_json's
//! recursion limit, left on), so no file can overflow the stack.

use std::collections::HashSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use locus_policy::{TaskId, TaskSchedule, TaskScheduleError};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::graph::AffinityGraph;
use crate::hash::fnv1a;
use crate::machine::MachineDesc;
use crate::partition::Partition;

/// Largest schedule file read, in bytes. An entry is about 70 bytes, so 1 GiB holds
/// some 15 million tasks: more than any profile locus makes in memory today (a guess,
/// from the 2.4 GB partition of `irreg large`), and still bounded.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The `format` name of schedule files.
pub const FORMAT: &str = "locus-schedule";
/// The version this crate writes and reads.
pub const VERSION: u64 = 1;
/// The prefix of the checksum's value.
const CHECKSUM_PREFIX: &str = "fnv1a64:";

/// Totals kept in a schedule file (informative; covered by the checksum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleSummary {
    /// Tasks placed.
    pub tasks: u64,
    /// Edges of the affinity graph.
    pub edges: u64,
    /// Weight of the edges between workers (cache lines shared across workers).
    pub edge_cut: u64,
    /// Weight of the edges between squads.
    pub squad_cut: u64,
    /// Weight of all edges.
    pub total_edge_weight: u64,
    /// The heaviest worker's weight over the mean, in millionths (1,000,000 = perfect).
    pub imbalance_ppm: u64,
}

/// One task's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The task.
    pub task: TaskId,
    /// Its squad.
    pub squad: usize,
    /// Its worker (one of the squad's).
    pub worker: usize,
    /// Its position in the worker's order.
    pub order: u32,
}

/// A validated schedule: every task placed once, for one machine and one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    machine: MachineDesc,
    input: String,
    summary: ScheduleSummary,
    entries: Vec<Placement>,
}

/// An entry as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    task: String,
    squad: u64,
    worker: u64,
    order: u64,
}

/// The fields the checksum covers, in file order.
#[derive(Serialize)]
struct Body<'a> {
    format: &'a str,
    version: u64,
    machine: &'a MachineDesc,
    input: &'a str,
    summary: &'a ScheduleSummary,
    entries: &'a [Entry],
}

/// The whole file as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: String,
    version: u64,
    machine: MachineDesc,
    input: String,
    summary: ScheduleSummary,
    entries: Vec<Entry>,
    checksum: String,
}

/// The top-level fields, checked before the file is read as a whole, so a file of
/// another format or version is named as such rather than by the first field it lacks.
#[derive(Deserialize)]
struct Header {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    machine: Option<IgnoredAny>,
    input: Option<IgnoredAny>,
    summary: Option<IgnoredAny>,
    entries: Option<IgnoredAny>,
    checksum: Option<IgnoredAny>,
}

impl Schedule {
    /// The schedule of `partition` (of `graph`) for `machine` and `input`.
    ///
    /// # Errors
    /// If the partition does not match the graph or the machine, or places nothing, or
    /// two vertices are the same task; that is, whatever [`load`] would refuse.
    pub fn new(
        machine: &MachineDesc,
        input: &str,
        graph: &AffinityGraph,
        partition: &Partition,
    ) -> Result<Schedule, ScheduleError> {
        if partition.len() != graph.num_vertices() {
            return Err(ScheduleError::new(
                "the new schedule",
                Kind::Invalid {
                    msg: format!(
                        "the partition places {} tasks but the graph has {}",
                        partition.len(),
                        graph.num_vertices()
                    ),
                },
            ));
        }
        let stats = partition.stats();
        let entries: Vec<Placement> = partition
            .placements()
            .map(|(v, squad, worker, order)| Placement {
                task: graph.ids()[v],
                squad,
                worker,
                order,
            })
            .collect();
        let summary = ScheduleSummary {
            tasks: entries.len() as u64,
            edges: graph.num_edges() as u64,
            edge_cut: stats.edge_cut,
            squad_cut: stats.squad_cut,
            total_edge_weight: stats.total_edge_weight,
            imbalance_ppm: (stats.imbalance * 1e6).round() as u64,
        };
        check_entries(machine, &entries).map_err(|k| ScheduleError::new("the new schedule", k))?;
        Ok(Schedule {
            machine: machine.clone(),
            input: input.to_owned(),
            summary,
            entries,
        })
    }

    /// The machine the schedule is for.
    pub fn machine(&self) -> &MachineDesc {
        &self.machine
    }

    /// The input the schedule is for.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// Totals.
    pub fn summary(&self) -> &ScheduleSummary {
        &self.summary
    }

    /// Every task's place, in the order of the file.
    pub fn entries(&self) -> &[Placement] {
        &self.entries
    }

    /// Every task as `(task, squad, worker, order)`, for a policy to follow.
    pub fn placements(&self) -> impl Iterator<Item = (TaskId, usize, usize, u32)> + '_ {
        self.entries
            .iter()
            .map(|p| (p.task, p.squad, p.worker, p.order))
    }

    /// The schedule as the `affinity` policy follows it (`PolicyKind::Affinity`): each
    /// task's worker and order, for [`MachineDesc::num_workers`] workers.
    ///
    /// # Errors
    /// If the policy's map refuses an entry (a task twice, a worker out of range), which
    /// a schedule from [`load`] or [`Schedule::new`] never has: both check the entries.
    pub fn task_schedule(&self) -> Result<TaskSchedule, ScheduleError> {
        let entries = self
            .placements()
            .map(|(task, _, worker, order)| (task, worker, order));
        TaskSchedule::new(self.machine.num_workers(), entries).map_err(|err| {
            ScheduleError::new(
                &format!("for {:?} on {}", self.input, self.machine.topology()),
                Kind::Unfollowable { err },
            )
        })
    }

    fn written_entries(&self) -> Vec<Entry> {
        self.entries
            .iter()
            .map(|p| Entry {
                task: format!("{:016x}", p.task.0),
                squad: p.squad as u64,
                worker: p.worker as u64,
                order: u64::from(p.order),
            })
            .collect()
    }

    /// The file's text: one entry per line, the rest on a line each.
    pub fn to_json(&self) -> String {
        let entries = self.written_entries();
        render(&Body {
            format: FORMAT,
            version: VERSION,
            machine: &self.machine,
            input: &self.input,
            summary: &self.summary,
            entries: &entries,
        })
    }

    /// Writes the file to `path`, through a temporary file renamed into place so that a
    /// reader never sees half a schedule.
    ///
    /// # Errors
    /// If the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), ScheduleError> {
        let io = |err: io::Error| ScheduleError {
            source_name: path.display().to_string(),
            kind: Kind::Write { err },
        };
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, self.to_json()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io(e)
        })
    }

    /// Reads a schedule from `text` (named `source` in errors), for `machine` and
    /// `input`.
    ///
    /// # Errors
    /// See [`load`].
    pub fn parse(
        text: &str,
        source: &str,
        machine: &MachineDesc,
        input: &str,
    ) -> Result<Schedule, ScheduleError> {
        parse(text, machine, input).map_err(|kind| ScheduleError::new(source, kind))
    }
}

/// The text of `body` with its checksum, laid out one entry per line.
fn render(body: &Body<'_>) -> String {
    let checksum = checksum(body);
    let mut out = String::with_capacity(64 * body.entries.len() + 1024);
    out.push_str("{\n");
    out.push_str(&format!("  \"format\": {},\n", json(body.format)));
    out.push_str(&format!("  \"version\": {},\n", body.version));
    out.push_str(&format!("  \"machine\": {},\n", json(body.machine)));
    out.push_str(&format!("  \"input\": {},\n", json(body.input)));
    out.push_str(&format!("  \"summary\": {},\n", json(body.summary)));
    out.push_str("  \"entries\": [\n");
    for (i, e) in body.entries.iter().enumerate() {
        let sep = if i + 1 < body.entries.len() { "," } else { "" };
        out.push_str(&format!("    {}{sep}\n", json(e)));
    }
    out.push_str("  ],\n");
    out.push_str(&format!("  \"checksum\": {}\n", json(&checksum)));
    out.push_str("}\n");
    out
}

/// Gives a schedule file's text a fresh checksum after a deliberate edit (tests that
/// build broken schedules, tools that rewrite them): the fields are read as they are,
/// without any check beyond their types, and written back with the checksum of their
/// content. The old checksum may be anything.
///
/// # Errors
/// If the text is not JSON with every field of a schedule file, of the right types.
pub fn reseal(text: &str) -> Result<String, ScheduleError> {
    let file: File = serde_json::from_str(text).map_err(|e| {
        ScheduleError::new("the text to reseal", Kind::Invalid { msg: e.to_string() })
    })?;
    Ok(render(&Body {
        format: &file.format,
        version: file.version,
        machine: &file.machine,
        input: &file.input,
        summary: &file.summary,
        entries: &file.entries,
    }))
}

/// Reads the schedule file at `path`, made for `machine` and `input`.
///
/// # Errors
/// If the file cannot be read, is not JSON or is truncated, is of another format or
/// version, lacks a field, fails its checksum, was made for another machine or input,
/// or places tasks wrongly (a worker or squad out of range, a worker outside the squad
/// named, a task twice, orders that are not a permutation per worker, no task at all).
pub fn load(path: &Path, machine: &MachineDesc, input: &str) -> Result<Schedule, ScheduleError> {
    let source = path.display().to_string();
    let text = locus_files::read_input("schedule file", path, MAX_FILE_BYTES, "a schedule file")
        .map_err(|e| {
            ScheduleError::new(
                &source,
                Kind::File {
                    reason: e.reason(),
                    io: e.is_io(),
                },
            )
        })?;
    let text = String::from_utf8(text).map_err(|e| {
        ScheduleError::new(
            &source,
            Kind::NotJson {
                detail: format!("byte {} is not UTF-8 text", e.utf8_error().valid_up_to()),
            },
        )
    })?;
    Schedule::parse(&text, &source, machine, input)
}

fn parse(text: &str, machine: &MachineDesc, input: &str) -> Result<Schedule, Kind> {
    if text.trim().is_empty() {
        return Err(Kind::Empty);
    }
    let header: Header = serde_json::from_str(text).map_err(syntax)?;
    let format = header.format.ok_or(Kind::Missing { field: "format" })?;
    if format.as_str() != Some(FORMAT) {
        return Err(Kind::Format {
            found: format.to_string(),
        });
    }
    let version = header.version.ok_or(Kind::Missing { field: "version" })?;
    let version = version.as_u64().ok_or_else(|| Kind::Invalid {
        msg: format!("`version` is {version}, not a whole number"),
    })?;
    if version > VERSION {
        return Err(Kind::Newer { version });
    }
    if version < VERSION {
        return Err(Kind::Older { version });
    }
    for (field, present) in [
        ("machine", header.machine.is_some()),
        ("input", header.input.is_some()),
        ("summary", header.summary.is_some()),
        ("entries", header.entries.is_some()),
        ("checksum", header.checksum.is_some()),
    ] {
        if !present {
            return Err(Kind::Missing { field });
        }
    }
    let file: File =
        serde_json::from_str(text).map_err(|e| Kind::Invalid { msg: e.to_string() })?;
    let body = Body {
        format: &file.format,
        version: file.version,
        machine: &file.machine,
        input: &file.input,
        summary: &file.summary,
        entries: &file.entries,
    };
    let computed = checksum(&body);
    if file.checksum != computed {
        return Err(Kind::Checksum {
            found: file.checksum,
            computed,
        });
    }
    if file.machine != *machine {
        return Err(Kind::OtherMachine {
            file: file.machine.to_string(),
            this: machine.to_string(),
            rerun: rerun_flags(machine),
        });
    }
    if file.input != input {
        return Err(Kind::OtherInput {
            file: file.input,
            this: input.to_owned(),
        });
    }
    let mut entries = Vec::with_capacity(file.entries.len());
    for (i, e) in file.entries.iter().enumerate() {
        let task = parse_task(&e.task).ok_or_else(|| Kind::BadTask {
            index: i,
            task: e.task.clone(),
        })?;
        let order = u32::try_from(e.order).map_err(|_| Kind::Order {
            msg: format!(
                "entry {i} (task {}) has order {}, past 2^32",
                e.task, e.order
            ),
        })?;
        entries.push(Placement {
            task,
            squad: usize::try_from(e.squad).unwrap_or(usize::MAX),
            worker: usize::try_from(e.worker).unwrap_or(usize::MAX),
            order,
        });
    }
    check_entries(machine, &entries)?;
    if file.summary.tasks != entries.len() as u64 {
        return Err(Kind::Invalid {
            msg: format!(
                "the summary counts {} tasks but there are {} entries",
                file.summary.tasks,
                entries.len()
            ),
        });
    }
    Ok(Schedule {
        machine: file.machine,
        input: file.input,
        summary: file.summary,
        entries,
    })
}

/// A task id: exactly 16 hex digits.
fn parse_task(s: &str) -> Option<TaskId> {
    if s.len() != 16 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(s, 16).ok().map(TaskId)
}

/// Checks placements against the machine: squads and workers in range and matching,
/// each task once, orders a permutation per worker, at least one task.
fn check_entries(machine: &MachineDesc, entries: &[Placement]) -> Result<(), Kind> {
    if entries.is_empty() {
        return Err(Kind::NoEntries);
    }
    let workers = machine.num_workers();
    let mut squad_of = vec![0usize; workers];
    for (s, sq) in machine.squads().iter().enumerate() {
        for &w in &sq.workers {
            if let Some(slot) = squad_of.get_mut(w) {
                *slot = s;
            }
        }
    }
    let mut count = vec![0u32; workers];
    let mut seen = HashSet::with_capacity(entries.len());
    for (i, p) in entries.iter().enumerate() {
        if p.squad >= machine.num_squads() {
            return Err(Kind::Range {
                msg: format!(
                    "entry {i} (task {}) names squad {}, but {} has squads 0..{}",
                    p.task,
                    fmt_index(p.squad),
                    machine,
                    machine.num_squads()
                ),
            });
        }
        if p.worker >= workers {
            return Err(Kind::Range {
                msg: format!(
                    "entry {i} (task {}) names worker {}, but {} has workers 0..{workers}",
                    p.task,
                    fmt_index(p.worker),
                    machine
                ),
            });
        }
        if squad_of[p.worker] != p.squad {
            return Err(Kind::WrongSquad {
                msg: format!(
                    "entry {i} (task {}) puts worker {} in squad {}, but worker {} is in squad {}",
                    p.task, p.worker, p.squad, p.worker, squad_of[p.worker]
                ),
            });
        }
        if !seen.insert(p.task) {
            return Err(Kind::Duplicate {
                msg: format!("task {} is placed twice (again at entry {i})", p.task),
            });
        }
        count[p.worker] += 1;
    }
    let mut taken: Vec<Vec<bool>> = count.iter().map(|&c| vec![false; c as usize]).collect();
    for p in entries {
        let slots = &mut taken[p.worker];
        match slots.get_mut(p.order as usize) {
            Some(slot) if !*slot => *slot = true,
            Some(_) => {
                return Err(Kind::Order {
                    msg: format!(
                        "worker {} has order {} twice (task {} is one of them)",
                        p.worker, p.order, p.task
                    ),
                })
            }
            None => {
                return Err(Kind::Order {
                    msg: format!(
                        "worker {} has {} tasks, so orders 0..{}, but task {} has order {}",
                        p.worker,
                        slots.len(),
                        slots.len(),
                        p.task,
                        p.order
                    ),
                })
            }
        }
    }
    Ok(())
}

/// The `locus profile` flags that make a schedule for `machine`.
fn rerun_flags(machine: &MachineDesc) -> String {
    let threads = format!("--threads {}", machine.num_workers());
    match machine.topology() {
        // A discovered machine has this generic name: no --machine gives it again.
        "this machine" => threads,
        name if name.contains([' ', '"', '\'', '(']) => format!("--machine {name:?} {threads}"),
        name => format!("--machine {name} {threads}"),
    }
}

fn fmt_index(i: usize) -> String {
    if i == usize::MAX {
        "(too large)".to_owned()
    } else {
        i.to_string()
    }
}

/// The checksum of a body: `fnv1a64:` and 16 hex digits.
fn checksum(body: &Body<'_>) -> String {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    format!("{CHECKSUM_PREFIX}{:016x}", fnv1a(&bytes))
}

/// A JSON error of the first read: syntax, early end, or a top level that is no object.
fn syntax(e: serde_json::Error) -> Kind {
    match e.classify() {
        serde_json::error::Category::Eof => Kind::Truncated {
            line: e.line(),
            column: e.column(),
        },
        serde_json::error::Category::Data => Kind::NotJson {
            detail: format!("the top level is not an object of schedule fields ({e})"),
        },
        _ => Kind::NotJson {
            detail: e.to_string(),
        },
    }
}

/// `value` as compact JSON. Serialising plain data (strings, integers, vectors) into
/// memory cannot fail.
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Why a schedule file was refused. The message names the file, what is wrong with it,
/// and what to do.
#[derive(Debug, thiserror::Error)]
#[error("schedule {source_name}: {kind}")]
pub struct ScheduleError {
    source_name: String,
    #[source]
    kind: Kind,
}

impl ScheduleError {
    fn new(source: &str, kind: Kind) -> ScheduleError {
        ScheduleError {
            source_name: source.to_owned(),
            kind,
        }
    }

    /// The file (or other source) the error is about.
    pub fn source_name(&self) -> &str {
        &self.source_name
    }
}

/// What is wrong. Private so that variants can change without breaking callers.
#[derive(Debug, thiserror::Error)]
enum Kind {
    #[error("{reason}{}", if *.io { " (run `locus profile ... --out DIR` to make one)" } else { "" })]
    File { reason: String, io: bool },
    #[error("cannot write it")]
    Write {
        #[source]
        err: io::Error,
    },
    #[error("the file is empty (truncated while being written?); re-run locus profile")]
    Empty,
    #[error("not a JSON schedule file: {detail}")]
    NotJson { detail: String },
    #[error(
        "the file ends early (line {line}, column {column}): it is truncated; re-run locus \
         profile"
    )]
    Truncated { line: usize, column: usize },
    #[error("missing field `{field}`: not a complete locus schedule file; re-run locus profile")]
    Missing { field: &'static str },
    #[error("format is {found}, not \"locus-schedule\": this is not a locus schedule file")]
    Format { found: String },
    #[error(
        "version {version} was made by a newer locus (this one reads version {VERSION}): \
         upgrade or re-run locus profile"
    )]
    Newer { version: u64 },
    #[error(
        "version {version} was made by an older locus (this one reads version {VERSION}): \
         re-run locus profile"
    )]
    Older { version: u64 },
    #[error("invalid content: {msg}")]
    Invalid { msg: String },
    #[error(
        "checksum mismatch: the file says {found:?} but its content gives {computed:?}; it \
         was edited by hand or corrupted: re-run locus profile"
    )]
    Checksum { found: String, computed: String },
    #[error(
        "made for another machine ({file}), but this run is on {this}: re-run locus profile \
         {rerun}"
    )]
    OtherMachine {
        file: String,
        this: String,
        rerun: String,
    },
    #[error(
        "made for another input ({file:?}), but this run's input is {this:?}: re-run locus \
         profile with this kernel and --size"
    )]
    OtherInput { file: String, this: String },
    #[error("entry {index} has task id {task:?}, not 16 hex digits")]
    BadTask { index: usize, task: String },
    #[error("out of range: {msg}")]
    Range { msg: String },
    #[error("worker not in its squad: {msg}")]
    WrongSquad { msg: String },
    #[error("duplicate task: {msg}")]
    Duplicate { msg: String },
    #[error("orders are not a permutation per worker: {msg}")]
    Order { msg: String },
    #[error("the schedule places no task; re-run locus profile on an input with tasks")]
    NoEntries,
    #[error("the affinity policy cannot follow it; re-run locus profile")]
    Unfollowable {
        #[source]
        err: TaskScheduleError,
    },
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "task {} on worker {} (squad {}) at {}",
            self.task, self.worker, self.squad, self.order
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::SquadDesc;
    use crate::synthetic::grid_graph;

    /// Two squads of two workers; eight tasks, two per worker.
    fn schedule() -> (Schedule, Partition) {
        let squad = |workers: Vec<usize>, numa| SquadDesc {
            workers,
            numa,
            package: numa,
        };
        let machine =
            MachineDesc::from_parts("test", vec![squad(vec![0, 1], 0), squad(vec![2, 3], 1)])
                .unwrap();
        let graph = grid_graph(2, 4, |_, _| 1);
        let partition =
            Partition::from_workers(&graph, &machine, &[3, 3, 2, 2, 1, 1, 0, 0]).unwrap();
        let schedule = Schedule::new(&machine, "test 2x4", &graph, &partition).unwrap();
        (schedule, partition)
    }

    #[test]
    fn the_policy_map_places_every_task_on_its_worker_in_its_order() {
        let (schedule, partition) = schedule();
        let tasks = schedule.task_schedule().unwrap();
        assert_eq!(tasks.workers(), 4);
        assert_eq!(tasks.len(), 8);
        for v in 0..8 {
            let slot = tasks.slot(TaskId(v as u64)).unwrap();
            assert_eq!(slot.worker, partition.worker_of(v), "task {v}");
            assert_eq!(slot.order, partition.order_of(v), "task {v}");
        }
        assert_eq!(tasks.slot(TaskId(8)), None, "a task the schedule lacks");
    }

    #[test]
    fn a_schedule_the_policy_cannot_follow_is_an_error_naming_it() {
        let (mut schedule, _) = schedule();
        // Only possible by hand: `new` and `load` refuse a task placed twice.
        let twice = schedule.entries[0];
        schedule.entries.push(twice);
        let e = schedule.task_schedule().unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("\"test 2x4\" on test") && msg.contains("cannot follow it"),
            "{msg}"
        );
        let cause = std::error::Error::source(&e)
            .and_then(std::error::Error::source)
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(cause.contains("scheduled twice"), "{cause}");
    }
}
