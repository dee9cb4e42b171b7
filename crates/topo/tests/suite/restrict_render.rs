//! `Topology::restrict` and `Topology::render`.

use locus_topo::Topology;

#[test]
fn restrict_renumbers_and_drops_empty_domains() {
    let t = Topology::preset("opteron-8380").unwrap();
    // Keep PU 1 of package 0 and PUs 12..16 (package 3), given out of order.
    let r = t.restrict(&[15, 1, 12, 13, 14, 1]).unwrap();
    assert_eq!(r.name(), "opteron-8380");
    assert_eq!(r.num_pus(), 5);
    assert_eq!(r.num_packages(), 2);
    assert_eq!(r.num_numa_nodes(), 2);
    assert_eq!(r.num_cores(), 5);
    assert_eq!(r.cache_domains().len(), 2);
    assert_eq!(r.cache_domains()[0].pus, vec![0]);
    assert_eq!(r.cache_domains()[1].pus, vec![1, 2, 3, 4]);
    assert_eq!(
        r.cache_domains()[1].llc.as_ref().unwrap().pus,
        vec![1, 2, 3, 4]
    );
    assert_eq!(r.cache_domains()[1].package, 1);
    for (i, p) in r.pus().iter().enumerate() {
        assert_eq!(p.index, i);
    }
    // Every cache left has PUs, and there are no L2s of dropped cores.
    assert!(r.caches().iter().all(|c| !c.pus.is_empty()));
    assert_eq!(r.caches().iter().filter(|c| c.level == 2).count(), 5);
    // Restricting to everything is the identity.
    let all: Vec<usize> = (0..t.num_pus()).collect();
    assert_eq!(t.restrict(&all).unwrap(), t);
    // Restricting twice composes.
    let rr = r.restrict(&[1, 2]).unwrap();
    assert_eq!(
        (rr.num_pus(), rr.cache_domains().len(), rr.num_packages()),
        (2, 1, 1)
    );
}

#[test]
fn restrict_keeps_smt_siblings_together() {
    let t = Topology::preset("xeon-e5-2660v2").unwrap();
    let r = t.restrict(&[0, 1, 39]).unwrap();
    assert_eq!(r.num_cores(), 2);
    assert_eq!(r.pus()[0].core, r.pus()[1].core);
    assert_eq!(r.cores()[0].pus, vec![0, 1]);
}

#[test]
fn render_names_every_pu_and_one_squad_per_domain() {
    for name in Topology::preset_names() {
        let t = Topology::preset(name).unwrap();
        let text = t.render();
        for p in t.pus() {
            assert!(
                text.contains(&format!("PU L#{}\n", p.index)),
                "{name}: PU {} missing",
                p.index
            );
        }
        let squads = text.lines().filter(|l| l.starts_with("squad ")).count();
        assert_eq!(squads, t.cache_domains().len(), "{name}");
        assert!(text.starts_with(&format!("Machine \"{name}\"")));
    }
}

#[test]
fn render_shape() {
    let t = Topology::preset("opteron-8380").unwrap();
    let text = t.render();
    let expected_start = "\
Machine \"opteron-8380\" (virtual): 4 NUMA nodes, 4 packages, 4 cache domains, 16 cores, 16 PUs
  NUMANode L#0
    Package L#0
      L3 L#0 (6 MiB)
        L2 L#0 (512 KiB)
          L1d L#0 (64 KiB)
            L1i L#0 (64 KiB)
              Core L#0
                PU L#0
        L2 L#1 (512 KiB)
";
    assert!(text.starts_with(expected_start), "{text}");
    assert!(
        text.contains("squad 3: package 3, L3 (6 MiB), PUs 12-15\n"),
        "{text}"
    );

    let t = Topology::from_synthetic("pack:2 core:2 pu:1").unwrap();
    let text = t.render();
    assert!(
        text.contains("squad 1: package 1, no cache described, PUs 2-3"),
        "{text}"
    );
}
