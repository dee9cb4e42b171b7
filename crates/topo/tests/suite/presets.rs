//! The built-in presets, and hwloc's size units in synthetic strings.

use locus_topo::{CacheKind, Topology};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

/// `(name, pus, cores, packages, numa, cache domains, L3 size, L2 size, L1d size)`.
type Shape = (
    &'static str,
    usize,
    usize,
    usize,
    usize,
    usize,
    u64,
    u64,
    u64,
);

const EXPECTED: &[Shape] = &[
    (
        "opteron-8380",
        16,
        16,
        4,
        4,
        4,
        6 * MIB,
        512 * KIB,
        64 * KIB,
    ),
    ("xeon-x7550", 32, 32, 4, 4, 4, 18 * MIB, 256 * KIB, 32 * KIB),
    (
        "xeon-e5-2660v2",
        40,
        20,
        2,
        2,
        2,
        25 * MIB,
        256 * KIB,
        32 * KIB,
    ),
    (
        "xeon-e7-4820v3",
        80,
        40,
        4,
        4,
        4,
        25 * MIB,
        256 * KIB,
        32 * KIB,
    ),
    (
        "epyc-7763-2s",
        256,
        128,
        2,
        2,
        16,
        32 * MIB,
        512 * KIB,
        32 * KIB,
    ),
    (
        "epyc-7763-2s-nps4",
        256,
        128,
        2,
        8,
        16,
        32 * MIB,
        512 * KIB,
        32 * KIB,
    ),
    ("epyc-9654-2s", 384, 192, 2, 2, 24, 32 * MIB, MIB, 32 * KIB),
    (
        "xeon-6230-2s",
        80,
        40,
        2,
        2,
        2,
        27 * MIB + MIB / 2,
        MIB,
        32 * KIB,
    ),
    ("altix-2x2", 4, 4, 2, 2, 2, 6 * MIB, 256 * KIB, 16 * KIB),
];

fn sizes(t: &Topology, level: u8, kind: CacheKind) -> Vec<u64> {
    t.caches()
        .iter()
        .filter(|c| c.level == level && c.kind == kind)
        .map(|c| c.size)
        .collect()
}

#[test]
fn every_preset_has_its_shape() {
    assert_eq!(Topology::preset_names().len(), EXPECTED.len());
    for &(name, pus, cores, packages, numa, domains, l3, l2, l1d) in EXPECTED {
        assert!(
            Topology::preset_names().contains(&name),
            "{name} not listed"
        );
        let t = Topology::preset(name).unwrap_or_else(|| panic!("no preset {name}"));
        assert_eq!(t.name(), name);
        assert!(t.is_virtual());
        assert_eq!(t.num_pus(), pus, "{name} PUs");
        assert_eq!(t.num_cores(), cores, "{name} cores");
        assert_eq!(t.num_packages(), packages, "{name} packages");
        assert_eq!(t.num_numa_nodes(), numa, "{name} NUMA nodes");
        assert_eq!(t.cache_domains().len(), domains, "{name} cache domains");
        let l3s = sizes(&t, 3, CacheKind::Unified);
        assert_eq!(l3s.len(), domains, "{name}: one L3 per domain");
        assert!(l3s.iter().all(|&s| s == l3), "{name} L3 sizes {l3s:?}");
        let l2s = sizes(&t, 2, CacheKind::Unified);
        assert_eq!(l2s.len(), cores, "{name}: private L2");
        assert!(l2s.iter().all(|&s| s == l2), "{name} L2 sizes");
        let l1s = sizes(&t, 1, CacheKind::Data);
        assert_eq!(l1s.len(), cores, "{name}: private L1d");
        assert!(l1s.iter().all(|&s| s == l1d), "{name} L1d sizes");
        for c in t.caches() {
            assert_eq!(c.line_size, 64, "{name}");
            assert!(c.associativity > 0, "{name}: associativity given");
        }
        for d in t.cache_domains() {
            let llc = d.llc.as_ref().expect("presets describe their L3");
            assert_eq!(llc.level, 3);
            assert_eq!(llc.pus, d.pus);
            assert_eq!(d.pus.len(), pus / domains);
        }
        for p in t.pus() {
            assert_eq!(p.os_index, None);
        }
        // Cache domains fill in order: PU i is in domain i / (PUs per domain).
        for p in t.pus() {
            assert_eq!(
                p.cache_domain,
                p.index / (pus / domains),
                "{name} PU {}",
                p.index
            );
        }
        // The presets are what parse_spec gives, in any case.
        assert_eq!(Topology::parse_spec(&name.to_uppercase()).ok(), Some(t));
    }
}

#[test]
fn opteron_matches_the_cats_machine() {
    let t = Topology::preset("opteron-8380").unwrap();
    let l3 = t.cache_domains()[0].llc.clone().unwrap();
    assert_eq!(l3.size, 6_291_456);
    assert_eq!(l3.pus, vec![0, 1, 2, 3]);
    // One NUMA node per package.
    for p in t.pus() {
        assert_eq!(p.numa, p.package);
    }
}

#[test]
fn epyc_has_eight_domains_per_package() {
    let t = Topology::preset("epyc-7763-2s").unwrap();
    for d in t.cache_domains() {
        assert_eq!(d.package, d.index / 8);
        assert_eq!(d.pus.len(), 16);
    }
    // SMT siblings are adjacent: the first two PUs are one core.
    assert_eq!(t.pus()[0].core, t.pus()[1].core);
    assert_ne!(t.pus()[1].core, t.pus()[2].core);
}

#[test]
fn epyc_nps4_has_two_domains_per_node_and_four_nodes_per_package() {
    let t = Topology::preset("epyc-7763-2s-nps4").unwrap();
    for d in t.cache_domains() {
        assert_eq!(d.package, d.index / 8);
        assert_eq!(t.squad_numa(d.index), d.index / 2);
        assert_eq!(d.pus.len(), 16);
    }
    for node in t.numa_nodes() {
        assert_eq!(node.pus.len(), 32);
        assert!(node
            .pus
            .iter()
            .all(|&p| t.pus()[p].package == node.index / 4));
    }
    // The same caches as the NPS1 preset: only the nodes differ.
    let nps1 = Topology::preset("epyc-7763-2s").unwrap();
    assert_eq!(t.caches(), nps1.caches());
}

#[test]
fn genoa_has_twelve_domains_per_package() {
    let t = Topology::preset("epyc-9654-2s").unwrap();
    for d in t.cache_domains() {
        assert_eq!(d.package, d.index / 12);
        assert_eq!(t.squad_numa(d.index), d.package);
        assert_eq!(d.pus.len(), 16);
    }
    let l1i: Vec<u64> = sizes(&t, 1, CacheKind::Instruction);
    assert_eq!(l1i.len(), 192);
}

#[test]
fn cascade_lake_has_one_eleven_way_l3_per_package() {
    let t = Topology::preset("xeon-6230-2s").unwrap();
    let l3 = t.cache_domains()[1].llc.clone().unwrap();
    // 27.5 MiB, as hwloc reads it from CPUID: 28,835,840 bytes.
    assert_eq!((l3.size, l3.associativity), (28_835_840, 11));
    assert_eq!(l3.pus, (40..80).collect::<Vec<_>>());
    let l2 = t.caches().iter().find(|c| c.level == 2).unwrap();
    assert_eq!(l2.associativity, 16);
    for p in t.pus() {
        assert_eq!(p.numa, p.package);
    }
}

#[test]
fn hwloc_units_decimal_and_binary() {
    let t = Topology::from_synthetic("pack:4 l3:1(size=6MB) core:4 pu:1").unwrap();
    assert_eq!(t.name(), "pack:4 l3:1(size=6MB) core:4 pu:1");
    assert_eq!(t.num_packages(), 4);
    assert_eq!(t.num_cores(), 16);
    assert_eq!(
        t.num_numa_nodes(),
        1,
        "no numa level: one node for the machine"
    );
    assert_eq!(t.cache_domains().len(), 4);
    for d in t.cache_domains() {
        assert_eq!(d.llc.as_ref().unwrap().size, 6_000_000);
    }
    let t = Topology::from_synthetic("pack:4 l3:1(size=6MiB) core:4 pu:1").unwrap();
    assert_eq!(t.cache_domains()[0].llc.as_ref().unwrap().size, 6_291_456);
}

#[test]
fn synthetic_forms() {
    // Attributes separated by commas, hwloc's exported type names, [numa].
    let t = Topology::from_synthetic(
        "Package:2 [NUMANode(memory=1GiB)] L3Cache:1(size=8MiB,linesize=64,associativity=16) L2Cache:2 L1dCache:1 Core:1 PU:2",
    )
    .unwrap();
    assert_eq!(t.num_pus(), 8);
    assert_eq!(t.num_numa_nodes(), 2);
    assert_eq!(t.numa_nodes()[0].memory, Some(1 << 30));
    assert_eq!(t.cache_domains().len(), 2);
    let l3 = t.cache_domains()[1].llc.as_ref().unwrap();
    assert_eq!((l3.size, l3.line_size, l3.associativity), (8 << 20, 64, 16));
    // Defaults: L2 256 KiB, L1 32 KiB.
    assert!(t
        .caches()
        .iter()
        .any(|c| c.level == 2 && c.size == 256 << 10));
    assert!(t
        .caches()
        .iter()
        .any(|c| c.level == 1 && c.kind == CacheKind::Data && c.size == 32 << 10));

    // No caches: one domain per package, no llc.
    let t = Topology::from_synthetic("numa:2 pack:2 core:3 pu:2").unwrap();
    assert_eq!(
        (
            t.num_numa_nodes(),
            t.num_packages(),
            t.num_cores(),
            t.num_pus()
        ),
        (2, 4, 12, 24)
    );
    assert_eq!(t.cache_domains().len(), 4);
    assert!(t.cache_domains().iter().all(|d| d.llc.is_none()));

    // No core level: each PU is its own core. No pack: one package.
    let t = Topology::from_synthetic("l3:2 pu:4").unwrap();
    assert_eq!(
        (t.num_packages(), t.num_cores(), t.cache_domains().len()),
        (1, 8, 2)
    );

    // group / die multiply without adding objects.
    let t = Topology::from_synthetic("pack:2 die:2 l3:1 core:4 pu:1").unwrap();
    assert_eq!(
        (t.num_packages(), t.cache_domains().len(), t.num_pus()),
        (2, 4, 16)
    );
    assert_eq!(t.cache_domains()[2].package, 1);
}

#[test]
fn shorthand() {
    for (s, pus, cores, packages) in [
        ("2x1", 2, 2, 2),
        ("2x2", 4, 4, 2),
        ("4x4", 16, 16, 4),
        ("2x10x2", 40, 20, 2),
    ] {
        let t = Topology::from_synthetic(s).unwrap();
        assert_eq!(
            (t.num_pus(), t.num_cores(), t.num_packages()),
            (pus, cores, packages),
            "{s}"
        );
        assert_eq!(t.cache_domains().len(), packages, "{s}: one L3 per package");
        assert_eq!(t.cache_domains()[0].llc.as_ref().unwrap().size, 8 << 20);
        assert_eq!(t.name(), s);
        assert_eq!(Topology::parse_spec(s).unwrap(), t);
        // Private L2 and L1d per core.
        let l2 = t.caches().iter().filter(|c| c.level == 2).count();
        let l1 = t.caches().iter().filter(|c| c.level == 1).count();
        assert_eq!((l2, l1), (cores, cores), "{s}");
    }
    // The shorthand is the synthetic string it stands for.
    let a = Topology::from_synthetic("2x10x2").unwrap();
    let b = Topology::from_synthetic("pack:2 l3:1 l2:10 l1d:1 core:1 pu:2").unwrap();
    assert_eq!(a.pus(), b.pus());
    assert_eq!(a.caches(), b.caches());
}

#[test]
fn parse_spec_reads_synthetic_and_presets() {
    assert_eq!(
        Topology::parse_spec("  opteron-8380 ").unwrap().name(),
        "opteron-8380"
    );
    let t = Topology::parse_spec("pack:2 core:2 pu:1").unwrap();
    assert_eq!(t.num_pus(), 4);
    assert!(Topology::preset("no-such-machine").is_none());
    assert!(Topology::preset_synthetic("altix-2x2")
        .unwrap()
        .contains("numa:2"));
}

#[test]
fn serializes_to_json() {
    let t = Topology::preset("altix-2x2").unwrap();
    let json = serde_json::to_string(&t).unwrap();
    assert!(json.contains("\"altix-2x2\""));
    assert!(json.contains("\"Unified\""));
}
