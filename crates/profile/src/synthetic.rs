//! Generated inputs for tests and benchmarks: an IRREG-style mesh profile (the paper's
//! Section 4.4 kernel, one task per mesh edge) and weighted grid graphs.
//!
//! Everything is deterministic for a given seed (`locus_task::rng::SplitMix64`), so a test or
//! a benchmark sees the same input on every run.

use std::ops::Range;

use locus_policy::TaskId;
use locus_task::rng::SplitMix64;

use crate::error::ProfileError;
use crate::graph::AffinityGraph;
use crate::machine::MachineDesc;
use crate::profile::{Profile, ProfileBuilder, DEFAULT_CAP};

/// Bytes of one mesh node's record (position, value, force: one cache line).
pub const NODE_BYTES: u64 = 64;
/// Bytes of one mesh edge's record (its two end points as 64-bit indices).
pub const EDGE_BYTES: u64 = 16;
/// Instructions of one edge task (a force computation and two updates). A guess.
pub const EDGE_WORK: u64 = 40;

/// The edges of a random 2-D mesh: `nodes` points uniform in the unit square, numbered
/// in row-major order of a grid of cells (so that nearby nodes have nearby numbers, as
/// mesh generators number them), each linked to its nearest neighbours until there are
/// `edges` distinct edges (or every node has 12 links), in shuffled order.
pub fn mesh_edges(nodes: usize, edges: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut rng = SplitMix64::new(seed);
    if nodes < 2 {
        return Vec::new();
    }
    let side = (nodes as f64).sqrt().ceil() as usize;
    let mut points: Vec<(usize, f64, f64)> = (0..nodes)
        .map(|_| {
            let (x, y) = (rng.next_f64(), rng.next_f64());
            let cell = ((y * side as f64) as usize).min(side - 1) * side
                + ((x * side as f64) as usize).min(side - 1);
            (cell, x, y)
        })
        .collect();
    points.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut first = vec![0usize; side * side + 1];
    for p in &points {
        first[p.0 + 1] += 1;
    }
    for c in 0..side * side {
        first[c + 1] += first[c];
    }
    // The k nearest candidates among the 5 x 5 cells around each node.
    let links = (2 * edges).div_ceil(nodes).clamp(1, 12) + 2;
    let mut all: Vec<(u32, u32)> = Vec::with_capacity(nodes * links);
    let mut near: Vec<(f64, u32)> = Vec::new();
    for (i, &(cell, x, y)) in points.iter().enumerate() {
        let (cy, cx) = ((cell / side) as isize, (cell % side) as isize);
        near.clear();
        for dy in -2..=2 {
            for dx in -2..=2 {
                let (ny, nx) = (cy + dy, cx + dx);
                if ny < 0 || nx < 0 || ny >= side as isize || nx >= side as isize {
                    continue;
                }
                let c = ny as usize * side + nx as usize;
                for (j, &(_, px, py)) in (first[c]..).zip(&points[first[c]..first[c + 1]]) {
                    if j != i {
                        near.push(((px - x).powi(2) + (py - y).powi(2), j as u32));
                    }
                }
            }
        }
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, j) in near.iter().take(links) {
            let i = i as u32;
            all.push((i.min(j), i.max(j)));
        }
    }
    all.sort_unstable();
    all.dedup();
    rng.shuffle(&mut all);
    all.truncate(edges);
    all
}

/// The profile of an IRREG sweep over [`mesh_edges`]`(nodes, edges, seed)`: one task per
/// edge (the chunks of a `for_range` with grain 1, ids `root.child(2 + i)`), touching the
/// lines of its two nodes' records and of its own edge record. Node records
/// ([`NODE_BYTES`]) lie from address 0, edge records ([`EDGE_BYTES`], in the shuffled
/// order of the edges, so four consecutive tasks share one line) right after them.
///
/// # Errors
/// If the mesh has no edge (fewer than two nodes, or `edges` zero).
pub fn irregular_mesh(
    nodes: usize,
    edges: usize,
    seed: u64,
    machine: MachineDesc,
) -> Result<Profile, ProfileError> {
    let mesh = mesh_edges(nodes, edges, seed);
    let name = format!(
        "irreg-mesh {nodes} nodes, {} edges, seed {seed}",
        mesh.len()
    );
    let mut builder = ProfileBuilder::new(machine, &name, DEFAULT_CAP)?;
    let root = TaskId(0x1aff_1a17_0000_0000 ^ seed);
    let node_line = |n: u32| u64::from(n) * NODE_BYTES / crate::LINE_SIZE;
    let edge_base = nodes as u64 * NODE_BYTES;
    for (i, &(a, b)) in mesh.iter().enumerate() {
        let record = (edge_base + i as u64 * EDGE_BYTES) / crate::LINE_SIZE;
        let lines: [Range<u64>; 3] = [
            node_line(a)..node_line(a) + 1,
            node_line(b)..node_line(b) + 1,
            record..record + 1,
        ];
        builder.add(root.child(2 + i as u32), 1, lines, EDGE_WORK);
    }
    builder.finish(&name)
}

/// A `rows` x `cols` grid graph (4-neighbour), vertex `r * cols + c` of weight
/// `weight(r, c)`, every edge of weight 1, task ids `TaskId(v)`.
pub fn grid_graph(rows: usize, cols: usize, weight: impl Fn(usize, usize) -> u64) -> AffinityGraph {
    let n = rows * cols;
    let mut xadj = Vec::with_capacity(n + 1);
    let mut adjncy = Vec::with_capacity(4 * n);
    let mut vwgt = Vec::with_capacity(n);
    xadj.push(0);
    for r in 0..rows {
        for c in 0..cols {
            let v = r * cols + c;
            // Ascending: up, left, right, down.
            if r > 0 {
                adjncy.push((v - cols) as u32);
            }
            if c > 0 {
                adjncy.push((v - 1) as u32);
            }
            if c + 1 < cols {
                adjncy.push((v + 1) as u32);
            }
            if r + 1 < rows {
                adjncy.push((v + cols) as u32);
            }
            xadj.push(adjncy.len());
            vwgt.push(weight(r, c));
        }
    }
    let adjwgt = vec![1; adjncy.len()];
    let ids = (0..n as u64).map(TaskId).collect();
    // A grid built here is well formed by construction.
    AffinityGraph::from_csr(ids, xadj, adjncy, adjwgt, vwgt)
        .unwrap_or_else(|e| unreachable!("grid graph: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_edges_are_distinct_local_and_as_many_as_asked() {
        let e = mesh_edges(2000, 8000, 7);
        assert_eq!(e.len(), 8000);
        let mut sorted = e.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), e.len(), "no edge twice");
        assert!(e.iter().all(|&(a, b)| a < b && (b as usize) < 2000));
        // Near neighbours have near numbers: most links stay within a few grid rows
        // (a row of cells holds about 45 nodes).
        let near = e.iter().filter(|&&(a, b)| b - a < 200).count();
        assert!(near * 10 > e.len() * 9, "{near} of {}", e.len());
        assert_eq!(e, mesh_edges(2000, 8000, 7), "deterministic");
        assert_ne!(e, mesh_edges(2000, 8000, 8));
    }
}
