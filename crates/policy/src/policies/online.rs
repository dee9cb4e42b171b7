//! The first-iteration profile of CATS (and of CAB's `auto` mode): per task id, its
//! parent, its own cost, and its Size Of Involved Data (SOID, CATS Eq. 1: the task's own
//! bytes plus its children's SOIDs, passed up when each child completes).
//!
//! Iterations are recognised by task ids (see `task.rs`): the profile ends at the first
//! spawn of an id that has already completed, which is the first task of the second
//! iteration. Recording takes a lock per spawn and per completion; it happens during the
//! profiling iteration only.

use crate::id_map::IdMap;
use crate::policies::bitier::Tier;
use crate::{SquadId, TaskCost, TaskId, TaskInfo, FIRST_SCOPE_SPAWN};
use locus_task::Fork;
use std::collections::HashMap;
use std::sync::Mutex;

/// CATS Eq. 1: the SOID of a task is its own bytes plus its children's SOIDs.
pub fn soid(own_bytes: u64, children: &[u64]) -> u64 {
    children
        .iter()
        .fold(own_bytes, |sum, c| sum.saturating_add(*c))
}

/// CATS Fig. 6: a task whose data does not fit in the shared cache is an inter-squad
/// task (a); one whose data fits while its parent's does not is a leaf inter-squad task
/// (b); one whose data fits, like its parent's, is an intra-squad task (c). A root
/// (no parent) whose data fits is a leaf inter-squad task: its whole tree fits one
/// squad. "Fits" means strictly smaller than the cache, as the paper says.
pub fn classify(soid: u64, parent_soid: Option<u64>, shared_cache: u64) -> Tier {
    let fits = |d: u64| d < shared_cache;
    match (fits(soid), parent_soid.map(fits)) {
        (false, _) => Tier::Inter,
        (true, Some(true)) => Tier::Intra,
        (true, Some(false) | None) => Tier::LeafInter,
    }
}

/// CATS Section 3.5: a task (or program) is CPU-bound when its cache misses per
/// instruction fall below `threshold`. Where the counter source counts no instructions
/// (the `declared` source), misses per nanosecond of task time stand in for misses per
/// instruction (one instruction per nanosecond assumed; the threshold applies as is).
/// A task with neither instructions nor time is CPU-bound unless it missed.
pub fn is_cpu_bound(misses: u64, instructions: u64, nanos: u64, threshold: f64) -> bool {
    let work = if instructions > 0 {
        instructions
    } else {
        nanos
    };
    if work == 0 {
        return misses == 0;
    }
    (misses as f64) / (work as f64) < threshold
}

/// One profiled task.
#[derive(Debug, Clone, Default)]
pub(crate) struct Entry {
    pub(crate) parent: Option<TaskId>,
    pub(crate) level: u32,
    pub(crate) own: TaskCost,
    pub(crate) children: u32,
    /// The forks (joins, scopes) the children came from, each counted once.
    pub(crate) forks: u32,
    /// SOIDs of the children that have completed.
    pub(crate) children_soid: u64,
    /// Set when the task has completed.
    pub(crate) soid: Option<u64>,
    /// The squad whose worker ran the task (the latest, for a position run again).
    pub(crate) ran_on: Option<SquadId>,
}

/// The profile of one iteration, being recorded.
#[derive(Debug, Default)]
pub(crate) struct OnlineProfile {
    inner: Mutex<Table>,
}

/// The profiled tasks, and how many of them have not completed.
#[derive(Debug, Default)]
struct Table {
    entries: IdMap<Entry>,
    incomplete: usize,
    /// Completions recorded, and the bytes their tasks touched (for
    /// [`OnlineProfile::finished`]'s answer).
    completions: u64,
    bytes: u64,
    /// Per task that spawned, the fork of its latest spawn, and whether that fork
    /// repeats the one the task made before it (see [`OnlineProfile::spawned`]).
    forks: IdMap<(Option<Option<Fork>>, bool)>,
    /// Spawns of a position already in the profile that did not begin an iteration
    /// (see [`OnlineProfile::spawned`]).
    revisits: usize,
}

impl Table {
    /// The entry of `id`, made (at `level`) if new.
    fn entry(&mut self, id: TaskId, level: u32) -> &mut Entry {
        let incomplete = &mut self.incomplete;
        self.entries.entry(id).or_insert_with(|| {
            *incomplete += 1;
            Entry {
                level,
                ..Entry::default()
            }
        })
    }

    /// A spawn at a position the profile holds, not an iteration's start: still the
    /// first iteration, until [`PROFILE_BUDGET`] such spawns. A program that runs the
    /// same tree again and again from outside its pool (each `install` a new root, as a
    /// benchmark's repetitions are) repeats its ids without ever being between two
    /// iterations of a loop inside it; it would be profiled for good, at a lock per
    /// spawn and per completion (`locus bench mergesort --policy ws,cats --machine 2x1
    /// --threads 2`, 6,131 tasks a repetition: 1.13x `ws`'s time, 1.04x with the budget).
    fn revisit(&mut self) -> Spawned {
        self.revisits += 1;
        if self.revisits >= PROFILE_BUDGET {
            Spawned::OverBudget
        } else {
            Spawned::New
        }
    }

    /// Whether `spawner` is a root that ran to completion: spawning again, it runs the
    /// whole profiled tree again from outside the pool (a benchmark's next repetition,
    /// each `install` a new root with the same id). The profile has then seen all of
    /// that tree and no iteration inside it; recording the same positions again would
    /// only add to their costs, at a lock per spawn and per completion, until
    /// [`PROFILE_BUDGET`] revisits (`locus bench nqueens --policy ws,cats --machine 2x1
    /// --threads 2`: 1.12-1.21x `ws`'s time over 21 repetitions, about 6,000 tasks each,
    /// profiled for all of them).
    fn reruns(&self, spawner: TaskId) -> bool {
        self.entries
            .get(&spawner)
            .is_some_and(|e| e.parent.is_none() && e.soid.is_some())
    }

    /// Whether every task that has not completed is `id` or one of its ancestors: the
    /// program is between two iterations of the loop that runs in `id` (or its parent).
    fn quiescent_below(&self, id: TaskId) -> bool {
        let mut open_ancestors = 0;
        let mut at = Some(id);
        // Ids are hashes: a loop of parent links is cut after as many steps as tasks.
        for _ in 0..=self.entries.len() {
            let Some(e) = at.and_then(|a| self.entries.get(&a)) else {
                break;
            };
            open_ancestors += usize::from(e.soid.is_none());
            at = e.parent;
        }
        open_ancestors == self.incomplete
    }
}

/// The most tasks a first iteration may have for the profile to record it. Recording
/// takes a lock per spawn and per completion (and the engine reads counters around every
/// task), so a program that does not iterate, or whose iteration is very fine-grained,
/// would pay that on every task for good (`fib 30` on a virtual opteron-8380: 53x
/// `ws`'s time under `cats` before this bound). Past the budget the profile gives up and
/// the policy runs as `ws`. A guess, with room: the iterative kernels here have up to
/// 4,096 tasks per iteration (`spmv-crs laplace2d:1024,grain=256`).
pub(crate) const PROFILE_BUDGET: usize = 1 << 15;

/// The completions after which the profile looks whether its tasks touch memory at all.
/// Where the first [`FIRST_LOOK`] touched under a cache line each on average (fib,
/// nqueens, knapsack: they declare work and no bytes, and miss about never), there is
/// no data for a partition to keep: a placement saves at most the misses of the tasks
/// it places, under one each here (about 100 ns apiece between a remote and a local
/// cache on the papers' machines), while recording a task costs about 1,700
/// instructions and 1 us of wall time with two workers taking the profile's lock
/// (`locus bench fib --size 30 --policy ws,cats --machine 2x1 --threads 2 --reps 1
/// --warmup 0`: 32,768 profiled tasks took 36 ms over ws's 8; callgrind over `--size
/// 20` and `25`). The profile then gives up and the policy runs as ws. The bound is what
/// a first run may lose before the look, about 0.3 ms once: under 4% of fib 30's 8 ms;
/// and where tasks are coarse, what the kernels' own declarations cost while a profile
/// listens (nqueens 12, 1,511 tasks: 5.5% more instructions than ws with the look at
/// 1,024 tasks). 256 completions of a tree's first leaves and their parents are enough
/// to tell a line a task from none. A program whose first iteration is shorter repeats
/// before the look, and pays the profile of one iteration once, as before.
pub const FIRST_LOOK: u64 = 256;

/// A cache line: tasks that touch less than this on average are taken not to touch
/// memory (fib, nqueens), whatever their number.
pub(crate) const LINE_BYTES: u64 = 64;

/// What a spawn tells the profile.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Spawned {
    /// A task not seen completing before, or one spawned again at the same place while
    /// others of this iteration still run: still the first iteration.
    New,
    /// A task that completed before, spawned when nothing else of the iteration runs:
    /// the second iteration has begun.
    Repeat,
    /// A new task past [`PROFILE_BUDGET`], the [`PROFILE_BUDGET`]th spawn at a
    /// position already profiled that began no iteration, or a completed root spawning
    /// its tree again (see `Table::reruns`): the profile gives up, not recorded.
    OverBudget,
}

impl OnlineProfile {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `parent` spawned `task`. Idempotent: an engine may report one spawn twice (a
    /// parent-first `join` asks about its first half, then places it).
    ///
    /// Task ids number a task's children per fork: a join's halves by the join's call
    /// site, a scope's spawns from the start of the scope ([`locus_task::Spawner`]). So
    /// the same code run again spawns the same ids, and a task that joins at two sites
    /// (mergesort sorts its halves, then merges them) spawns other ids at the second.
    /// A repeat starts the second iteration only where the program is quiet (every task
    /// that has not completed is an ancestor of the spawner, as between two sweeps of an
    /// iterative program's loop) and the spawner forks again as it just did, the same
    /// join site or a scope after a scope: `fft` combines its halves with the join site
    /// that split its points before transforming them, which is not an iteration (the
    /// transform's own join came between), and a program whose iteration is several
    /// forks in turn is never taken for iterative, so it runs as the profile ran. Any
    /// other repeat is the same position of the tree used once more, and its cost adds
    /// to the position's.
    pub(crate) fn spawned(&self, parent: &TaskInfo, task: &TaskInfo) -> Spawned {
        let mut table = self.table();
        let fork = task.id.fork_in(parent.id);
        // Whether this spawn repeats the spawner's previous fork. The first half of a
        // join decides for its join (the second half follows it); a scope's spawns
        // (a loop's chunks, in whatever order the loop deals them) each on its own.
        let (last, repeating) = table
            .forks
            .get(&parent.id)
            .copied()
            .unwrap_or((None, false));
        let repeating = match (fork, task.id.index_in(parent.id)) {
            (Some(Fork::Join(_)), Some(0)) | (Some(Fork::Scope), _) => last == Some(fork),
            _ => repeating && last == Some(fork),
        };
        let starts = matches!(
            (fork, task.id.index_in(parent.id)),
            (Some(Fork::Join(_)), Some(0)) | (Some(Fork::Scope), Some(FIRST_SCOPE_SPAWN))
        );
        table.forks.insert(parent.id, (Some(fork), repeating));
        match table.entries.get(&task.id) {
            Some(e) if e.soid.is_some() => {
                // A spawner that completed before runs again at a reused position (the
                // combine of `fft` reuses its split's tasks): not the program's loop.
                let looping = table
                    .entries
                    .get(&parent.id)
                    .is_none_or(|p| p.soid.is_none());
                if repeating && looping && table.quiescent_below(parent.id) {
                    return Spawned::Repeat;
                }
                if table.reruns(parent.id) {
                    return Spawned::OverBudget;
                }
                return table.revisit();
            }
            Some(e) if e.parent.is_some() => return table.revisit(),
            None if table.entries.len() >= PROFILE_BUDGET => return Spawned::OverBudget,
            _ => {}
        }
        let entry = table.entry(task.id, task.level);
        entry.parent = Some(parent.id);
        entry.level = task.level;
        let spawner = table.entry(parent.id, parent.level);
        spawner.children += 1;
        if starts || last != Some(fork) {
            spawner.forks += 1;
        }
        Spawned::New
    }

    /// `task` completed on a worker of `squad` having cost `cost` itself; its SOID goes
    /// to its parent. A task at a position that completed before (see
    /// [`OnlineProfile::spawned`]) adds to it.
    ///
    /// Returns what the tasks completed so far touched: whether [`LINE_BYTES`] or more
    /// per task on average, and how many bytes together.
    pub(crate) fn finished(&self, task: &TaskInfo, cost: &TaskCost, squad: SquadId) -> Touched {
        let mut table = self.table();
        table.completions += 1;
        table.bytes = table.bytes.saturating_add(cost.bytes);
        let memory = table.bytes / table.completions >= LINE_BYTES;
        let touched = Touched {
            memory,
            bytes: table.bytes,
            no_data: table.completions == FIRST_LOOK && !memory,
        };
        let entry = table.entry(task.id, task.level);
        entry.ran_on = Some(squad);
        let before = entry.soid;
        entry.own = TaskCost {
            misses: entry.own.misses.saturating_add(cost.misses),
            bytes: entry.own.bytes.saturating_add(cost.bytes),
            instructions: entry.own.instructions.saturating_add(cost.instructions),
            nanos: entry.own.nanos.saturating_add(cost.nanos),
        };
        let total = soid(entry.own.bytes, &[entry.children_soid]);
        entry.soid = Some(total);
        let parent = entry.parent;
        if before.is_none() {
            table.incomplete -= 1;
        }
        let added = total.saturating_sub(before.unwrap_or(0));
        if let Some(parent) = parent {
            let p = table.entry(parent, task.level.saturating_sub(1));
            p.children_soid = p.children_soid.saturating_add(added);
        }
        touched
    }

    /// Every entry, completed or not (the loop's own task of an iterative program spawns
    /// the iteration but does not complete within it), for partitioning.
    pub(crate) fn snapshot(&self) -> HashMap<TaskId, Entry> {
        let table = self.table();
        let mut out = HashMap::with_capacity(table.entries.len());
        out.extend(table.entries.iter().map(|(id, e)| (*id, e.clone())));
        out
    }
}

/// What the profiled tasks completed so far touched ([`OnlineProfile::finished`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Touched {
    /// [`LINE_BYTES`] or more per task on average.
    pub(crate) memory: bool,
    /// Their bytes together (each task's own, so data two tasks share counts twice).
    pub(crate) bytes: u64,
    /// This completion is the [`FIRST_LOOK`]th, and the tasks so far touched under
    /// [`LINE_BYTES`] each on average: the profile should give up (said once).
    pub(crate) no_data: bool,
}

/// What the first iteration showed, and the tiers that follow from it.
#[derive(Debug, Clone)]
pub(crate) struct LearnedTiers {
    pub(crate) tiers: IdMap<Tier>,
    pub(crate) cpu_bound: bool,
    pub(crate) tasks: usize,
    /// Mean children per task that spawned any (CAB's B, learned).
    pub(crate) branching: f64,
    /// SOIDs of the top-level tasks summed (CAB's S_d, learned).
    pub(crate) data_bytes: u64,
    /// Leaf inter-squad tasks found, by level.
    pub(crate) leaves_by_level: std::collections::BTreeMap<u32, u64>,
    pub(crate) report: String,
}

/// The tasks of `entries` that `is_leaf` selects, in depth-first order with siblings in
/// spawn order: the order of their data in a divide-and-conquer program. The walk starts
/// from the tasks whose parent is unknown (the loop's own task) and does not descend
/// below a selected task.
pub(crate) fn leaf_order(
    entries: &HashMap<TaskId, Entry>,
    is_leaf: impl Fn(&TaskId, &Entry) -> bool,
) -> Vec<TaskId> {
    let mut children = children(entries);
    let mut tops: Vec<TaskId> = entries
        .iter()
        .filter(|(_, e)| e.parent.is_none_or(|p| !entries.contains_key(&p)))
        .map(|(id, _)| *id)
        .collect();
    let order = |parent: Option<TaskId>, id: &TaskId| {
        let index = parent.and_then(|p| id.index_in(p)).unwrap_or(u32::MAX);
        (index, *id)
    };
    for (parent, list) in &mut children {
        list.sort_by_key(|id| order(Some(*parent), id));
    }
    tops.sort_by_key(|id| (entries[id].level, *id));
    let mut out = Vec::new();
    let mut stack: Vec<TaskId> = tops.into_iter().rev().collect();
    while let Some(id) = stack.pop() {
        if is_leaf(&id, &entries[&id]) {
            out.push(id);
        } else if let Some(list) = children.get(&id) {
            stack.extend(list.iter().rev());
        }
    }
    out
}

/// The width of each task of `entries` that `is_leaf` selects: the number of tasks
/// without children in its subtree, the most of it that can run at once. Computed
/// bottom-up over the whole profile, once.
pub(crate) fn widths(
    entries: &HashMap<TaskId, Entry>,
    is_leaf: impl Fn(&TaskId, &Entry) -> bool,
) -> HashMap<TaskId, u32> {
    let children = children(entries);
    let mut width: HashMap<TaskId, u32> = HashMap::with_capacity(entries.len());
    // Ids are hashes: a parent link that loops back (two ids colliding) is cut where it
    // closes, so the walk ends.
    let mut expanding: std::collections::HashSet<TaskId> = Default::default();
    // Post-order without recursion: a task's width once all its children have theirs.
    let mut stack: Vec<(TaskId, bool)> = entries
        .iter()
        .filter(|(id, _)| is_leaf(id, &entries[*id]))
        .map(|(id, _)| (*id, false))
        .collect();
    while let Some((id, expanded)) = stack.pop() {
        if width.contains_key(&id) {
            continue;
        }
        let kids = children.get(&id).map_or(&[][..], Vec::as_slice);
        if kids.is_empty() {
            width.insert(id, 1);
        } else if expanded {
            let w = kids
                .iter()
                .map(|k| width.get(k).copied().unwrap_or(1))
                .fold(0u32, u32::saturating_add);
            width.insert(id, w);
        } else if expanding.insert(id) {
            stack.push((id, true));
            stack.extend(kids.iter().map(|k| (*k, false)));
        } else {
            // Met again below itself: the loop of parent links ends here.
            width.insert(id, 1);
        }
    }
    width.retain(|id, _| entries.get(id).is_some_and(|e| is_leaf(id, e)));
    width
}

impl LearnedTiers {
    /// Splits leaf inter-squad tasks, the largest first, until there are at least
    /// `per_squad` of them for each of `squads` squads, or none can be split: Fig. 6
    /// alone gives a program whose data is twice one squad's cache two subtrees, and
    /// leaves half of four squads idle (and see [`LEAVES_PER_SQUAD`] for more than one
    /// each). Returns how many were split.
    ///
    /// [`LEAVES_PER_SQUAD`]: crate::policies::bitier::LEAVES_PER_SQUAD
    pub(crate) fn feed(
        &mut self,
        entries: &HashMap<TaskId, Entry>,
        squads: usize,
        per_squad: usize,
    ) -> usize {
        let wanted = squads.saturating_mul(per_squad);
        let children = children(entries);
        let mut split = 0;
        loop {
            let leaves: Vec<TaskId> = self
                .tiers
                .iter()
                .filter(|(_, t)| **t == Tier::LeafInter)
                .map(|(id, _)| *id)
                .collect();
            if leaves.len() >= wanted {
                break;
            }
            let largest = leaves
                .iter()
                .filter(|id| children.get(id).is_some_and(|c| !c.is_empty()))
                .max_by_key(|id| (entries[*id].soid.unwrap_or(0), **id));
            let Some(&largest) = largest else { break };
            self.tiers.insert(largest, Tier::Inter);
            for c in &children[&largest] {
                self.tiers.insert(*c, Tier::LeafInter);
            }
            split += 1;
        }
        if split > 0 {
            self.leaves_by_level = leaves_by_level(entries, &self.tiers);
            use std::fmt::Write as _;
            let _ = writeln!(
                self.report,
                "split {split} leaf inter-squad task(s), the largest first, to give each of {squads} squads {per_squad}: now {}",
                self.leaves_by_level
                    .iter()
                    .map(|(level, n)| format!("{n} at level {level}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        split
    }

    /// Partitions the completed `entries` for squads sharing `shared_cache` bytes.
    pub(crate) fn new(
        entries: &HashMap<TaskId, Entry>,
        shared_cache: u64,
        threshold: f64,
    ) -> LearnedTiers {
        let soid_of = |id: &TaskId| entries.get(id).and_then(|e| e.soid);
        let tiers: IdMap<Tier> = entries
            .iter()
            .filter_map(|(id, e)| {
                let parent_soid = e.parent.and_then(|p| soid_of(&p));
                Some((*id, classify(e.soid?, parent_soid, shared_cache)))
            })
            .collect();
        let (misses, instructions, nanos) =
            entries.values().fold((0u64, 0u64, 0u64), |(m, i, n), e| {
                (
                    m.saturating_add(e.own.misses),
                    i.saturating_add(e.own.instructions),
                    n.saturating_add(e.own.nanos),
                )
            });
        let work = if instructions > 0 {
            instructions
        } else {
            nanos
        };
        let cmpi = if work == 0 {
            0.0
        } else {
            misses as f64 / work as f64
        };
        let cpu_bound = is_cpu_bound(misses, instructions, nanos, threshold);
        // Children per fork: a task that joins at two sites forks twice in two.
        let (children, forks) = entries
            .values()
            .filter(|e| e.children > 0)
            .fold((0u64, 0u64), |(c, f), e| {
                (c + u64::from(e.children), f + u64::from(e.forks.max(1)))
            });
        let branching = if forks == 0 {
            0.0
        } else {
            children as f64 / forks as f64
        };
        // The top of the profiled tree: the shallowest level with completed tasks whose
        // parents did not complete within the iteration (the loop's own task), or none.
        let top = entries
            .values()
            .filter(|e| e.parent.is_some_and(|p| soid_of(&p).is_none()))
            .map(|e| e.level)
            .min();
        // Per fork of the tasks at the top, the data of its children; the input is the
        // largest (two forks of one task, as a sort and then a merge, go over the same
        // data, which summing would count twice).
        let mut per_fork: HashMap<(TaskId, Option<Fork>), u64> = HashMap::new();
        for (id, e) in entries {
            let Some(parent) = e.parent else { continue };
            if Some(e.level) != top || soid_of(&parent).is_some() {
                continue;
            }
            let sum = per_fork.entry((parent, id.fork_in(parent))).or_default();
            *sum = sum.saturating_add(e.soid.unwrap_or(0));
        }
        let data_bytes = per_fork.values().copied().max().unwrap_or(0);
        let report =
            LearnedTiers::describe(entries, &tiers, shared_cache, cmpi, cpu_bound, threshold);
        let leaves_by_level = leaves_by_level(entries, &tiers);
        LearnedTiers {
            tiers,
            cpu_bound,
            tasks: entries.values().filter(|e| e.soid.is_some()).count(),
            branching,
            data_bytes,
            leaves_by_level,
            report,
        }
    }

    fn describe(
        entries: &HashMap<TaskId, Entry>,
        tiers: &IdMap<Tier>,
        shared_cache: u64,
        cmpi: f64,
        cpu_bound: bool,
        threshold: f64,
    ) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "profiled tasks: {}; shared cache per squad: {shared_cache} bytes",
            entries.values().filter(|e| e.soid.is_some()).count()
        );
        let _ =
            writeln!(
            out,
            "cache misses per instruction (program): {cmpi:.5} against threshold {threshold}: {}",
            if cpu_bound { "CPU-bound, runs as ws" } else { "memory-bound" }
        );
        let mut by_level: std::collections::BTreeMap<u32, Vec<(TaskId, u64)>> = Default::default();
        for (id, e) in entries {
            if let Some(s) = e.soid {
                by_level.entry(e.level).or_default().push((*id, s));
            }
        }
        for (level, tasks) in by_level.iter_mut().take(5) {
            tasks.sort_by_key(|(id, _)| *id);
            let shown: Vec<String> = tasks
                .iter()
                .take(8)
                .map(|(id, s)| format!("{id}:{s}"))
                .collect();
            let more = if tasks.len() > 8 {
                format!(" (+{} more)", tasks.len() - 8)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  level {level}: {} tasks, SOID bytes {}{more}",
                tasks.len(),
                shown.join(" ")
            );
        }
        let mut leaves: std::collections::BTreeMap<u32, (usize, u64)> = Default::default();
        for (id, tier) in tiers {
            if *tier == Tier::LeafInter {
                if let Some(e) = entries.get(id) {
                    let slot = leaves.entry(e.level).or_default();
                    slot.0 += 1;
                    slot.1 = slot.1.max(e.soid.unwrap_or(0));
                }
            }
        }
        if leaves.is_empty() {
            let _ = writeln!(out, "leaf inter-squad tasks: none");
        }
        for (level, (n, max)) in leaves {
            let _ = writeln!(
                out,
                "leaf inter-squad tasks: {n} at level {level} (largest SOID {max} bytes)"
            );
        }
        out
    }
}

/// Per task of `leaves`, the bytes its subtree's tasks touched in the profiled
/// iteration, by the group of the squad that ran each (`group_of[squad]`, below
/// `groups`): `out[i][g]`. Tasks whose squad is unknown count nowhere.
pub(crate) fn bytes_by_group(
    entries: &HashMap<TaskId, Entry>,
    leaves: &[TaskId],
    group_of: &[usize],
    groups: usize,
) -> Vec<Vec<u64>> {
    let children = children(entries);
    let mut stack = Vec::new();
    leaves
        .iter()
        .map(|leaf| {
            let mut bytes = vec![0u64; groups];
            stack.clear();
            stack.push(*leaf);
            // Ids are hashes: a parent link that loops back is cut after as many
            // steps as there are tasks.
            let mut steps = 0;
            while let Some(id) = stack.pop() {
                steps += 1;
                if steps > entries.len() {
                    break;
                }
                let Some(e) = entries.get(&id) else { continue };
                if let Some(g) = e.ran_on.and_then(|s| group_of.get(s)) {
                    bytes[*g] = bytes[*g].saturating_add(e.own.bytes);
                }
                if let Some(list) = children.get(&id) {
                    stack.extend(list);
                }
            }
            bytes
        })
        .collect()
}

/// The children of each task of `entries` that has any, in no particular order.
fn children(entries: &HashMap<TaskId, Entry>) -> HashMap<TaskId, Vec<TaskId>> {
    let mut children: HashMap<TaskId, Vec<TaskId>> = HashMap::new();
    for (id, e) in entries {
        if let Some(p) = e.parent {
            children.entry(p).or_default().push(*id);
        }
    }
    children
}

/// The profiled work of the subtree under each of `leaves` (the leaf and every task
/// below it): their own instructions where the counters counted any in the profile,
/// else their own nanoseconds.
pub(crate) fn subtree_work(entries: &HashMap<TaskId, Entry>, leaves: &[TaskId]) -> Vec<u64> {
    let by_instructions = entries.values().any(|e| e.own.instructions > 0);
    let own = |e: &Entry| {
        if by_instructions {
            e.own.instructions
        } else {
            e.own.nanos
        }
    };
    let children = children(entries);
    let mut seen = std::collections::HashSet::new();
    leaves
        .iter()
        .map(|leaf| {
            // Ids are hashes: a task met twice (a parent link that loops) counts once.
            seen.clear();
            let mut sum = 0u64;
            let mut stack = vec![*leaf];
            while let Some(id) = stack.pop() {
                if !seen.insert(id) {
                    continue;
                }
                if let Some(e) = entries.get(&id) {
                    sum = sum.saturating_add(own(e));
                }
                if let Some(kids) = children.get(&id) {
                    stack.extend(kids.iter().copied());
                }
            }
            sum
        })
        .collect()
}

/// How uneven the squads' shares of work are when leaves of `work` (in their order)
/// are dealt contiguously to `squads` squads ([`contiguous_squad`]): the largest share
/// over the mean share; 1 with no work or one squad.
///
/// [`contiguous_squad`]: crate::policies::iteration::contiguous_squad
pub(crate) fn share_imbalance(work: &[u64], squads: usize) -> f64 {
    use crate::policies::iteration::contiguous_squad;
    if squads <= 1 || work.is_empty() {
        return 1.0;
    }
    let mut shares = vec![0u64; squads];
    for (i, w) in work.iter().enumerate() {
        let s = contiguous_squad(i, work.len(), squads);
        shares[s] = shares[s].saturating_add(*w);
    }
    let total: u64 = shares.iter().fold(0u64, |a, b| a.saturating_add(*b));
    if total == 0 {
        return 1.0;
    }
    let max = shares.iter().copied().max().unwrap_or(0);
    max as f64 * squads as f64 / total as f64
}

/// Leaf inter-squad tasks of `tiers`, counted by level.
fn leaves_by_level(
    entries: &HashMap<TaskId, Entry>,
    tiers: &IdMap<Tier>,
) -> std::collections::BTreeMap<u32, u64> {
    tiers
        .iter()
        .filter(|(_, t)| **t == Tier::LeafInter)
        .filter_map(|(id, _)| entries.get(id).map(|e| e.level))
        .fold(std::collections::BTreeMap::new(), |mut m, level| {
            *m.entry(level).or_insert(0) += 1;
            m
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::join_halves as halves;
    use crate::policies::task_at as info;

    #[test]
    fn eq1_sums_a_hand_built_tree() {
        // CATS Fig. 5 shape: γ1 has children γ2, γ3; γ2 has leaves γ4, γ5.
        let (s4, s5, s3) = (100, 120, 200);
        let s2 = soid(4, &[s4, s5]);
        let s1 = soid(2, &[s2, s3]);
        assert_eq!(s2, 224);
        assert_eq!(s1, 426);
    }

    #[test]
    fn fig6_three_cases() {
        let cache = 6 << 20;
        assert_eq!(
            classify(8 << 20, Some(16 << 20), cache),
            Tier::Inter,
            "(a) both larger"
        );
        assert_eq!(
            classify(4 << 20, Some(8 << 20), cache),
            Tier::LeafInter,
            "(b) fits, parent does not"
        );
        assert_eq!(
            classify(2 << 20, Some(4 << 20), cache),
            Tier::Intra,
            "(c) both fit"
        );
        assert_eq!(
            classify(1 << 20, None, cache),
            Tier::LeafInter,
            "a root that fits"
        );
        assert_eq!(
            classify(cache, Some(2 * cache), cache),
            Tier::Inter,
            "equal to the cache does not fit"
        );
    }

    #[test]
    fn cmpi_both_ways() {
        assert!(
            is_cpu_bound(10, 1_000_000, 0, 0.001),
            "10 misses in a million instructions"
        );
        assert!(
            !is_cpu_bound(5_000, 100_000, 0, 0.001),
            "one miss per 20 instructions"
        );
        assert!(
            !is_cpu_bound(300, 0, 1_000, 0.001),
            "declared: 0.3 lines per ns"
        );
        assert!(is_cpu_bound(0, 0, 1_000, 0.001), "declared nothing");
        assert!(is_cpu_bound(0, 0, 0, 0.001));
        assert!(!is_cpu_bound(1, 0, 0, 0.001));
    }

    /// The halves of a join `parent` makes at the caller's line.
    #[track_caller]
    fn join(parent: &TaskInfo) -> (TaskInfo, TaskInfo) {
        let site = locus_task::JoinSite::of(std::panic::Location::caller());
        locus_task::Spawner::of(*parent).join_children(site)
    }

    fn cost(bytes: u64) -> TaskCost {
        TaskCost {
            bytes,
            misses: bytes / 64,
            ..TaskCost::default()
        }
    }

    #[test]
    fn a_first_iteration_past_the_budget_is_not_recorded() {
        let p = OnlineProfile::default();
        let root = info(1, 0);
        // A chain of joins: each first half spawns the next pair (two entries per join,
        // the spawner's counted with its first spawn).
        let mut parent = root;
        let mut spawned = 0;
        'chain: loop {
            let (a, b) = halves(&parent);
            for task in [a, b] {
                match p.spawned(&parent, &task) {
                    Spawned::OverBudget => break 'chain,
                    answer => assert_eq!(answer, Spawned::New),
                }
                spawned += 1;
                assert!(spawned <= PROFILE_BUDGET, "the budget must stop it");
            }
            parent = a;
        }
        assert_eq!(p.snapshot().len(), PROFILE_BUDGET);
        assert_eq!(spawned, PROFILE_BUDGET - 1, "the root's entry counts too");
        // A task already recorded is still known.
        let (a, _) = halves(&root);
        assert_eq!(p.spawned(&root, &a), Spawned::New);
    }

    /// A tree run again and again from outside, a new root each time that completes
    /// before the next (repeated `install`s of one program), is never between two
    /// iterations of a loop inside it: the profile gives up after the budget's worth of
    /// such spawns instead of recording for good.
    #[test]
    fn a_tree_run_again_from_outside_ends_the_profile() {
        let p = OnlineProfile::default();
        let root = info(1, 0);
        let (a, b) = halves(&root);
        for task in [a, b] {
            assert_eq!(p.spawned(&root, &task), Spawned::New);
        }
        for task in [a, b, root] {
            p.finished(&task, &cost(64), 0);
        }
        assert_eq!(
            p.spawned(&root, &a),
            Spawned::OverBudget,
            "the completed root runs its tree again"
        );
    }

    /// Revisits that begin no iteration (a task goes over its children again while a
    /// sibling still runs) end the profile at the budget.
    #[test]
    fn revisits_end_the_profile_at_the_budget() {
        let p = OnlineProfile::default();
        let root = info(1, 0);
        let (task, other) = halves(&root);
        let (a, b) = halves(&task);
        p.spawned(&root, &task);
        p.spawned(&root, &other);
        let mut revisits = 0;
        for round in 0.. {
            for t in [a, b] {
                match p.spawned(&task, &t) {
                    Spawned::OverBudget => {
                        assert_eq!(revisits, PROFILE_BUDGET - 1);
                        return;
                    }
                    answer => assert_eq!(answer, Spawned::New, "round {round}"),
                }
                if round > 0 {
                    revisits += 1;
                }
            }
            for t in [a, b] {
                p.finished(&t, &cost(64), 0);
            }
        }
    }

    #[test]
    fn bytes_are_counted_by_the_group_of_the_squad_that_ran_each_task() {
        // root -> (a, b); a -> (a1, a2). Squads 0 and 1 form group 0, squad 2 group 1.
        let p = OnlineProfile::default();
        let root = info(1, 0);
        let (a, b) = halves(&root);
        let (a1, a2) = join(&a);
        for (parent, task) in [(&root, &a), (&root, &b), (&a, &a1), (&a, &a2)] {
            p.spawned(parent, task);
        }
        p.finished(&a1, &cost(100), 2);
        p.finished(&a2, &cost(30), 1);
        p.finished(&a, &cost(5), 0);
        p.finished(&b, &cost(7), 2);
        let entries = p.snapshot();
        let group_of = [0, 0, 1];
        assert_eq!(
            bytes_by_group(&entries, &[a.id, b.id], &group_of, 2),
            [vec![35, 100], vec![0, 7]]
        );
        assert_eq!(
            bytes_by_group(&entries, &[root.id], &group_of, 2),
            [vec![35, 107]],
            "the root never completed: it counts nowhere, its subtree does"
        );
        assert_eq!(
            bytes_by_group(&entries, &[a.id], &[0, 0], 2),
            [vec![35, 0]],
            "a squad outside the map counts nowhere"
        );
    }

    #[test]
    fn the_profile_passes_soids_up_and_sees_the_second_iteration() {
        let p = OnlineProfile::default();
        let root = info(1, 0);
        let (a, b) = halves(&root);
        assert_eq!(p.spawned(&root, &a), Spawned::New);
        assert_eq!(
            p.spawned(&root, &a),
            Spawned::New,
            "one spawn reported twice"
        );
        assert_eq!(p.spawned(&root, &b), Spawned::New);
        p.finished(&a, &cost(4 << 20), 0);
        p.finished(&b, &cost(4 << 20), 0);
        assert_eq!(
            p.spawned(&root, &a),
            Spawned::Repeat,
            "the second iteration"
        );
        let part = LearnedTiers::new(&p.snapshot(), 6 << 20, 0.001);
        assert_eq!(
            part.tiers[&a.id],
            Tier::LeafInter,
            "the loop's task never completed: a's parent is unknown"
        );
        assert_eq!(part.data_bytes, 8 << 20, "S_d: the iteration's top tasks");
        assert_eq!(part.branching, 2.0);
    }

    #[test]
    fn a_second_join_in_a_running_task_is_not_a_second_iteration() {
        let p = OnlineProfile::default();
        // root -> task (running) -> sorts its halves a, b, then goes over them again
        // with the same ids while `other`, a sibling of `task`, still runs.
        let root = info(1, 0);
        let (task, other) = halves(&root);
        let (a, b) = halves(&task);
        p.spawned(&root, &task);
        p.spawned(&root, &other);
        p.spawned(&task, &a);
        p.spawned(&task, &b);
        p.finished(&a, &cost(100), 0);
        p.finished(&b, &cost(100), 0);
        assert_eq!(p.spawned(&task, &a), Spawned::New, "`other` still runs");
        p.finished(&a, &cost(50), 0);
        let entries = p.snapshot();
        assert_eq!(
            entries[&a.id].own.bytes, 150,
            "the second pass's cost adds to the position"
        );
        assert_eq!(entries[&task.id].children_soid, 250);
        p.finished(&b, &cost(0), 0);
        p.finished(&task, &cost(0), 0);
        p.finished(&other, &cost(0), 0);
        assert_eq!(
            p.spawned(&root, &task),
            Spawned::Repeat,
            "all quiet: the next sweep"
        );
    }

    #[test]
    fn only_the_same_fork_again_by_the_loops_task_is_an_iteration() {
        let cost = |bytes| TaskCost {
            bytes,
            ..TaskCost::default()
        };
        // fft's root: split its points (site P), transform the halves (site T), combine
        // (site P again, the same ids) when all else is done: not an iteration.
        let p = OnlineProfile::default();
        let root = info(1, 0);
        let (split_a, split_b) = halves(&root);
        let (t_a, t_b) = join(&root);
        assert_ne!(split_a.id, t_a.id, "another site, other ids");
        for task in [split_a, split_b, t_a, t_b] {
            assert_eq!(p.spawned(&root, &task), Spawned::New);
            p.finished(&task, &cost(1 << 20), 0);
        }
        assert_eq!(p.spawned(&root, &split_a), Spawned::New, "T came between");
        assert_eq!(p.spawned(&root, &split_b), Spawned::New);
        // Below it, a task at a reused position (it completed, and runs again) that
        // joins again as it did: the position reused, not the loop.
        let (x, y) = halves(&split_a);
        for task in [x, y] {
            p.spawned(&split_a, &task);
            p.finished(&task, &cost(1), 0);
        }
        p.finished(&split_b, &cost(0), 0);
        assert_eq!(
            p.spawned(&split_a, &x),
            Spawned::New,
            "split_a completed before"
        );
        // Children per fork: two joins of two in the root make B = 2, not 4; S_d is
        // the larger fork's data, not both forks' summed.
        let part = LearnedTiers::new(&p.snapshot(), 6 << 20, 0.001);
        assert_eq!(part.branching, 2.0);
        assert_eq!(part.data_bytes, 2 << 20);
    }

    #[test]
    fn a_leaf_is_as_wide_as_its_subtree_has_leaves() {
        let (entries, levels) = binary_tree(4, 1 << 20);
        let w = widths(&entries, |_, e| e.level == 2);
        assert_eq!(w.len(), 4);
        assert!(levels[2].iter().all(|t| w[&t.id] == 4), "{w:?}");
        let w = widths(&entries, |_, e| e.level == 4);
        assert!(levels[4].iter().all(|t| w[&t.id] == 1));
        // A parent link that loops (colliding ids) still ends.
        let mut looped = entries.clone();
        let top = levels[1][0].id;
        looped.get_mut(&top).unwrap().parent = Some(levels[3][0].id);
        let w = widths(&looped, |_, e| e.level == 2);
        assert_eq!(w.len(), 4);
    }

    /// A complete binary tree of `depth` below a loop task, each leaf task costing
    /// `leaf_bytes`, profiled; returns the profile's entries and the ids by level.
    #[test]
    fn uneven_shares_show_in_the_profiled_work() {
        let (mut entries, levels) = binary_tree(3, 1 << 20);
        // Every leaf 10 instructions, the first two 80: a hot band at the start.
        for (i, t) in levels[3].iter().enumerate() {
            entries.get_mut(&t.id).unwrap().own.instructions = if i < 2 { 80 } else { 10 };
        }
        let quarters: Vec<TaskId> = levels[2].iter().map(|t| t.id).collect();
        let work = subtree_work(&entries, &quarters);
        assert_eq!(work, [160, 20, 20, 20]);
        assert!((share_imbalance(&work, 4) - 160.0 * 4.0 / 220.0).abs() < 1e-9);
        assert!((share_imbalance(&work, 2) - 180.0 * 2.0 / 220.0).abs() < 1e-9);
        assert_eq!(share_imbalance(&work, 1), 1.0);
        assert_eq!(share_imbalance(&[5, 5, 5, 5], 2), 1.0);
        assert_eq!(share_imbalance(&[0, 0], 2), 1.0, "no work counted: even");
        assert_eq!(share_imbalance(&[], 4), 1.0);
        // Without instructions in the profile, nanoseconds.
        for t in &levels[3] {
            let e = entries.get_mut(&t.id).unwrap();
            e.own.instructions = 0;
            e.own.nanos = 3;
        }
        assert_eq!(subtree_work(&entries, &quarters), [6, 6, 6, 6]);
        assert_eq!(subtree_work(&entries, &[levels[0][0].id]), [24]);
    }

    fn binary_tree(depth: u32, leaf_bytes: u64) -> (HashMap<TaskId, Entry>, Vec<Vec<TaskInfo>>) {
        let p = OnlineProfile::default();
        let root = TaskInfo {
            id: TaskId(77),
            level: 0,
            loop_chunks: 0,
        };
        let mut levels = vec![vec![root]];
        for l in 1..=depth {
            let next: Vec<TaskInfo> = levels[l as usize - 1]
                .iter()
                .flat_map(|t| {
                    [0, 1].map(|i| TaskInfo {
                        id: t.id.child(i),
                        level: l,
                        loop_chunks: 0,
                    })
                })
                .collect();
            for (i, c) in next.iter().enumerate() {
                p.spawned(&levels[l as usize - 1][i / 2], c);
            }
            levels.push(next);
        }
        // Finish bottom-up; the loop task (level 0) never finishes in the iteration.
        for l in (1..=depth as usize).rev() {
            for t in &levels[l] {
                let bytes = if l == depth as usize { leaf_bytes } else { 0 };
                p.finished(
                    t,
                    &TaskCost {
                        bytes,
                        misses: bytes / 64,
                        ..TaskCost::default()
                    },
                    0,
                );
            }
        }
        (p.snapshot(), levels)
    }

    #[test]
    fn leaves_come_in_spawn_order() {
        let (entries, levels) = binary_tree(3, 1 << 20);
        let order = leaf_order(&entries, |_, e| e.level == 2);
        let expected: Vec<TaskId> = levels[2].iter().map(|t| t.id).collect();
        assert_eq!(order, expected, "left to right, as the data lies");
        let all = leaf_order(&entries, |_, e| e.level == 3);
        assert_eq!(all.len(), 8);
        assert_eq!(all[0], levels[3][0].id);
        assert_eq!(all[7], levels[3][7].id);
    }

    #[test]
    fn feeding_splits_the_largest_leaves_until_every_squad_has_one() {
        // 8 leaves of 1 MiB: level 1 holds 4 MiB each, under a 6 MiB cache: 2 leaves.
        let (entries, levels) = binary_tree(3, 1 << 20);
        let mut part = LearnedTiers::new(&entries, 6 << 20, 0.0);
        assert_eq!(part.leaves_by_level.get(&1), Some(&2), "Fig. 6 alone");
        assert_eq!(part.feed(&entries, 4, 1), 2);
        assert_eq!(part.leaves_by_level.get(&2), Some(&4));
        assert_eq!(part.leaves_by_level.get(&1), None);
        assert_eq!(part.tiers[&levels[1][0].id], Tier::Inter);
        assert_eq!(part.tiers[&levels[3][5].id], Tier::Intra);
        assert!(part.report.contains("split 2"), "{}", part.report);
        assert_eq!(part.feed(&entries, 4, 1), 0, "already fed");
        // Two each for two squads: one more split, the largest (by SOID, then id) first.
        assert_eq!(
            part.feed(&entries, 2, 3),
            2,
            "six leaves wanted: two more splits"
        );
        assert_eq!(part.leaves_by_level.values().sum::<u64>(), 6);
        // More squads than tasks can be split into: stops at the leaves of the tree.
        let mut part = LearnedTiers::new(&entries, 6 << 20, 0.0);
        part.feed(&entries, 100, 1);
        assert_eq!(part.leaves_by_level.get(&3), Some(&8));
        let mut part = LearnedTiers::new(&entries, 6 << 20, 0.0);
        part.feed(&entries, 4, 4);
        assert_eq!(
            part.leaves_by_level.get(&3),
            Some(&8),
            "16 wanted, 8 there are"
        );
    }
}
