//! hwloc XML: the v2 and v1 samples under `tests/data/`.

use std::path::PathBuf;

use locus_topo::{CacheKind, Topology};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn v2_sample() {
    let path = data("v2-2pack-xeon.xml");
    let t = Topology::from_xml_file(&path).unwrap();
    assert_eq!(t.name(), "v2-2pack-xeon.xml");
    assert!(t.is_virtual());
    assert_eq!(t.num_pus(), 8);
    assert_eq!(t.num_cores(), 4);
    assert_eq!(t.num_packages(), 2);
    assert_eq!(
        t.num_numa_nodes(),
        2,
        "NUMANode memory children of the packages"
    );
    assert_eq!(t.numa_nodes()[1].memory, Some(33_554_432_000));
    assert_eq!(t.cache_domains().len(), 2);
    let l3 = t.cache_domains()[0].llc.as_ref().unwrap();
    assert_eq!(
        (l3.level, l3.kind, l3.size, l3.line_size, l3.associativity),
        (3, CacheKind::Unified, 23_068_672, 64, 11)
    );
    assert_eq!(l3.pus, vec![0, 1, 2, 3]);
    assert_eq!(
        t.caches()
            .iter()
            .filter(|c| c.kind == CacheKind::Instruction)
            .count(),
        4
    );
    assert_eq!(t.caches().len(), 2 + 4 * 3);
    for p in t.pus() {
        assert_eq!(p.os_index, None, "described machine");
        assert_eq!(p.numa, p.package);
        assert_eq!(p.core, p.index / 2);
    }
    // The same text through parse_spec and from_xml_str.
    assert_eq!(Topology::parse_spec(path.to_str().unwrap()).unwrap(), t);
    let text = std::fs::read_to_string(&path).unwrap();
    let s = Topology::from_xml_str(&text, "sample").unwrap();
    assert_eq!(s.name(), "sample");
    assert_eq!(s.pus(), t.pus());
}

#[test]
fn v1_sample() {
    let t = Topology::from_xml_file(&data("v1-2node-opteron.xml")).unwrap();
    assert_eq!(t.num_pus(), 4);
    assert_eq!(t.num_cores(), 4);
    assert_eq!(t.num_packages(), 2, "v1 Socket is a package");
    assert_eq!(t.num_numa_nodes(), 2, "v1 NUMANode is a parent");
    assert_eq!(t.numa_nodes()[0].memory, Some(8_589_934_592));
    assert_eq!(t.cache_domains().len(), 2);
    let l3 = t.cache_domains()[1].llc.as_ref().unwrap();
    assert_eq!((l3.size, l3.associativity), (6_291_456, 48));
    assert_eq!(l3.pus, vec![2, 3]);
    let l1 = t
        .caches()
        .iter()
        .filter(|c| c.level == 1)
        .map(|c| c.kind)
        .collect::<Vec<_>>();
    assert_eq!(l1, [CacheKind::Data, CacheKind::Instruction].repeat(4));
}

#[test]
fn fully_associative_and_no_caches() {
    let xml = r#"<topology version="2.0">
      <object type="Machine">
        <object type="NUMANode" local_memory="1024"/>
        <object type="Group">
          <object type="L2Cache" cache_size="1048576" cache_associativity="-1">
            <object type="Core"><object type="PU"/></object>
          </object>
        </object>
        <object type="Misc"/>
      </object>
    </topology>"#;
    let t = Topology::from_xml_str(xml, "inline").unwrap();
    assert_eq!(t.num_pus(), 1);
    assert_eq!(t.caches()[0].associativity, 0);
    assert_eq!(t.numa_nodes()[0].memory, Some(1024));

    let xml = r#"<topology version="2.0"><object type="Machine">
        <object type="Package"><object type="Core"><object type="PU"/><object type="PU"/></object></object>
        <object type="Package"><object type="Core"><object type="PU"/><object type="PU"/></object></object>
      </object></topology>"#;
    let t = Topology::from_xml_str(xml, "inline").unwrap();
    assert_eq!(
        (
            t.num_pus(),
            t.num_cores(),
            t.num_packages(),
            t.num_numa_nodes()
        ),
        (4, 2, 2, 1)
    );
    assert_eq!(
        t.cache_domains().len(),
        2,
        "one domain per package without caches"
    );
    assert!(t.cache_domains()[0].llc.is_none());
}

#[test]
fn file_errors_name_the_path() {
    let e = Topology::from_xml_file(&data("missing.xml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing.xml") && e.contains("cannot read"),
        "{e}"
    );
}
