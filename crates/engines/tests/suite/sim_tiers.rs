//! The bi-tier policies on a machine whose packages hold several squads (chiplets), in
//! the simulator: the profiled iteration's top dealt to squads and stolen own package
//! first, and the N-tier first homes of `cats` and `cab`, keep each package's data in
//! it.

use locus_kernels::{record, Kernel};
use locus_policy::{CabInputs, PolicyKind};
use locus_sim::engine::{simulate, SimConfig, SimResult};
use locus_topo::Topology;

/// Two packages of four 1 MiB L3 domains, two cores each: the layout of a two-socket
/// chiplet machine, small enough for a debug build.
const CHIPLETS: &str = "pack:2 l3:4(size=1MiB) core:2 pu:1";

fn run(machine: &Topology, kind: &PolicyKind, seed: u64) -> SimResult {
    // 768 x 512 doubles in two arrays: 6 MiB, more than one package's 4 MiB of L3 and
    // less than the machine's 8 MiB.
    let params = Kernel::Heat
        .parse_size("768x512,leaf=8,iters=4")
        .expect("size");
    let workload = record(&params).expect("record");
    let mut config = SimConfig::for_machine(machine);
    config.seed = seed;
    simulate(&workload, machine, kind.clone(), &config).expect("simulate")
}

/// `locus sim heat --size 768x512,leaf=8,iters=4 --machine 'pack:2 l3:4(size=1MiB) core:2
/// pu:1' --policy ws,cats,cab --seed S`, seeds 1-3: cats and cab moved 0.33-0.36 of ws's
/// interconnect bytes with a profile stolen at random and first homes dealt over all
/// squads, and 0.004-0.026 with the N-tier profile and homes, in 0.77-0.79 of ws's time
/// (0.82-0.87 before).
#[test]
fn n_tier_homes_keep_each_packages_data_in_it() {
    let machine = Topology::from_synthetic(CHIPLETS).expect("topology");
    for seed in 1..=3 {
        let ws = run(&machine, &PolicyKind::Ws, seed);
        for kind in [
            PolicyKind::Cats {
                cmpi_threshold: None,
            },
            PolicyKind::Cab(CabInputs::Auto),
        ] {
            let r = run(&machine, &kind, seed);
            let bytes = r.total.interconnect_bytes as f64 / ws.total.interconnect_bytes as f64;
            assert!(
                bytes < 0.1,
                "{kind} seed {seed}: {bytes:.2} of ws's interconnect bytes"
            );
            assert!(
                r.makespan < ws.makespan,
                "{kind} seed {seed}: makespan {} against ws's {}",
                r.makespan,
                ws.makespan
            );
            assert!(
                r.explain.contains("N-tier"),
                "{kind}: the explanation names the N-tier homes\n{}",
                r.explain
            );
        }
    }
}
