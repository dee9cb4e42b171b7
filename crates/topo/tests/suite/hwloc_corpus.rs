//! Real machines from hwloc's test corpus: each one parses, and its counts of
//! PUs, cores, NUMA nodes, packages and L3 caches are hwloc's own.
//!
//! The files themselves are not in this repository: they are read from the
//! folder named by `LOCUS_HWLOC_CORPUS`, else from `hwloc/` in the `shared/`
//! folder beside the repository's root. `tests/hwloc-corpus.md` says which
//! file of hwloc's repository each one is, where it goes, and how the expected
//! numbers below were taken from hwloc's expected outputs (`.console` or
//! `.xml` files written by hwloc itself), never from locus. The fixture tests
//! run whenever the corpus is there (`shared/hwloc` beside the repository, as
//! CI has it, or `LOCUS_HWLOC_CORPUS=DIR`), and then a missing file fails: a
//! corpus half there is an error, not a skip. Without `shared/hwloc` and without
//! the variable, each test says on stderr that it checked nothing.

use std::path::{Path, PathBuf};

use locus_topo::{CacheKind, DistanceSource, Topology};

/// Where the corpus is: the folder `LOCUS_HWLOC_CORPUS` names (which must then
/// exist), else `shared/hwloc` beside the repository if it is there, else nowhere.
fn corpus() -> Option<PathBuf> {
    match std::env::var_os("LOCUS_HWLOC_CORPUS") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/hwloc");
            dir.is_dir().then_some(dir)
        }
    }
}

/// hwloc's counts: PUs, cores, NUMA nodes, packages, L3 caches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counts {
    pus: usize,
    cores: usize,
    numa: usize,
    packages: usize,
    l3: usize,
}

fn counts_of(t: &Topology) -> Counts {
    Counts {
        pus: t.num_pus(),
        cores: t.num_cores(),
        numa: t.num_numa_nodes(),
        packages: t.num_packages(),
        l3: t
            .caches()
            .iter()
            .filter(|c| c.level == 3 && c.kind != CacheKind::Instruction)
            .count(),
    }
}

/// Reads one fixture (`xml/...`, `xml-v1/...` or `linux/<name>`) and checks
/// its counts and the distance API's invariants.
fn check(rel: &str, expected: [usize; 5], distances: Option<DistanceSource>) {
    let Some(dir) = corpus() else {
        eprintln!(
            "{rel}: not checked: hwloc's test corpus is not in shared/hwloc and \
             LOCUS_HWLOC_CORPUS is unset (tests/hwloc-corpus.md)"
        );
        return;
    };
    assert!(
        dir.is_dir(),
        "hwloc's test corpus: {} is not a folder",
        dir.display()
    );
    let path = dir.join(rel);
    assert!(
        path.exists(),
        "{} is missing from the corpus",
        path.display()
    );
    let t = if rel.starts_with("linux/") {
        Topology::from_sysfs(&path.join("sys/devices/system"), None)
    } else {
        Topology::from_xml_file(&path)
    };
    let t = t.unwrap_or_else(|e| panic!("{rel}: {e}"));
    let [pus, cores, numa, packages, l3] = expected;
    let want = Counts {
        pus,
        cores,
        numa,
        packages,
        l3,
    };
    assert_eq!(counts_of(&t), want, "{rel}: locus's counts, then hwloc's");
    if l3 > 0 && t.caches().iter().all(|c| c.level <= 3) {
        assert_eq!(t.cache_domains().len(), l3, "{rel}: one squad per L3");
    }
    if let Some(source) = distances {
        assert_eq!(t.distance_source(), source, "{rel}: distances");
    }
    let squads = t.cache_domains().len();
    for a in 0..squads {
        let order = t.nearest_squads(a);
        assert_eq!(order.len(), squads - 1);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..squads).filter(|&b| b != a).collect::<Vec<_>>());
        for w in order.windows(2) {
            assert!(t.squad_distance(a, w[0]) <= t.squad_distance(a, w[1]));
        }
        for b in 0..squads {
            assert_eq!(t.squad_distance(a, b), t.squad_distance(b, a));
        }
    }
}

/// One test per fixture: `name => file, [PUs, cores, NUMA nodes, packages, L3s]`,
/// optionally with the distance source expected.
macro_rules! fixtures {
    ($($name:ident => $rel:expr, $counts:expr $(, $dist:ident)?;)*) => {
        $(
            #[test]
            fn $name() {
                #[allow(unused_mut, unused_assignments)]
                let mut distances = None;
                $(distances = Some(DistanceSource::$dist);)?
                check($rel, $counts, distances);
            }
        )*
        /// Every fixture's file, for the listing test.
        const FILES: &[&str] = &[$($rel),*];
    };
}

fixtures! {
    // hwloc 2.x XML written by hwloc's x86 backend from CPUID dumps
    // (tests/hwloc/x86/*.xml are hwloc's expected output for each dump).
    epyc_7451_2s => "xml/AMD-17h-Zen-2xEpyc-7451.xml", [96, 48, 1, 2, 16];
    epyc_7763_2s => "xml/AMD-19h-Zen3-2xEpyc-7763.xml", [128, 128, 1, 2, 16];
    epyc_9654_2s => "xml/AMD-19h-Zen4-2xEpyc-9654.xml", [384, 192, 1, 2, 24];
    xeon_6140_2s => "xml/Intel-Skylake-2xXeon6140.xml", [72, 36, 1, 2, 2];
    xeon_6230_2s => "xml/Intel-CascadeLake-2xXeon6230.xml", [80, 40, 1, 2, 2];
    xeon_x7460_4s => "xml/Intel-Penryn-4xXeon-X7460.xml", [24, 24, 1, 4, 4];
    opteron_6272_4s => "xml/AMD-15h-Bulldozer-4xOpteron-6272.xml", [64, 64, 1, 4, 8];
    opteron_8439se_8s => "xml/AMD-K10-Istanbul-8xOpteron-8439SE.xml", [48, 48, 1, 8, 8];
    opteron_6164he_2s => "xml/AMD-K10-MagnyCours-2xOpteron-6164HE.xml", [24, 24, 1, 2, 4];
    xeon_e5_4620v2_12s => "xml/Intel-IvyBridge-12xXeon-E5-4620v2.xml", [192, 96, 1, 12, 12];
    xeon_max_9460_2s => "xml/Intel-SapphireRapids-2xXeonMax9460.xml", [160, 80, 1, 2, 2];
    xeon_phi_7210 => "xml/Intel-KnightsLanding-XeonPhi-7210.xml", [256, 64, 1, 1, 0];
    // hwloc XML of real machines (tests/hwloc/xml, tests/hwloc/linux,
    // tests/hwloc/x86+linux: each file is its own expected output).
    em64t_24_nodes => "xml/192em64t-24n8c2t.xml", [384, 192, 24, 24, 24], HwlocXml;
    em64t_24_nodes_12_groups => "xml/192em64t-12gr2n8c2t.xml", [384, 192, 24, 24, 24], HwlocXml;
    amd64_8_nodes_4_distances => "xml/16amd64-4distances.xml", [16, 16, 8, 8, 0], HwlocXml;
    amd64_restricted_cpusets => "xml/16amd64-8n2c-cpusets.xml", [10, 10, 5, 6, 0], HwlocXml;
    em64t_offline_cpus => "xml/16em64t-4s2c2t-offlines.xml", [7, 6, 1, 4, 4];
    em64t_4_nodes_16_packages => "xml/96em64t-4n4d3ca2co-pci.xml", [96, 96, 4, 16, 16], HwlocXml;
    intel64_heterogeneous_memory => "xml/64intel64-heteromem.xml", [64, 16, 8, 1, 4];
    memory_side_caches => "xml/memorysidecaches.xml", [80, 40, 4, 2, 2], HwlocXml;
    cxl_memory_v2 => "xml/cxlmem+dax.v2.xml", [4, 4, 1, 1, 1];
    nvidia_dgx2 => "xml/nvidiaDGX2.xml", [4, 4, 2, 2, 2], HwlocXml;
    power8_gpu_distances => "xml/power8gpudistances.xml", [16, 8, 2, 2, 8], HwlocXml;
    em64t_dax_nvme_dimms => "xml/32em64t-2n8c+dax+nvme+mic+dimms.xml", [16, 16, 2, 2, 2], HwlocXml;
    // Restricted to the 6 CPUs of one package by a cgroup, with all 6 nodes:
    // hwloc also keeps the other two packages and four of the L3 caches, with
    // no CPU (cpuset="0x0"), for the memory under them; locus's packages and
    // caches are those with PUs (1 package and 2 L3s by the file's cpusets).
    amd64_cgroup_restricted => "xml/32amd64-4s2n4c-cgroup2.xml", [6, 6, 6, 1, 2], HwlocXml;
    amd64_4_packages_8_nodes => "xml/64amd64-4p2n4ca2co.xml", [64, 64, 8, 4, 8], HwlocXml;
    // The part of a machine a process was allowed (the file has all of it,
    // written with --disallowed; hwloc's console output marks the rest).
    irregular_groups_allowed_part => "xml/irregulargroups-disallowed.xml", [16, 16, 2, 2, 2], HwlocXml;
    // hwloc 1.x XML (format v1, tag hwloc-1.11.13); the counts are those of
    // the same machine's file as hwloc 2.x rewrote it (tests/hwloc/xml).
    v1_amd64_8_nodes_4_distances => "xml-v1/16amd64-4distances.xml", [16, 16, 8, 8, 0], HwlocXml;
    v1_amd64_restricted_cpusets => "xml-v1/16amd64-8n2c-cpusets.xml", [10, 10, 5, 6, 0], HwlocXml;
    v1_em64t_4_sockets => "xml-v1/16em64t-4s2c2t.xml", [16, 8, 1, 4, 4];
    v1_em64t_offline_cpus => "xml-v1/16em64t-4s2c2t-offlines.xml", [7, 6, 1, 4, 4];
    v1_em64t_24_nodes => "xml-v1/192em64t-24n8c2t-nodistancegroups.xml", [384, 192, 24, 24, 24], HwlocXml;
    v1_em64t_4_nodes_16_packages => "xml-v1/96em64t-4n4d3ca2co-pci.xml", [96, 96, 4, 16, 16], HwlocXml;
    v1_em64t_2_nodes_pci => "xml-v1/24em64t-2n6c2t-pci.xml", [24, 12, 2, 2, 2], HwlocXml;
    // Linux sysfs trees (tests/hwloc/linux/*.tar.bz2, the cpu and node
    // folders only); hwloc's counts from the matching .console.
    sysfs_x3950_4_nodes_masks_only => "linux/96em64t-4no4pa3ca2co", [96, 96, 4, 16, 16], Sysfs;
    sysfs_em64t_4_sockets_masks_only => "linux/16em64t-4s2c2t", [16, 8, 1, 4, 4];
    sysfs_amd64_4_sockets_8_nodes => "linux/64amd64-4s2n4ca2co", [64, 64, 8, 4, 8], Sysfs;
    sysfs_amd64_4_packages_sparse_nodes => "linux/48amd64-4pa2n6c-sparse", [48, 48, 8, 4, 8], Sysfs;
    sysfs_amd64_8_nodes => "linux/16amd64-8n2c", [16, 16, 8, 8, 0], Sysfs;
    sysfs_ia64_2_nodes_masks_only => "linux/8ia64-2n2s2c", [8, 8, 2, 4, 8], Sysfs;
    sysfs_ia64_17_nodes => "linux/128ia64-17n4s2c", [128, 128, 17, 64, 0], Sysfs;
    sysfs_ia64_8_nodes => "linux/16ia64-8n2s", [16, 16, 8, 16, 16], Sysfs;
    sysfs_ia64_zero_distance => "linux/8ia64-2s2c2t", [8, 4, 1, 2, 4];
    sysfs_arm_2_packages_4_nodes => "linux/128arm-2pa2n8cluster4co", [128, 128, 4, 2, 4], Sysfs;
    sysfs_power_8_nodes => "linux/256ppc-8n8s4t", [256, 64, 8, 64, 64], Sysfs;
    sysfs_em64t_2_sockets => "linux/8em64t-2s2ca2c", [8, 8, 1, 2, 0];
    sysfs_offline_cpu0_node0 => "linux/offline-cpu0-node0", [17, 17, 1, 2, 2];
    sysfs_memory_side_caches => "linux/memorysidecaches", [80, 40, 4, 2, 2], Sysfs;
    sysfs_intel64_2_packages => "linux/32intel64-2p8co2t+8ve", [32, 16, 2, 2, 2], Sysfs;
}

#[test]
fn fixture_names_are_distinct() {
    let mut files = FILES.to_vec();
    files.sort_unstable();
    files.dedup();
    assert_eq!(files.len(), FILES.len());
}
