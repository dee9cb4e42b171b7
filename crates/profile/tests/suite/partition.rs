//! The hierarchical partition: parts follow the machine, balance, cut quality, the BFS
//! order, and the cases METIS is not asked about.

use locus_policy::TaskId;
use locus_profile::synthetic::grid_graph;
use locus_profile::{AffinityGraph, MachineDesc, Partition, PartitionOptions};
use locus_task::rng::SplitMix64;
use locus_topo::Topology;

fn machine(spec: &str, workers: usize) -> MachineDesc {
    MachineDesc::new(&Topology::parse_spec(spec).unwrap(), workers).unwrap()
}

fn compute(g: &AffinityGraph, m: &MachineDesc) -> Partition {
    Partition::compute(g, m, &PartitionOptions::default()).unwrap()
}

/// Weight per worker and per squad.
fn loads(g: &AffinityGraph, p: &Partition, m: &MachineDesc) -> (Vec<u64>, Vec<u64>) {
    let mut workers = vec![0; m.num_workers()];
    let mut squads = vec![0; m.num_squads()];
    for v in 0..g.num_vertices() {
        workers[p.worker_of(v)] += g.vwgt()[v].max(1);
        squads[p.squad_of(v)] += g.vwgt()[v].max(1);
    }
    (workers, squads)
}

/// Every worker's orders are exactly 0..its task count.
fn assert_orders_are_permutations(p: &Partition, workers: usize) {
    for w in 0..workers {
        let mut orders: Vec<u32> = (0..p.len())
            .filter(|&v| p.worker_of(v) == w)
            .map(|v| p.order_of(v))
            .collect();
        orders.sort_unstable();
        assert!(
            orders.iter().enumerate().all(|(i, &o)| i as u32 == o),
            "worker {w}: {orders:?}"
        );
    }
}

#[test]
fn opteron_parts_are_four_numa_nodes_of_one_squad_of_four_workers() {
    let m = machine("opteron-8380", 16);
    let g = grid_graph(64, 64, |_, _| 10);
    let p = compute(&g, &m);
    let (workers, squads) = loads(&g, &p, &m);
    for v in 0..g.num_vertices() {
        assert_eq!(
            m.squad_of(p.worker_of(v)),
            Some(p.squad_of(v)),
            "vertex {v}"
        );
    }
    let total: u64 = workers.iter().sum();
    for (s, &load) in squads.iter().enumerate() {
        assert!(
            (load as f64) < total as f64 / 4.0 * 1.05,
            "squad {s}: {squads:?}"
        );
    }
    assert!(workers.iter().all(|&l| l > 0), "{workers:?}");
    let st = p.stats();
    assert_eq!(
        st.levels, 2,
        "NUMA nodes, then workers (one squad per node)"
    );
    assert_eq!(st.ufactor, 24, "1.05^(1/2) = 1.0247 per level");
    assert_eq!(st.metis_calls, 1 + 4, "the nodes, then each node's workers");
    assert!(st.imbalance <= 1.05 + 1e-9, "{st:?}");
    assert_eq!(st.domain_cut, st.squad_cut, "one squad per NUMA node");
    assert!(st.squad_cut <= st.edge_cut && st.edge_cut <= st.total_edge_weight);
    assert_orders_are_permutations(&p, 16);
}

#[test]
fn altix_parts_are_two_nodes_of_two_workers() {
    let m = machine("altix-2x2", 4);
    assert_eq!(m.squad_sizes(), vec![2, 2]);
    let g = grid_graph(40, 40, |r, _| 1 + r as u64 % 3);
    let p = compute(&g, &m);
    let (workers, squads) = loads(&g, &p, &m);
    for v in 0..g.num_vertices() {
        let w = p.worker_of(v);
        assert_eq!(
            p.squad_of(v),
            w / 2,
            "workers 0, 1 in squad 0; 2, 3 in squad 1"
        );
    }
    let total: u64 = workers.iter().sum();
    assert!(
        squads
            .iter()
            .all(|&s| (s as f64) < total as f64 / 2.0 * 1.03),
        "{squads:?}"
    );
    assert!(p.stats().imbalance <= 1.05 + 1e-9, "{:?}", p.stats());
    assert_orders_are_permutations(&p, 4);
}

#[test]
fn a_one_squad_machine_splits_once_with_the_whole_tolerance() {
    let m = machine("1x4", 4);
    assert_eq!(m.num_squads(), 1);
    let g = grid_graph(30, 30, |_, _| 1);
    let p = compute(&g, &m);
    let st = p.stats();
    assert_eq!((st.levels, st.ufactor, st.metis_calls), (1, 50, 1));
    assert_eq!(st.squad_cut, 0);
    assert!(st.imbalance <= 1.05 + 1e-9, "{st:?}");
    assert_orders_are_permutations(&p, 4);
}

#[test]
fn squads_of_unequal_size_get_work_in_proportion() {
    // Six workers on the Opteron: 4 in squad 0 (package 0), 2 in squad 1.
    let m = machine("opteron-8380", 6);
    assert_eq!(m.squad_sizes(), vec![4, 2]);
    let g = grid_graph(60, 60, |_, _| 1);
    let p = compute(&g, &m);
    let (workers, squads) = loads(&g, &p, &m);
    let share = squads[0] as f64 / (squads[0] + squads[1]) as f64;
    assert!((share - 4.0 / 6.0).abs() < 0.03, "{squads:?}");
    assert!(p.stats().imbalance <= 1.05 + 1e-9, "{workers:?}");
}

#[test]
fn balance_stays_within_the_tolerance_on_a_weighted_grid() {
    let m = machine("opteron-8380", 16);
    let g = grid_graph(100, 100, |r, c| 1 + ((r * 7 + c * 13) % 11) as u64 * 10);
    for tolerance in [1.03, 1.05, 1.2] {
        let options = PartitionOptions {
            tolerance,
            ..PartitionOptions::default()
        };
        let p = Partition::compute(&g, &m, &options).unwrap();
        let (workers, _) = loads(&g, &p, &m);
        let mean = workers.iter().sum::<u64>() as f64 / 16.0;
        let worst = *workers.iter().max().unwrap() as f64 / mean;
        assert!(
            worst <= tolerance + 1e-9,
            "tolerance {tolerance}: {worst} {workers:?}"
        );
        assert!((p.stats().imbalance - worst).abs() < 1e-9);
    }
}

#[test]
fn a_grid_partition_cuts_far_fewer_edges_than_a_random_assignment() {
    let m = machine("opteron-8380", 16);
    let g = grid_graph(100, 100, |_, _| 1);
    let p = compute(&g, &m);
    let mut rng = SplitMix64::new(3);
    let random: Vec<usize> = (0..g.num_vertices())
        .map(|_| rng.below(16) as usize)
        .collect();
    let r = Partition::from_workers(&g, &m, &random).unwrap();
    let (cut, random_cut) = (p.stats().edge_cut, r.stats().edge_cut);
    // 16 compact regions of a 100 x 100 grid have boundaries of a few hundred edges; a
    // random assignment cuts 15 of every 16 of the 19,800 edges.
    assert!(cut * 10 < random_cut, "{cut} vs random {random_cut}");
    assert!(cut < 1500, "{cut}");
    assert!(
        p.stats().squad_cut * 2 < cut,
        "most cut edges stay inside a socket"
    );
}

#[test]
fn the_order_is_a_breadth_first_walk_restarted_per_component() {
    // Edges 0-4, 4-1, 1-5 and 2-3; everything on worker 0 except 5. Neighbours per
    // vertex, ascending: 0: [4], 1: [4, 5], 2: [3], 3: [2], 4: [0, 1], 5: [1].
    let xadj = vec![0, 1, 3, 4, 5, 7, 8];
    let adjncy = vec![4, 4, 5, 3, 2, 0, 1, 1];
    let g = AffinityGraph::from_csr(
        (0..6).map(TaskId).collect(),
        xadj,
        adjncy,
        vec![1; 8],
        vec![1; 6],
    )
    .unwrap();
    let m = machine("1x2", 2);
    let p = Partition::from_workers(&g, &m, &[0, 0, 0, 0, 0, 1]).unwrap();
    let orders: Vec<u32> = (0..6).map(|v| p.order_of(v)).collect();
    // Worker 0: from 0, then 4, then 1 (5 is another worker's); restart at 2, then 3.
    assert_eq!(orders, vec![0, 2, 3, 4, 1, 0]);
    assert_eq!(p.worker_tasks(0), vec![0, 4, 1, 2, 3]);
    assert_eq!(p.stats().edge_cut, 1, "edge 1-5");
}

#[test]
fn bfs_orders_are_permutations_on_a_scattered_assignment() {
    let m = machine("opteron-8380", 16);
    let g = grid_graph(37, 23, |_, _| 1);
    let mut rng = SplitMix64::new(5);
    let random: Vec<usize> = (0..g.num_vertices())
        .map(|_| rng.below(16) as usize)
        .collect();
    let p = Partition::from_workers(&g, &m, &random).unwrap();
    assert_orders_are_permutations(&p, 16);
    let placed: usize = (0..16).map(|w| p.worker_tasks(w).len()).sum();
    assert_eq!(placed, g.num_vertices());
}

#[test]
fn one_worker_takes_everything_without_metis() {
    let m = machine("1x1", 1);
    let g = grid_graph(5, 5, |_, _| 1);
    let p = compute(&g, &m);
    assert!((0..25).all(|v| p.worker_of(v) == 0));
    assert_eq!(
        (p.stats().levels, p.stats().metis_calls, p.stats().edge_cut),
        (0, 0, 0)
    );
    assert_orders_are_permutations(&p, 1);
}

#[test]
fn fewer_tasks_than_workers_get_a_worker_each() {
    let m = machine("opteron-8380", 16);
    let g = grid_graph(1, 3, |_, c| [5, 9, 1][c]);
    let p = compute(&g, &m);
    let mut workers: Vec<usize> = (0..3).map(|v| p.worker_of(v)).collect();
    workers.sort_unstable();
    workers.dedup();
    assert_eq!(workers.len(), 3, "{workers:?}");
    assert_eq!(p.stats().metis_calls, 0);
    assert_eq!(p.stats().max_worker_weight, 9);
}

#[test]
fn tasks_sharing_nothing_are_split_into_contiguous_balanced_runs() {
    let g = AffinityGraph::from_csr(
        (0..8).map(TaskId).collect(),
        vec![0; 9],
        vec![],
        vec![],
        vec![3, 1, 1, 1, 1, 1, 1, 3],
    )
    .unwrap();
    let m = machine("1x4", 4);
    let p = compute(&g, &m);
    let workers: Vec<usize> = (0..8).map(|v| p.worker_of(v)).collect();
    assert_eq!(workers, vec![0, 1, 1, 1, 2, 2, 2, 3], "3 of 12 each");
    assert_eq!(p.stats().metis_calls, 0);
}

#[test]
fn tasks_without_work_are_balanced_by_count() {
    let m = machine("altix-2x2", 4);
    let g = grid_graph(20, 20, |_, _| 0);
    let p = compute(&g, &m);
    let mut count = [0usize; 4];
    for v in 0..400 {
        count[p.worker_of(v)] += 1;
    }
    assert!(count.iter().all(|&c| (95..=105).contains(&c)), "{count:?}");
    assert_eq!(p.stats().total_weight, 400);
}

#[test]
fn the_same_input_gives_the_same_partition() {
    let m = machine("opteron-8380", 16);
    let g = grid_graph(50, 50, |r, c| 1 + (r ^ c) as u64 % 5);
    assert_eq!(compute(&g, &m), compute(&g, &m));
}

#[test]
fn bad_tolerances_and_assignments_are_refused() {
    let m = machine("altix-2x2", 4);
    let g = grid_graph(4, 4, |_, _| 1);
    for t in [1.0, 0.5, 11.0, f64::NAN] {
        let options = PartitionOptions {
            tolerance: t,
            ..PartitionOptions::default()
        };
        let e = Partition::compute(&g, &m, &options)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("tolerance") && e.contains("above 1.0"), "{e}");
    }
    let e = Partition::from_workers(&g, &m, &[4; 16])
        .unwrap_err()
        .to_string();
    assert!(e.contains("worker 4") && e.contains("4 workers"), "{e}");
    let e = Partition::from_workers(&g, &m, &[0; 3])
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 workers given for 16 tasks"), "{e}");
    let empty = AffinityGraph::from_csr(vec![], vec![0], vec![], vec![], vec![]).unwrap();
    let e = Partition::compute(&empty, &m, &PartitionOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no task"), "{e}");
}
