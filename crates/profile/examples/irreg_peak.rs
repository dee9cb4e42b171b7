//! One profile run of the `graph` bench's IRREG input, phase by phase, with the time of
//! each phase and the process's peak resident memory at the end, for measuring what the
//! bench cannot: `cargo run --release -p locus-profile --example irreg_peak [NODES EDGES]`
//! (default 100000 400000), or under `/usr/bin/time -v` for a second opinion.

use std::time::Instant;

use locus_profile::synthetic::irregular_mesh;
use locus_profile::{
    AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Schedule,
};
use locus_topo::Topology;

/// `VmHWM` (peak resident set) from `/proc/self/status`, where there is one.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let (nodes, edges) = match args[..] {
        [] => (100_000, 400_000),
        [n, e] => (n, e),
        _ => return Err("usage: irreg_peak [NODES EDGES]".into()),
    };
    let machine = MachineDesc::new(&Topology::preset("opteron-8380").ok_or("preset")?, 16)?;

    let t = Instant::now();
    let profile = irregular_mesh(nodes, edges, 1, machine.clone())?;
    println!(
        "profile    {:>7.3} s  {} tasks, {} runs",
        t.elapsed().as_secs_f64(),
        profile.tasks().len(),
        profile.summary().runs
    );
    println!("  peak so far {}", peak_rss());

    let t = Instant::now();
    let graph = AffinityGraph::build(&profile, &GraphOptions::default())?;
    println!(
        "graph      {:>7.3} s  {} edges",
        t.elapsed().as_secs_f64(),
        graph.num_edges()
    );
    println!("  peak so far {}", peak_rss());

    let t = Instant::now();
    let partition = Partition::compute(&graph, &machine, &PartitionOptions::default())?;
    let st = partition.stats();
    println!(
        "partition  {:>7.3} s  edge cut {} of {}, imbalance {:.3}",
        t.elapsed().as_secs_f64(),
        st.edge_cut,
        st.total_edge_weight,
        st.imbalance
    );

    let t = Instant::now();
    let text = Schedule::new(&machine, profile.input(), &graph, &partition)?.to_json();
    println!(
        "schedule   {:>7.3} s  {} bytes",
        t.elapsed().as_secs_f64(),
        text.len()
    );
    println!("peak resident memory (VmHWM): {}", peak_rss());
    Ok(())
}
