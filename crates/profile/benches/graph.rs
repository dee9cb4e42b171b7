//! Guards the scale of the affinity graph and of the partition on the paper's largest
//! IRREG input (Song et al., Table 3: 40,000 nodes, 400,000 edges): a profile of 400,000
//! edge tasks over a random 2-D mesh of 100,000 nodes with near-neighbour edges in
//! shuffled order ([`locus_profile::synthetic::irregular_mesh`]), each task touching its
//! two nodes' lines and its own edge record's line.
//!
//! - `graph`: [`AffinityGraph::build`] with the default dense ratio (0.9);
//! - `partition`: [`Partition::compute`] of that graph onto `opteron-8380`'s 16 workers
//!   (4 NUMA nodes, then 4 workers each) with the default tolerance (1.05).
//!
//! Targets: the graph in under 10 s, the partition in under 10 s more, on this
//! project's 2-core machine. Each run takes about a second, so samples are flat and
//! few. The profile is built once, outside the timings. Peak memory is measured by the
//! `irreg_peak` example (`/usr/bin/time -v` or its own `VmHWM` line).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use locus_profile::synthetic::irregular_mesh;
use locus_profile::{AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions};
use locus_topo::Topology;

const NODES: usize = 100_000;
const EDGES: usize = 400_000;

fn irreg(c: &mut Criterion) {
    let topology = Topology::preset("opteron-8380").expect("preset");
    let machine = MachineDesc::new(&topology, 16).expect("16 workers");
    let profile = irregular_mesh(NODES, EDGES, 1, machine.clone()).expect("mesh profile");
    assert_eq!(profile.tasks().len(), EDGES);
    let options = GraphOptions::default();
    let graph = AffinityGraph::build(&profile, &options).expect("graph");
    let partition =
        Partition::compute(&graph, &machine, &PartitionOptions::default()).expect("partition");
    let st = partition.stats();
    eprintln!(
        "irreg: {} tasks, {} edges (total weight {}); on {machine}: edge cut {} ({:.1}%), \
         squad cut {}, imbalance {:.3}",
        graph.num_vertices(),
        graph.num_edges(),
        st.total_edge_weight,
        st.edge_cut,
        100.0 * st.edge_cut as f64 / st.total_edge_weight as f64,
        st.squad_cut,
        st.imbalance
    );

    let mut group = c.benchmark_group("irreg_400k");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(25));
    group.bench_function("graph", |b| {
        b.iter(|| AffinityGraph::build(black_box(&profile), &options).expect("graph"))
    });
    group.bench_function("partition", |b| {
        b.iter(|| {
            Partition::compute(black_box(&graph), &machine, &PartitionOptions::default())
                .expect("partition")
        })
    });
    group.finish();
}

criterion_group!(benches, irreg);
criterion_main!(benches);
