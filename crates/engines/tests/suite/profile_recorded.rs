//! The profiler on recorded kernels: what it makes of a real task tree, and a schedule
//! file's round trip from one. (Moved here from `crates/profile/tests`, which no longer
//! depends on the kernels.)

use std::path::PathBuf;

use locus_kernels::{record, Kernel};
use locus_profile::schedule;
use locus_profile::{
    AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile, Schedule,
};
use locus_topo::Topology;

fn machine() -> MachineDesc {
    MachineDesc::new(&Topology::preset("opteron-8380").unwrap(), 16).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locus-schedule-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_program_without_declared_accesses_has_nothing_to_profile() {
    let params = Kernel::Fib.parse_size("10").unwrap();
    let w = record(&params).unwrap();
    let e = Profile::from_workload(&w, machine(), "fib 10", 4096)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no leaf task declares a memory access"), "{e}");
}

#[test]
fn a_recorded_heat_profiles_each_chunk_once_per_sweep() {
    let params = Kernel::Heat.parse_size("64x64,leaf=8,iters=3").unwrap();
    let w = record(&params).unwrap();
    let p = Profile::from_workload(&w, machine(), "heat", 4096).unwrap();
    assert!(p.tasks().len() >= 8, "{:?}", p.summary());
    assert!(
        p.tasks().iter().all(|t| t.instances() == 3),
        "same ids every sweep"
    );
    assert_eq!(p.summary().instances, 3 * p.tasks().len() as u64);
    assert!(p.tasks().iter().all(|t| t.work() > 0 && !t.truncated()));
    // A chunk of rows reads its rows and their halo and writes its rows: a few long
    // runs, not one per line.
    assert!(
        p.summary().runs <= 4 * p.tasks().len() as u64,
        "{:?}",
        p.summary()
    );
    assert!(
        p.summary().lines > 20 * p.summary().runs,
        "{:?}",
        p.summary()
    );
}

#[test]
fn a_recorded_kernel_round_trips_through_a_schedule_file() {
    let params = Kernel::Heat.parse_size("96x64,leaf=8,iters=2").unwrap();
    let input = locus_profile::input_identity("heat", &params.to_string(), &[]).unwrap();
    let workload = record(&params).unwrap();
    let topology = Topology::preset("opteron-8380").unwrap();
    let machine = MachineDesc::new(&topology, 16).unwrap();
    let profile = Profile::from_workload(&workload, machine.clone(), &input, 4096).unwrap();
    let graph = AffinityGraph::build(&profile, &GraphOptions::default()).unwrap();
    assert!(graph.num_edges() > 0, "neighbouring chunks share halo rows");
    let partition = Partition::compute(&graph, &machine, &PartitionOptions::default()).unwrap();
    let schedule = Schedule::new(&machine, &input, &graph, &partition).unwrap();

    let dir = scratch("round-trip");
    let path = dir.join("schedule.json");
    schedule.save(&path).unwrap();
    let loaded = schedule::load(&path, &machine, &input).unwrap();
    assert_eq!(loaded, schedule);
    let expected: Vec<_> = partition
        .placements()
        .map(|(v, s, w, o)| (graph.ids()[v], s, w, o))
        .collect();
    let got: Vec<_> = loaded.placements().collect();
    assert_eq!(got, expected);
    assert_eq!(loaded.summary().tasks, profile.tasks().len() as u64);
    assert_eq!(loaded.summary().edge_cut, partition.stats().edge_cut);
    assert!(
        !dir.join("schedule.json.tmp").exists(),
        "the temporary file is renamed"
    );

    // The same file for another pool, or another input, is refused.
    let fewer = MachineDesc::new(&topology, 8).unwrap();
    assert!(schedule::load(&path, &fewer, &input).is_err());
    assert!(schedule::load(&path, &machine, "heat 96x64,leaf=8,iters=3").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
