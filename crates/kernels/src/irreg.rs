//! `irreg`: the IRREG kernel of the affinity-graph paper (Song, Moore and Dongarra,
//! HPDC'07, Sections 4.4 and 5.5, Fig. 9; after Pingali et al.'s CFD kernel): an
//! iterative solver over an irregular mesh of `N` nodes and `E` edges that loops over
//! the edges, computing a flux between the two end points of each and accumulating it
//! into both, then updates every node.
//!
//! One iteration:
//!
//! 1. **Edges** (the main loop, chunks of `grain` edges): for edge `(a, b)`,
//!    `flux = x[b] - x[a]`, `y[a] += flux`, `y[b] -= flux` (Fig. 9 with `f` the
//!    difference). Chunks whose edges share end points update the same `y` entries, so
//!    `y` is one shared array of `AtomicU64` holding `f64` bits, updated by a
//!    compare-and-swap loop per entry ([`crate::spmv`]'s, Relaxed: the loop's end orders
//!    the updates before the node loop reads them).
//! 2. **Nodes** (a loop of chunks of `grain` nodes, in the second half of a join,
//!    `chunks::side_loop`, so its ids are its own): `x[i] += w[i] * y[i]`,
//!    `y[i] = 0`, with `w[i] = 1 / (deg(i) + 1)`. With this weight the update sets
//!    `x[i]` to the mean of itself and its neighbours (a convex combination: values stay
//!    within the initial range, and differences between two runs never grow).
//!
//! Meshes, each deterministic from the seed (the nodes' initial values are uniform in
//! `[0, 1)`):
//!
//! - `mesh=geometric` (the default): the nodes are uniform random points of the unit
//!   square, numbered in the row-major order of a `ceil(sqrt N)`-square grid of cells
//!   (nearby nodes have nearby numbers, as mesh generators number them); the edges are
//!   the `E` shortest distinct node pairs (ties broken by the node numbers), so every
//!   edge joins near neighbours; then the edge list is shuffled, so the loop's edge
//!   order follows nothing of the mesh's locality. This is "irregular" as the paper's
//!   meshes are: the data has spatial locality that only a schedule grouping the edges
//!   by their nodes can exploit.
//! - `mesh=uniform`: the paper's own generator (Section 5.5): each edge's end points are
//!   drawn uniformly from `0..N` (distinct from each other; an edge may repeat).
//!
//! Sizes: Table 3's three meshes are named `small` (400 nodes, 4,000 edges), `medium`
//! (4,000, 40,000) and `large` (40,000, 400,000); any other is `N:E`.
//!
//! Footprints, declared per chunk and iteration while a listener is installed: an edge
//! chunk reads its ranges of the two end-point arrays, reads `x` and writes `y` at the
//! runs of consecutive nodes its edges touch; a node chunk reads its weights and writes
//! its ranges of `x` and `y`. Work, declared with them: [`EDGE_WORK`] per edge and
//! [`NODE_WORK`] per node.
//!
//! Verification: the serial reference runs the same edge and node code in order. The
//! parallel edge loop adds into a node's `y` in an order the schedule decides, so the
//! result is checked within a bound. Per iteration, node `i`'s `y` sums `d = deg(i)`
//! fluxes, each at most `2S` in magnitude (`S` the largest initial `|x|`, which bounds
//! every later `|x|`); any summation order is within `gamma(d - 1) * 2dS` of the exact
//! sum (see [`crate::spmv`]), and the weighted update adds at most `2uS` of rounding,
//! `u = EPSILON / 2`; so one computed iteration lands within about
//! `(d + 1) * EPSILON * S` of the exact mean. The mean itself is non-expansive (a
//! convex combination), so two runs, each off by that much per iteration, differ after
//! `T` iterations by at most `2 T (d_max + 1) EPSILON S`; the check allows
//! `2 T (d_max + 2) EPSILON S` (terms in `u^2` dropped, covered by the extra `+1`).
//! Under [`crate::Serial`] the order is the reference's and the result is bitwise equal.

use std::sync::atomic::{AtomicU64, Ordering};

use locus::footprint::{is_listening, read_slice, work, write_slice};

use crate::chunks::{self, side_loop, Half, Parts};
use crate::exec::Executor;
use crate::prepared::{timed_run, Run};
use crate::rng::SplitMix64;
use crate::size::{self, Opts};
use crate::sparse::below;
use crate::spmv;
use crate::Outcome;

/// Instructions per edge, an estimate: two end-point loads, two value loads with their
/// bounds checks, the difference and its negation, two compare-and-swap loops, loop
/// control. This and the next are a fit of callgrind's counts under `Serial` over four
/// meshes (`medium`, `20000:40000`, `2000:100000,mesh=uniform`, `small`: 31.1 and 6.9);
/// the declared totals are within 1% of callgrind's on the first three and 4% on
/// `small`, whose 63 chunks an iteration add their own overhead.
pub const EDGE_WORK: u64 = 31;
/// Instructions per node of the update: load `y` and the weight, multiply, add into
/// `x`, clear `y`, loop control (fit: 6.9).
pub const NODE_WORK: u64 = 7;

/// Default seed of the mesh and the initial values.
const SEED: u64 = 0x0049_5252_4547; // "IRREG"
/// Table 3's meshes: name, nodes, edges.
const PRESETS: [(&str, usize, usize); 3] = [
    ("small", 400, 4_000),
    ("medium", 4_000, 40_000),
    ("large", 40_000, 400_000),
];
/// Most edges a mesh may have.
const MAX_EDGES: usize = 1 << 31;

/// How the mesh is generated (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MeshKind {
    /// Near-neighbour edges between points of the unit square, shuffled.
    Geometric,
    /// End points drawn uniformly (the paper's generator).
    Uniform,
}

impl MeshKind {
    fn name(self) -> &'static str {
        match self {
            MeshKind::Geometric => "geometric",
            MeshKind::Uniform => "uniform",
        }
    }
}

/// Instructions per node and per `log2(nodes)` of generating a geometric mesh (sorting
/// the points into cells, the grid of cells, the search for close pairs), an estimate
/// for [`crate::Params::estimate`]: guess from the time, `1000000:1000000` prepares in
/// 0.85 s here, about 2.5 * 10^9 instructions at 3 a nanosecond, of which this term
/// takes two thirds.
pub const GEOMETRIC_NODE_WORK: u64 = 100;
/// Instructions per edge and per `log2(edges)` of generating a geometric mesh (sorting
/// the candidate pairs by length, the shuffle), an estimate: the third left of the same
/// guess.
pub const GEOMETRIC_EDGE_WORK: u64 = 50;

/// Parameters of the irreg kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IrregParams {
    /// Nodes (at least 2).
    pub nodes: usize,
    /// Edges (at least 1, at most `nodes * (nodes - 1) / 2`).
    pub edges: usize,
    /// How the mesh is generated.
    pub mesh: MeshKind,
    /// Iterations (at least 0).
    pub iters: usize,
    /// Edges per edge chunk and nodes per node chunk (at least 1).
    pub grain: usize,
    /// Seed of the mesh and the initial values.
    pub seed: u64,
}

impl Default for IrregParams {
    fn default() -> Self {
        // Table 3's medium mesh.
        IrregParams {
            nodes: 4_000,
            edges: 40_000,
            mesh: MeshKind::Geometric,
            iters: 10,
            grain: 512,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for IrregParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match PRESETS
            .iter()
            .find(|&&(_, n, e)| (n, e) == (self.nodes, self.edges))
        {
            Some((name, _, _)) => f.write_str(name)?,
            None => write!(f, "{}:{}", self.nodes, self.edges)?,
        }
        if self.mesh != MeshKind::Geometric {
            write!(f, ",mesh={}", self.mesh.name())?;
        }
        write!(f, ",iters={},grain={}", self.iters, self.grain)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str = "MESH[,mesh=geometric|uniform][,iters=I][,grain=G][,seed=S] \
     with MESH small (400 nodes, 4000 edges), medium (4000, 40000), large (40000, 400000) \
     or NODES:EDGES (NODES >= 2, 1 <= EDGES <= NODES*(NODES-1)/2), G >= 1, e.g. \"medium\" \
     or \"4000:40000,mesh=uniform,iters=10,grain=512\"";

/// Parses the size string; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<IrregParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = IrregParams::default();
    if let Some(&(_, n, e)) = PRESETS
        .iter()
        .find(|(name, _, _)| name.eq_ignore_ascii_case(main))
    {
        (p.nodes, p.edges) = (n, e);
    } else {
        let Some((n, e)) = main.split_once(':') else {
            return Err(format!(
                "mesh {main:?} is neither small, medium, large nor NODES:EDGES"
            ));
        };
        p.nodes = size::number("NODES", n.trim())?;
        p.edges = size::number("EDGES", e.trim())?;
    }
    if p.nodes < 2 || p.nodes > u32::MAX as usize {
        return Err(format!("NODES = {} is outside 2..={}", p.nodes, u32::MAX));
    }
    let pairs = p.nodes as u128 * (p.nodes as u128 - 1) / 2;
    if p.edges == 0 || p.edges as u128 > pairs || p.edges > MAX_EDGES {
        return Err(format!(
            "EDGES = {} is outside 1..={} (the node pairs of {} nodes, at most {MAX_EDGES})",
            p.edges,
            pairs.min(MAX_EDGES as u128),
            p.nodes
        ));
    }
    let mut opts = Opts::new(opts, &["mesh", "iters", "grain", "seed"])?;
    if let Some(v) = opts.take("mesh") {
        p.mesh = match v {
            "geometric" => MeshKind::Geometric,
            "uniform" => MeshKind::Uniform,
            _ => return Err(format!("mesh={v:?} is neither geometric nor uniform")),
        };
    }
    if let Some(v) = opts.take("iters") {
        p.iters = size::iters(v)?;
    }
    if let Some(v) = opts.take("grain") {
        p.grain = size::number("grain", v)?;
        if p.grain == 0 {
            return Err("grain must be at least 1".to_owned());
        }
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// An irregular mesh: the end points of each edge, and each node's weight
/// `1 / (degree + 1)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    left: Vec<u32>,
    right: Vec<u32>,
    weight: Vec<f64>,
    max_degree: usize,
}

impl Mesh {
    /// The mesh of `p` (see the module doc).
    ///
    /// # Panics
    ///
    /// Panics if `p.nodes < 2`, or `p.edges` exceeds the node pairs
    /// `nodes * (nodes - 1) / 2` (parsed parameters never do).
    pub fn generate(p: &IrregParams) -> Mesh {
        assert!(p.nodes >= 2, "irreg: at least 2 nodes");
        assert!(
            p.edges as u128 <= p.nodes as u128 * (p.nodes as u128 - 1) / 2,
            "irreg: more edges than node pairs"
        );
        let mut rng = SplitMix64::new(p.seed);
        let pairs = match p.mesh {
            MeshKind::Geometric => geometric(&mut rng, p.nodes, p.edges),
            MeshKind::Uniform => (0..p.edges)
                .map(|_| {
                    let a = below(&mut rng, p.nodes);
                    let mut b = below(&mut rng, p.nodes - 1);
                    if b >= a {
                        b += 1;
                    }
                    (a as u32, b as u32)
                })
                .collect(),
        };
        Mesh::from_edges(p.nodes, &pairs)
    }

    /// The mesh of `nodes` nodes with these edges, in this order.
    ///
    /// # Panics
    ///
    /// Panics if an edge names a node `>= nodes`.
    pub fn from_edges(nodes: usize, edges: &[(u32, u32)]) -> Mesh {
        let mut degree = vec![0usize; nodes];
        for &(a, b) in edges {
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        Mesh {
            left: edges.iter().map(|e| e.0).collect(),
            right: edges.iter().map(|e| e.1).collect(),
            weight: degree.iter().map(|&d| 1.0 / (d as f64 + 1.0)).collect(),
            max_degree: degree.iter().copied().max().unwrap_or(0),
        }
    }

    /// Nodes.
    pub fn nodes(&self) -> usize {
        self.weight.len()
    }

    /// Edges.
    pub fn edges(&self) -> usize {
        self.left.len()
    }

    /// Edge `e`'s end points.
    pub fn edge(&self, e: usize) -> (u32, u32) {
        (self.left[e], self.right[e])
    }

    /// The largest number of edges at one node.
    pub fn max_degree(&self) -> usize {
        self.max_degree
    }
}

/// The `edges` shortest distinct pairs of `nodes` uniform random points of the unit
/// square, numbered in cell order, shuffled.
fn geometric(rng: &mut SplitMix64, nodes: usize, edges: usize) -> Vec<(u32, u32)> {
    // Points, then numbered along the rows of a `g x g` grid of cells.
    let pts: Vec<(f64, f64)> = (0..nodes)
        .map(|_| (rng.next_f64(), rng.next_f64()))
        .collect();
    let g = (nodes as f64).sqrt().ceil() as usize;
    let cell = |v: f64, m: usize| ((v * m as f64) as usize).min(m - 1);
    let mut order: Vec<usize> = (0..nodes).collect();
    order.sort_by(|&i, &j| {
        let key = |k: usize| (cell(pts[k].1, g), cell(pts[k].0, g));
        key(i)
            .cmp(&key(j))
            .then(pts[i].0.total_cmp(&pts[j].0))
            .then(i.cmp(&j))
    });
    let pts: Vec<(f64, f64)> = order.iter().map(|&k| pts[k]).collect();

    // Candidate pairs within radius r, from a grid of cells of side at least r; r grows
    // until there are enough (it reaches the whole square: E never exceeds the pairs).
    // The first r expects about 1.5 E pairs away from the square's edges.
    let mut r = (3.0 * edges as f64 / (std::f64::consts::PI * nodes as f64 * nodes as f64))
        .sqrt()
        .max(1e-9);
    let mut found: Vec<(f64, u32, u32)> = loop {
        let m = ((1.0 / r) as usize).clamp(1, g.max(1));
        let mut cells: Vec<Vec<u32>> = vec![Vec::new(); m * m];
        for (i, &(x, y)) in pts.iter().enumerate() {
            cells[cell(y, m) * m + cell(x, m)].push(i as u32);
        }
        let mut found = Vec::new();
        for (i, &(x, y)) in pts.iter().enumerate() {
            let (cx, cy) = (cell(x, m), cell(y, m));
            for ny in cy.saturating_sub(1)..(cy + 2).min(m) {
                for nx in cx.saturating_sub(1)..(cx + 2).min(m) {
                    for &j in &cells[ny * m + nx] {
                        if (j as usize) <= i {
                            continue;
                        }
                        let (qx, qy) = pts[j as usize];
                        let d2 = (qx - x) * (qx - x) + (qy - y) * (qy - y);
                        if d2 <= r * r {
                            found.push((d2, i as u32, j));
                        }
                    }
                }
            }
        }
        if found.len() >= edges || r >= 2.0 {
            break found;
        }
        r *= 1.5;
    };
    found.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    found.truncate(edges);
    let mut pairs: Vec<(u32, u32)> = found.into_iter().map(|(_, i, j)| (i, j)).collect();
    // Fisher-Yates.
    for k in (1..pairs.len()).rev() {
        let s = below(rng, k + 1);
        pairs.swap(k, s);
    }
    pairs
}

/// The nodes' initial values: uniform in `[0, 1)`, from the seed.
pub fn initial(p: &IrregParams) -> Vec<f64> {
    let mut rng = SplitMix64::new(p.seed ^ 0x5841_4C55_4553); // "XVALUES"
    (0..p.nodes).map(|_| rng.next_f64()).collect()
}

/// Runs `iters` iterations of the edge and node loops over `mesh`, from the node values
/// `x` (updated in place) with `y` the accumulators (all 0.0 on entry, and again on
/// return).
///
/// # Panics
///
/// Panics if `x` or `y` is not one entry per node, or `grain` is 0.
pub fn solve<E: Executor>(
    ex: &E,
    mesh: &Mesh,
    x: &mut [f64],
    y: &[AtomicU64],
    iters: usize,
    grain: usize,
) {
    assert!(grain >= 1, "irreg: grain must be at least 1");
    assert!(
        x.len() == mesh.nodes() && y.len() == mesh.nodes(),
        "irreg: node arrays do not match the mesh"
    );
    for _ in 0..iters {
        {
            let x: &[f64] = x;
            ex.for_range(0..mesh.edges(), grain, |edges| {
                let (left, right) = (&mesh.left[edges.clone()], &mesh.right[edges]);
                if is_listening() {
                    read_slice(left);
                    read_slice(right);
                    let mut touched: Vec<u32> = left.iter().chain(right).copied().collect();
                    let runs = chunks::runs(&mut touched);
                    chunks::read_runs(x, &runs);
                    chunks::write_runs(y, &runs);
                }
                work(left.len() as u64 * EDGE_WORK);
                for (&a, &b) in left.iter().zip(right) {
                    let flux = x[b as usize] - x[a as usize];
                    spmv::add(&y[a as usize], flux);
                    spmv::add(&y[b as usize], -flux);
                }
            });
        }
        let parts = Parts::even(x, grain);
        side_loop(ex, Half::Second, || {
            ex.for_range(0..mesh.nodes(), grain, |nodes| {
                let (_, xs) = parts.take(nodes.start / grain);
                let (w, ys) = (&mesh.weight[nodes.clone()], &y[nodes]);
                read_slice(w);
                write_slice(xs);
                write_slice(ys);
                work(xs.len() as u64 * NODE_WORK);
                for ((xi, wi), yi) in xs.iter_mut().zip(w).zip(ys) {
                    *xi += wi * f64::from_bits(yi.load(Ordering::Relaxed));
                    yi.store(0.0f64.to_bits(), Ordering::Relaxed);
                }
            });
        });
    }
}

/// The serial reference: the same edge and node code in order, declaring nothing.
pub fn reference(mesh: &Mesh, initial: &[f64], iters: usize) -> Vec<f64> {
    let mut x = initial.to_vec();
    let mut y = vec![0.0; mesh.nodes()];
    for _ in 0..iters {
        for (&a, &b) in mesh.left.iter().zip(&mesh.right) {
            let flux = x[b as usize] - x[a as usize];
            y[a as usize] += flux;
            y[b as usize] += -flux;
        }
        for ((xi, wi), yi) in x.iter_mut().zip(&mesh.weight).zip(&mut y) {
            *xi += wi * *yi;
            *yi = 0.0;
        }
    }
    x
}

/// The bound on how far a run may land from the reference (see the module doc).
pub fn tolerance(mesh: &Mesh, initial: &[f64], iters: usize) -> f64 {
    let s = initial.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    2.0 * iters as f64 * (mesh.max_degree() as f64 + 2.0) * f64::EPSILON * s
}

/// irreg's input, reference and result, for [`crate::Prepared`].
#[derive(Debug)]
pub(crate) struct IrregRun {
    p: IrregParams,
    mesh: Mesh,
    init: Vec<f64>,
    x: Vec<f64>,
    y: Vec<AtomicU64>,
    expected: Vec<f64>,
    bound: Vec<f64>,
    ran: bool,
}

impl IrregRun {
    /// Generates the mesh and the initial values, and computes the reference.
    pub(crate) fn new(p: &IrregParams) -> IrregRun {
        let mesh = Mesh::generate(p);
        let init = initial(p);
        let expected = reference(&mesh, &init, p.iters);
        let bound = vec![tolerance(&mesh, &init, p.iters); p.nodes];
        IrregRun {
            p: *p,
            x: init.clone(),
            y: spmv::zeros(p.nodes),
            mesh,
            init,
            expected,
            bound,
            ran: false,
        }
    }
}

impl Run for IrregRun {
    /// Restores the initial node values and clears the accumulators.
    fn reset(&mut self) {
        self.x.copy_from_slice(&self.init);
        for cell in &self.y {
            cell.store(0.0f64.to_bits(), Ordering::Relaxed);
        }
        self.ran = false;
    }

    fn execute<E: Executor>(&mut self, ex: &E) {
        let (mesh, x, y) = (&self.mesh, &mut self.x, &self.y);
        let (iters, grain) = (self.p.iters, self.p.grain);
        ex.install(|| solve(ex, mesh, x, y, iters, grain));
        self.ran = true;
    }

    fn verify(&self) -> Option<Outcome> {
        self.ran.then(|| {
            let what = format!(
                "irreg on a {} mesh of {} nodes and {} edges (largest degree {}), {} \
                 iterations, grain {}",
                self.p.mesh.name(),
                self.p.nodes,
                self.p.edges,
                self.mesh.max_degree(),
                self.p.iters,
                self.p.grain
            );
            spmv::compare(&what, &self.expected, Some(&self.bound), &self.x)
        })
    }
}

/// Runs the kernel on `ex` (inside its pool), timed, and checks it against the serial
/// reference within the bound of the module doc.
pub fn verify<E: Executor>(ex: &E, p: &IrregParams) -> Outcome {
    timed_run(IrregRun::new(p), ex)
}

/// Data bytes of the kernel: the two end-point arrays and `x`, `y` and the weights.
pub(crate) fn data_bytes(p: &IrregParams) -> u64 {
    (p.edges as u64).saturating_mul(8) + (p.nodes as u64).saturating_mul(24)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{Locus, Serial};

    fn small(mesh: MeshKind) -> IrregParams {
        IrregParams {
            nodes: 300,
            edges: 2000,
            mesh,
            iters: 4,
            grain: 37,
            seed: 11,
        }
    }

    #[test]
    fn geometric_meshes_join_near_neighbours_in_shuffled_order() {
        let p = small(MeshKind::Geometric);
        let m = Mesh::generate(&p);
        assert_eq!(m, Mesh::generate(&p), "deterministic");
        assert_eq!((m.nodes(), m.edges()), (300, 2000));
        let mut seen = std::collections::HashSet::new();
        for e in 0..m.edges() {
            let (a, b) = m.edge(e);
            assert!(a < b && (b as usize) < 300);
            assert!(seen.insert((a, b)), "edge ({a}, {b}) twice");
        }
        // Spatial numbering: most edges join nodes whose numbers are close (within two
        // rows of cells, about 2 sqrt(N)): 1916 of 2000 here, against 487 for the uniform
        // mesh (about a quarter, by chance).
        let near = |m: &Mesh| {
            (0..m.edges())
                .filter(|&e| {
                    let (a, b) = m.edge(e);
                    a.abs_diff(b) <= 40
                })
                .count()
        };
        let uniform = Mesh::generate(&small(MeshKind::Uniform));
        assert!(near(&m) > 1600, "{}", near(&m));
        assert!(near(&uniform) < 700, "{}", near(&uniform));
        // Shuffled: consecutive edges rarely share a node (28 of 1999 here).
        let sharing = (1..m.edges())
            .filter(|&e| {
                let (a, b) = m.edge(e - 1);
                let (c, d) = m.edge(e);
                a == c || a == d || b == c || b == d
            })
            .count();
        assert!(sharing < 200, "{sharing}");
    }

    #[test]
    fn uniform_meshes_have_distinct_end_points() {
        let m = Mesh::generate(&small(MeshKind::Uniform));
        assert_eq!(m, Mesh::generate(&small(MeshKind::Uniform)));
        assert!((0..m.edges()).all(|e| m.edge(e).0 != m.edge(e).1));
    }

    #[test]
    fn the_update_averages_neighbours() {
        // A path 0 - 1 - 2: node 1 becomes the mean of all three, the ends the mean of
        // themselves and node 1.
        let m = Mesh::from_edges(3, &[(0, 1), (1, 2)]);
        let x = reference(&m, &[0.0, 3.0, 6.0], 1);
        assert_eq!(x, [1.5, 3.0, 4.5]);
        let mut got = vec![0.0, 3.0, 6.0];
        let y = spmv::zeros(3);
        solve(&Serial, &m, &mut got, &y, 1, 1);
        assert_eq!(got, x);
        assert!(spmv::values(&y).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn verified_under_serial_and_locus_and_a_lost_edge_is_caught() {
        let ex = Locus::new(
            locus::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        );
        for kind in [MeshKind::Geometric, MeshKind::Uniform] {
            let p = small(kind);
            let serial = verify(&Serial, &p);
            assert!(
                serial.verified && serial.detail.contains("bitwise"),
                "{serial}"
            );
            let outcome = verify(&ex, &p);
            assert!(outcome.verified, "{outcome}");
        }
        // The bound is tight enough to see one edge left out of one iteration.
        let p = small(MeshKind::Geometric);
        let mesh = Mesh::generate(&p);
        let init = initial(&p);
        let expected = reference(&mesh, &init, p.iters);
        let pairs: Vec<(u32, u32)> = (1..mesh.edges()).map(|e| mesh.edge(e)).collect();
        let mut lost = Mesh::from_edges(p.nodes, &pairs);
        lost.weight.clone_from(&mesh.weight);
        let got = reference(&lost, &init, p.iters);
        let bound = vec![tolerance(&mesh, &init, p.iters); p.nodes];
        assert!(!spmv::compare("irreg", &expected, Some(&bound), &got).verified);
    }

    #[test]
    fn sizes_parse_and_print() {
        let p = parse("medium").unwrap();
        assert_eq!(p, IrregParams::default());
        assert_eq!(p.to_string(), "medium,iters=10,grain=512");
        let q = parse("LARGE,mesh=uniform,iters=2").unwrap();
        assert_eq!(
            (q.nodes, q.edges, q.mesh),
            (40_000, 400_000, MeshKind::Uniform)
        );
        assert_eq!(parse(&q.to_string()).unwrap(), q);
        let r = parse("10:45,grain=3,seed=4").unwrap();
        assert_eq!(parse(&r.to_string()).unwrap(), r);
        for (s, why) in [
            ("huge", "neither"),
            ("1:0", "NODES = 1"),
            ("10:46", "EDGES = 46"),
            ("10:0", "EDGES = 0"),
            ("10:x", "EDGES"),
            ("small,mesh=grid", "mesh="),
            ("small,grain=0", "grain"),
        ] {
            let e = parse(s).unwrap_err();
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
