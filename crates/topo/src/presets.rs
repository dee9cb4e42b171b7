//! Built-in machines, written as hwloc synthetic strings and built by the same
//! parser as user strings (there is no second code path).
//!
//! | name | machine | shape | caches | source |
//! | --- | --- | --- | --- | --- |
//! | `opteron-8380` | 4 x AMD Opteron 8380 "Shanghai" | 4 packages x 4 cores x 1 PU, 4 NUMA nodes (one per package) | L1d 64 KiB 2-way, L1i 64 KiB 2-way, private L2 512 KiB 16-way, shared L3 6 MiB 48-way per package | CATS and CAB papers (§ evaluation: "512K L2 cache for each core and a 6M L3 cache shared by all four cores"); AMD Family 10h BKDG for L1/associativity |
//! | `xeon-x7550` | 4 x Intel Xeon X7550 "Nehalem-EX" | 4 x 8 cores x 1 PU (Hyper-Threading off, as the Qthreads/MTS paper ran it), 4 NUMA nodes | L1d 32 KiB 8-way, L1i 32 KiB 4-way, L2 256 KiB 8-way, L3 18 MiB 24-way | MTS paper (§ test system); Intel ARK |
//! | `xeon-e5-2660v2` | 2 x Intel Xeon E5-2660 v2 "Ivy Bridge-EP" | 2 x 10 cores x 2 PUs, 2 NUMA nodes | L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 256 KiB 8-way, L3 25 MiB 20-way | SAM paper ("40-CPU IvyBridge"); Intel ARK |
//! | `xeon-e7-4820v3` | 4 x Intel Xeon E7-4820 v3 "Haswell-EX" | 4 x 10 cores x 2 PUs, 4 NUMA nodes | L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 256 KiB 8-way, L3 25 MiB 20-way | SAM paper; Intel ARK |
//! | `epyc-7763-2s` | 2 x AMD EPYC 7763 "Milan" (NPS1) | 2 packages x 8 L3 domains (CCDs) x 8 cores x 2 PUs, 2 NUMA nodes | L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 512 KiB 8-way, L3 32 MiB 16-way per 8-core domain | AMD EPYC 7003 product brief; a current chiplet machine with many squads |
//! | `epyc-7763-2s-nps4` | 2 x AMD EPYC 7763 "Milan" (NPS4) | 2 packages x 4 NUMA nodes (quadrants) x 2 L3 domains (CCDs) x 8 cores x 2 PUs, 8 NUMA nodes | as `epyc-7763-2s` | `epyc-7763-2s` with the firmware's "nodes per socket" set to 4: each quadrant of the I/O die, with its two CCDs and the two memory channels nearest them, is a node (Dell's tech note "NUMA Configuration settings on AMD EPYC 2nd Generation", 2020; AnandTech's Rome review on NPS4; Milan keeps Rome's I/O die layout) |
//! | `epyc-9654-2s` | 2 x AMD EPYC 9654 "Genoa" (NPS1) | 2 packages x 12 L3 domains (CCDs) x 8 cores x 2 PUs, 2 NUMA nodes | L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 1 MiB 8-way, L3 32 MiB 16-way per 8-core domain | AMD EPYC 9004 product brief (96 cores, 12 CCDs, 384 MiB L3); sizes and ways as hwloc's x86 backend reads them from a CPUID dump of this machine (hwloc's `tests/hwloc/x86/AMD-19h-Zen4-2xEpyc-9654`) |
//! | `xeon-6230-2s` | 2 x Intel Xeon Gold 6230 "Cascade Lake" | 2 x 20 cores x 2 PUs, 2 NUMA nodes (sub-NUMA clustering off) | L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 1 MiB 16-way, L3 27.5 MiB 11-way | Intel ARK (20 cores, 27.5 MB cache); sizes and ways as hwloc reads them from a CPUID dump of this machine (hwloc's `tests/hwloc/x86/Intel-CascadeLake-2xXeon6230`) |
//! | `altix-2x2` | two SGI Altix 3700 nodes (Itanium 2) | 2 NUMA nodes x 1 package x 2 cores x 1 PU | L1d 16 KiB 4-way, L2 256 KiB 8-way, L3 6 MiB 24-way | affinity-graph paper (§ experiments). An approximation: a real Altix node has two single-core processors, each with its own L3; here a node's two processors share one 6 MiB L3 so that the node is one squad |
//!
//! Sizes are in powers of 1024 (`6MiB` = 6,291,456 bytes). Every line is 64
//! bytes (the real Itanium 2 L2 and L3 use 128-byte lines). PUs have no OS
//! index: a preset is never this machine.
//!
//! Each preset also has NUMA distances in the ACPI SLIT's units (10 for a node
//! to itself), which [`Topology::squad_distance`](crate::Topology::squad_distance)
//! uses (its [`distance_source`](crate::Topology::distance_source) is
//! [`DistanceSource::Preset`]):
//!
//! | name | own node, other node | where the values come from |
//! | --- | --- | --- |
//! | `opteron-8380` | 10, 20 | estimate: Linux's `REMOTE_DISTANCE`, what the firmware of most four-socket Opteron boards of the time reported for every remote node (the HyperTransport hop count is not in it) |
//! | `xeon-x7550` | 10, 20 | estimate: Linux's `REMOTE_DISTANCE`; four sockets fully connected by QPI, so one value for every remote node |
//! | `xeon-e5-2660v2` | 10, 20 | estimate: Linux's `REMOTE_DISTANCE` (two-socket Ivy Bridge firmware reports 20 or 21) |
//! | `xeon-e7-4820v3` | 10, 20 | estimate: as `xeon-x7550`, four sockets fully connected by QPI |
//! | `epyc-7763-2s` | 10, 32 | the SLIT that two-socket EPYC 7003 firmware reports in NPS1 mode (`numactl -H` prints 10 and 32); taken from published `numactl -H` listings, not measured here. The tree alone would put the other socket at 20, twice a local node, where the firmware says 3.2 times |
//! | `epyc-7763-2s-nps4` | 10; 12 in the own package, 32 in the other | the SLIT of two-socket 64-core EPYC firmware in NPS4 mode, as published `numactl -H` listings print it: CSCS's Alps documentation (Slurm page, AMD CPU nodes: 2 x EPYC 7742 "Rome", 8 nodes) and AMD's ROCm blog "Affinity part 2" (2 x 64 cores, 8 nodes) both show 10, 12 and 32. Those are EPYC 7002 machines; that EPYC 7003 firmware reports the same values in NPS4 is an estimate (it reports the same 10 and 32 in NPS1) |
//! | `epyc-9654-2s` | 10, 32 | the SLIT of two-socket SP5 firmware in NPS1 mode as published `numactl -H` listings print it, 10 and 32 (GitHub issues egandro/proxmox-cpu-affinity#58, 2 x EPYC 9375F, and kvcache-ai/ktransformers#797, 2 x EPYC 9135). Those are EPYC 9005 "Turin" machines on Genoa's SP5 platform; that the 9654's firmware reports the same is an estimate, as no listing of a Genoa machine was found |
//! | `xeon-6230-2s` | 10, 21 | estimate: the value two-socket Xeon Scalable firmware commonly reports for the other socket (one UPI hop); no listing of this model's SLIT was found |
//! | `altix-2x2` | 10, 20 | estimate: two nodes one NUMAlink hop apart |

use crate::distance::DistanceSource;
use crate::model::Topology;
use crate::synthetic;

/// The NUMA distances of a preset, as the table of the module's documentation
/// says.
struct Distances {
    /// The preset's name.
    name: &'static str,
    /// From a node to itself.
    own: u32,
    /// To another node of the same package (only presets with several nodes
    /// per package have one).
    same_package: u32,
    /// To a node of another package.
    other_package: u32,
}

/// A preset whose other nodes are all one distance away (one node per package).
const fn flat(name: &'static str, own: u32, other: u32) -> Distances {
    Distances {
        name,
        own,
        same_package: other,
        other_package: other,
    }
}

/// The distances of every preset.
const DISTANCES: &[Distances] = &[
    flat("opteron-8380", 10, 20),
    flat("xeon-x7550", 10, 20),
    flat("xeon-e5-2660v2", 10, 20),
    flat("xeon-e7-4820v3", 10, 20),
    flat("epyc-7763-2s", 10, 32),
    Distances {
        name: "epyc-7763-2s-nps4",
        own: 10,
        same_package: 12,
        other_package: 32,
    },
    flat("epyc-9654-2s", 10, 32),
    flat("xeon-6230-2s", 10, 21),
    flat("altix-2x2", 10, 20),
];

/// `(name, synthetic string)` of every preset.
const PRESETS: &[(&str, &str)] = &[
    (
        "opteron-8380",
        "pack:4 numa:1 l3:1(size=6MiB linesize=64 ways=48) l2:4(size=512KiB linesize=64 ways=16) \
         l1d:1(size=64KiB linesize=64 ways=2) l1i:1(size=64KiB linesize=64 ways=2) core:1 pu:1",
    ),
    (
        "xeon-x7550",
        "pack:4 numa:1 l3:1(size=18MiB linesize=64 ways=24) l2:8(size=256KiB linesize=64 ways=8) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=4) core:1 pu:1",
    ),
    (
        "xeon-e5-2660v2",
        "pack:2 numa:1 l3:1(size=25MiB linesize=64 ways=20) l2:10(size=256KiB linesize=64 ways=8) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=8) core:1 pu:2",
    ),
    (
        "xeon-e7-4820v3",
        "pack:4 numa:1 l3:1(size=25MiB linesize=64 ways=20) l2:10(size=256KiB linesize=64 ways=8) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=8) core:1 pu:2",
    ),
    (
        "epyc-7763-2s",
        "pack:2 numa:1 l3:8(size=32MiB linesize=64 ways=16) l2:8(size=512KiB linesize=64 ways=8) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=8) core:1 pu:2",
    ),
    (
        "epyc-7763-2s-nps4",
        "pack:2 numa:4 l3:2(size=32MiB linesize=64 ways=16) l2:8(size=512KiB linesize=64 ways=8) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=8) core:1 pu:2",
    ),
    (
        "epyc-9654-2s",
        "pack:2 numa:1 l3:12(size=32MiB linesize=64 ways=16) l2:8(size=1MiB linesize=64 ways=8) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=8) core:1 pu:2",
    ),
    (
        "xeon-6230-2s",
        "pack:2 numa:1 l3:1(size=28160KiB linesize=64 ways=11) l2:20(size=1MiB linesize=64 ways=16) \
         l1d:1(size=32KiB linesize=64 ways=8) l1i:1(size=32KiB linesize=64 ways=8) core:1 pu:2",
    ),
    (
        "altix-2x2",
        "numa:2 pack:1 l3:1(size=6MiB linesize=64 ways=24) l2:2(size=256KiB linesize=64 ways=8) \
         l1d:1(size=16KiB linesize=64 ways=4) core:1 pu:1",
    ),
];

/// The names of every preset, in the table's order.
const NAMES: &[&str] = &[
    "opteron-8380",
    "xeon-x7550",
    "xeon-e5-2660v2",
    "xeon-e7-4820v3",
    "epyc-7763-2s",
    "epyc-7763-2s-nps4",
    "epyc-9654-2s",
    "xeon-6230-2s",
    "altix-2x2",
];

/// The names of every preset.
pub(crate) fn names() -> &'static [&'static str] {
    NAMES
}

/// The synthetic string behind a preset (names are case-insensitive).
pub(crate) fn synthetic_of(name: &str) -> Option<&'static str> {
    PRESETS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
        .map(|&(_, s)| s)
}

/// Builds a preset by name.
pub(crate) fn preset(name: &str) -> Option<Topology> {
    let (canonical, spec) = PRESETS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))?;
    // The preset strings are constants checked by this module's tests.
    let mut topo = synthetic::build(spec, canonical).ok()?;
    if let Some(d) = DISTANCES.iter().find(|d| d.name == *canonical) {
        // A preset node's PUs all sit in one package (the strings put `numa`
        // under `pack`, or a single package under each `numa`).
        let package: Vec<Option<usize>> = topo
            .numa_nodes
            .iter()
            .map(|node| node.pus.first().map(|&p| topo.pus[p].package))
            .collect();
        let n = package.len();
        topo.numa_distances = Some(
            (0..n * n)
                .map(|k| {
                    let (a, b) = (k / n, k % n);
                    if a == b {
                        d.own
                    } else if package[a].is_some() && package[a] == package[b] {
                        d.same_package
                    } else {
                        d.other_package
                    }
                })
                .collect(),
        );
        topo.distance_source = DistanceSource::Preset;
    }
    Some(topo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_table_and_all_build() {
        assert_eq!(NAMES.len(), PRESETS.len());
        for (name, (table_name, spec)) in NAMES.iter().zip(PRESETS) {
            assert_eq!(name, table_name);
            if let Err(e) = synthetic::build(spec, name) {
                panic!("preset {name} does not build: {e}");
            }
        }
    }

    #[test]
    fn every_preset_has_checked_distances() {
        assert_eq!(DISTANCES.len(), NAMES.len());
        for (name, d) in NAMES.iter().zip(DISTANCES) {
            assert_eq!(*name, d.name);
            assert!(
                d.own < d.same_package && d.same_package <= d.other_package,
                "{name}"
            );
            let t = preset(name).unwrap();
            assert_eq!(t.distance_source(), DistanceSource::Preset, "{name}");
            let values = t.numa_distances.as_ref().unwrap();
            let n = t.num_numa_nodes();
            if let Err(e) = crate::distance::check_matrix(values, n) {
                panic!("preset {name}: {e}");
            }
        }
    }
}
