//! The hierarchical partition of an affinity graph onto a machine's workers, and the
//! order each worker runs its tasks in.
//!
//! # Levels
//! Following the machine's memory hierarchy (Song et al., Section 3.1, and their
//! Conclusion's node > chip > core), the tasks are split
//! 1. into the top-level domains of [`MachineDesc::top_domains`] (NUMA nodes where
//!    there are several, else packages);
//! 2. each domain's tasks into its squads (cache domains);
//! 3. each squad's tasks into its workers.
//!
//! Every split asks METIS (`METIS_PartGraphKway` on the subgraph the part induces) for
//! parts whose weights are proportional to the workers under each, so a domain with
//! more workers gets more work. A split that would compound its imbalance with the
//! others' gets the `L`-th root of the tolerance (`L` the levels that split anything),
//! so the workers' final imbalance stays within the tolerance: a one-squad machine uses
//! the whole tolerance (1.05 is METIS `ufactor` 50), a four-socket one splitting at two
//! levels 1.05^(1/2) (`ufactor` 24) at each.
//!
//! METIS treats the tolerance as a goal; on coarse weights it can miss it (64 tasks of
//! equal work on 16 workers come back as 5 and 3), so each split ends with a greedy
//! pass that moves the cheapest-to-cut tasks out of parts above the tolerance.
//!
//! METIS is not asked where it cannot help: one part takes everything; no more tasks
//! than parts are placed heaviest first on the part with the most room; a subgraph
//! with no edges is cut into contiguous runs of tasks (program order) of balanced
//! weight. Weights are those of [`AffinityGraph::metis_vertex_weights`], so tasks that
//! declare no work still count 1.
//!
//! METIS calls are serialised within the process (its random generator is global), so
//! the same graph, machine and seed always give the same partition.
//!
//! # Cost
//! On a graph of tens of millions of edges (`irreg large` with one task per mesh edge:
//! 440,000 tasks, 60 M edges) METIS is most of the time. The top split hands METIS the
//! graph's own arrays; the subgraphs of the lower levels are copied into buffers kept
//! from split to split (fresh ones cost more in page faults than the copying), the next
//! one on a second thread while METIS splits the current one; the order and the cut are
//! measured in one walk over the edges.
//!
//! # Order
//! Inside each worker's part the tasks are ordered by a breadth-first walk of the
//! subgraph the part induces (the paper's IRREG reordering): from the lowest task
//! index not yet reached, neighbours in ascending index, restarting for each component.
//! The orders of a worker are a permutation of `0..tasks of that worker`.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Mutex;

use metis::option::{Seed, UFactor};
use metis::{Idx, Real};
use serde::Serialize;

use crate::error::{Kind, ProfileError};
use crate::graph::{as_idx, AffinityGraph, MAX_VERTICES};
use crate::machine::MachineDesc;

/// Held during every METIS call. METIS (GKlib's `random.c`) keeps its random generator
/// in process-wide statics that each call re-seeds: two calls from two threads at once
/// would race on it and give partitions that change from run to run.
static METIS: Mutex<()> = Mutex::new(());

/// The default balance tolerance: a worker may carry 5% more than its share.
pub const DEFAULT_TOLERANCE: f64 = 1.05;
/// The largest tolerance accepted.
pub const MAX_TOLERANCE: f64 = 10.0;

/// How to partition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartitionOptions {
    /// The largest ratio of a worker's weight to its share allowed, above 1.0 (and at
    /// most [`MAX_TOLERANCE`]). METIS treats it as a goal, which coarse weights can
    /// make unreachable.
    pub tolerance: f64,
    /// METIS's random seed; the same seed and graph give the same partition.
    pub seed: i32,
}

impl Default for PartitionOptions {
    fn default() -> PartitionOptions {
        PartitionOptions {
            tolerance: DEFAULT_TOLERANCE,
            seed: 1,
        }
    }
}

/// The quality of a partition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionStats {
    /// Levels of the hierarchy that split anything (0 for a one-worker machine).
    pub levels: usize,
    /// The METIS `ufactor` of each split (imbalance allowed in thousandths).
    pub ufactor: i32,
    /// Splits METIS computed.
    pub metis_calls: usize,
    /// Weight of the edges between tasks on different workers.
    pub edge_cut: u64,
    /// Weight of the edges between tasks in different squads.
    pub squad_cut: u64,
    /// Weight of the edges between tasks in different top-level domains.
    pub domain_cut: u64,
    /// Weight of all edges.
    pub total_edge_weight: u64,
    /// Sum of the task weights (work, at least 1 per task).
    pub total_weight: u64,
    /// The heaviest worker's weight.
    pub max_worker_weight: u64,
    /// `max_worker_weight` over the mean worker weight (1.0 is perfect).
    pub imbalance: f64,
}

/// Where each task of a graph runs: its squad, its worker, its position in the worker's
/// order. Indexed by vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    squad: Vec<u32>,
    worker: Vec<u32>,
    order: Vec<u32>,
    stats: PartitionStats,
}

impl Partition {
    /// Partitions `graph` onto `machine`'s workers (see the module documentation).
    ///
    /// # Errors
    /// If the graph has no vertex or too many, the tolerance is out of range, or METIS
    /// fails.
    pub fn compute(
        graph: &AffinityGraph,
        machine: &MachineDesc,
        options: &PartitionOptions,
    ) -> Result<Partition, ProfileError> {
        Partition::compute_with(graph, machine, options, INDUCE_BESIDE)
    }

    /// [`Partition::compute`], inducing subgraphs of `beside` adjacency entries or more
    /// on a second thread.
    fn compute_with(
        graph: &AffinityGraph,
        machine: &MachineDesc,
        options: &PartitionOptions,
        beside: usize,
    ) -> Result<Partition, ProfileError> {
        let n = check_graph(graph)?;
        let t = options.tolerance;
        if !(t > 1.0 && t <= MAX_TOLERANCE) {
            return Err(ProfileError::option(
                "tolerance",
                t,
                "a ratio above 1.0 and at most 10.0, e.g. 1.05 for 5% imbalance",
            ));
        }
        let domains = machine.top_domains();
        let squads = machine.squads();
        let levels = usize::from(domains.len() > 1)
            + usize::from(domains.iter().any(|d| d.len() > 1))
            + usize::from(squads.iter().any(|s| s.workers.len() > 1));
        let per_level = t.powf(1.0 / levels.max(1) as f64);
        let ufactor = (((per_level - 1.0) * 1000.0).floor() as Idx).max(1);
        let mut splitter = Splitter {
            graph,
            vw: graph.metis_vertex_weights(),
            aw: graph.metis_edge_weights(),
            set_of: vec![0; n],
            index: vec![0; n],
            subs: Default::default(),
            beside,
            ufactor,
            seed: options.seed,
            calls: 0,
        };

        // 1. Top-level domains, weighted by their workers.
        let all: Vec<u32> = (0..n as u32).collect();
        let targets: Vec<usize> = domains
            .iter()
            .map(|d| d.iter().map(|&s| squads[s].workers.len()).sum())
            .collect();
        let what = format!(
            "{} tasks into {:?}'s {}s",
            n,
            machine.topology(),
            machine.top_level().name()
        );
        let parts = splitter
            .split_level(&[Set {
                verts: &all,
                targets,
                what,
            }])?
            .remove(0);
        let mut domain = vec![0u32; n];
        for (&v, &p) in all.iter().zip(&parts) {
            domain[v as usize] = p;
        }
        let by_domain = buckets(&all, &parts, domains.len());

        // 2. Each domain into its squads.
        let sets: Vec<Set<'_>> = (by_domain.iter().enumerate())
            .map(|(d, verts)| Set {
                verts,
                targets: domains[d]
                    .iter()
                    .map(|&s| squads[s].workers.len())
                    .collect(),
                what: format!("domain {d} into its squads"),
            })
            .collect();
        let mut squad = vec![0u32; n];
        for (d, parts) in splitter.split_level(&sets)?.iter().enumerate() {
            for (&v, &p) in by_domain[d].iter().zip(parts) {
                squad[v as usize] = domains[d][p as usize] as u32;
            }
        }

        // 3. Each squad into its workers.
        let by_squad = buckets(&all, &squad, squads.len());
        let sets: Vec<Set<'_>> = (by_squad.iter().enumerate())
            .map(|(s, verts)| Set {
                verts,
                targets: vec![1; squads[s].workers.len()],
                what: format!("squad {s} into its workers"),
            })
            .collect();
        let mut worker = vec![0u32; n];
        for (s, parts) in splitter.split_level(&sets)?.iter().enumerate() {
            let members = &squads[s].workers;
            for (&v, &p) in by_squad[s].iter().zip(parts) {
                worker[v as usize] = members[p as usize] as u32;
            }
        }
        let calls = splitter.calls;
        let mut partition = Partition::finish(graph, machine, squad, worker, &domain);
        partition.stats.levels = levels;
        partition.stats.ufactor = ufactor;
        partition.stats.metis_calls = calls;
        Ok(partition)
    }

    /// The partition that puts vertex `v` on worker `workers[v]` (a baseline to compare
    /// with, or a placement decided elsewhere), ordered and measured as
    /// [`Partition::compute`] does.
    ///
    /// # Errors
    /// If `workers` does not have one entry per vertex or names a worker the machine
    /// does not have.
    pub fn from_workers(
        graph: &AffinityGraph,
        machine: &MachineDesc,
        workers: &[usize],
    ) -> Result<Partition, ProfileError> {
        let n = check_graph(graph)?;
        if workers.len() != n {
            return Err(ProfileError::partition(format!(
                "{} workers given for {n} tasks",
                workers.len()
            )));
        }
        let mut squad_of_worker = vec![0u32; machine.num_workers()];
        for (s, sq) in machine.squads().iter().enumerate() {
            for &w in &sq.workers {
                squad_of_worker[w] = s as u32;
            }
        }
        let mut domain_of_squad = vec![0u32; machine.num_squads()];
        for (d, squads) in machine.top_domains().iter().enumerate() {
            for &s in squads {
                domain_of_squad[s] = d as u32;
            }
        }
        let mut squad = Vec::with_capacity(n);
        for (v, &w) in workers.iter().enumerate() {
            match squad_of_worker.get(w) {
                Some(&s) => squad.push(s),
                None => {
                    return Err(ProfileError::partition(format!(
                        "task {v} is given worker {w}, but {} has {} workers",
                        machine.topology(),
                        machine.num_workers()
                    )))
                }
            }
        }
        let domain: Vec<u32> = squad.iter().map(|&s| domain_of_squad[s as usize]).collect();
        let worker = workers.iter().map(|&w| w as u32).collect();
        Ok(Partition::finish(graph, machine, squad, worker, &domain))
    }

    /// Orders each worker's tasks and measures the result.
    fn finish(
        graph: &AffinityGraph,
        machine: &MachineDesc,
        squad: Vec<u32>,
        worker: Vec<u32>,
        domain: &[u32],
    ) -> Partition {
        let n = graph.num_vertices();
        let workers = machine.num_workers();
        let (order, cut) = walk(graph, &worker, &squad, domain, workers);
        let weight = |v: usize| graph.vwgt()[v].max(1);
        let mut load = vec![0u64; workers];
        let mut total = 0u64;
        for v in 0..n {
            load[worker[v] as usize] = load[worker[v] as usize].saturating_add(weight(v));
            total = total.saturating_add(weight(v));
        }
        let max_worker_weight = load.iter().copied().max().unwrap_or(0);
        let imbalance = if total == 0 {
            1.0
        } else {
            max_worker_weight as f64 * workers as f64 / total as f64
        };
        Partition {
            squad,
            worker,
            order,
            stats: PartitionStats {
                levels: 0,
                ufactor: 0,
                metis_calls: 0,
                edge_cut: cut.workers,
                squad_cut: cut.squads,
                domain_cut: cut.domains,
                total_edge_weight: graph.stats().total_edge_weight,
                total_weight: total,
                max_worker_weight,
                imbalance,
            },
        }
    }

    /// Number of tasks placed.
    pub fn len(&self) -> usize {
        self.worker.len()
    }

    /// Whether no task is placed (never, for a computed partition).
    pub fn is_empty(&self) -> bool {
        self.worker.is_empty()
    }

    /// The worker of vertex `v`.
    pub fn worker_of(&self, v: usize) -> usize {
        self.worker[v] as usize
    }

    /// The squad of vertex `v` (the squad of its worker).
    pub fn squad_of(&self, v: usize) -> usize {
        self.squad[v] as usize
    }

    /// The position of vertex `v` in its worker's order.
    pub fn order_of(&self, v: usize) -> u32 {
        self.order[v]
    }

    /// Every vertex as `(vertex, squad, worker, order)`, by vertex.
    pub fn placements(&self) -> impl Iterator<Item = (usize, usize, usize, u32)> + '_ {
        (0..self.len()).map(|v| (v, self.squad_of(v), self.worker_of(v), self.order[v]))
    }

    /// The vertices of `worker`, in the order it runs them.
    pub fn worker_tasks(&self, worker: usize) -> Vec<usize> {
        let mut tasks: Vec<usize> = (0..self.len())
            .filter(|&v| self.worker_of(v) == worker)
            .collect();
        tasks.sort_by_key(|&v| self.order[v]);
        tasks
    }

    /// The partition's quality.
    pub fn stats(&self) -> &PartitionStats {
        &self.stats
    }
}

/// The number of vertices, if a partition can take the graph.
fn check_graph(graph: &AffinityGraph) -> Result<usize, ProfileError> {
    let n = graph.num_vertices();
    if n == 0 {
        return Err(ProfileError::partition("the graph has no task to place"));
    }
    if n > MAX_VERTICES {
        return Err(Kind::TooManyTasks {
            what: "the graph".to_owned(),
            tasks: n,
            limit: MAX_VERTICES,
        }
        .into());
    }
    Ok(n)
}

/// `verts` grouped by `parts` into `k` lists, each in the order of `verts`.
fn buckets(verts: &[u32], parts: &[u32], k: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); k];
    for (&v, &p) in verts.iter().zip(parts) {
        out[p as usize].push(v);
    }
    out
}

/// One set of vertices to split, and how.
struct Set<'a> {
    /// The vertices, ascending.
    verts: &'a [u32],
    /// The parts' weights, proportional (all positive).
    targets: Vec<usize>,
    /// What is split, for errors.
    what: String,
}

/// Splits the vertices of one graph, a level of the hierarchy at a time.
struct Splitter<'g> {
    graph: &'g AffinityGraph,
    vw: Vec<Idx>,
    aw: Cow<'g, [Idx]>,
    /// Vertex -> the set of the level being split that holds it, and its index there.
    set_of: Vec<u32>,
    index: Vec<u32>,
    /// Two subgraphs, one for METIS and one being induced beside it, their buffers
    /// kept from split to split: on a graph of tens of millions of edges, fresh ones
    /// cost more in page faults than the copying does.
    subs: [Subgraph; 2],
    /// Subgraphs of this many adjacency entries or more are induced on a second thread.
    beside: usize,
    ufactor: Idx,
    seed: i32,
    calls: usize,
}

/// An induced subgraph in METIS's CSR form.
#[derive(Default)]
struct Subgraph {
    xadj: Vec<Idx>,
    adjncy: Vec<Idx>,
    adjwgt: Vec<Idx>,
}

/// Subgraphs with fewer adjacency entries than this are induced on the calling thread
/// (after METIS): a thread costs more than they do.
const INDUCE_BESIDE: usize = 1 << 20;

impl Splitter<'_> {
    /// The part (index into its targets) of each vertex of each set, the sets disjoint.
    ///
    /// METIS calls are serialised (see [`METIS`]); on a large graph most of the rest is
    /// copying each set's subgraph out of the graph, so the next set's is induced on a
    /// second thread while METIS splits the current one.
    fn split_level(&mut self, sets: &[Set<'_>]) -> Result<Vec<Vec<u32>>, ProfileError> {
        let n = self.graph.num_vertices();
        for (s, set) in sets.iter().enumerate() {
            for (i, &v) in set.verts.iter().enumerate() {
                self.set_of[v as usize] = s as u32;
                self.index[v as usize] = i as u32;
            }
        }
        // The sets METIS splits, and whether each is the whole graph (given to METIS as
        // it is: copying the top split of a large graph would cost a gigabyte).
        let for_metis: Vec<usize> = (0..sets.len())
            .filter(|&s| {
                let k = sets[s].targets.len();
                k > 1 && sets[s].verts.len() > k
            })
            .collect();
        let whole = |s: usize| sets[s].verts.len() == n;
        let [mut current, mut next] = std::mem::take(&mut self.subs);
        let this = &*self;
        if let Some(&s) = for_metis.first().filter(|&&s| !whole(s)) {
            this.induce(s, sets[s].verts, &mut current);
        }
        let mut parts = Vec::with_capacity(sets.len());
        let mut calls = 0;
        for (s, set) in sets.iter().enumerate() {
            let k = set.targets.len();
            if !for_metis.contains(&s) {
                parts.push(if k <= 1 {
                    vec![0; set.verts.len()]
                } else {
                    greedy(&this.weights(set.verts), &set.targets)
                });
                continue;
            }
            let after = for_metis.iter().copied().find(|&t| t > s && !whole(t));
            let graph = if whole(s) {
                current.xadj.clear();
                current
                    .xadj
                    .extend(this.graph.xadj().iter().map(|&x| x as Idx));
                Csr {
                    xadj: &current.xadj,
                    adjncy: as_idx(this.graph.adjncy()),
                    adjwgt: &this.aw,
                }
            } else {
                Csr {
                    xadj: &current.xadj,
                    adjncy: &current.adjncy,
                    adjwgt: &current.adjwgt,
                }
            };
            let in_parallel = after.filter(|&t| this.entries(sets[t].verts) >= this.beside);
            let part = std::thread::scope(|scope| {
                let inducing = in_parallel.map(|t| {
                    let next = &mut next;
                    scope.spawn(move || this.induce(t, sets[t].verts, next))
                });
                let part = this.metis(set, &graph);
                if let Some(inducing) = inducing {
                    if let Err(panic) = inducing.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
                part
            })?;
            calls += usize::from(!graph.adjncy.is_empty());
            parts.push(part);
            if let Some(t) = after.filter(|_| in_parallel.is_none()) {
                this.induce(t, sets[t].verts, &mut next);
            }
            std::mem::swap(&mut current, &mut next);
        }
        self.subs = [current, next];
        self.calls += calls;
        Ok(parts)
    }

    /// The METIS weights of `verts`.
    fn weights(&self, verts: &[u32]) -> Vec<Idx> {
        verts.iter().map(|&v| self.vw[v as usize]).collect()
    }

    /// The adjacency entries of `verts` in the whole graph: at most what their subgraph
    /// keeps.
    fn entries(&self, verts: &[u32]) -> usize {
        let gx = self.graph.xadj();
        verts
            .iter()
            .map(|&v| gx[v as usize + 1] - gx[v as usize])
            .sum()
    }

    /// Fills `sub` with the subgraph that set `s` of the level (`verts`) induces,
    /// vertices numbered by their index in the set.
    fn induce(&self, s: usize, verts: &[u32], sub: &mut Subgraph) {
        let (gx, ga) = (self.graph.xadj(), self.graph.adjncy());
        let Subgraph {
            xadj,
            adjncy,
            adjwgt,
        } = sub;
        xadj.clear();
        adjncy.clear();
        adjwgt.clear();
        // Reserved once, so the lists never move while they fill.
        let most = self.entries(verts);
        xadj.reserve(verts.len() + 1);
        adjncy.reserve(most);
        adjwgt.reserve(most);
        xadj.push(0);
        let s = s as u32;
        for &v in verts {
            let r = gx[v as usize]..gx[v as usize + 1];
            for (&u, &w) in ga[r.clone()].iter().zip(&self.aw[r]) {
                if self.set_of[u as usize] == s {
                    adjncy.push(self.index[u as usize] as Idx);
                    adjwgt.push(w);
                }
            }
            xadj.push(adjncy.len() as Idx);
        }
    }

    /// The part of each vertex of `set`, whose subgraph is `graph`: contiguous runs
    /// where it has no edge, else METIS's k-way partition evened out by [`rebalance`].
    fn metis(&self, set: &Set<'_>, graph: &Csr<'_>) -> Result<Vec<u32>, ProfileError> {
        let (targets, k) = (&set.targets, set.targets.len());
        let weights = self.weights(set.verts);
        if graph.adjncy.is_empty() {
            return Ok(contiguous(&weights, targets));
        }
        let sum: usize = targets.iter().sum();
        let mut tpwgts: Vec<Real> = targets
            .iter()
            .map(|&t| (t as f64 / sum as f64) as Real)
            .collect();
        let rest: Real = tpwgts[..k - 1].iter().sum();
        tpwgts[k - 1] = (1.0 - rest).max(0.0);
        let mut part: Vec<Idx> = vec![0; set.verts.len()];
        let metis_err = |err: metis::Error| -> ProfileError {
            Kind::Metis {
                what: set.what.clone(),
                err,
            }
            .into()
        };
        // A panic elsewhere while holding the lock leaves nothing half-done here.
        let lock = METIS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        metis::Graph::new(1, k as Idx, graph.xadj, graph.adjncy)
            .map_err(|e| metis_err(e.into()))?
            .set_vwgt(&weights)
            .set_adjwgt(graph.adjwgt)
            .set_tpwgts(&tpwgts)
            .set_option(UFactor(self.ufactor))
            .set_option(Seed(self.seed))
            .part_kway(&mut part)
            .map_err(metis_err)?;
        drop(lock);
        if let Some(&bad) = part.iter().find(|&&p| p < 0 || p as usize >= k) {
            return Err(ProfileError::partition(format!(
                "METIS returned part {bad} of {k} while splitting {}",
                set.what
            )));
        }
        let mut part: Vec<u32> = part.into_iter().map(|p| p as u32).collect();
        let limit = 1.0 + f64::from(self.ufactor) / 1000.0;
        rebalance(&mut part, &weights, targets, limit, graph);
        Ok(part)
    }
}

/// A graph in METIS's CSR form, borrowed.
struct Csr<'a> {
    xadj: &'a [Idx],
    adjncy: &'a [Idx],
    adjwgt: &'a [Idx],
}

/// Moves vertices out of parts heavier than `limit` times their share (which METIS
/// leaves where the weights are coarse: 64 tasks on 16 parts come back as 5 and 3),
/// one at a time from the heaviest part to a part it fits in, choosing the move that
/// cuts the fewest shared lines (most edge weight into the new part less that left
/// behind), until every part fits or no move lowers the heaviest part. The graph is the
/// subgraph METIS was given.
fn rebalance(part: &mut [u32], weights: &[Idx], targets: &[usize], limit: f64, graph: &Csr<'_>) {
    let Csr {
        xadj,
        adjncy,
        adjwgt,
    } = *graph;
    let k = targets.len();
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    let sum: usize = targets.iter().sum();
    let share: Vec<f64> = targets
        .iter()
        .map(|&t| total * t as f64 / sum as f64)
        .collect();
    let mut load = vec![0f64; k];
    for (v, &p) in part.iter().enumerate() {
        load[p as usize] += f64::from(weights[v]);
    }
    // Fill relative to the part's share; a part may take a vertex while it stays
    // within `limit`, or else if it stays below the part the vertex leaves.
    let fill = |load: &[f64], p: usize| load[p] / share[p];
    let mut conn = vec![0i64; k];
    for _ in 0..part.len() {
        let from = (0..k)
            .max_by(|&a, &b| fill(&load, a).total_cmp(&fill(&load, b)))
            .expect("at least one part");
        if fill(&load, from) <= limit {
            return;
        }
        let mut best: Option<(i64, usize, usize)> = None;
        for v in (0..part.len()).filter(|&v| part[v] as usize == from) {
            let w = f64::from(weights[v]);
            conn.iter_mut().for_each(|c| *c = 0);
            for e in xadj[v] as usize..xadj[v + 1] as usize {
                conn[part[adjncy[e] as usize] as usize] += i64::from(adjwgt[e]);
            }
            for to in (0..k).filter(|&q| q != from) {
                let after = (load[to] + w) / share[to];
                let fits = after <= limit || after < fill(&load, from) - w / share[from];
                let gain = conn[to] - conn[from];
                if fits && best.is_none_or(|(g, _, _)| gain > g) {
                    best = Some((gain, v, to));
                }
            }
        }
        let Some((_, v, to)) = best else { return };
        let w = f64::from(weights[v]);
        load[from] -= w;
        load[to] += w;
        part[v] = to as u32;
    }
}

/// No more vertices than parts: heaviest first, each on the part whose load relative to
/// its target stays lowest (ties to the lowest part).
fn greedy(weights: &[Idx], targets: &[usize]) -> Vec<u32> {
    let mut by_weight: Vec<usize> = (0..weights.len()).collect();
    by_weight.sort_by_key(|&i| (std::cmp::Reverse(weights[i]), i));
    let mut load = vec![0f64; targets.len()];
    let mut part = vec![0u32; weights.len()];
    for i in by_weight {
        let w = f64::from(weights[i]);
        let fill = |p: usize| (load[p] + w) / targets[p] as f64;
        let mut best = 0;
        for p in 1..targets.len() {
            if fill(p) < fill(best) {
                best = p;
            }
        }
        load[best] += w;
        part[i] = best as u32;
    }
    part
}

/// No edges: contiguous runs in the given order, each vertex in the part whose share
/// of the total weight holds the middle of the vertex's own weight.
fn contiguous(weights: &[Idx], targets: &[usize]) -> Vec<u32> {
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    let sum: usize = targets.iter().sum();
    let mut bounds = Vec::with_capacity(targets.len());
    let mut acc = 0usize;
    for &t in targets {
        acc += t;
        bounds.push(total * acc as f64 / sum as f64);
    }
    let mut part = Vec::with_capacity(weights.len());
    let (mut before, mut p) = (0f64, 0usize);
    for &w in weights {
        let middle = before + f64::from(w) / 2.0;
        while p + 1 < targets.len() && middle >= bounds[p] {
            p += 1;
        }
        part.push(p as u32);
        before += f64::from(w);
    }
    part
}

/// Weight of the edges cut between workers, squads and top-level domains.
#[derive(Default)]
struct Cut {
    workers: u64,
    squads: u64,
    domains: u64,
}

/// Each vertex's position in a breadth-first walk of its worker's induced subgraph, and
/// the cut, measured on the way: the walk reads every neighbour list once, and on a
/// large graph reading them is most of the work. A squad is a set of workers and a
/// domain a set of squads, so only an edge between workers can cut more.
fn walk(
    graph: &AffinityGraph,
    worker: &[u32],
    squad: &[u32],
    domain: &[u32],
    workers: usize,
) -> (Vec<u32>, Cut) {
    let n = graph.num_vertices();
    let (xadj, adjncy, adjwgt) = (graph.xadj(), graph.adjncy(), graph.adjwgt());
    let mut cut = Cut::default();
    let mut next = vec![0u32; workers];
    let mut order = vec![0u32; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::new();
    // Starting points in ascending index: each worker's walk restarts at its lowest
    // unreached task.
    for start in 0..n {
        if seen[start] {
            continue;
        }
        let w = worker[start];
        seen[start] = true;
        queue.push_back(start);
        while let Some(v) = queue.pop_front() {
            order[v] = next[w as usize];
            next[w as usize] += 1;
            for e in xadj[v]..xadj[v + 1] {
                let u = adjncy[e] as usize;
                if worker[u] == w {
                    if !seen[u] {
                        seen[u] = true;
                        queue.push_back(u);
                    }
                } else if u > v {
                    let weight = u64::from(adjwgt[e]);
                    cut.workers = cut.workers.saturating_add(weight);
                    if squad[u] != squad[v] {
                        cut.squads = cut.squads.saturating_add(weight);
                        if domain[u] != domain[v] {
                            cut.domains = cut.domains.saturating_add(weight);
                        }
                    }
                }
            }
        }
    }
    (order, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inducing_beside_metis_gives_what_inducing_in_turn_gives() {
        // Three levels: 2 packages of 2 L3 squads of 2 workers.
        let topology = locus_topo::Topology::parse_spec("pack:2 l3:2 core:2 pu:1").unwrap();
        let m = MachineDesc::new(&topology, 8).unwrap();
        let g = crate::synthetic::grid_graph(40, 40, |r, c| 1 + (r * c % 3) as u64);
        let options = PartitionOptions::default();
        let in_turn = Partition::compute_with(&g, &m, &options, usize::MAX).unwrap();
        let beside = Partition::compute_with(&g, &m, &options, 0).unwrap();
        assert_eq!(in_turn.stats().levels, 3);
        assert_eq!(in_turn.stats().metis_calls, 1 + 2 + 4);
        assert_eq!(in_turn, beside);
    }

    #[test]
    fn greedy_puts_the_heaviest_where_there_is_most_room() {
        assert_eq!(greedy(&[5, 1], &[1, 1, 1]), vec![0, 1]);
        assert_eq!(greedy(&[1, 5], &[1, 3]), vec![0, 1]);
    }

    #[test]
    fn rebalance_evens_out_what_metis_leaves_coarse() {
        // A path of 64 unit tasks, cut 5, 3, 4, 4, ...: the 5 gives one end away to the
        // 3 when they are neighbours; otherwise the lightest move still evens it out.
        let n = 64;
        let mut xadj = vec![0 as Idx];
        let mut adjncy = Vec::new();
        for v in 0..n {
            if v > 0 {
                adjncy.push((v - 1) as Idx);
            }
            if v + 1 < n {
                adjncy.push((v + 1) as Idx);
            }
            xadj.push(adjncy.len() as Idx);
        }
        let adjwgt = vec![1 as Idx; adjncy.len()];
        let weights = vec![1 as Idx; n];
        let graph = Csr {
            xadj: &xadj,
            adjncy: &adjncy,
            adjwgt: &adjwgt,
        };
        let mut sizes = [4usize; 16];
        (sizes[0], sizes[1]) = (5, 3);
        let mut part: Vec<u32> = sizes
            .iter()
            .enumerate()
            .flat_map(|(p, &c)| std::iter::repeat_n(p as u32, c))
            .collect();
        rebalance(&mut part, &weights, &[1; 16], 1.05, &graph);
        let mut count = [0; 16];
        part.iter().for_each(|&p| count[p as usize] += 1);
        assert_eq!(count, [4; 16]);
        assert_eq!(
            part[4], 1,
            "the boundary task moved, keeping parts contiguous"
        );
        // Within the limit already: nothing moves.
        let before = part.clone();
        rebalance(&mut part, &weights, &[1; 16], 1.05, &graph);
        assert_eq!(part, before);
    }

    #[test]
    fn contiguous_runs_balance_by_weight() {
        assert_eq!(contiguous(&[1; 8], &[1, 1]), vec![0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(contiguous(&[1; 8], &[1, 3]), vec![0, 0, 1, 1, 1, 1, 1, 1]);
        assert_eq!(
            contiguous(&[6, 1, 1, 1, 1, 1, 1], &[1, 1]),
            vec![0, 1, 1, 1, 1, 1, 1]
        );
    }
}
