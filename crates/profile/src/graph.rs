//! The affinity graph: one vertex per profiled task, an edge between two tasks that
//! touch a common cache line, weighted by the number of distinct lines they share
//! (Song et al., Section 3, with lines for addresses as their Section 7 proposes).
//!
//! # Construction
//! The paper's inverted-index algorithm (its Figure 4): for every line, the set of tasks
//! touching it; a line touched by more than `DenseRatio x T` of the `T` tasks is dropped
//! as too dense to inform a partition (one global variable would otherwise link every
//! pair); every other line adds 1 to the weight of each pair of its tasks. DenseRatio
//! 0.0 therefore gives no edges and 1.0 keeps every pair that shares a line.
//!
//! Lines are never visited one by one: the tasks' [`LineRun`](crate::LineRun)s are cut
//! into *segments*, maximal stretches of lines touched by the same set of tasks, by one
//! sort of the run endpoints and a sweep that keeps the set of tasks active. A segment
//! of `len` lines with task set `S` adds `len` to each pair of `S` (when `|S|` passes the
//! density test). The pairs are then summed task by task, as a sparse matrix product
//! sums a row (the graph is `A Aᵀ` of the task-by-line incidence matrix `A`, off its
//! diagonal): for task `i`, the members of its segments are added into one dense
//! accumulator, and the touched entries, sorted, are row `i` of the CSR. No list of
//! all pair contributions is ever held or sorted, and the work is the number of
//! contributions. A graph past [`GraphOptions::max_edges`] is refused with an error that
//! suggests a lower dense ratio, instead of exhausting memory (the paper's Section 2.2
//! warns of 10^10 edges).
//!
//! # Weights
//! A vertex weighs its task's work (declared instructions per instance), so a partition
//! balances load rather than task counts (the paper's Section 7 weakness). An edge
//! weighs at most `u32::MAX` lines (256 GiB shared; more saturates). METIS takes
//! 32-bit weights whose sums must fit too: [`AffinityGraph::metis_vertex_weights`] and
//! [`AffinityGraph::metis_edge_weights`] scale them down proportionally where needed,
//! each at least 1; the partition and the METIS file both use those, and where nothing
//! needs scaling METIS reads the graph's own edge weights.
//!
//! # Output
//! CSR adjacency in task order (`xadj`, `adjncy`, `adjwgt`, `vwgt`; every edge stored in
//! both directions, each vertex's neighbours ascending), and writers for Graphviz DOT
//! (for looking) and the METIS graph file (for `gpmetis` and other partitioners).

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};

use locus_policy::TaskId;
use metis::Idx;
use serde::Serialize;

use crate::error::{Kind, ProfileError};
use crate::partition::Partition;
use crate::profile::Profile;

/// The dense ratio of the paper's experiments.
pub const DEFAULT_DENSE_RATIO: f64 = 0.9;
/// Edges a graph may have by default: 64 Mi. Measured: `locus profile` of `irreg large`
/// with one task per mesh edge (440,000 tasks, 60 M graph edges) peaked at 2.4 GB for
/// the whole run, about 40 bytes per edge, so the paper's largest mesh fits and no
/// profile run passes about 3 GB unless asked to.
pub const DEFAULT_MAX_EDGES: usize = 1 << 26;
/// Most vertices a graph may have: leaves headroom in METIS's 32-bit weight sums.
pub(crate) const MAX_VERTICES: usize = 1 << 29;
/// Most adjacency entries (twice the edges) METIS's 32-bit indices can take.
const MAX_ADJACENCY: usize = 1 << 30;
/// Scaled vertex (and directed edge) weights sum to at most this plus the number of
/// entries, below `i32::MAX`.
const WEIGHT_LIMIT: u64 = 1 << 29;
/// Marks a run's start in a sweep event; ends sort first at equal lines.
const START: u32 = 1 << 31;

/// How to build an affinity graph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphOptions {
    /// Lines touched by more than this fraction of the tasks are dropped, in `[0, 1]`.
    pub dense_ratio: f64,
    /// The most edges the graph may have; building one with more is an error.
    pub max_edges: usize,
}

impl Default for GraphOptions {
    fn default() -> GraphOptions {
        GraphOptions {
            dense_ratio: DEFAULT_DENSE_RATIO,
            max_edges: DEFAULT_MAX_EDGES,
        }
    }
}

impl GraphOptions {
    fn check(&self) -> Result<(), ProfileError> {
        if !(0.0..=1.0).contains(&self.dense_ratio) {
            return Err(ProfileError::option(
                "dense ratio",
                self.dense_ratio,
                "a fraction from 0.0 (no edges) to 1.0 (every pair that shares a line)",
            ));
        }
        if self.max_edges == 0 || self.max_edges > MAX_ADJACENCY / 2 {
            return Err(ProfileError::option(
                "max edges",
                self.max_edges,
                "1 up to 2^29 (METIS's 32-bit indices)",
            ));
        }
        Ok(())
    }
}

/// What building a graph found.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct GraphStats {
    /// Vertices (tasks).
    pub vertices: usize,
    /// Undirected edges.
    pub edges: usize,
    /// The dense ratio used (`NaN` for graphs given as CSR).
    pub dense_ratio: f64,
    /// Lines shared by two tasks or more that were dropped as too dense.
    pub dense_lines: u64,
    /// Lines shared by two tasks or more that made edges.
    pub shared_lines: u64,
    /// The most tasks one kept line is shared by.
    pub max_sharers: usize,
    /// Sum of the edge weights.
    pub total_edge_weight: u64,
}

/// An undirected graph of tasks, in CSR form.
#[derive(Debug, Clone, PartialEq)]
pub struct AffinityGraph {
    ids: Vec<TaskId>,
    xadj: Vec<usize>,
    adjncy: Vec<u32>,
    adjwgt: Vec<u32>,
    vwgt: Vec<u64>,
    stats: GraphStats,
}

impl AffinityGraph {
    /// Builds the affinity graph of `profile` (see the module documentation); vertex
    /// `i` is `profile.tasks()[i]`.
    ///
    /// # Errors
    /// If an option is out of range, the profile has more tasks than a partition can
    /// take, or the graph would have more than `options.max_edges` edges.
    pub fn build(profile: &Profile, options: &GraphOptions) -> Result<AffinityGraph, ProfileError> {
        options.check()?;
        let tasks = profile.tasks();
        let n = tasks.len();
        if n > MAX_VERTICES {
            return Err(Kind::TooManyTasks {
                what: profile.name().to_owned(),
                tasks: n,
                limit: MAX_VERTICES,
            }
            .into());
        }
        let limit = options.dense_ratio * n as f64;
        let runs: usize = tasks.iter().map(|t| t.runs().len()).sum();
        let mut events: Vec<(u64, u32)> = Vec::with_capacity(2 * runs);
        for (i, t) in tasks.iter().enumerate() {
            for r in t.runs() {
                events.push((r.start, START | i as u32));
                events.push((r.end(), i as u32));
            }
        }
        events.sort_unstable();

        let mut stats = GraphStats {
            vertices: n,
            dense_ratio: options.dense_ratio,
            ..GraphStats::default()
        };
        let too_many = |found: u64| -> ProfileError {
            Kind::TooManyEdges {
                found,
                limit: options.max_edges,
                dense_ratio: options.dense_ratio,
            }
            .into()
        };

        // The sweep: the kept segments, as lengths and member lists (CSR).
        let mut seg_len: Vec<u64> = Vec::new();
        let mut seg_start: Vec<usize> = vec![0];
        let mut seg_members: Vec<u32> = Vec::new();
        let mut active: Vec<u32> = Vec::new();
        let mut slot: Vec<u32> = vec![0; n];
        let mut k = 0;
        while k < events.len() {
            let line = events[k].0;
            while k < events.len() && events[k].0 == line {
                let code = events[k].1;
                let t = code & !START;
                if code & START != 0 {
                    slot[t as usize] = active.len() as u32;
                    active.push(t);
                } else {
                    let s = slot[t as usize] as usize;
                    active.swap_remove(s);
                    if let Some(&moved) = active.get(s) {
                        slot[moved as usize] = s as u32;
                    }
                }
                k += 1;
            }
            let Some(&(next, _)) = events.get(k) else {
                break;
            };
            let m = active.len();
            if m < 2 {
                continue;
            }
            let len = next - line;
            if m as f64 > limit {
                stats.dense_lines += len;
                continue;
            }
            // The pairs of one segment are distinct edges: too many is known now.
            let pairs = m as u64 * (m as u64 - 1) / 2;
            if pairs > options.max_edges as u64 {
                return Err(too_many(pairs));
            }
            stats.shared_lines += len;
            stats.max_sharers = stats.max_sharers.max(m);
            seg_len.push(len);
            seg_members.extend_from_slice(&active);
            seg_start.push(seg_members.len());
        }
        drop(events);
        drop(slot);

        // Each task's segments, ascending (CSR, the transpose of the above).
        let mut task_start = vec![0usize; n + 1];
        for &t in &seg_members {
            task_start[t as usize + 1] += 1;
        }
        for v in 0..n {
            task_start[v + 1] += task_start[v];
        }
        let mut fill = task_start.clone();
        let mut task_segs = vec![0u32; seg_members.len()];
        for s in 0..seg_len.len() {
            for &t in &seg_members[seg_start[s]..seg_start[s + 1]] {
                task_segs[fill[t as usize]] = s as u32;
                fill[t as usize] += 1;
            }
        }
        drop(fill);

        // Row by row: the lines task v shares with each other task.
        let limit_entries = 2 * options.max_edges;
        let mut acc = vec![0u64; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut xadj = Vec::with_capacity(n + 1);
        let mut adjncy: Vec<u32> = Vec::new();
        let mut adjwgt: Vec<u32> = Vec::new();
        xadj.push(0);
        for v in 0..n {
            for &s in &task_segs[task_start[v]..task_start[v + 1]] {
                let s = s as usize;
                let len = seg_len[s];
                for &u in &seg_members[seg_start[s]..seg_start[s + 1]] {
                    if u as usize != v {
                        let a = &mut acc[u as usize];
                        if *a == 0 {
                            touched.push(u);
                        }
                        *a = a.saturating_add(len);
                    }
                }
            }
            touched.sort_unstable();
            for &u in &touched {
                adjncy.push(u);
                let lines = std::mem::take(&mut acc[u as usize]);
                adjwgt.push(u32::try_from(lines).unwrap_or(u32::MAX));
            }
            touched.clear();
            // Each edge is listed from both ends: more entries than twice the limit
            // means more edges than the limit.
            if adjncy.len() > limit_entries {
                return Err(too_many(adjncy.len() as u64 / 2));
            }
            xadj.push(adjncy.len());
        }
        adjncy.shrink_to_fit();
        adjwgt.shrink_to_fit();
        stats.edges = adjncy.len() / 2;
        stats.total_edge_weight = adjwgt.iter().map(|&w| u64::from(w)).sum::<u64>() / 2;
        Ok(AffinityGraph {
            ids: tasks.iter().map(|t| t.id()).collect(),
            xadj,
            adjncy,
            adjwgt,
            vwgt: tasks.iter().map(|t| t.work()).collect(),
            stats,
        })
    }

    /// A graph from CSR arrays (tests, graphs made elsewhere): vertex `v`'s neighbours
    /// are `adjncy[xadj[v]..xadj[v + 1]]` with weights `adjwgt[..]`, its weight
    /// `vwgt[v]`, its task `ids[v]`.
    ///
    /// # Errors
    /// Unless the arrays have matching lengths, `xadj` starts at 0 and never decreases,
    /// every neighbour list is strictly ascending, in range and free of the vertex
    /// itself, every edge weight is at least 1, and every edge appears in both
    /// directions with the same weight.
    pub fn from_csr(
        ids: Vec<TaskId>,
        xadj: Vec<usize>,
        adjncy: Vec<u32>,
        adjwgt: Vec<u32>,
        vwgt: Vec<u64>,
    ) -> Result<AffinityGraph, ProfileError> {
        let n = ids.len();
        let bad = |msg: String| Err(ProfileError::graph(msg));
        if n > MAX_VERTICES {
            return bad(format!("{n} vertices, more than {MAX_VERTICES}"));
        }
        if xadj.len() != n + 1 || vwgt.len() != n {
            return bad(format!(
                "{n} ids need {} xadj entries and {n} vertex weights, not {} and {}",
                n + 1,
                xadj.len(),
                vwgt.len()
            ));
        }
        if xadj[0] != 0 || xadj.windows(2).any(|w| w[0] > w[1]) {
            return bad("xadj must start at 0 and never decrease".to_owned());
        }
        if xadj[n] != adjncy.len() || adjwgt.len() != adjncy.len() {
            return bad(format!(
                "xadj ends at {} but adjncy has {} entries and adjwgt {}",
                xadj[n],
                adjncy.len(),
                adjwgt.len()
            ));
        }
        if adjncy.len() > MAX_ADJACENCY {
            return bad(format!(
                "{} adjacency entries, more than {MAX_ADJACENCY}",
                adjncy.len()
            ));
        }
        for v in 0..n {
            let list = &adjncy[xadj[v]..xadj[v + 1]];
            if let Some(&u) = list.iter().find(|&&u| u as usize >= n || u as usize == v) {
                return bad(format!(
                    "vertex {v} lists neighbour {u}: out of range or itself"
                ));
            }
            if list.windows(2).any(|w| w[0] >= w[1]) {
                return bad(format!(
                    "vertex {v}'s neighbours are not strictly ascending"
                ));
            }
        }
        let graph = AffinityGraph {
            stats: GraphStats {
                vertices: n,
                edges: adjncy.len() / 2,
                dense_ratio: f64::NAN,
                total_edge_weight: adjwgt.iter().map(|&w| u64::from(w)).sum::<u64>() / 2,
                ..GraphStats::default()
            },
            ids,
            xadj,
            adjncy,
            adjwgt,
            vwgt,
        };
        for v in 0..n {
            for (u, w) in graph.neighbours(v) {
                if w == 0 {
                    return bad(format!("edge {v}-{u} has weight 0; weights start at 1"));
                }
                if graph.edge_weight(u as usize, v) != Some(w) {
                    return bad(format!(
                        "edge {v}-{u} (weight {w}) has no twin {u}-{v} of the same weight"
                    ));
                }
            }
        }
        Ok(graph)
    }

    /// Number of vertices (tasks).
    pub fn num_vertices(&self) -> usize {
        self.ids.len()
    }

    /// Number of undirected edges.
    pub fn num_edges(&self) -> usize {
        self.adjncy.len() / 2
    }

    /// The task of each vertex.
    pub fn ids(&self) -> &[TaskId] {
        &self.ids
    }

    /// CSR offsets: vertex `v`'s neighbours are at `xadj[v]..xadj[v + 1]`.
    pub fn xadj(&self) -> &[usize] {
        &self.xadj
    }

    /// CSR neighbours, ascending per vertex.
    pub fn adjncy(&self) -> &[u32] {
        &self.adjncy
    }

    /// CSR edge weights: distinct lines shared (saturating at `u32::MAX`).
    pub fn adjwgt(&self) -> &[u32] {
        &self.adjwgt
    }

    /// Vertex weights: the tasks' work.
    pub fn vwgt(&self) -> &[u64] {
        &self.vwgt
    }

    /// The neighbours of `v` with the edges' weights, ascending.
    pub fn neighbours(&self, v: usize) -> impl Iterator<Item = (u32, u64)> + '_ {
        let r = self.xadj[v]..self.xadj[v + 1];
        self.adjncy[r.clone()]
            .iter()
            .copied()
            .zip(self.adjwgt[r].iter().map(|&w| u64::from(w)))
    }

    /// The weight of edge `a`-`b`, if there is one.
    pub fn edge_weight(&self, a: usize, b: usize) -> Option<u64> {
        let r = self.xadj[a]..self.xadj[a + 1];
        let list = &self.adjncy[r.clone()];
        let i = list.binary_search(&u32::try_from(b).ok()?).ok()?;
        Some(u64::from(self.adjwgt[r.start + i]))
    }

    /// What building the graph found.
    pub fn stats(&self) -> &GraphStats {
        &self.stats
    }

    /// Vertex weights as METIS takes them: the work, at least 1, scaled down
    /// proportionally where the sum would pass 2^29.
    pub fn metis_vertex_weights(&self) -> Vec<Idx> {
        scale(&self.vwgt)
    }

    /// Edge weights (per CSR entry) as METIS takes them: at least 1, scaled down
    /// proportionally where the sum over both directions would pass 2^29. Where it does
    /// not, they are the graph's own, borrowed: on a graph of 10^8 entries a copy costs
    /// a second, most of it page faults.
    pub fn metis_edge_weights(&self) -> Cow<'_, [Idx]> {
        // Every weight is at least 1 (built from lines shared; checked by `from_csr`).
        let total: u64 = self.adjwgt.iter().map(|&w| u64::from(w)).sum();
        if total <= WEIGHT_LIMIT {
            Cow::Borrowed(as_idx(&self.adjwgt))
        } else {
            Cow::Owned(scale(&self.adjwgt))
        }
    }

    /// Writes the graph in Graphviz DOT: one box per task labelled with its index, id
    /// and work (and, given a partition, its worker, squad and position in the worker's
    /// order, filled with one colour per worker), one edge per pair labelled with the
    /// lines shared.
    ///
    /// # Errors
    /// Those of `out`.
    pub fn write_dot(&self, out: impl Write, partition: Option<&Partition>) -> io::Result<()> {
        let mut out = BufWriter::new(out);
        writeln!(out, "graph affinity {{")?;
        writeln!(
            out,
            "  // {} tasks, {} edges; an edge's label is the cache lines the two tasks share",
            self.num_vertices(),
            self.num_edges()
        )?;
        writeln!(out, "  graph [overlap=false];")?;
        writeln!(out, "  node [shape=box, fontsize=10];")?;
        for v in 0..self.num_vertices() {
            let head = format!("{v}: {}\\nwork {}", self.ids[v], self.vwgt[v]);
            match partition {
                Some(p) if v < p.len() => writeln!(
                    out,
                    "  t{v} [label=\"{head}\\nworker {} (squad {}) #{}\", style=filled, \
                     fillcolor=\"/set312/{}\"];",
                    p.worker_of(v),
                    p.squad_of(v),
                    p.order_of(v),
                    p.worker_of(v) % 12 + 1
                )?,
                _ => writeln!(out, "  t{v} [label=\"{head}\"];")?,
            }
        }
        for v in 0..self.num_vertices() {
            for (u, w) in self.neighbours(v).filter(|&(u, _)| u as usize > v) {
                // Graphviz's layout weight is a small integer; the label keeps the count.
                writeln!(
                    out,
                    "  t{v} -- t{u} [label=\"{w}\", weight={}];",
                    w.min(1000)
                )?;
            }
        }
        writeln!(out, "}}")?;
        out.flush()
    }

    /// Writes the graph in the METIS graph-file format (METIS 5 manual, Section 4.1.1):
    /// a header `n m 011` (vertex and edge weights), then per vertex a line with its
    /// weight followed by `neighbour weight` pairs, neighbours numbered from 1. Weights
    /// are those of [`AffinityGraph::metis_vertex_weights`] and
    /// [`AffinityGraph::metis_edge_weights`].
    ///
    /// `gpmetis` refuses a file with no edges (`m` = 0), though the format allows it.
    ///
    /// # Errors
    /// Those of `out`.
    pub fn write_metis(&self, out: impl Write) -> io::Result<()> {
        let mut out = BufWriter::new(out);
        let vw = self.metis_vertex_weights();
        let aw = self.metis_edge_weights();
        writeln!(out, "{} {} 011", self.num_vertices(), self.num_edges())?;
        // Numbers through `itoa` and one line at a time: `write!` per number takes
        // seconds on a graph of 10^8 entries.
        let mut number = itoa::Buffer::new();
        let mut line = Vec::new();
        for (v, w) in vw.iter().enumerate() {
            line.clear();
            line.extend_from_slice(number.format(*w).as_bytes());
            let r = self.xadj[v]..self.xadj[v + 1];
            for (u, w) in self.adjncy[r.clone()].iter().zip(&aw[r]) {
                line.push(b' ');
                line.extend_from_slice(number.format(u + 1).as_bytes());
                line.push(b' ');
                line.extend_from_slice(number.format(*w).as_bytes());
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
        out.flush()
    }
}

/// `values` as 32-bit METIS weights: each at least 1, divided by a common factor where
/// their sum would pass [`WEIGHT_LIMIT`].
/// `values` reinterpreted as METIS's index type.
///
/// Callers pass values below 2^31 (vertices below [`MAX_VERTICES`], weights below
/// [`WEIGHT_LIMIT`]), which read as the same numbers.
pub(crate) fn as_idx(values: &[u32]) -> &[Idx] {
    const _: () = assert!(size_of::<Idx>() == size_of::<u32>());
    // SAFETY: `Idx` is `i32` (the size is checked above): it has the size and alignment
    // of `u32` and every bit pattern is valid, so the slice reads as `Idx` over the same
    // memory and length, borrowed for as long as `values`.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<Idx>(), values.len()) }
}

/// `values` as METIS weights: each at least 1, all divided by one factor where their
/// sum would pass [`WEIGHT_LIMIT`].
fn scale<T: Copy + Into<u64>>(values: &[T]) -> Vec<Idx> {
    let total: u128 = values.iter().map(|&v| u128::from(v.into().max(1))).sum();
    let factor = if total <= u128::from(WEIGHT_LIMIT) {
        1
    } else {
        total.div_ceil(u128::from(WEIGHT_LIMIT)) as u64
    };
    // Without the division where nothing is scaled: on a graph of 10^8 entries it
    // costs more than the rest.
    if factor == 1 {
        return values
            .iter()
            .map(|&v| v.into().clamp(1, WEIGHT_LIMIT) as Idx)
            .collect();
    }
    values
        .iter()
        .map(|&v| (v.into() / factor).clamp(1, WEIGHT_LIMIT) as Idx)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_scaled_to_fit_metis() {
        assert_eq!(scale(&[0u64, 1, 5]), vec![1, 1, 5]);
        let big = scale(&[u64::MAX / 4, u64::MAX / 4, 3]);
        let sum: i64 = big.iter().map(|&w| i64::from(w)).sum();
        assert!(sum < i64::from(i32::MAX), "{big:?}");
        assert_eq!(big[0], big[1]);
        assert_eq!(big[2], 1, "tiny weights stay at least 1");
    }
}
