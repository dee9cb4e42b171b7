//! Task footprint profiles: for every leaf task (by [`TaskId`]), the set of distinct
//! 64-byte cache lines it touches and its work.
//!
//! # What is profiled
//! A *leaf* is a task that declares accesses itself and spawns nothing: a loop chunk or
//! a leaf of a recursion. Inner tasks only fork, and their few accesses (if any) are not
//! what a schedule places. A task that appears in several iterations (the same id, as
//! heat's chunks do in every sweep) is one profile entry: its lines are the union over
//! its instances, its work the average per instance.
//!
//! # Line runs
//! Lines are kept as sorted, disjoint [`LineRun`]s, contiguous lines merged into one
//! run (the range compression the paper's Section 7 proposes), so a task that sweeps a
//! row costs one run, not one entry per line, and memory holds nothing per access.
//!
//! # The cap
//! A task keeps at most `cap` runs. When a merge leaves more, it keeps the `cap`
//! lowest-addressed runs and sets its *cut* to the first line of the first dropped run;
//! from then on lines at or above the cut are ignored. Its runs are therefore exactly
//! its lines below the cut, whatever order its accesses came in, and the task is marked
//! truncated (counted in [`ProfileSummary::truncated`]).

use std::collections::HashMap;
use std::ops::Range;

use locus_policy::TaskId;
use locus_task::workload::{Step, Workload};
use serde::{Serialize, Serializer};

use crate::error::{Kind, ProfileError};
use crate::machine::MachineDesc;
use crate::LINE_SIZE;

/// The `format` name of profile files.
pub const PROFILE_FORMAT: &str = "locus-profile";
/// The version of profile files this crate writes.
pub const PROFILE_VERSION: u32 = 1;
/// Runs a task keeps by default before it is truncated. A guess: a heat chunk of 8
/// rows needs 1 run per array, an SpMV row one per distinct cache line of `x` it reads.
pub const DEFAULT_CAP: usize = 4096;

/// Contiguous cache lines `start..start + len` (line numbers: byte address / 64).
/// Written as `[start, len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(into = "(u64, u64)")]
pub struct LineRun {
    /// First line.
    pub start: u64,
    /// Number of lines, at least 1.
    pub len: u64,
}

impl LineRun {
    /// One past the last line.
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
}

impl From<LineRun> for (u64, u64) {
    fn from(r: LineRun) -> (u64, u64) {
        (r.start, r.len)
    }
}

/// The lines `len` bytes at `addr` cover, as a half-open range of line numbers.
pub fn lines_of(addr: u64, len: u64) -> Range<u64> {
    if len == 0 {
        return 0..0;
    }
    let last = addr.saturating_add(len - 1);
    addr / LINE_SIZE..last / LINE_SIZE + 1
}

/// One leaf task's footprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskProfile {
    #[serde(serialize_with = "hex_id")]
    id: TaskId,
    level: u32,
    instances: u32,
    work: u64,
    lines: u64,
    truncated: bool,
    runs: Vec<LineRun>,
}

impl TaskProfile {
    /// The task's id.
    pub fn id(&self) -> TaskId {
        self.id
    }

    /// Its depth in the task tree.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// How many times it ran in the profiled program (iterations it appears in).
    pub fn instances(&self) -> u32 {
        self.instances
    }

    /// Declared instructions per instance (the average, rounded to nearest).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Distinct lines kept (the sum of the runs' lengths).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Whether runs past the cap were dropped.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The lines, as sorted, disjoint, non-touching runs.
    pub fn runs(&self) -> &[LineRun] {
        &self.runs
    }
}

fn hex_id<S: Serializer>(id: &TaskId, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{:016x}", id.0))
}

/// Totals over a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ProfileSummary {
    /// Profiled (leaf) tasks, by id.
    pub tasks: usize,
    /// Leaf task instances seen (a task in 10 iterations counts 10).
    pub instances: u64,
    /// Line runs kept, over all tasks.
    pub runs: u64,
    /// Lines kept, over all tasks (a line two tasks touch counts twice).
    pub lines: u64,
    /// Tasks that reached the cap and were truncated.
    pub truncated: usize,
    /// Work per iteration, summed over tasks.
    pub work: u64,
}

/// Footprints of every leaf task of a program, for one machine and one input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Profile {
    format: &'static str,
    version: u32,
    name: String,
    input: String,
    machine: MachineDesc,
    line_size: u64,
    cap: usize,
    summary: ProfileSummary,
    tasks: Vec<TaskProfile>,
}

impl Profile {
    /// Profiles the leaf tasks of `workload` (see the module documentation), for
    /// `machine` and the input `input` (see [`crate::input_identity`]), keeping at most
    /// `cap` runs per task.
    ///
    /// # Errors
    /// If `cap` is zero or no leaf task declares an access.
    pub fn from_workload(
        workload: &Workload,
        machine: MachineDesc,
        input: &str,
        cap: usize,
    ) -> Result<Profile, ProfileError> {
        let mut builder = ProfileBuilder::new(machine, input, cap)?;
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for (i, task) in workload.tasks().iter().enumerate() {
            let steps = workload.steps(i as u32);
            if steps
                .iter()
                .any(|s| matches!(s, Step::Join(..) | Step::Spawn(_)))
            {
                continue;
            }
            ranges.clear();
            let mut work = 0u64;
            for step in steps {
                match *step {
                    Step::Read { addr, len } | Step::Write { addr, len } if len > 0 => {
                        ranges.push(lines_of(addr, len));
                    }
                    Step::Work(n) => work = work.saturating_add(n),
                    _ => {}
                }
            }
            if ranges.is_empty() {
                continue;
            }
            builder.add(task.info.id, task.info.level, ranges.drain(..), work);
        }
        builder.finish(&workload.name)
    }

    /// What was profiled (the workload's name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input's identity.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The machine the profile is for.
    pub fn machine(&self) -> &MachineDesc {
        &self.machine
    }

    /// The per-task cap on runs.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Every profiled task, in order of first appearance in the program.
    pub fn tasks(&self) -> &[TaskProfile] {
        &self.tasks
    }

    /// Totals.
    pub fn summary(&self) -> &ProfileSummary {
        &self.summary
    }

    /// The profile as a JSON document (`format` `"locus-profile"`, `version` 1, the
    /// machine, the input, the summary, and per task its hex id, level, instances,
    /// work, lines, truncation and runs as `[start, len]` pairs).
    pub fn to_json(&self) -> String {
        // Serialising plain data (strings, integers, vectors) into memory cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// One task being accumulated.
#[derive(Debug)]
struct Acc {
    id: TaskId,
    level: u32,
    instances: u32,
    work: u64,
    runs: Vec<LineRun>,
    /// Lines at or above this are dropped (`u64::MAX`: none yet).
    cut: u64,
}

/// Builds a [`Profile`] from task instances given one at a time (from a workload, or
/// synthetic programs).
#[derive(Debug)]
pub struct ProfileBuilder {
    machine: MachineDesc,
    input: String,
    cap: usize,
    index: HashMap<TaskId, usize>,
    tasks: Vec<Acc>,
    instances: u64,
    scratch: Vec<LineRun>,
    merged: Vec<LineRun>,
}

impl ProfileBuilder {
    /// An empty profile for `machine` and `input`, keeping at most `cap` runs per task.
    ///
    /// # Errors
    /// If `cap` is zero.
    pub fn new(
        machine: MachineDesc,
        input: &str,
        cap: usize,
    ) -> Result<ProfileBuilder, ProfileError> {
        if cap == 0 {
            return Err(ProfileError::option("cap", cap, "at least 1 run per task"));
        }
        Ok(ProfileBuilder {
            machine,
            input: input.to_owned(),
            cap,
            index: HashMap::new(),
            tasks: Vec::new(),
            instances: 0,
            scratch: Vec::new(),
            merged: Vec::new(),
        })
    }

    /// Adds one instance of task `id` (at tree level `level`): the lines it touched, as
    /// half-open ranges of line numbers in any order (overlaps allowed, empty ranges
    /// ignored), and its declared work.
    pub fn add(
        &mut self,
        id: TaskId,
        level: u32,
        lines: impl IntoIterator<Item = Range<u64>>,
        work: u64,
    ) {
        self.instances += 1;
        let next = self.tasks.len();
        let slot = *self.index.entry(id).or_insert(next);
        if slot == next {
            self.tasks.push(Acc {
                id,
                level,
                instances: 0,
                work: 0,
                runs: Vec::new(),
                cut: u64::MAX,
            });
        }
        let acc = &mut self.tasks[slot];
        acc.instances = acc.instances.saturating_add(1);
        acc.work = acc.work.saturating_add(work);

        // This instance's ranges below the cut, sorted and merged.
        self.scratch.clear();
        for r in lines {
            let end = r.end.min(acc.cut);
            if r.start < end {
                self.scratch.push(LineRun {
                    start: r.start,
                    len: end - r.start,
                });
            }
        }
        if self.scratch.is_empty() {
            return;
        }
        self.scratch.sort_unstable();
        // Merge the task's runs and the new ones, both sorted, into `merged`.
        self.merged.clear();
        let (mut i, mut j) = (0, 0);
        let (old, new) = (&acc.runs, &self.scratch);
        while i < old.len() || j < new.len() {
            let next = if j == new.len() || (i < old.len() && old[i].start <= new[j].start) {
                i += 1;
                old[i - 1]
            } else {
                j += 1;
                new[j - 1]
            };
            match self.merged.last_mut() {
                Some(last) if next.start <= last.end() => {
                    let end = last.end().max(next.end());
                    last.len = end - last.start;
                }
                _ => self.merged.push(next),
            }
        }
        if self.merged.len() > self.cap {
            acc.cut = self.merged[self.cap].start;
            self.merged.truncate(self.cap);
        }
        std::mem::swap(&mut acc.runs, &mut self.merged);
    }

    /// Number of distinct tasks so far.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether no task was added.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The profile, named `name`.
    ///
    /// # Errors
    /// If no task was added.
    pub fn finish(self, name: &str) -> Result<Profile, ProfileError> {
        if self.tasks.is_empty() {
            return Err(Kind::NoTasks {
                what: name.to_owned(),
            }
            .into());
        }
        let mut summary = ProfileSummary {
            instances: self.instances,
            ..ProfileSummary::default()
        };
        let tasks: Vec<TaskProfile> = self
            .tasks
            .into_iter()
            .map(|mut acc| {
                acc.runs.shrink_to_fit();
                let lines = acc.runs.iter().map(|r| r.len).sum();
                let n = u64::from(acc.instances.max(1));
                let work = acc.work.saturating_add(n / 2) / n;
                let truncated = acc.cut != u64::MAX;
                summary.runs += acc.runs.len() as u64;
                summary.lines += lines;
                summary.work = summary.work.saturating_add(work);
                summary.truncated += usize::from(truncated);
                TaskProfile {
                    id: acc.id,
                    level: acc.level,
                    instances: acc.instances,
                    work,
                    lines,
                    truncated,
                    runs: acc.runs,
                }
            })
            .collect();
        summary.tasks = tasks.len();
        Ok(Profile {
            format: PROFILE_FORMAT,
            version: PROFILE_VERSION,
            name: name.to_owned(),
            input: self.input,
            machine: self.machine,
            line_size: LINE_SIZE,
            cap: self.cap,
            summary,
            tasks,
        })
    }
}
