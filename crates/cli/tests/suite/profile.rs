//! `locus profile` end to end: the files it writes, the schedule loading back for the
//! same machine and input, its help, and its errors. Every run profiles a small heat
//! (64 x 64, 8-row chunks, 2 sweeps), so the whole file takes seconds.

use crate::common;

use locus_profile::schedule;
use locus_profile::MachineDesc;
use locus_topo::Topology;

use crate::common::{locus, refused, text};

/// A fresh folder for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch(&format!("profile-{name}"))
}

const SIZE: &str = "64x64,leaf=8,iters=2";

#[test]
fn profile_writes_the_four_files_and_the_schedule_loads_back() {
    let dir = scratch("heat");
    let out_dir = dir.join("out");
    let out = locus(&[
        "profile",
        "heat",
        "--size",
        SIZE,
        "--machine",
        "opteron-8380",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for phase in ["record ", "profile ", "graph ", "partition ", "write "] {
        assert!(stdout.contains(phase), "{phase} missing from:\n{stdout}");
    }
    assert!(
        stdout.contains("machine opteron-8380: 16 workers in 4 squads of 4 over 4 NUMA nodes"),
        "{stdout}"
    );
    assert!(stdout.contains("sizes: "), "{stdout}");

    for file in ["profile.json", "graph.dot", "graph.metis", "schedule.json"] {
        let path = out_dir.join(file);
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{file} missing or empty");
        assert!(!out_dir.join(format!("{file}.tmp")).exists());
    }
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("profile.json")).unwrap())
            .unwrap();
    assert_eq!(profile["format"], "locus-profile");
    let tasks = profile["tasks"].as_array().unwrap().len();
    assert!(tasks >= 8, "{tasks} tasks");
    let metis = std::fs::read_to_string(out_dir.join("graph.metis")).unwrap();
    let header: Vec<&str> = metis.lines().next().unwrap().split(' ').collect();
    assert_eq!(header[0], tasks.to_string());
    assert_eq!(header[2], "011");
    assert_eq!(metis.lines().count(), tasks + 1);
    let dot = std::fs::read_to_string(out_dir.join("graph.dot")).unwrap();
    assert!(
        dot.starts_with("graph affinity {") && dot.contains(" -- "),
        "{dot}"
    );

    // The schedule is for this machine and this input, and for nothing else.
    let machine = MachineDesc::new(&Topology::preset("opteron-8380").unwrap(), 16).unwrap();
    let input = locus_profile::input_identity("heat", SIZE, &[]).unwrap();
    let path = out_dir.join("schedule.json");
    let s = schedule::load(&path, &machine, &input).unwrap();
    assert_eq!(s.placements().count(), tasks);
    let workers: std::collections::BTreeSet<usize> = s.placements().map(|p| p.2).collect();
    assert!(workers.len() > 1, "{workers:?}");
    let other = MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 4).unwrap();
    let e = schedule::load(&path, &other, &input)
        .unwrap_err()
        .to_string();
    assert!(e.contains("another machine"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn threads_and_graph_options_reach_the_schedule() {
    let dir = scratch("options");
    let out = locus(&[
        "profile",
        "heat",
        "--size",
        SIZE,
        "--machine",
        "altix-2x2",
        "--threads",
        "2",
        "--dense-ratio",
        "0",
        "--tolerance",
        "1.2",
        "--cap",
        "8",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("machine altix-2x2: 2 workers in 1 squad of 2"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" 0 edges"),
        "dense ratio 0 gives no edges:\n{stdout}"
    );
    assert!(stdout.contains("tolerance 1.2"), "{stdout}");
    assert!(stdout.contains("at 8 runs"), "{stdout}");
    let machine = MachineDesc::new(&Topology::preset("altix-2x2").unwrap(), 2).unwrap();
    let input = locus_profile::input_identity("heat", SIZE, &[]).unwrap();
    schedule::load(&dir.join("schedule.json"), &machine, &input).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn profile_help_explains_each_flag_and_its_default() {
    let out = locus(&["profile", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for flag in [
        "--size",
        "--machine",
        "--threads",
        "--out",
        "--dense-ratio",
        "--tolerance",
        "--max-edges",
        "--cap",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    for default in [
        "[default: 0.9]",
        "[default: 1.05]",
        "[default: 4096]",
        "this machine",
    ] {
        assert!(help.contains(default), "{default} missing from:\n{help}");
    }
    assert!(help.contains("leaf=L"), "size syntax listed: {help}");
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let dir = scratch("errors");
    let out_dir = dir.join("o");
    let o = out_dir.to_str().unwrap();

    refused(
        &["profile", "nosuchkernel", "--out", o],
        &["bad KERNEL", "nosuchkernel"],
    );
    refused(
        &["profile", "heat", "--size", "64x", "--out", o],
        &["bad --size"],
    );
    refused(
        &["profile", "heat", "--machine", "nosuchmachine", "--out", o],
        &["bad --machine"],
    );

    for (flag, value) in [
        ("--dense-ratio", "1.5"),
        ("--tolerance", "1"),
        ("--cap", "0"),
        ("--max-edges", "0"),
    ] {
        refused(&["profile", "heat", flag, value, "--out", o], &[flag]);
    }

    // --out names a file, or a folder under a file: nothing can be written there.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let to = |out: &std::path::Path| out.to_str().unwrap().to_owned();
    let (file_out, under_out) = (to(&file), to(&file.join("sub")));
    refused(
        &["profile", "heat", "--size", SIZE, "--out", &file_out],
        &["--out", "is a file, not a folder"],
    );
    refused(
        &["profile", "heat", "--size", SIZE, "--out", &under_out],
        &["--out", "is a file, not a folder"],
    );
    assert!(!out_dir.exists(), "nothing ran for bad input");

    // A graph past --max-edges is refused with the way out.
    let out = locus(&[
        "profile",
        "heat",
        "--size",
        SIZE,
        "--max-edges",
        "3",
        "--out",
        o,
    ]);
    assert_eq!(out.status.code(), Some(3), "a run that could not be made");
    let err = text(&out.stderr);
    assert!(
        err.contains("more than 3 edges")
            && err.contains("--dense-ratio")
            && err.contains("--max-edges"),
        "{err}"
    );

    // A kernel that declares no footprint has nothing to profile: a failed run.
    let out = locus(&["profile", "fib", "--size", "10", "--out", o]);
    assert_eq!(out.status.code(), Some(3), "a run that could not be made");
    assert!(
        text(&out.stderr).contains("no leaf task declares a memory access"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn out_through_a_link_to_a_folder_is_refused() {
    let dir = scratch("outlink");
    let real = dir.join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    refused(
        &[
            "profile",
            "heat",
            "--size",
            SIZE,
            "--out",
            link.to_str().unwrap(),
        ],
        &["--out", "symbolic link", "name the folder itself"],
    );
    assert_eq!(
        std::fs::read_dir(&real).unwrap().count(),
        0,
        "nothing was written through the link"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
