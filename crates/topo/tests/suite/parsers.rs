//! Bounded fuzzing of the topology parsers (see `locus_files::fuzz`): synthetic
//! strings and shorthands, and hwloc XML, mutated from valid samples or made up. Each
//! input is accepted or refused with a message naming it; none panics or overflows
//! the stack.

use locus_files::fuzz;
use locus_topo::Topology;
use proptest::prelude::*;

/// Valid synthetic strings and shorthands, with every kind of level and attribute.
const STRINGS: &[&str] = &[
    "2x10x2",
    "4x4",
    "pack:4 l3:1(size=6MB) core:4 pu:1",
    "pack:2 [numa(memory=1GB)] l3:1(size=6MB,ways=12) core:2 pu:2",
    "numa:2 pack:1 group:2 l2:2(size=1MiB linesize=64 ways=16) l1d:1 l1i:1 core:1 pu:2",
    "pack:2 die:2 L3Cache:1 l2cache:2 l1dcache:1 core:1 pu:1",
];

/// What synthetic strings are made of.
const STRING_BYTES: &[u8] = b"0123456789:()[]=, xpackorenumlidszgwMBKiB";

/// Valid hwloc XML: the v2 and v1 samples and a small v2 machine with a NUMA memory
/// child under a MemCache.
const XML: &[&str] = &[
    include_str!("../data/v2-2pack-xeon.xml"),
    include_str!("../data/v1-2node-opteron.xml"),
    r#"<?xml version="1.0"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
 <object type="Machine">
  <object type="Package">
   <object type="MemCache" cache_size="1024"><object type="NUMANode" local_memory="4096"/></object>
   <object type="L2Cache" cache_size="1048576" cache_linesize="64" cache_associativity="-1">
    <object type="Core"><object type="PU"/><object type="PU"/></object>
   </object>
  </object>
 </object>
</topology>
"#,
];

/// What hwloc XML is made of.
const XML_BYTES: &[u8] = b"<>/=\"' !-?[]&;#0123456789abcdefgxyzPUCore\n";

/// Whether `message` names `input` as the topology errors quote it.
fn names(message: &str, input: &str) -> bool {
    message.contains(&format!("{input:?}")) || message.contains(&format!("{:?}", input.trim()))
}

proptest! {
    #![proptest_config(fuzz::config(256))]

    #[test]
    fn synthetic_strings(input in fuzz::inputs(STRINGS, STRING_BYTES)) {
        let text = String::from_utf8_lossy(&input);
        if let Err(e) = Topology::from_synthetic(&text) {
            let e = e.to_string();
            prop_assert!(names(&e, &text), "{e}");
        }
        // As --machine and LOCUS_TOPOLOGY read it; a mutation that happens to name an
        // existing file is read as XML, so only the message is checked.
        if let Err(e) = Topology::parse_spec(&text) {
            let e = e.to_string();
            prop_assert!(names(&e, &text) || e.contains(text.trim()), "{e}");
        }
    }

    #[test]
    fn hwloc_xml(input in fuzz::inputs(XML, XML_BYTES)) {
        let text = String::from_utf8_lossy(&input);
        if let Err(e) = Topology::from_xml_str(&text, "fuzz.xml") {
            let e = e.to_string();
            prop_assert!(e.contains("\"fuzz.xml\""), "{e}");
        }
    }
}

#[test]
fn the_samples_are_valid() {
    // Mutations of a sample that did not parse would only test the first error.
    for s in STRINGS {
        Topology::from_synthetic(s).unwrap_or_else(|e| panic!("{e}"));
    }
    for x in XML {
        Topology::from_xml_str(x, "sample.xml").unwrap_or_else(|e| panic!("{e}"));
    }
}
