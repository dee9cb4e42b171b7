//! Distances between squads: presets, the tree, sysfs `distance` files (and the
//! masks of old kernels), hwloc XML matrices (v1 and v2), restricted and
//! memory-only NUMA nodes, and broken distance input.

use std::fs;
use std::path::{Path, PathBuf};

use locus_topo::distance::{TREE_OTHER_PACKAGE, TREE_SAME_NODE, TREE_SAME_PACKAGE};
use locus_topo::{DistanceSource, SquadTier, Topology};

#[test]
fn epyc_7763_squads_nearest_first() {
    let t = Topology::preset("epyc-7763-2s").unwrap();
    assert_eq!(t.distance_source(), DistanceSource::Preset);
    assert_eq!(t.cache_domains().len(), 16);
    assert_eq!(t.numa_distance(0, 1), Some(32));
    assert_eq!(t.squad_distance(0, 0), 0);
    assert_eq!(t.squad_distance(0, 1), 10);
    assert_eq!(t.squad_distance(0, 8), 32);
    assert_eq!(t.squad_distance(8, 0), 32);
    assert_eq!(t.squad_tier(0, 0), SquadTier::SameSquad);
    assert_eq!(t.squad_tier(0, 7), SquadTier::SameNode);
    assert_eq!(t.squad_tier(0, 8), SquadTier::OtherPackage);
    assert_eq!(t.squad_numa(9), 1);
    assert_eq!(
        t.nearest_squads(0),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    );
    assert_eq!(
        t.nearest_squads(9),
        [8, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]
    );
}

#[test]
fn epyc_7763_nps4_orders_the_own_package_before_the_other() {
    let t = Topology::preset("epyc-7763-2s-nps4").unwrap();
    assert_eq!(t.distance_source(), DistanceSource::Preset);
    assert_eq!((t.num_numa_nodes(), t.cache_domains().len()), (8, 16));
    for a in 0..8 {
        for b in 0..8 {
            let want = if a == b {
                10
            } else if a / 4 == b / 4 {
                12
            } else {
                32
            };
            assert_eq!(t.numa_distance(a, b), Some(want), "node {a} to node {b}");
        }
    }
    assert_eq!(t.squad_distance(0, 1), 10);
    assert_eq!(t.squad_distance(0, 2), 12);
    assert_eq!(t.squad_distance(0, 7), 12);
    assert_eq!(t.squad_distance(0, 8), 32);
    assert_eq!(t.squad_distance(15, 8), 12);
    assert_eq!(t.squad_tier(0, 1), SquadTier::SameNode);
    assert_eq!(t.squad_tier(0, 2), SquadTier::SamePackage);
    assert_eq!(t.squad_tier(0, 8), SquadTier::OtherPackage);
    assert_eq!(t.squad_numa(9), 4);
    assert_eq!(
        t.nearest_squads(0),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    );
    assert_eq!(
        t.nearest_squads(5),
        [4, 0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    );
    assert_eq!(
        t.nearest_squads(10),
        [11, 8, 9, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]
    );
    let rendered = t.render();
    assert!(
        rendered.contains("NUMANode L#0: 10 12 12 12 32 32 32 32\n"),
        "{rendered}"
    );
}

#[test]
fn epyc_9654_squads_nearest_first() {
    let t = Topology::preset("epyc-9654-2s").unwrap();
    assert_eq!(t.distance_source(), DistanceSource::Preset);
    assert_eq!(t.cache_domains().len(), 24);
    assert_eq!(t.numa_distance(0, 1), Some(32));
    assert_eq!(t.numa_distance(1, 1), Some(10));
    assert_eq!(t.squad_distance(0, 11), 10);
    assert_eq!(t.squad_distance(0, 12), 32);
    assert_eq!(t.squad_tier(0, 11), SquadTier::SameNode);
    assert_eq!(t.squad_tier(11, 12), SquadTier::OtherPackage);
    let mut want: Vec<usize> = (12..24).filter(|&s| s != 13).collect();
    want.extend(0..12);
    assert_eq!(t.nearest_squads(13), want);
}

#[test]
fn xeon_6230_squads_nearest_first() {
    let t = Topology::preset("xeon-6230-2s").unwrap();
    assert_eq!(t.distance_source(), DistanceSource::Preset);
    assert_eq!(t.cache_domains().len(), 2);
    assert_eq!(t.numa_distance(0, 1), Some(21));
    assert_eq!(t.numa_distance(1, 0), Some(21));
    assert_eq!(t.squad_distance(1, 0), 21);
    assert_eq!(t.squad_tier(0, 1), SquadTier::OtherPackage);
    assert_eq!(t.nearest_squads(1), [0]);
}

#[test]
fn tree_distances_without_a_matrix() {
    // Two packages of two NUMA nodes of two L3 domains each.
    let t = Topology::from_synthetic("pack:2 numa:2 l3:2(size=8MiB) core:2 pu:1").unwrap();
    assert_eq!(t.distance_source(), DistanceSource::Tree);
    assert_eq!(t.numa_distance(0, 1), None);
    assert_eq!(t.cache_domains().len(), 8);
    assert_eq!(t.squad_tier(0, 1), SquadTier::SameNode);
    assert_eq!(t.squad_tier(0, 2), SquadTier::SamePackage);
    assert_eq!(t.squad_tier(0, 4), SquadTier::OtherPackage);
    assert_eq!(t.squad_distance(0, 1), TREE_SAME_NODE);
    assert_eq!(t.squad_distance(0, 3), TREE_SAME_PACKAGE);
    assert_eq!(t.squad_distance(0, 7), TREE_OTHER_PACKAGE);
    assert_eq!(t.nearest_squads(5), [4, 6, 7, 0, 1, 2, 3]);
    assert!(SquadTier::SameNode < SquadTier::SamePackage);
    assert_eq!(
        SquadTier::ALL.map(SquadTier::name),
        ["squad", "node", "package", "remote"]
    );
}

#[test]
fn one_node_over_two_packages_orders_the_own_package_first() {
    // A single NUMA node (memory interleaved) with two packages: the matrix
    // cannot tell the packages apart, the tier does.
    let t = Topology::from_synthetic("numa:1 pack:2 l3:2(size=8MiB) core:2 pu:1").unwrap();
    assert_eq!(t.squad_tier(0, 2), SquadTier::OtherPackage);
    assert_eq!(t.nearest_squads(2), [3, 0, 1]);
}

#[test]
fn restrict_keeps_the_distances_of_the_nodes_kept() {
    let t = Topology::preset("epyc-7763-2s").unwrap();
    let pus: Vec<usize> = [0, 8]
        .iter()
        .flat_map(|&s| t.cache_domains()[s].pus.clone())
        .collect();
    let r = t.restrict(&pus).unwrap();
    assert_eq!(r.num_numa_nodes(), 2);
    assert_eq!(r.cache_domains().len(), 2);
    assert_eq!(r.squad_distance(0, 1), 32);
    assert_eq!(r.distance_source(), DistanceSource::Preset);
    let one = t.restrict(&t.cache_domains()[3].pus).unwrap();
    assert_eq!(one.num_numa_nodes(), 1);
    assert_eq!(one.numa_distance(0, 0), Some(10));
    assert_eq!(one.nearest_squads(0), Vec::<usize>::new());
}

/// A fake `/sys/devices/system` under the temp dir, removed on drop.
struct FakeSys {
    root: PathBuf,
}

impl FakeSys {
    fn new(name: &str) -> Self {
        let root =
            std::env::temp_dir().join(format!("locus-topo-dist-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        FakeSys { root }
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn path(&self) -> &Path {
        &self.root
    }
}

impl Drop for FakeSys {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// A 64-bit CPU mask as an old kernel writes it: two 32-bit words.
fn mask(cpus: impl IntoIterator<Item = usize>) -> String {
    let bits = cpus.into_iter().fold(0u64, |m, c| m | 1 << c);
    format!("{:08x},{:08x}\n", bits >> 32, bits & 0xffff_ffff)
}

/// Four sockets of four cores, one node each, as a kernel before 2.6.26
/// writes it: masks only, no `..._list` file, no `cpu/online`. The packages
/// of each two-socket board are numbered 0 and 1 again (as on IBM x3950 M2),
/// and node 4 is memory without CPUs.
fn old_four_socket(name: &str, distances: &[&str]) -> FakeSys {
    let fake = FakeSys::new(name);
    for cpu in 0..16usize {
        let socket = cpu / 4;
        let t = format!("cpu/cpu{cpu}/topology");
        fake.write(
            &format!("{t}/physical_package_id"),
            &format!("{}\n", socket % 2),
        );
        fake.write(&format!("{t}/core_id"), &format!("{}\n", cpu % 4));
        fake.write(&format!("{t}/thread_siblings"), &mask([cpu]));
        fake.write(
            &format!("{t}/core_siblings"),
            &mask(socket * 4..socket * 4 + 4),
        );
        let c = format!("cpu/cpu{cpu}/cache/index3");
        fake.write(&format!("{c}/level"), "3\n");
        fake.write(&format!("{c}/type"), "Unified\n");
        fake.write(&format!("{c}/size"), "16384K\n");
        fake.write(
            &format!("{c}/shared_cpu_map"),
            &mask(socket * 4..socket * 4 + 4),
        );
    }
    for node in 0..5usize {
        let cpus = if node < 4 {
            node * 4..node * 4 + 4
        } else {
            0..0
        };
        fake.write(&format!("node/node{node}/cpumap"), &mask(cpus));
        if let Some(d) = distances.get(node) {
            fake.write(&format!("node/node{node}/distance"), d);
        }
    }
    fake
}

const SLIT: [&str; 5] = [
    "10 20 40 40 30\n",
    "20 10 40 40 30\n",
    "40 40 10 20 30\n",
    "40 40 20 10 30\n",
    "30 30 30 30 10\n",
];

#[test]
fn old_kernel_masks_and_distances() {
    let fake = old_four_socket("masks", &SLIT);
    let t = Topology::from_sysfs(fake.path(), None).unwrap();
    assert_eq!(t.num_pus(), 16);
    assert_eq!(t.num_packages(), 4, "packages told apart by core_siblings");
    assert_eq!(
        t.num_numa_nodes(),
        5,
        "four nodes from cpumap, one memory-only"
    );
    assert_eq!(t.numa_nodes()[4].os_index, Some(4));
    assert!(t.numa_nodes()[4].pus.is_empty());
    assert_eq!(t.cache_domains().len(), 4);
    assert_eq!(t.distance_source(), DistanceSource::Sysfs);
    assert_eq!(t.numa_distance(0, 4), Some(30));
    assert_eq!(t.squad_distance(0, 1), 20);
    assert_eq!(t.squad_distance(0, 2), 40);
    assert_eq!(t.squad_tier(0, 1), SquadTier::OtherPackage);
    assert_eq!(t.nearest_squads(3), [2, 0, 1]);
    let os: Vec<Option<usize>> = t.packages().iter().map(|p| p.os_index).collect();
    assert_eq!(os, [Some(0), Some(1), Some(0), Some(1)]);
}

#[test]
fn sysfs_without_distance_files_uses_the_tree() {
    let fake = old_four_socket("no-distance", &[]);
    let t = Topology::from_sysfs(fake.path(), None).unwrap();
    assert_eq!(t.distance_source(), DistanceSource::Tree);
    assert_eq!(t.squad_distance(0, 1), TREE_OTHER_PACKAGE);
}

#[test]
fn broken_sysfs_distance_files_are_errors() {
    let cases: &[(usize, &str, &[&str])] = &[
        (
            1,
            "20 10 40\n",
            &[
                "node1/distance",
                "expected 5 distances, one per node (0-4), found 3",
            ],
        ),
        (2, "40 40 10 x 30\n", &["node2/distance", "byte 9", "\"x\""]),
        (3, "40 40 20 10 -30\n", &["node3/distance", "\"-30\""]),
        (
            3,
            "40 40 21 10 30\n",
            &[
                "the distance files of node0, node1, node2, node3, node4",
                "not symmetric",
                "node 2 to node 3 is 20, node 3 to node 2 is 21",
            ],
        ),
        (
            4,
            "30 30 30 30 0\n",
            &["distance files of node0", "node 4 to node 4 is 0"],
        ),
    ];
    for (i, &(node, text, wants)) in cases.iter().enumerate() {
        let mut slit = SLIT;
        slit[node] = text;
        let fake = old_four_socket(&format!("bad{i}"), &slit);
        let e = Topology::from_sysfs(fake.path(), None)
            .unwrap_err()
            .to_string();
        for want in wants {
            assert!(e.contains(want), "{text:?}: {e:?} lacks {want:?}");
        }
    }
}

#[test]
fn broken_sysfs_masks_are_errors() {
    let fake = old_four_socket("bad-mask", &SLIT);
    fake.write("node/node1/cpumap", "00000000,0000zz00\n");
    let e = Topology::from_sysfs(fake.path(), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("node1/cpumap") && e.contains("byte 9") && e.contains("hexadecimal"),
        "{e}"
    );
}

/// hwloc v2 XML of a two-package machine written by a process allowed PUs 0-2
/// and 4-5 and nodes 0, 1, 3 and 4: package 0 has DDR (node 0) and HBM (node
/// 2, not allowed) as memory, package 1 DDR (node 1) and HBM (node 3), and
/// node 4 is CXL memory under the machine.
const V2_RESTRICTED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x000000ff" allowed_cpuset="0x00000037" nodeset="0x0000001f" allowed_nodeset="0x0000001b" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x0000000f" gp_index="2">
      <object type="NUMANode" os_index="0" cpuset="0x0000000f" gp_index="3" local_memory="1000"/>
      <object type="NUMANode" os_index="2" cpuset="0x0000000f" gp_index="4" local_memory="2000"/>
      <object type="L3Cache" cpuset="0x0000000f" cache_size="1048576" depth="3" cache_type="0" gp_index="5">
        <object type="Core" os_index="0" cpuset="0x00000003" gp_index="6">
          <object type="PU" os_index="0" cpuset="0x00000001" gp_index="7"/>
          <object type="PU" os_index="1" cpuset="0x00000002" gp_index="8"/>
        </object>
        <object type="Core" os_index="1" cpuset="0x0000000c" gp_index="9">
          <object type="PU" os_index="2" cpuset="0x00000004" gp_index="10"/>
          <object type="PU" os_index="3" cpuset="0x00000008" gp_index="11"/>
        </object>
      </object>
    </object>
    <object type="Package" os_index="1" cpuset="0x000000f0" gp_index="12">
      <object type="NUMANode" os_index="1" cpuset="0x000000f0" gp_index="13" local_memory="1000"/>
      <object type="MemCache" cpuset="0x000000f0" cache_size="1048576" depth="1" cache_type="0" gp_index="14">
        <object type="NUMANode" os_index="3" cpuset="0x000000f0" gp_index="15" local_memory="2000"/>
      </object>
      <object type="L3Cache" cpuset="0x000000f0" cache_size="1048576" depth="3" cache_type="0" gp_index="16">
        <object type="Core" os_index="0" cpuset="0x00000030" gp_index="17">
          <object type="PU" os_index="4" cpuset="0x00000010" gp_index="18"/>
          <object type="PU" os_index="5" cpuset="0x00000020" gp_index="19"/>
        </object>
        <object type="Core" os_index="1" cpuset="0x000000c0" gp_index="20">
          <object type="PU" os_index="6" cpuset="0x00000040" gp_index="21"/>
          <object type="PU" os_index="7" cpuset="0x00000080" gp_index="22"/>
        </object>
      </object>
    </object>
    <object type="NUMANode" os_index="4" cpuset="0x0" gp_index="23" local_memory="4000"/>
  </object>
  <distances2 type="NUMANode" nbobjs="5" kind="5" name="NUMALatency" indexing="os">
    <indexes length="10">0 1 2 3 4</indexes>
    <u64values length="30">10 21 11 31 41 21 10 31 11 41</u64values>
    <u64values length="30">11 31 10 31 41 31 11 31 10 41</u64values>
    <u64values length="15">41 41 41 41 10</u64values>
  </distances2>
  <distances2 type="NUMANode" nbobjs="2" kind="9" indexing="gp">
    <indexes length="5">3 13</indexes>
    <u64values length="15">100 50 50 100</u64values>
  </distances2>
</topology>
"#;

#[test]
fn v2_allowed_sets_memory_only_nodes_and_distances() {
    let t = Topology::from_xml_str(V2_RESTRICTED, "v2-restricted").unwrap();
    assert_eq!(t.num_pus(), 5, "PUs 3, 6 and 7 are not allowed");
    assert_eq!(t.num_cores(), 3);
    assert_eq!(t.num_packages(), 2);
    assert_eq!(t.cache_domains().len(), 2);
    let memory: Vec<Option<u64>> = t.numa_nodes().iter().map(|n| n.memory).collect();
    assert_eq!(
        memory,
        [Some(1000), Some(1000), Some(4000), Some(2000)],
        "DDR nodes 0 and 1 with PUs, then CXL node 4 (the machine's) and HBM node 3 \
         in hwloc's order; HBM node 2 is not allowed"
    );
    let sizes: Vec<usize> = t.numa_nodes().iter().map(|n| n.pus.len()).collect();
    assert_eq!(sizes, [3, 2, 0, 0]);
    assert_eq!(t.distance_source(), DistanceSource::HwlocXml);
    assert_eq!(t.numa_distance(0, 1), Some(21));
    assert_eq!(t.numa_distance(1, 3), Some(11), "node 1 to its HBM, node 3");
    assert_eq!(t.numa_distance(2, 0), Some(41));
    assert_eq!(t.squad_distance(0, 1), 21);
    let text = t.render();
    assert!(
        text.contains("  NUMANode L#3 (2 kB) (memory only)\n"),
        "{text}"
    );
    assert!(
        text.contains("NUMA distances (hwloc XML):\n  NUMANode L#0: 10 21 41 31\n"),
        "{text}"
    );
}

/// hwloc v1 XML: NUMA nodes as parents of the packages, a `<distances>`
/// matrix over them in relative units.
const V1_DISTANCES: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc.dtd">
<topology>
  <object type="Machine" os_index="0" cpuset="0x0000000f" online_cpuset="0x0000000f" allowed_cpuset="0x0000000f" nodeset="0x00000007" allowed_nodeset="0x00000007">
    <object type="NUMANode" os_index="0" cpuset="0x00000003" nodeset="0x00000001" local_memory="1000">
      <object type="Socket" os_index="0" cpuset="0x00000003">
        <object type="Core" os_index="0" cpuset="0x00000001"><object type="PU" os_index="0" cpuset="0x00000001"/></object>
        <object type="Core" os_index="1" cpuset="0x00000002"><object type="PU" os_index="1" cpuset="0x00000002"/></object>
      </object>
    </object>
    <object type="NUMANode" os_index="1" cpuset="0x0000000c" nodeset="0x00000002" local_memory="1000">
      <object type="Socket" os_index="1" cpuset="0x0000000c">
        <object type="Core" os_index="0" cpuset="0x00000004"><object type="PU" os_index="2" cpuset="0x00000004"/></object>
        <object type="Core" os_index="1" cpuset="0x00000008"><object type="PU" os_index="3" cpuset="0x00000008"/></object>
      </object>
    </object>
    <object type="NUMANode" os_index="2" cpuset="0x0" nodeset="0x00000004" local_memory="5000"/>
    <distances nbobjs="3" relative_depth="1" latency_base="10.000000">
      <latency value="1.0"/><latency value="2.2"/><latency value="3.0"/>
      <latency value="2.2"/><latency value="1.0"/><latency value="3.0"/>
      <latency value="3.0"/><latency value="3.0"/><latency value="1.0"/>
    </distances>
  </object>
</topology>
"#;

#[test]
fn v1_numa_parents_memory_only_node_and_distances() {
    let t = Topology::from_xml_str(V1_DISTANCES, "v1").unwrap();
    assert_eq!((t.num_pus(), t.num_packages()), (4, 2));
    assert_eq!(t.num_numa_nodes(), 3);
    assert!(t.numa_nodes()[2].pus.is_empty());
    assert_eq!(t.distance_source(), DistanceSource::HwlocXml);
    assert_eq!(t.numa_distance(0, 1), Some(22));
    assert_eq!(t.numa_distance(2, 1), Some(30));
    // Not allowed: the second node, whose PUs go with the first node.
    let restricted = V1_DISTANCES.replace(
        "nodeset=\"0x00000007\" allowed_nodeset=\"0x00000007\"",
        "nodeset=\"0x00000005\" allowed_nodeset=\"0x00000005\"",
    );
    let t = Topology::from_xml_str(&restricted, "v1").unwrap();
    assert_eq!(t.num_numa_nodes(), 2);
    assert_eq!(t.numa_nodes()[0].pus, [0, 1, 2, 3]);
    assert_eq!(t.numa_distance(0, 1), Some(30));
}

#[test]
fn broken_xml_distance_matrices_are_errors() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "<indexes length=\"10\">0 1 2 3 4</indexes>",
            "<indexes length=\"10\">0 1 2 3</indexes>",
            &["nbobjs=\"5\" but <indexes> lists 4 objects"],
        ),
        (
            "10 21 11 31 41 21 10",
            "10 21 11 31 41 21",
            &["expected 25 distances (5 nodes x 5), found 24"],
        ),
        (
            "10 21 11 31 41 21 10",
            "10 21 11 31 41 21 ten",
            &["<u64values> holds \"ten\", which is not a whole number"],
        ),
        (
            "10 21 11 31 41 21 10",
            "10 21 11 31 41 22 10",
            &[
                "not symmetric",
                "node 0 to node 1 is 21, node 1 to node 0 is 22",
            ],
        ),
        (
            "41 41 41 41 10<",
            "41 41 41 41 0<",
            &["node 4 to node 4 is 0"],
        ),
        (
            "indexing=\"os\"",
            "indexing=\"names\"",
            &["indexing=\"names\" is not \"os\" or \"gp\""],
        ),
        (
            "nbobjs=\"5\"",
            "nbobjs=\"0\"",
            &["expected a nbobjs attribute of at least 1"],
        ),
        (
            "10 21 11 31 41 21 10",
            "10 21 11 31 41 21 99999999999",
            &["distance 99999999999 is larger than the supported"],
        ),
        (
            "allowed_cpuset=\"0x00000037\"",
            "allowed_cpuset=\"0x37zz\"",
            &[
                "allowed_cpuset=\"0x37zz\"",
                "expected words such as 0x0000f06f",
            ],
        ),
    ];
    for &(from, to, wants) in cases {
        assert!(V2_RESTRICTED.contains(from), "{from}");
        let xml = V2_RESTRICTED.replacen(from, to, 1);
        let e = Topology::from_xml_str(&xml, "broken.xml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"broken.xml\""), "{e}");
        for want in wants {
            assert!(e.contains(want), "{to:?}: {e:?} lacks {want:?}");
        }
    }
    let v1_cases: &[(&str, &str, &[&str])] = &[
        (
            "<latency value=\"3.0\"/><latency value=\"3.0\"/><latency value=\"1.0\"/>",
            "<latency value=\"3.0\"/><latency value=\"3.0\"/>",
            &["expected 9 <latency> values (3 nodes x 3), found 8"],
        ),
        (
            "<latency value=\"2.2\"/><latency value=\"1.0\"/>",
            "<latency value=\"2.2\"/><latency value=\"fast\"/>",
            &["value=\"fast\" is not a number"],
        ),
        (
            "<latency value=\"2.2\"/><latency value=\"1.0\"/>",
            "<latency value=\"2.2\"/><latency value=\"-1\"/>",
            &["latency value=\"-1\" is not a positive number"],
        ),
        (
            "<latency value=\"2.2\"/><latency value=\"1.0\"/>",
            "<latency value=\"2.5\"/><latency value=\"1.0\"/>",
            &["not symmetric"],
        ),
        (
            "latency_base=\"10.000000\"",
            "latency_base=\"0\"",
            &["latency_base=\"0\" is not a positive number"],
        ),
        (
            "nbobjs=\"3\"",
            "nbobjs=\"4\"",
            &["nbobjs=\"4\" but the object holding it has 3 NUMA nodes at relative depth 1"],
        ),
    ];
    for &(from, to, wants) in v1_cases {
        assert!(V1_DISTANCES.contains(from), "{from}");
        let xml = V1_DISTANCES.replacen(from, to, 1);
        let e = Topology::from_xml_str(&xml, "broken-v1.xml")
            .unwrap_err()
            .to_string();
        for want in wants {
            assert!(e.contains(want), "{to:?}: {e:?} lacks {want:?}");
        }
    }
}
