//! hwloc XML inputs that must be refused before they can run away: elements nested
//! deeper than the parser's stack allows, and files that are not regular files or are
//! too large. Each refusal names the input and the limit.

use locus_topo::xml::{MAX_DEPTH, MAX_FILE_BYTES};
use locus_topo::Topology;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A fresh folder for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locus-topo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A topology whose one PU sits under `levels` nested elements opened by `open` and
/// closed by `close`, inside `<topology>` and a Machine object.
fn nested(levels: usize, open: &str, close: &str) -> String {
    let mut s = String::from("<topology version=\"2.0\"><object type=\"Machine\">");
    s.push_str(&open.repeat(levels));
    s.push_str("<object type=\"PU\"/>");
    s.push_str(&close.repeat(levels));
    s.push_str("</object></topology>");
    s
}

const GROUP: (&str, &str) = ("<object type=\"Group\">\n", "</object>");

fn refused(xml: &str, source: &str) -> String {
    Topology::from_xml_str(xml, source)
        .map(|t| t.num_pus())
        .unwrap_err()
        .to_string()
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    // About 20,000 levels overflowed the stack in the XML parser itself.
    for (open, close) in [
        GROUP,
        ("<object type=\"MemCache\">", "</object>"),
        ("<info>", "</info>"),
        ("<x a='>' b=\"/>\">", "</x>"),
    ] {
        let e = refused(&nested(20_000, open, close), "deep.xml");
        assert!(
            e.contains("\"deep.xml\"") && e.contains(&format!("more than {MAX_DEPTH} deep")),
            "{open}: {e}"
        );
    }
    // The position is that of the first element too deep: topology, Machine, then
    // MAX_DEPTH - 2 groups fit, one line each.
    let e = refused(&nested(20_000, GROUP.0, GROUP.1), "deep.xml");
    assert!(e.contains(&format!("at {}:1", MAX_DEPTH - 1)), "{e}");
}

#[test]
fn nesting_up_to_the_limit_is_read() {
    // topology + Machine + groups + PU = MAX_DEPTH elements.
    let t = Topology::from_xml_str(&nested(MAX_DEPTH - 3, GROUP.0, GROUP.1), "edge.xml")
        .expect("MAX_DEPTH levels are accepted");
    assert_eq!(t.num_pus(), 1);
    let e = refused(&nested(MAX_DEPTH - 2, GROUP.0, GROUP.1), "edge.xml");
    assert!(e.contains("nested more than"), "{e}");
}

#[test]
fn what_is_not_an_element_does_not_count() {
    // Markup inside comments, CDATA and instructions, `>` and `/>` inside attribute
    // values, and self-closing siblings nest nothing.
    let many = MAX_DEPTH * 4;
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<!-- {c} -->\
         <topology version=\"2.0\"><?pi {c}?><object type=\"Machine\" note=\"{a}\">\
         <info name='x' value='{a}'/>{s}<![CDATA[{c}]]><object type=\"PU\"/></object></topology>",
        c = "<object type=\"Group\">".repeat(many),
        a = "/>x>".repeat(many),
        s = "<info name=\"a\" value=\"b\"/>".repeat(many),
    );
    let t = Topology::from_xml_str(&xml, "flat.xml").expect("nothing here nests deeply");
    assert_eq!(t.num_pus(), 1);
}

#[test]
fn deep_nesting_in_a_file_names_the_file() {
    let dir = scratch("deep");
    let path = dir.join("deep.xml");
    std::fs::write(&path, nested(20_000, GROUP.0, GROUP.1)).unwrap();
    for e in [
        Topology::from_xml_file(&path).unwrap_err().to_string(),
        Topology::parse_spec(path.to_str().unwrap())
            .unwrap_err()
            .to_string(),
    ] {
        assert!(
            e.contains(path.to_str().unwrap()) && e.contains("nested more than 256 deep"),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Parses `path` as a machine, failing the test if that takes more than a few seconds
/// (a FIFO or a device read for ever would).
fn refused_fast(path: &Path) -> String {
    let start = Instant::now();
    let e = Topology::parse_spec(path.to_str().unwrap())
        .map(|t| t.num_pus())
        .unwrap_err()
        .to_string();
    assert!(start.elapsed() < Duration::from_secs(5), "{path:?}: {e}");
    assert!(e.contains(path.to_str().unwrap()), "{e}");
    e
}

#[test]
fn only_regular_files_are_read() {
    let dir = scratch("special");
    let zero = dir.join("zero.xml");
    symlink("/dev/zero", &zero).unwrap();
    let e = refused_fast(&zero);
    assert!(e.contains("a character device, not a regular file"), "{e}");
    let random = dir.join("random.xml");
    symlink("/dev/urandom", &random).unwrap();
    assert!(refused_fast(&random).contains("not a regular file"));

    let fifo = dir.join("fifo.xml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo {fifo:?}");
    assert!(refused_fast(&fifo).contains("a FIFO, not a regular file"));

    let folder = dir.join("folder.xml");
    std::fs::create_dir(&folder).unwrap();
    assert!(refused_fast(&folder).contains("a folder, not a regular file"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_over_the_cap_is_not_read() {
    let dir = scratch("large");
    let path = dir.join("large.xml");
    // Sparse: the length is checked before a byte is read.
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(MAX_FILE_BYTES + 1).unwrap();
    let e = refused_fast(&path);
    assert!(e.contains("128 MiB") && e.contains("hwloc XML"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
