//! The affinity graph: the paper's Figure 5 example, DenseRatio's two ends against the
//! paper's simple pairwise algorithm (its Figure 3), weights on partly overlapping runs,
//! the edge limit, and the DOT and METIS writers.

// A task's lines are a list of ranges; a list of one range is meant.
#![allow(clippy::single_range_in_vec_init)]

use std::collections::BTreeSet;
use std::ops::Range;

use locus_policy::TaskId;
use locus_profile::{
    AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile, ProfileBuilder,
};
use locus_task::rng::SplitMix64;
use locus_topo::Topology;

fn machine() -> MachineDesc {
    MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 4).unwrap()
}

/// A profile of one instance per task, task `i` touching `lines[i]`, work 100 each.
fn profile(lines: &[Vec<Range<u64>>]) -> Profile {
    let mut b = ProfileBuilder::new(machine(), "test", 4096).unwrap();
    for (i, l) in lines.iter().enumerate() {
        b.add(TaskId(i as u64), 1, l.iter().cloned(), 100);
    }
    b.finish("test").unwrap()
}

fn graph(lines: &[Vec<Range<u64>>], dense_ratio: f64) -> AffinityGraph {
    let options = GraphOptions {
        dense_ratio,
        ..GraphOptions::default()
    };
    AffinityGraph::build(&profile(lines), &options).unwrap()
}

/// Every edge as `(a, b, weight)` with `a < b`.
fn edges(g: &AffinityGraph) -> Vec<(usize, usize, u64)> {
    (0..g.num_vertices())
        .flat_map(|v| {
            g.neighbours(v)
                .filter(move |&(u, _)| u as usize > v)
                .map(move |(u, w)| (v, u as usize, w))
        })
        .collect()
}

/// Lines of a 200 x 200 matrix of doubles (1,600-byte rows) starting at line `base`:
/// block (`bi`, `bj`) of 100 x 100, row-major, one range per row.
fn row_major_block(base: u64, bi: u64, bj: u64) -> Vec<Range<u64>> {
    (bi * 100..bi * 100 + 100)
        .map(|r| {
            let first = r * 1600 + bj * 800;
            let last = first + 799;
            base + first / 64..base + last / 64 + 1
        })
        .collect()
}

#[test]
fn figure_5_links_0_with_2_and_1_with_3() {
    // C = A x B with B's top-right and bottom-left blocks zero: T0 computes C11 =
    // A11 B11, T1 C12 = A12 B22, T2 C21 = A21 B11, T3 C22 = A22 B22. Each 100 x 100
    // block of doubles is stored contiguously (80,000 bytes, 1,250 lines); A, B and C
    // hold blocks 11, 12, 21, 22 in that order.
    let block = |matrix: u64, b: u64| {
        let start = matrix * 5000 + b * 1250;
        vec![start..start + 1250]
    };
    let (a, b, c) = (0, 1, 2);
    let task = |ab: u64, bb: u64, cb: u64| [block(a, ab), block(b, bb), block(c, cb)].concat();
    let lines = [task(0, 0, 0), task(1, 3, 1), task(2, 0, 2), task(3, 3, 3)];
    let g = graph(&lines, 0.9);
    assert_eq!(edges(&g), vec![(0, 2, 1250), (1, 3, 1250)]);

    // On the paper's Altix (two dual-processor nodes), 0 and 2 share a node.
    let m = machine();
    let p = Partition::compute(&g, &m, &PartitionOptions::default()).unwrap();
    assert_eq!(p.squad_of(0), p.squad_of(2));
    assert_eq!(p.squad_of(1), p.squad_of(3));
    assert_ne!(p.squad_of(0), p.squad_of(1));
    assert_eq!(
        p.stats().edge_cut,
        2500,
        "each pair splits over its node's two cores"
    );
    assert_eq!(p.stats().squad_cut, 0);
}

#[test]
fn figure_5_in_row_major_layout_adds_false_sharing_at_block_edges() {
    // With whole rows stored one after another, a row of a left block ends in the
    // middle of a line that the right block's row starts with: the left and right
    // threads share one line per row of A and of C (200 lines), far less than the 1,300
    // lines of B's block that 0 and 2 (and 1 and 3) read in common.
    let (a, b, c) = (0, 10_000, 20_000);
    let task = |ai, aj, bi, bj, ci, cj| {
        [
            row_major_block(a, ai, aj),
            row_major_block(b, bi, bj),
            row_major_block(c, ci, cj),
        ]
        .concat()
    };
    let lines = [
        task(0, 0, 0, 0, 0, 0),
        task(0, 1, 1, 1, 0, 1),
        task(1, 0, 0, 0, 1, 0),
        task(1, 1, 1, 1, 1, 1),
    ];
    let g = graph(&lines, 1.0);
    assert_eq!(
        edges(&g),
        vec![(0, 1, 200), (0, 2, 1300), (1, 3, 1300), (2, 3, 200)]
    );
    let p = Partition::compute(&g, &machine(), &PartitionOptions::default()).unwrap();
    assert_eq!(p.squad_of(0), p.squad_of(2), "the heavy edges still decide");
    assert_eq!(p.stats().squad_cut, 400);
}

/// The paper's Figure 3: compare every pair's line sets.
fn pairwise(lines: &[Vec<Range<u64>>]) -> Vec<(usize, usize, u64)> {
    let sets: Vec<BTreeSet<u64>> = lines
        .iter()
        .map(|l| l.iter().flat_map(|r| r.clone()).collect())
        .collect();
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let common = sets[i].intersection(&sets[j]).count() as u64;
            if common > 0 {
                out.push((i, j, common));
            }
        }
    }
    out
}

fn random_lines(rng: &mut SplitMix64, tasks: usize) -> Vec<Vec<Range<u64>>> {
    (0..tasks)
        .map(|_| {
            (0..1 + rng.below(4))
                .map(|_| {
                    let start = rng.below(300);
                    start..start + 1 + rng.below(25)
                })
                .collect()
        })
        .collect()
}

#[test]
fn dense_ratio_one_keeps_every_pair_that_shares_a_line_and_zero_none() {
    let mut rng = SplitMix64::new(42);
    for round in 0..20 {
        let lines = random_lines(&mut rng, 2 + round);
        let expected = pairwise(&lines);
        assert_eq!(edges(&graph(&lines, 1.0)), expected, "round {round}");
        let none = graph(&lines, 0.0);
        assert_eq!(none.num_edges(), 0, "round {round}");
        assert_eq!(none.num_vertices(), lines.len());
    }
}

#[test]
fn dense_ratio_drops_lines_shared_by_too_many_tasks() {
    // Five tasks read a global at line 0; tasks 0 and 1 also share line 10, tasks 1,
    // 2 and 3 line 20.
    let g = 0..1;
    let lines = vec![
        vec![g.clone(), 10..11],
        vec![g.clone(), 10..11, 20..21],
        vec![g.clone(), 20..21],
        vec![g.clone(), 20..21],
        vec![g.clone()],
    ];
    let all = graph(&lines, 1.0);
    assert_eq!(all.num_edges(), 10, "the global links everyone");
    assert_eq!(all.edge_weight(0, 1), Some(2));
    assert_eq!(all.edge_weight(1, 2), Some(2));
    // 0.9 x 5 = 4.5: the global's 5 tasks are too many.
    let sparse = graph(&lines, 0.9);
    assert_eq!(
        edges(&sparse),
        vec![(0, 1, 1), (1, 2, 1), (1, 3, 1), (2, 3, 1)]
    );
    assert_eq!(sparse.stats().dense_lines, 1);
    assert_eq!(sparse.stats().shared_lines, 2);
    // 0.4 x 5 = 2: only lines of two tasks remain.
    assert_eq!(edges(&graph(&lines, 0.4)), vec![(0, 1, 1)]);
    assert_eq!(graph(&lines, 0.0).num_edges(), 0);
}

#[test]
fn edge_weights_count_shared_lines_of_partly_overlapping_runs() {
    let lines = vec![
        vec![10..20, 30..35], // A
        vec![15..32],         // B
        vec![19..31],         // C
        vec![35..40, 0..10],  // D: touches A's runs end to end, shares nothing
    ];
    let g = graph(&lines, 1.0);
    assert_eq!(g.edge_weight(0, 1), Some(5 + 2), "15..20 and 30..32");
    assert_eq!(g.edge_weight(0, 2), Some(1 + 1), "19..20 and 30..31");
    assert_eq!(g.edge_weight(1, 2), Some(12), "19..31");
    assert_eq!(g.edge_weight(2, 1), Some(12), "both directions");
    assert_eq!(g.edge_weight(0, 3), None);
    assert_eq!(g.num_edges(), 3);
    assert_eq!(g.vwgt(), &[100, 100, 100, 100], "vertex weight = work");
}

#[test]
fn a_graph_past_the_edge_limit_is_refused_with_advice() {
    let lines: Vec<Vec<Range<u64>>> = (0..100).map(|i| vec![0..1, i + 1..i + 2]).collect();
    let options = GraphOptions {
        dense_ratio: 1.0,
        max_edges: 1000,
    };
    let e = AffinityGraph::build(&profile(&lines), &options)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("more than 1000 edges") && e.contains("--dense-ratio"),
        "{e}"
    );
    // The paper's remedy works: the global line is dropped.
    let options = GraphOptions {
        dense_ratio: 0.9,
        max_edges: 1000,
    };
    assert_eq!(
        AffinityGraph::build(&profile(&lines), &options)
            .unwrap()
            .num_edges(),
        0
    );
}

#[test]
fn options_out_of_range_are_refused() {
    let p = profile(&[vec![0..1], vec![0..1]]);
    for bad in [-0.1, 1.5, f64::NAN] {
        let options = GraphOptions {
            dense_ratio: bad,
            ..GraphOptions::default()
        };
        let e = AffinityGraph::build(&p, &options).unwrap_err().to_string();
        assert!(e.starts_with("dense ratio") && e.contains("0.0"), "{e}");
    }
    let options = GraphOptions {
        max_edges: 0,
        ..GraphOptions::default()
    };
    assert!(AffinityGraph::build(&p, &options).is_err());
}

#[test]
fn many_tasks_on_one_stretch_cost_segments_not_lines() {
    // 2,000 tasks over a shared array of 10^12 lines (as if each read the same huge
    // table) in overlapping windows: the sweep works per segment, so this is instant.
    let lines: Vec<Vec<Range<u64>>> = (0..2000u64)
        .map(|i| vec![i * 1_000_000_000..(i + 2) * 1_000_000_000])
        .collect();
    let g = graph(&lines, 0.9);
    assert_eq!(g.num_edges(), 1999);
    assert_eq!(g.edge_weight(7, 8), Some(1_000_000_000));
    // METIS still takes the weights, scaled.
    let w = g.metis_edge_weights();
    assert!(w.iter().all(|&x| x >= 1));
    assert!(w.iter().map(|&x| i64::from(x)).sum::<i64>() < i64::from(i32::MAX));
}

#[test]
fn an_edge_of_more_than_u32_max_lines_saturates() {
    // Two tasks over the same 5 * 10^9 lines (320 GB).
    let lines = vec![vec![0..5_000_000_000u64], vec![0..5_000_000_000u64]];
    let g = graph(&lines, 1.0);
    assert_eq!(g.edge_weight(0, 1), Some(u64::from(u32::MAX)));
    assert_eq!(g.stats().shared_lines, 5_000_000_000);
    // Scaled down to fit METIS's sums, both directions alike.
    let w = g.metis_edge_weights();
    assert_eq!(w[0], w[1]);
    assert!(w[0] > 1 << 27 && w.iter().sum::<i32>() <= 1 << 29, "{w:?}");
}

/// The METIS manual's Figure 2(c) graph (weights on vertices and edges), built by hand.
fn manual_graph() -> AffinityGraph {
    // 1-based in the manual: (u, v, weight).
    let list = [
        (1, 2, 1),
        (1, 3, 2),
        (1, 5, 1),
        (2, 3, 2),
        (2, 4, 1),
        (3, 4, 2),
        (3, 5, 3),
        (4, 6, 2),
        (4, 7, 5),
        (5, 6, 2),
        (6, 7, 6),
    ];
    let vwgt = vec![4, 2, 5, 3, 1, 6, 2];
    let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); 7];
    for &(u, v, w) in &list {
        adj[u - 1].push((v as u32 - 1, w));
        adj[v - 1].push((u as u32 - 1, w));
    }
    let mut xadj = vec![0];
    let (mut adjncy, mut adjwgt) = (Vec::new(), Vec::new());
    for l in &mut adj {
        l.sort_unstable();
        adjncy.extend(l.iter().map(|e| e.0));
        adjwgt.extend(l.iter().map(|e| e.1));
        xadj.push(adjncy.len());
    }
    AffinityGraph::from_csr((0..7).map(TaskId).collect(), xadj, adjncy, adjwgt, vwgt).unwrap()
}

#[test]
fn the_metis_file_is_what_the_manual_specifies() {
    // METIS 5 manual, Section 4.1.1: header "n m fmt" with m counting each edge once and
    // fmt 011 for vertex and edge weights; then line i holds vertex i's weight and its
    // neighbours (numbered from 1) each followed by the edge's weight. This is the
    // manual's Figure 2(c) file, neighbours listed in ascending order.
    let expected = "\
7 11 011
4 2 1 3 2 5 1
2 1 1 3 2 4 1
5 1 2 2 2 4 2 5 3
3 2 1 3 2 6 2 7 5
1 1 1 3 3 6 2
6 4 2 5 2 7 6
2 4 5 6 6
";
    let mut out = Vec::new();
    manual_graph().write_metis(&mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}

#[test]
fn the_dot_file_labels_tasks_and_edges() {
    let g = manual_graph();
    let mut out = Vec::new();
    g.write_dot(&mut out, None).unwrap();
    let dot = String::from_utf8(out).unwrap();
    assert!(dot.starts_with("graph affinity {"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
    assert!(
        dot.contains("t0 [label=\"0: 0000000000000000\\nwork 4\"];"),
        "{dot}"
    );
    assert!(dot.contains("t5 -- t6 [label=\"6\", weight=6];"), "{dot}");
    assert_eq!(dot.matches(" -- ").count(), 11, "each edge once");

    let m = MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 4).unwrap();
    let p = Partition::compute(&g, &m, &PartitionOptions::default()).unwrap();
    let mut out = Vec::new();
    g.write_dot(&mut out, Some(&p)).unwrap();
    let dot = String::from_utf8(out).unwrap();
    let w = p.worker_of(3);
    assert!(
        dot.contains(&format!(
            "t3 [label=\"3: 0000000000000003\\nwork 3\\nworker {w} (squad {}) #{}\"",
            p.squad_of(3),
            p.order_of(3)
        )),
        "{dot}"
    );
}

#[test]
fn malformed_csr_is_refused() {
    let ids = || (0..3).map(TaskId).collect::<Vec<_>>();
    /// `xadj`, `adjncy`, `adjwgt`, `vwgt`, and a word of the expected message.
    type Case = (Vec<usize>, Vec<u32>, Vec<u32>, Vec<u64>, &'static str);
    let cases: Vec<Case> = vec![
        (
            vec![0, 1, 2],
            vec![1, 0],
            vec![1, 1],
            vec![1; 3],
            "xadj entries",
        ),
        (
            vec![0, 1, 1, 2],
            vec![1, 0],
            vec![1, 1],
            vec![1; 3],
            "no twin",
        ),
        (
            vec![0, 1, 2, 2],
            vec![0, 0],
            vec![1, 1],
            vec![1; 3],
            "itself",
        ),
        (
            vec![0, 1, 2, 2],
            vec![5, 0],
            vec![1, 1],
            vec![1; 3],
            "out of range",
        ),
        (
            vec![0, 1, 2, 2],
            vec![1, 0],
            vec![2, 1],
            vec![1; 3],
            "no twin",
        ),
        (
            vec![0, 1, 2, 2],
            vec![1, 0],
            vec![0, 0],
            vec![1; 3],
            "weight 0",
        ),
        (
            vec![0, 2, 3, 4],
            vec![2, 1, 0, 0],
            vec![1; 4],
            vec![1; 3],
            "ascending",
        ),
        (
            vec![0, 1, 2, 3],
            vec![1, 0],
            vec![1, 1],
            vec![1; 3],
            "xadj ends",
        ),
        (vec![1, 1, 2, 2], vec![1], vec![1], vec![1; 3], "start at 0"),
    ];
    for (xadj, adjncy, adjwgt, vwgt, what) in cases {
        let e = AffinityGraph::from_csr(ids(), xadj.clone(), adjncy, adjwgt, vwgt)
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{xadj:?}: {e}");
    }
}
