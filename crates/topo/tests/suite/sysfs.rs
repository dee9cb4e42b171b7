//! sysfs discovery: fake trees in a temporary directory, and this machine.

use std::fs;
use std::path::{Path, PathBuf};

use locus_topo::{allowed_cpus, CacheKind, Topology};

/// A fake `/sys/devices/system` under the temp dir, removed on drop.
struct FakeSys {
    root: PathBuf,
}

impl FakeSys {
    fn new(name: &str) -> Self {
        let root = std::env::temp_dir().join(format!("locus-topo-{}-{name}", std::process::id()));
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

/// Two sockets of four cores with two threads each, numbered as Intel
/// machines are: CPUs 0-3 socket 0, 4-7 socket 1, 8-15 their SMT siblings.
/// Private L1d/L1i/L2 per core, one L3 per socket, one NUMA node per socket.
fn two_socket_smt(name: &str, with_caches: bool, with_nodes: bool) -> FakeSys {
    let fake = FakeSys::new(name);
    fake.write("cpu/online", "0-15\n");
    for cpu in 0..16usize {
        let core = cpu % 4;
        let socket = (cpu / 4) % 2;
        let first = socket * 4 + core;
        let siblings = format!("{},{}\n", first, first + 8);
        let t = format!("cpu/cpu{cpu}/topology");
        fake.write(&format!("{t}/physical_package_id"), &format!("{socket}\n"));
        fake.write(&format!("{t}/core_id"), &format!("{core}\n"));
        fake.write(&format!("{t}/thread_siblings_list"), &siblings);
        fake.write(&format!("{t}/core_cpus_list"), &siblings);
        if with_caches {
            let l3 = if socket == 0 {
                "0-3,8-11\n"
            } else {
                "4-7,12-15\n"
            };
            for (k, level, ty, size, ways, shared) in [
                (0, 1, "Data", "32K", 8, siblings.as_str()),
                (1, 1, "Instruction", "32K", 8, siblings.as_str()),
                (2, 2, "Unified", "1024K", 16, siblings.as_str()),
                (3, 3, "Unified", "22528K", 11, l3),
            ] {
                let c = format!("cpu/cpu{cpu}/cache/index{k}");
                fake.write(&format!("{c}/level"), &format!("{level}\n"));
                fake.write(&format!("{c}/type"), &format!("{ty}\n"));
                fake.write(&format!("{c}/size"), &format!("{size}\n"));
                fake.write(&format!("{c}/coherency_line_size"), "64\n");
                fake.write(&format!("{c}/ways_of_associativity"), &format!("{ways}\n"));
                fake.write(&format!("{c}/shared_cpu_list"), shared);
            }
        }
    }
    if with_nodes {
        fake.write("node/node0/cpulist", "0-3,8-11\n");
        fake.write("node/node1/cpulist", "4-7,12-15\n");
        fake.write("node/online", "0-1\n");
    }
    fake
}

#[test]
fn fake_two_socket_smt_tree() {
    let fake = two_socket_smt("full", true, true);
    let t = Topology::from_sysfs(fake.path(), None).unwrap();
    assert!(t.is_virtual(), "a fake tree is not this machine");
    assert_eq!(t.num_pus(), 16);
    assert_eq!(t.num_cores(), 8);
    assert_eq!(t.num_packages(), 2);
    assert_eq!(t.num_numa_nodes(), 2);
    assert_eq!(t.cache_domains().len(), 2);
    // Tree order: socket 0 first, SMT siblings adjacent.
    let os: Vec<usize> = t.pus().iter().map(|p| p.os_index.unwrap()).collect();
    assert_eq!(os, [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15]);
    for p in t.pus() {
        assert_eq!(p.core, p.index / 2);
        assert_eq!(p.package, p.index / 8);
        assert_eq!(p.numa, p.index / 8);
        assert_eq!(p.cache_domain, p.index / 8);
    }
    let l3 = t.cache_domains()[1].llc.as_ref().unwrap();
    assert_eq!(
        (l3.level, l3.kind, l3.size, l3.line_size, l3.associativity),
        (3, CacheKind::Unified, 22528 * 1024, 64, 11)
    );
    assert_eq!(l3.pus, (8..16).collect::<Vec<_>>());
    assert_eq!(t.caches().len(), 2 + 8 * 3);
    assert_eq!(t.numa_nodes()[1].os_index, Some(1));
    assert_eq!(t.packages()[1].os_index, Some(1));
    let text = t.render();
    assert!(text.contains("PU L#1 (P#8)"), "{text}");
    assert!(
        text.contains("squad 1: package 1, L3 (22 MiB), PUs 8-15 (P#4-7,12-15)"),
        "{text}"
    );
}

#[test]
fn fake_tree_restricted_to_allowed_cpus() {
    let fake = two_socket_smt("allowed", true, true);
    let t = Topology::from_sysfs(fake.path(), Some(&[5, 13, 6, 99])).unwrap();
    assert_eq!(t.num_pus(), 3);
    assert_eq!(t.num_cores(), 2);
    assert_eq!(t.num_packages(), 1);
    assert_eq!(t.num_numa_nodes(), 1);
    assert_eq!(t.numa_nodes()[0].os_index, Some(1));
    let os: Vec<usize> = t.pus().iter().map(|p| p.os_index.unwrap()).collect();
    assert_eq!(os, [5, 13, 6]);
    assert_eq!(
        t.cache_domains()[0].llc.as_ref().unwrap().pus,
        vec![0, 1, 2]
    );

    let e = Topology::from_sysfs(fake.path(), Some(&[64]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("none of the allowed CPUs"), "{e}");
}

#[test]
fn container_tree_without_caches_or_nodes() {
    let fake = two_socket_smt("bare", false, false);
    let t = Topology::from_sysfs(fake.path(), None).unwrap();
    assert_eq!(t.num_pus(), 16);
    assert_eq!(t.num_numa_nodes(), 1);
    assert_eq!(t.numa_nodes()[0].os_index, None);
    assert!(t.caches().is_empty());
    assert_eq!(t.cache_domains().len(), 2, "one domain per package");
    assert!(t.cache_domains().iter().all(|d| d.llc.is_none()));
}

#[test]
fn minimal_tree_without_online_or_topology() {
    let fake = FakeSys::new("minimal");
    fs::create_dir_all(fake.path().join("cpu/cpu0")).unwrap();
    fs::create_dir_all(fake.path().join("cpu/cpu1")).unwrap();
    fs::create_dir_all(fake.path().join("cpu/cpufreq")).unwrap();
    let t = Topology::from_sysfs(fake.path(), None).unwrap();
    assert_eq!((t.num_pus(), t.num_cores(), t.num_packages()), (2, 2, 1));
}

#[test]
fn malformed_sysfs_files_are_errors() {
    let fake = two_socket_smt("bad-core", true, true);
    fake.write("cpu/cpu3/topology/core_cpus_list", "3,x\n");
    let e = Topology::from_sysfs(fake.path(), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cpu3/topology/core_cpus_list")
            && e.contains("byte 2")
            && e.contains("expected a CPU number"),
        "{e}"
    );

    let fake = two_socket_smt("bad-size", true, true);
    fake.write("cpu/cpu0/cache/index3/size", "lots\n");
    let e = Topology::from_sysfs(fake.path(), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("index3/size") && e.contains("expected a size such as 32K"),
        "{e}"
    );

    let fake = two_socket_smt("bad-online", true, true);
    fake.write("cpu/online", "0-99999999\n");
    let e = Topology::from_sysfs(fake.path(), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cpu/online") && e.contains("larger than the supported"),
        "{e}"
    );

    let fake = FakeSys::new("empty");
    let e = Topology::from_sysfs(fake.path(), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("invalid sysfs tree") && e.contains("found none"),
        "{e}"
    );
}

#[test]
fn discover_this_machine() {
    let allowed = allowed_cpus().unwrap();
    assert!(!allowed.is_empty());
    assert!(
        allowed.windows(2).all(|w| w[0] < w[1]),
        "sorted: {allowed:?}"
    );
    let t = Topology::discover().unwrap();
    assert_eq!(t.name(), "this machine");
    assert!(!t.is_virtual());
    assert_eq!(t.num_pus(), allowed.len());
    let mut os: Vec<usize> = t.pus().iter().map(|p| p.os_index.unwrap()).collect();
    os.sort_unstable();
    assert_eq!(os, allowed);
    println!("{}", t.render());
}
