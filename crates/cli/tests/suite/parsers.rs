//! What the `locus` binary does with input files and strings that could run away or
//! that describe no machine: an hwloc XML nested 20,000 deep (through `--machine` and
//! `LOCUS_TOPOLOGY`), a link to `/dev/zero` or a FIFO given as an XML machine, a schedule
//! or a latency file, a cache of size 0, and `cab:2:0`. Each is refused at once with exit
//! status 2 and a message naming the flag or variable and the file; none panics, none
//! hangs (every run is bounded by a timeout).

use crate::common::{scratch, text};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Longest a refusal may take: reading a FIFO or a device would take for ever.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Runs `locus` with `args` and the `LOCUS_*` variables of `vars` (all others removed),
/// killing it and failing the test if it runs past [`TIMEOUT`].
fn run(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_locus"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "LOCUS_NUM_THREADS",
        "LOCUS_POLICY",
        "LOCUS_TOPOLOGY",
        "LOCUS_COUNTERS",
        "RUST_LOG",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(vars.iter().copied());
    let mut child = cmd.spawn().expect("cannot start the locus binary");
    let start = Instant::now();
    while child.try_wait().expect("cannot wait for locus").is_none() {
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} {vars:?} still running after {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child
        .wait_with_output()
        .expect("cannot read locus's output")
}

/// Bad input: exit status 2, an error (no panic) naming each of `names`, nothing on
/// stdout.
fn refused_with(args: &[&str], vars: &[(&str, &str)], names: &[&str]) {
    let out = run(args, vars);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?} {vars:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?} {vars:?}: {stderr}");
    for n in names {
        assert!(
            stderr.contains(n),
            "{args:?} {vars:?}: {n:?} not named in: {stderr}"
        );
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
}

fn refused(args: &[&str], names: &[&str]) {
    refused_with(args, &[], names);
}

/// A path as a command-line word.
fn s(p: &Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}

/// An hwloc XML whose PU sits under 20,000 nested groups: it overflowed the stack.
fn deep_xml(dir: &Path) -> PathBuf {
    let levels = 20_000;
    let mut xml = String::from("<topology version=\"2.0\"><object type=\"Machine\">\n");
    xml.push_str(&"<object type=\"Group\">".repeat(levels));
    xml.push_str("<object type=\"PU\"/>");
    xml.push_str(&"</object>".repeat(levels));
    xml.push_str("</object></topology>\n");
    let path = dir.join("deep.xml");
    std::fs::write(&path, xml).unwrap();
    path
}

/// The commands that read a machine, each as short as it can run.
const MACHINE_READERS: [&[&str]; 3] = [
    &["topo"],
    &["bench", "fib", "--size", "10", "--reps", "1"],
    &["sim", "fib", "--size", "10", "--policy", "ws"],
];

#[test]
fn a_deeply_nested_xml_is_refused_through_the_flag_and_the_variable() {
    let dir = scratch("parsers-deep");
    let xml = deep_xml(&dir);
    let says = "elements are nested more than 256 deep";
    for cmd in MACHINE_READERS {
        let mut args = cmd.to_vec();
        args.extend(["--machine", s(&xml)]);
        refused(&args, &["--machine", s(&xml), says]);
    }
    // `sim` simulates the machine its --machine names (a preset by default), not the
    // variable's.
    for cmd in &MACHINE_READERS[..2] {
        refused_with(
            cmd,
            &[("LOCUS_TOPOLOGY", s(&xml))],
            &["LOCUS_TOPOLOGY", s(&xml), says],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO at `path`.
fn fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|st| st.success()), "mkfifo {path:?}");
}

#[test]
fn a_link_to_dev_zero_or_a_fifo_is_refused_as_every_input() {
    let dir = scratch("parsers-special");
    let zero_xml = dir.join("zero.xml");
    symlink("/dev/zero", &zero_xml).unwrap();
    let zero_json = dir.join("zero.json");
    symlink("/dev/zero", &zero_json).unwrap();
    let fifo_xml = dir.join("fifo.xml");
    fifo(&fifo_xml);
    let fifo_json = dir.join("fifo.json");
    fifo(&fifo_json);
    let device = "a character device, not a regular file";
    let a_fifo = "a FIFO, not a regular file";

    for (xml, says) in [(&zero_xml, device), (&fifo_xml, a_fifo)] {
        for cmd in MACHINE_READERS {
            let mut args = cmd.to_vec();
            args.extend(["--machine", s(xml)]);
            refused(&args, &["--machine", s(xml), says]);
        }
        refused_with(
            &["topo"],
            &[("LOCUS_TOPOLOGY", s(xml))],
            &["LOCUS_TOPOLOGY", s(xml), says],
        );
    }
    for (json, says) in [(&zero_json, device), (&fifo_json, a_fifo)] {
        refused(
            &["sim", "fib", "--size", "10", "--latencies", s(json)],
            &["--latencies", s(json), says],
        );
        for cmd in ["sim", "bench"] {
            refused(
                &[
                    cmd,
                    "irreg",
                    "--size",
                    "small,grain=16,iters=2",
                    "--machine",
                    "altix-2x2",
                    "--threads",
                    "4",
                    "--policy",
                    "affinity",
                    "--schedule",
                    s(json),
                ],
                &["--schedule", s(json), says],
            );
        }
    }
    // A folder is no input either.
    refused(
        &["sim", "fib", "--size", "10", "--latencies", s(&dir)],
        &["--latencies", "a folder, not a regular file"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cache_of_size_zero_is_refused() {
    let dir = scratch("parsers-zero-cache");
    let xml = dir.join("zero-cache.xml");
    std::fs::write(
        &xml,
        "<topology version=\"2.0\"><object type=\"Machine\">\n\
         <object type=\"L3Cache\" cache_size=\"0\"><object type=\"Core\">\
         <object type=\"PU\"/></object></object></object></topology>\n",
    )
    .unwrap();
    for cmd in MACHINE_READERS {
        let mut args = cmd.to_vec();
        args.extend(["--machine", s(&xml)]);
        refused(&args, &["--machine", "zero-cache.xml", "cache_size=\"0\""]);
        let mut args = cmd.to_vec();
        args.extend(["--machine", "pack:2 l3:1(size=0) core:2 pu:1"]);
        refused(
            &args,
            &[
                "--machine",
                "\"pack:2 l3:1(size=0) core:2 pu:1\"",
                "attribute 'size' is 0",
            ],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cab_with_an_input_of_no_bytes_is_refused() {
    for cmd in [
        &["sim", "fib", "--size", "10", "--policy"][..],
        &["bench", "fib", "--size", "10", "--reps", "1", "--policy"][..],
    ] {
        for policy in ["cab:2:0", "cab-paper:4:0MiB"] {
            let mut args = cmd.to_vec();
            args.push(policy);
            refused(&args, &["--policy", policy, "is 0", "at least 1 byte"]);
        }
    }
    refused_with(
        &["bench", "fib", "--size", "10", "--reps", "1"],
        &[("LOCUS_POLICY", "cab:2:0")],
        &["LOCUS_POLICY=\"cab:2:0\"", "is 0"],
    );
}

#[test]
fn a_matrix_file_without_line_breaks_is_refused_at_the_line_cap() {
    let dir = scratch("parsers-mtx-nul");
    // 64 GiB of zeros without a block on disk, as `truncate -s` makes them; and a valid
    // header followed by the same.
    let zeros = dir.join("huge.mtx");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    let header = dir.join("header.mtx");
    std::fs::write(
        &header,
        "%%MatrixMarket matrix coordinate real general\n4 4 2\n",
    )
    .unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&header)
        .unwrap()
        .set_len(64 << 30)
        .unwrap();
    for (path, line) in [(&zeros, "line 1"), (&header, "line 3")] {
        refused(
            &["sim", "spmv-crs", "--matrix", s(path)],
            &["--matrix", s(path), line, "longer than the 1 MiB"],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn latencies_that_would_run_the_simulator_away_are_refused() {
    let dir = scratch("parsers-rates");
    for (json, key, range) in [
        (r#"{"dram_gbps": 1e-9}"#, "dram_gbps", "from 0.1 to 100000"),
        (r#"{"link_gbps": 1e-9}"#, "link_gbps", "from 0.1 to 100000"),
        (r#"{"clock_ghz": 1e300}"#, "clock_ghz", "from 0.1 to 10"),
        (r#"{"ipc": 1e-300}"#, "ipc", "from 0.01 to 64"),
    ] {
        let file = dir.join(format!("{key}.json"));
        std::fs::write(&file, json).unwrap();
        refused(
            &[
                "sim",
                "heat",
                "--size",
                "66x64,leaf=4,iters=2",
                "--latencies",
                s(&file),
            ],
            &["--latencies", &format!("key \"{key}\""), range],
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
