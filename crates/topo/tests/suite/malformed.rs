//! Malformed synthetic strings, shorthands, XML documents and specs: each one
//! must give an `Err` whose message names the input and the problem, and none
//! may panic.

use locus_topo::Topology;

/// Which entry point gets the input.
#[derive(Clone, Copy, Debug)]
enum Via {
    Synthetic,
    Xml,
    Spec,
}

/// `(via, input, fragments the message must contain)`.
const CASES: &[(Via, &str, &[&str])] = &[
    // --- synthetic strings ---
    (Via::Synthetic, "", &["\"\"", "byte 0", "empty string"]),
    (Via::Synthetic, "   ", &["byte 3", "expected a level"]),
    (Via::Synthetic, "pack:0 pu:1", &["\"pack:0 pu:1\"", "byte 5", "at least 1"]),
    (Via::Synthetic, "pack:4 core:4", &["\"pack:4 core:4\"", "byte 13", "expected a 'pu' level last"]),
    (Via::Synthetic, "pu:2 core:2", &["byte 5", "'pu' must be the last level"]),
    (Via::Synthetic, "pack:x pu:1", &["byte 5", "expected a count after ':'"]),
    (Via::Synthetic, "pack: pu:1", &["byte 5", "expected a count after ':'"]),
    (Via::Synthetic, "pack pu:1", &["byte 4", "expected ':'"]),
    (Via::Synthetic, "l3:1(size=6XB) core:2 pu:1", &["byte 10", "attribute 'size' has no unit-valid number", "XB"]),
    (Via::Synthetic, "l3:1(size=) core:2 pu:1", &["attribute 'size' has no unit-valid number"]),
    (Via::Synthetic, "l3:1(size=6MB core:2 pu:1", &["byte 4", "unclosed '('"]),
    (Via::Synthetic, "l3:1(size=6MB)core:2 pu:1", &["byte 14", "expected a space"]),
    (Via::Synthetic, "l3:1(colour=red) core:2 pu:1", &["byte 5", "unknown attribute 'colour'", "size, linesize or ways"]),
    (Via::Synthetic, "core:2(size=1MB) pu:1", &["unknown attribute 'size' for level 'core'"]),
    (Via::Synthetic, "l2:1(ways=many) core:1 pu:1", &["attribute 'ways' expects a whole number"]),
    (Via::Synthetic, "pack:2 core:2 core:2 pu:1", &["byte 14", "only 'pu' may follow 'core'"]),
    (Via::Synthetic, "pack:2 core:2 pu:1 pu:1", &["byte 19", "'pu' must be the last level"]),
    (Via::Synthetic, "pack:2 pack:2 core:2 pu:1", &["byte 7", "duplicated level 'pack'"]),
    (Via::Synthetic, "pack:2 cor:2 pu:1", &["byte 7", "unknown level type 'cor'"]),
    (Via::Synthetic, "machine:1 core:2 pu:1", &["unknown level type 'machine'"]),
    (Via::Synthetic, "l2:1 l3:1 core:2 pu:1", &["byte 5", "cache level 'l3' cannot be inside 'l2'"]),
    (Via::Synthetic, "l3:1 l3:1 core:2 pu:1", &["cache level 'l3' cannot be inside 'l3'"]),
    (Via::Synthetic, "l3:1 pack:2 core:2 pu:1", &["'pack' must come before the cache levels"]),
    (Via::Synthetic, "pack:99999999999 core:99999999 pu:99999999", &["byte 5", "more than 65536 PUs"]),
    (Via::Synthetic, "pack:256 core:256 pu:2", &["byte 21", "more than 65536 PUs"]),
    (Via::Synthetic, "pack:999999999999999999999999 pu:1", &["byte 5", "too large"]),
    (Via::Synthetic, "pack:2 [core] pu:1", &["only a NUMA node may be written in brackets"]),
    (Via::Synthetic, "pack:2 [numa core:1 pu:1", &["expected ']'"]),
    (Via::Synthetic, "numa:2(memory=lots) pu:1", &["attribute 'memory' has no unit-valid number"]),
    (Via::Synthetic, "pack:2 core:2 pu:1 ünïcode", &["byte 19", "expected a level type"]),
    (Via::Synthetic, "pack:2 é:1 pu:1", &["byte 7", "expected a level type"]),
    (Via::Synthetic, "l3:1(size=99999999999999999999TB) pu:1", &["attribute 'size'", "too large"]),
    (Via::Synthetic, "l3:1(size=20000000TiB) pu:1", &["attribute 'size' is too large"]),
    (Via::Synthetic, "core:2(indexes=0,1) pu:1", &["'indexes' is not supported"]),
    (Via::Synthetic, "l3:1(size=0) core:2 pu:1", &["byte 10", "attribute 'size' is 0", "at least one byte"]),
    (Via::Synthetic, "l3:1(size=0MiB) core:2 pu:1", &["attribute 'size' is 0"]),
    (Via::Synthetic, "l2:1(linesize=0) core:1 pu:1", &["attribute 'linesize' is 0", "cache line"]),
    // --- shorthand ---
    (Via::Synthetic, "0x2", &["\"0x2\"", "byte 0", "at least 1"]),
    (Via::Synthetic, "2x0", &["byte 2", "at least 1"]),
    (Via::Synthetic, "2x", &["byte 2", "expected a number"]),
    (Via::Synthetic, "2", &["byte 1", "'x' and a core count"]),
    (Via::Synthetic, "2x2x2x2", &["byte 5", "at most three numbers"]),
    (Via::Synthetic, "2x2y", &["byte 3", "expected the end of the shorthand"]),
    (Via::Synthetic, "300x300", &["byte 4", "more than 65536 PUs"]),
    (Via::Synthetic, "99999999999999999999999x1", &["byte 0", "too large"]),
    // --- XML ---
    (Via::Xml, "", &["\"test.xml\"", "1:1", "not well-formed"]),
    (Via::Xml, "<topology><object type=\"PU\">", &["\"test.xml\"", "not well-formed"]),
    (Via::Xml, "<topology version=\"2.0\"><object type=\"Machine\"></object></topology>", &["1:1", "expected at least one <object type=\"PU\">"]),
    (Via::Xml, "<topology version=\"2.0\"></topology>", &["expected an <object type=\"Machine\">"]),
    (Via::Xml, "<machine/>", &["1:1", "expected a <topology> root element, found <machine>"]),
    (Via::Xml, "<topology version=\"2.0\">\n <object type=\"Machine\">\n  <object type=\"L3Cache\" cache_size=\"-6\">\n   <object type=\"PU\"/>\n  </object>\n </object>\n</topology>", &["3:38", "cache_size=\"-6\" is not a number of bytes"]),
    (Via::Xml, "<topology version=\"2.0\"><object type=\"Machine\"><object type=\"L2Cache\" cache_size=\"big\"><object type=\"PU\"/></object></object></topology>", &["1:83", "cache_size=\"big\""]),
    (Via::Xml, "<topology version=\"2.0\"><object type=\"Machine\"><object type=\"L2Cache\"><object type=\"PU\"/></object></object></topology>", &["1:48", "expected a cache_size attribute"]),
    (Via::Xml, "<topology><object type=\"Machine\"><object type=\"Cache\" cache_size=\"1024\"><object type=\"PU\"/></object></object></topology>", &["expected a depth attribute"]),
    (Via::Xml, "<topology><object type=\"Machine\"><object type=\"Cache\" depth=\"9\" cache_size=\"1024\"><object type=\"PU\"/></object></object></topology>", &["cache depth 9 is out of range"]),
    (Via::Xml, "<topology><object type=\"Machine\"><object type=\"Cache\" depth=\"2\" cache_type=\"7\" cache_size=\"1024\"><object type=\"PU\"/></object></object></topology>", &["cache_type 7"]),
    (Via::Xml, "<topology><object type=\"Machine\"><object type=\"Cache\" depth=\"2\" cache_size=\"1024\" cache_associativity=\"-5\"><object type=\"PU\"/></object></object></topology>", &["cache_associativity -5 is out of range"]),
    (Via::Xml, "<topology version=\"2.0\"><object type=\"Machine\"><object type=\"L2Cache\" cache_size=\"0\"><object type=\"PU\"/></object></object></topology>", &["\"test.xml\"", "1:83", "cache_size=\"0\"", "at least one byte"]),
    (Via::Xml, "<topology><object type=\"Machine\"><object type=\"Cache\" depth=\"3\" cache_size=\" 0 \"><object type=\"PU\"/></object></object></topology>", &["cache_size=\"0\""]),
    (Via::Xml, "<!DOCTYPE topology [<!ENTITY o \"<object type='PU'/>\">]><topology><object type=\"Machine\">&o;</object></topology>", &["\"test.xml\"", "1:21", "declares an entity"]),
    (Via::Xml, "<topology><object><object type=\"PU\"/></object></topology>", &["1:11", "expected a type attribute"]),
    (Via::Xml, "<topology version=\"2.0\"><object type=\"Machine\"><object type=\"NUMANode\" local_memory=\"x\"/><object type=\"PU\"/></object></topology>", &["local_memory=\"x\""]),
    // --- specs ---
    (Via::Spec, "", &["unknown machine \"\"", "opteron-8380", "xeon-x7550", "epyc-7763-2s", "epyc-7763-2s-nps4", "epyc-9654-2s", "xeon-6230-2s"]),
    (Via::Spec, "epyc-9654", &["unknown machine \"epyc-9654\"", "epyc-9654-2s"]),
    (Via::Spec, "epyc-7763-2s-nps2", &["unknown machine \"epyc-7763-2s-nps2\"", "epyc-7763-2s-nps4"]),
    (Via::Spec, "opteron-838", &["unknown machine \"opteron-838\"", "opteron-8380"]),
    (Via::Spec, "xeon", &["unknown machine \"xeon\"", "a preset name (", "synthetic string"]),
    (Via::Spec, "/nonexistent/dir/machine.xml", &["hwloc XML file \"/nonexistent/dir/machine.xml\"", "cannot read it"]),
    (Via::Spec, "0x4", &["\"0x4\"", "at least 1"]),
    (Via::Spec, "pack:2 core:2", &["expected a 'pu' level last"]),
];

fn run(via: Via, input: &str) -> Result<Topology, locus_topo::TopoError> {
    match via {
        Via::Synthetic => Topology::from_synthetic(input),
        Via::Xml => Topology::from_xml_str(input, "test.xml"),
        Via::Spec => Topology::parse_spec(input),
    }
}

#[test]
fn malformed_inputs_are_clear_errors() {
    assert!(CASES.len() >= 25);
    let mut failures = Vec::new();
    for &(via, input, fragments) in CASES {
        let result = std::panic::catch_unwind(|| run(via, input));
        match result {
            Err(_) => failures.push(format!("{via:?} {input:?}: panicked")),
            Ok(Ok(t)) => {
                failures.push(format!("{via:?} {input:?}: accepted ({} PUs)", t.num_pus()))
            }
            Ok(Err(e)) => {
                let msg = e.to_string();
                for f in fragments {
                    if !msg.contains(f) {
                        failures.push(format!("{via:?} {input:?}: message {msg:?} lacks {f:?}"));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn synthetic_errors_name_the_input() {
    // Every synthetic error message quotes the input it is about.
    for &(via, input, _) in CASES {
        if let (Via::Synthetic, Err(e)) = (via, run(via, input)) {
            assert!(e.to_string().contains(&format!("{input:?}")), "{e}");
        }
    }
}

#[test]
fn xml_errors_have_a_source() {
    use std::error::Error as _;
    let e = Topology::from_xml_str("<topology>", "broken.xml").unwrap_err();
    assert!(
        e.source().is_some(),
        "a syntax error chains the roxmltree error"
    );
}

#[test]
fn restrict_errors() {
    let t = Topology::from_synthetic("2x2").unwrap();
    let e = t.restrict(&[]).unwrap_err().to_string();
    assert!(e.contains("\"2x2\"") && e.contains("empty"), "{e}");
    let e = t.restrict(&[0, 4]).unwrap_err().to_string();
    assert!(e.contains("PU index 4 is out of range"), "{e}");
}

/// Every single-character deletion or insertion of valid inputs, and every
/// truncation of an XML sample, is an `Ok` or an `Err`, never a panic.
#[test]
fn mutations_never_panic() {
    let mut bases: Vec<String> = Topology::preset_names()
        .iter()
        .filter_map(|n| Topology::preset_synthetic(n))
        .map(str::to_owned)
        .collect();
    bases.extend(
        [
            "2x10x2",
            "pack:2 [numa(memory=1GB)] l3:1(size=6MB,ways=12) core:2 pu:2",
        ]
        .map(String::from),
    );
    let inserts = ['0', '9', ':', '(', ')', '[', ']', ' ', '=', 'x', 'é', ','];
    for base in &bases {
        let chars: Vec<char> = base.chars().collect();
        for i in 0..=chars.len() {
            let mut variants = Vec::new();
            if i < chars.len() {
                let mut v = chars.clone();
                v.remove(i);
                variants.push(v);
            }
            for c in inserts {
                let mut v = chars.clone();
                v.insert(i, c);
                variants.push(v);
            }
            for v in variants {
                let s: String = v.into_iter().collect();
                let r = std::panic::catch_unwind(|| {
                    (
                        Topology::from_synthetic(&s).is_ok(),
                        Topology::parse_spec(&s).is_ok(),
                    )
                });
                assert!(r.is_ok(), "panicked on {s:?}");
            }
        }
    }
    let xml = include_str!("../data/v2-2pack-xeon.xml");
    for cut in (0..xml.len()).step_by(37) {
        let Some(part) = xml.get(..cut) else { continue };
        let r = std::panic::catch_unwind(|| Topology::from_xml_str(part, "cut.xml").is_ok());
        assert!(r.is_ok(), "panicked on a cut at {cut}");
    }
}
