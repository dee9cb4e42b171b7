//! What a person reads of a checked trace: per squad, the tasks it ran, its workers'
//! busy, idle and asleep shares of the run, the steals into and out of it per tier,
//! and the tasks that moved between squads most often; and the busy workers of each
//! squad over time, for a plot. Pure functions of a [`Trace`].
//!
//! # Definitions
//! - The run spans the first slice's start to the last slice's end, over all workers.
//! - A worker is busy where a task (or share) slice covers it and no idle or sleep
//!   slice does (the runtime's idle spells nest inside the task that waits in a join);
//!   asleep where a sleep slice covers it; idle the rest of the span. Shares are of the
//!   span times the squad's workers.
//! - A task run is a task slice, except that the slices of one task in one iteration
//!   (`args.iteration`, the simulator's, which splits a task around its children) are
//!   one run, on the squad of its first slice's worker.
//! - A task moves each time one of its runs is on another squad than its previous run,
//!   by start time: across iterations, the placement stability docs/design.md ("Locality
//!   across iterations") asks of the bi-tier policies.

use super::read::{Kind, Slice, Source, Trace, TIERS};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A trace, summed up.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Summary {
    /// The run's title.
    pub(crate) title: String,
    /// "runtime" or "simulator".
    pub(crate) source: &'static str,
    /// From the first slice's start to the last slice's end, in milliseconds.
    pub(crate) span_ms: f64,
    /// Workers with a track.
    pub(crate) workers: usize,
    /// Per squad, by squad.
    pub(crate) squads: Vec<SquadSummary>,
    /// The policy's placements, as instant events.
    pub(crate) placements: usize,
    /// The tasks that moved between squads most often, most moves first.
    pub(crate) moved: Vec<Moved>,
    /// Events the runtime's workers dropped; `None` for a simulated trace.
    pub(crate) dropped_events: Option<u64>,
    /// The events a runtime worker keeps; `None` for a simulated trace.
    pub(crate) cap_per_worker: Option<u64>,
    /// Steals the runtime left out of the trace, their arrows binding to no slice
    /// (not in `steals_in` and `steals_out`).
    pub(crate) steals_not_drawn: u64,
}

/// One squad's part of a run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SquadSummary {
    /// The squad.
    pub(crate) squad: usize,
    /// Its workers.
    pub(crate) workers: usize,
    /// Task runs on its workers.
    pub(crate) tasks: usize,
    /// Shares of the span times its workers (0 to 1).
    pub(crate) busy: f64,
    /// As `busy`.
    pub(crate) idle: f64,
    /// As `busy`.
    pub(crate) sleep: f64,
    /// Steals whose thief is in this squad, per tier.
    pub(crate) steals_in: Tiers,
    /// Steals whose victim is in this squad, per tier.
    pub(crate) steals_out: Tiers,
}

/// A count per steal tier, in the order of [`TIERS`]; JSON: an object by tier name.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tiers(pub(crate) [usize; TIERS.len()]);

impl Serialize for Tiers {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(TIERS.len()))?;
        for (tier, n) in TIERS.iter().zip(self.0) {
            map.serialize_entry(tier, &n)?;
        }
        map.end()
    }
}

/// A task that ran on several squads.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Moved {
    /// Its id, 16 hex digits.
    pub(crate) task: String,
    /// Runs on another squad than the run before.
    pub(crate) moves: usize,
    /// Its runs.
    pub(crate) runs: usize,
    /// The squads it ran on, in order of first run.
    pub(crate) squads: Vec<usize>,
}

/// Intervals `[start, end)` in nanoseconds.
type Spans = Vec<(i64, i64)>;

/// `spans` sorted and merged.
fn union(mut spans: Spans) -> Spans {
    spans.sort_unstable();
    let mut out: Spans = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// `a` without `b`, both merged.
fn minus(a: &[(i64, i64)], b: &[(i64, i64)]) -> Spans {
    let mut out = Vec::new();
    let mut j = 0;
    for &(mut start, end) in a {
        while j < b.len() && b[j].1 <= start {
            j += 1;
        }
        let mut k = j;
        while k < b.len() && b[k].0 < end {
            if b[k].0 > start {
                out.push((start, b[k].0));
            }
            start = start.max(b[k].1);
            k += 1;
        }
        if start < end {
            out.push((start, end));
        }
    }
    out
}

fn length(spans: &[(i64, i64)]) -> i64 {
    spans.iter().map(|(s, e)| e - s).sum()
}

/// Each worker's busy and asleep spans.
fn worker_spans(trace: &Trace) -> HashMap<usize, (Spans, Spans)> {
    let mut raw: HashMap<usize, [Spans; 3]> = HashMap::new();
    for s in &trace.slices {
        let which = match s.kind {
            Kind::Task { .. } | Kind::Share => 0,
            Kind::Idle => 1,
            Kind::Sleep => 2,
            Kind::Other => continue,
        };
        let lists = raw.entry(s.worker).or_default();
        lists[which].push((s.start, s.end));
        if which == 2 {
            lists[1].push((s.start, s.end));
        }
    }
    raw.into_iter()
        .map(|(w, [work, idle, sleep])| {
            let busy = minus(&union(work), &union(idle));
            (w, (busy, union(sleep)))
        })
        .collect()
}

/// The run's first and last instant.
fn span(trace: &Trace) -> (i64, i64) {
    let start = trace.slices.iter().map(|s| s.start).min().unwrap_or(0);
    let end = trace.slices.iter().map(|s| s.end).max().unwrap_or(start);
    (start, end)
}

/// Sums `trace` up, listing at most `top` moved tasks.
pub(crate) fn summarize(trace: &Trace, top: usize) -> Summary {
    let (first, last) = span(trace);
    let span = last - first;
    let spans = worker_spans(trace);
    let mut squads: BTreeMap<usize, SquadSummary> = BTreeMap::new();
    let mut time: HashMap<usize, (i64, i64)> = HashMap::new();
    for (&w, worker) in &trace.workers {
        let squad = squads.entry(worker.squad).or_insert_with(|| SquadSummary {
            squad: worker.squad,
            workers: 0,
            tasks: 0,
            busy: 0.0,
            idle: 0.0,
            sleep: 0.0,
            steals_in: Tiers::default(),
            steals_out: Tiers::default(),
        });
        squad.workers += 1;
        if let Some((busy, sleep)) = spans.get(&w) {
            let t = time.entry(worker.squad).or_default();
            t.0 += length(busy);
            t.1 += length(sleep);
        }
    }
    let squad_of = |w: usize| trace.workers[&w].squad;
    for steal in &trace.steals {
        if let Some(s) = squads.get_mut(&squad_of(steal.thief)) {
            s.steals_in.0[steal.tier] += 1;
        }
        if let Some(s) = squads.get_mut(&squad_of(steal.victim)) {
            s.steals_out.0[steal.tier] += 1;
        }
    }
    let runs = runs(trace);
    for &(_, _, squad) in &runs {
        if let Some(s) = squads.get_mut(&squad) {
            s.tasks += 1;
        }
    }
    for s in squads.values_mut() {
        let whole = span as f64 * s.workers as f64;
        if whole > 0.0 {
            let (busy, sleep) = time.get(&s.squad).copied().unwrap_or_default();
            s.busy = busy as f64 / whole;
            s.sleep = sleep as f64 / whole;
            s.idle = (1.0 - s.busy - s.sleep).max(0.0);
        }
    }
    let (dropped_events, cap_per_worker, steals_not_drawn) = match trace.source {
        Source::Runtime {
            dropped,
            cap_per_worker,
            not_drawn,
        } => (Some(dropped), Some(cap_per_worker), not_drawn),
        Source::Simulator => (None, None, 0),
    };
    Summary {
        title: trace.title.clone(),
        source: match trace.source {
            Source::Runtime { .. } => "runtime",
            Source::Simulator => "simulator",
        },
        span_ms: span as f64 / 1e6,
        workers: trace.workers.len(),
        squads: squads.into_values().collect(),
        placements: trace.placements,
        moved: moved(runs, top),
        dropped_events,
        cap_per_worker,
        steals_not_drawn,
    }
}

/// Every task run as (task, start, squad), by start.
fn runs(trace: &Trace) -> Vec<(u64, i64, usize)> {
    let mut tasks: Vec<&Slice> = trace
        .slices
        .iter()
        .filter(|s| matches!(s.kind, Kind::Task { .. }))
        .collect();
    tasks.sort_by_key(|s| (s.start, s.worker));
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(tasks.len());
    for s in tasks {
        let Kind::Task { id, iteration } = s.kind else {
            continue;
        };
        if iteration.is_some_and(|it| !seen.insert((id, it))) {
            continue;
        }
        out.push((id, s.start, trace.workers[&s.worker].squad));
    }
    out
}

/// The `top` tasks with the most moves (ties by id).
fn moved(runs: Vec<(u64, i64, usize)>, top: usize) -> Vec<Moved> {
    let mut by_task: HashMap<u64, Vec<usize>> = HashMap::new();
    for (id, _, squad) in runs {
        by_task.entry(id).or_default().push(squad);
    }
    let mut out: Vec<(u64, Moved)> = by_task
        .into_iter()
        .filter_map(|(id, squads)| {
            let moves = squads.windows(2).filter(|w| w[0] != w[1]).count();
            let mut distinct = Vec::new();
            for s in &squads {
                if !distinct.contains(s) {
                    distinct.push(*s);
                }
            }
            (moves > 0).then(|| {
                (
                    id,
                    Moved {
                        task: format!("{id:016x}"),
                        moves,
                        runs: squads.len(),
                        squads: distinct,
                    },
                )
            })
        })
        .collect();
    out.sort_by(|a, b| b.1.moves.cmp(&a.1.moves).then(a.0.cmp(&b.0)));
    out.into_iter().take(top).map(|(_, m)| m).collect()
}

/// Mean busy workers of each squad in each of `bins` equal bins of the span, as
/// (squad, [(bin centre in ms, busy workers)]).
pub(crate) fn busy_over_time(trace: &Trace, bins: usize) -> Vec<(usize, Vec<(f64, f64)>)> {
    let (first, last) = span(trace);
    let width = ((last - first) as f64 / bins as f64).max(1.0);
    let mut per_squad: BTreeMap<usize, Vec<f64>> = trace
        .workers
        .values()
        .map(|w| (w.squad, vec![0.0; bins]))
        .collect();
    for (w, (busy, _)) in worker_spans(trace) {
        let Some(acc) = per_squad.get_mut(&trace.workers[&w].squad) else {
            continue;
        };
        for &(start, end) in &busy {
            let (a, b) = ((start - first) as f64, (end - first) as f64);
            let lo = ((a / width) as usize).min(bins - 1);
            let hi = ((b / width) as usize).min(bins - 1);
            for (bin, slot) in acc.iter_mut().enumerate().take(hi + 1).skip(lo) {
                let (x0, x1) = (bin as f64 * width, (bin + 1) as f64 * width);
                *slot += (b.min(x1) - a.max(x0)).max(0.0) / width;
            }
        }
    }
    per_squad
        .into_iter()
        .map(|(squad, acc)| {
            let points = acc
                .into_iter()
                .enumerate()
                .map(|(bin, busy)| ((first as f64 + (bin as f64 + 0.5) * width) / 1e6, busy))
                .collect();
            (squad, points)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_merge_and_subtract() {
        let a = union(vec![(5, 9), (0, 3), (2, 4), (9, 10)]);
        assert_eq!(a, vec![(0, 4), (5, 10)]);
        let b = union(vec![(1, 2), (3, 6), (8, 20)]);
        assert_eq!(minus(&a, &b), vec![(0, 1), (2, 3), (6, 8)]);
        assert_eq!(length(&minus(&a, &b)), 4);
        assert_eq!(minus(&a, &[]), a);
        assert!(minus(&a, &[(-5, 50)]).is_empty());
    }
}
