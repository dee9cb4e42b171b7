//! What the `locus` binary writes and reads: no output flag destroys a device, a link or
//! one of the run's own inputs; `profile --out` keeps an existing profile unless told;
//! values from the environment are named as variables; the exit status tells bad input
//! (2) from a wrong answer (1) and from a run that could not be made (3). Every run is
//! tiny, and every refusal comes before anything runs.

use crate::common::{locus, refused, scratch, text};
use std::os::unix::fs::{symlink, FileTypeExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path as a command-line word.
fn s(p: &Path) -> &str {
    p.to_str().expect("scratch paths are UTF-8")
}

/// A character device like `/dev/null` (1, 3) at `path` where this process may make one
/// (root), else a FIFO: either way not a regular file, which is what an output must not
/// replace.
fn device_or_fifo(path: &Path) -> &'static str {
    let made = |cmd: &mut Command| cmd.status().is_ok_and(|s| s.success());
    if made(Command::new("mknod").args(["-m", "666", s(path), "c", "1", "3"])) {
        "device"
    } else if made(Command::new("mkfifo").arg(path)) {
        "fifo"
    } else {
        panic!("neither mknod nor mkfifo could make {path:?}")
    }
}

fn is_special(path: &Path) -> bool {
    let t = std::fs::symlink_metadata(path)
        .expect("the special file is still there")
        .file_type();
    t.is_char_device() || t.is_fifo()
}

#[test]
fn a_device_given_as_an_output_stays_a_device() {
    let dir = scratch("files-device");
    let fake = dir.join("fakenull");
    let kind = device_or_fifo(&fake);
    for args in [
        vec![
            "sim",
            "fib",
            "--size",
            "14",
            "--policy",
            "ws",
            "--json",
            s(&fake),
        ],
        vec![
            "sim",
            "fib",
            "--size",
            "14",
            "--policy",
            "ws",
            "--trace",
            s(&fake),
        ],
        vec![
            "bench",
            "fib",
            "--size",
            "10",
            "--reps",
            "1",
            "--json",
            s(&fake),
        ],
        vec![
            "sim",
            "sweep",
            "fib",
            "--param",
            "rows",
            "--values",
            "8,9",
            "--plot",
            s(&fake),
        ],
        vec!["sim", "fib", "--size", "10", "--json", "/dev/null"],
        vec![
            "bench",
            "fib",
            "--size",
            "10",
            "--reps",
            "1",
            "--json",
            "/dev/null",
        ],
    ] {
        refused(&args, &["regular file"]);
        let out = locus(&args);
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("a character device") || stderr.contains("a FIFO"),
            "{args:?}: {stderr}"
        );
        assert!(is_special(&fake), "{kind} replaced by {args:?}");
        assert!(
            is_special(Path::new("/dev/null")),
            "/dev/null replaced by {args:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_link_given_as_an_output_is_refused_and_left_alone() {
    let dir = scratch("files-link");
    let target = dir.join("target.json");
    std::fs::write(&target, "precious").unwrap();
    let link = dir.join("link.json");
    symlink(&target, &link).unwrap();
    let dangling = dir.join("dangling.json");
    symlink(dir.join("nowhere"), &dangling).unwrap();
    for out in [&link, &dangling] {
        refused(
            &[
                "sim",
                "fib",
                "--size",
                "10",
                "--policy",
                "ws",
                "--json",
                s(out),
            ],
            &["--json", "symbolic link", "name the file itself"],
        );
        refused(
            &[
                "sim",
                "fib",
                "--size",
                "10",
                "--policy",
                "ws",
                "--trace",
                s(out),
            ],
            &["--trace", "symbolic link"],
        );
        assert!(std::fs::symlink_metadata(out)
            .unwrap()
            .file_type()
            .is_symlink());
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    assert!(
        !dir.join("nowhere").exists(),
        "nothing written through the link"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_never_overwrite_the_runs_own_inputs() {
    let dir = scratch("files-inputs");
    let matrix = dir.join("m.mtx");
    let mtx = "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n2 2 2.0\n3 3 3.0\n";
    std::fs::write(&matrix, mtx).unwrap();
    let latencies = dir.join("lat.json");
    std::fs::write(&latencies, "{\"l3_hit\": 40}\n").unwrap();
    let xml = dir.join("box.xml");
    let xml_text =
        "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n<object type=\"Machine\">\n\
        <object type=\"Package\"><object type=\"L3Cache\" cache_size=\"8388608\">\n\
        <object type=\"Core\"><object type=\"PU\"/></object>\n\
        <object type=\"Core\"><object type=\"PU\"/></object>\n\
        </object></object></object>\n</topology>\n";
    std::fs::write(&xml, xml_text).unwrap();
    let size_matrix = format!("matrix={},iters=1", s(&matrix));
    let dotted = format!("{}/./m.mtx", s(&dir));
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec![
                "sim",
                "spmm",
                "--matrix",
                s(&matrix),
                "--policy",
                "ws",
                "--json",
                s(&matrix),
            ],
            &["--json", "--matrix input", "own inputs"],
        ),
        (
            vec![
                "sim",
                "spmm",
                "--size",
                &size_matrix,
                "--policy",
                "ws",
                "--json",
                s(&matrix),
            ],
            &["--json", "--size input"],
        ),
        (
            vec![
                "sim",
                "fib",
                "--size",
                "10",
                "--policy",
                "ws",
                "--latencies",
                s(&latencies),
                "--json",
                s(&latencies),
            ],
            &["--json", "--latencies input"],
        ),
        (
            vec![
                "sim",
                "fib",
                "--size",
                "10",
                "--policy",
                "ws",
                "--machine",
                s(&xml),
                "--trace",
                s(&xml),
            ],
            &["--trace", "--machine input"],
        ),
        (
            vec![
                "bench",
                "fib",
                "--size",
                "10",
                "--reps",
                "1",
                "--machine",
                s(&xml),
                "--json",
                s(&xml),
            ],
            &["--json", "--machine input"],
        ),
        (
            vec![
                "bench",
                "spmv-crs",
                "--matrix",
                s(&matrix),
                "--reps",
                "1",
                "--json",
                &dotted,
            ],
            &["--json", "--matrix input"],
        ),
    ];
    for (args, names) in &cases {
        refused(args, names);
    }
    assert_eq!(std::fs::read_to_string(&matrix).unwrap(), mtx);
    assert_eq!(
        std::fs::read_to_string(&latencies).unwrap(),
        "{\"l3_hit\": 40}\n"
    );
    assert_eq!(std::fs::read_to_string(&xml).unwrap(), xml_text);

    // Two outputs of one run on one file.
    let both = dir.join("x.json");
    refused(
        &[
            "sim",
            "fib",
            "--size",
            "10",
            "--policy",
            "ws",
            "--trace",
            s(&both),
            "--json",
            s(&both),
        ],
        &["--trace", "--json output", "two outputs"],
    );
    assert!(!both.exists());

    // The machine named by LOCUS_TOPOLOGY is an input too.
    let out = with_env(
        &[
            "bench",
            "fib",
            "--size",
            "10",
            "--reps",
            "1",
            "--json",
            s(&xml),
        ],
        &[("LOCUS_TOPOLOGY", s(&xml))],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("LOCUS_TOPOLOGY input"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&xml).unwrap(), xml_text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_regular_output_file_is_replaced_whole() {
    let dir = scratch("files-regular");
    let json = dir.join("r.json");
    std::fs::write(&json, "old").unwrap();
    let out = locus(&[
        "sim",
        "fib",
        "--size",
        "10",
        "--policy",
        "ws",
        "--json",
        s(&json),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(doc["results"].is_array(), "{doc}");
    let left: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left, vec![json], "no temporary file is left behind");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn profile_keeps_an_existing_profile_unless_forced() {
    let dir = scratch("files-profile");
    let o = dir.join("o");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "profile",
            "heat",
            "--size",
            "64x32,leaf=8,iters=1",
            "--out",
            s(&o),
        ];
        args.extend_from_slice(extra);
        locus(&args)
    };
    let first = run(&[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let schedule = std::fs::read(o.join("schedule.json")).unwrap();
    std::fs::write(o.join("notes.txt"), "mine").unwrap();
    refused(
        &[
            "profile",
            "heat",
            "--size",
            "64x32,leaf=8,iters=1",
            "--out",
            s(&o),
        ],
        &[
            "--out",
            "already holds a profile",
            "schedule.json",
            "--force",
        ],
    );
    assert_eq!(std::fs::read(o.join("schedule.json")).unwrap(), schedule);
    let forced = run(&["--force"]);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert_eq!(
        std::fs::read_to_string(o.join("notes.txt")).unwrap(),
        "mine",
        "--force replaces the profile's files only"
    );

    // At most the last folder of the path is created.
    let deep = dir.join("no/such/chain");
    refused(
        &[
            "profile",
            "heat",
            "--size",
            "64x32,leaf=8,iters=1",
            "--out",
            s(&deep),
        ],
        &["--out", "does not exist", "at most the last folder"],
    );
    assert!(!dir.join("no").exists());
    let last = dir.join("fresh");
    let out = locus(&[
        "profile",
        "heat",
        "--size",
        "64x32,leaf=8,iters=1",
        "--out",
        s(&last),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(last.join("schedule.json").is_file());

    // A link where a profile file goes is refused even with --force.
    let linked = dir.join("linked");
    std::fs::create_dir(&linked).unwrap();
    let precious = dir.join("precious.json");
    std::fs::write(&precious, "keep").unwrap();
    symlink(&precious, linked.join("schedule.json")).unwrap();
    refused(
        &[
            "profile",
            "heat",
            "--size",
            "64x32,leaf=8,iters=1",
            "--out",
            s(&linked),
            "--force",
        ],
        &["--out", "symbolic link"],
    );
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `locus` with `args` and the given `LOCUS_*` variables (all others removed).
fn with_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_locus"));
    cmd.args(args);
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
    cmd.output().expect("cannot start the locus binary")
}

#[test]
fn values_from_the_environment_are_named_as_variables() {
    for (args, var, value, says) in [
        (
            &["bench", "fib"][..],
            "LOCUS_NUM_THREADS",
            "0",
            "at least one thread",
        ),
        (&["topo"][..], "LOCUS_NUM_THREADS", "many", "whole number"),
        (
            &["bench", "fib"][..],
            "LOCUS_POLICY",
            "bogus",
            "no policy has this name",
        ),
        (
            &["bench", "fib"][..],
            "LOCUS_POLICY",
            "affinity",
            "--schedule FILE",
        ),
        (
            &["bench", "fib"][..],
            "LOCUS_TOPOLOGY",
            "nothing",
            "unknown machine",
        ),
        (&["topo"][..], "LOCUS_TOPOLOGY", "pack:0 pu:1", ""),
        (
            &["profile", "heat", "--out", "/nonexistent/x"][..],
            "LOCUS_NUM_THREADS",
            "0",
            "at least one thread",
        ),
        (
            &["bench", "fib"][..],
            "LOCUS_COUNTERS",
            "bogus",
            "perf, declared or off",
        ),
        (
            &["sim", "fib", "--size", "10"][..],
            "LOCUS_COUNTERS",
            "bogus",
            "perf, declared or off",
        ),
        (
            &["sim", "fib", "--size", "10"][..],
            "LOCUS_NUM_THREADS",
            "0",
            "at least one thread",
        ),
        (
            &["sim", "fib", "--size", "10"][..],
            "LOCUS_NUM_THREADS",
            "64",
            "has 16 PUs",
        ),
        (
            &["sim", "fib", "--size", "10"][..],
            "LOCUS_POLICY",
            "bogus",
            "no policy has this name",
        ),
        (
            &["sim", "fib", "--size", "10"][..],
            "LOCUS_TOPOLOGY",
            "nothing",
            "unknown machine",
        ),
        (
            &[
                "sim", "sweep", "fib", "--size", "10", "--param", "rows", "--values", "8",
            ][..],
            "LOCUS_POLICY",
            "bogus",
            "no policy has this name",
        ),
    ] {
        let out = with_env(args, &[(var, value)]);
        let stderr = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{var}={value} {args:?}: {stderr}"
        );
        let named = format!("{var}={value:?}");
        assert!(
            stderr.contains(&named) && stderr.contains(says),
            "{var}={value} {args:?}: {stderr}"
        );
        for flag in ["--threads", "--policy", "--machine", "--counters"] {
            assert!(
                !stderr.contains(&format!("{flag} ")) || stderr.contains("give --threads"),
                "{var}={value} {args:?} names {flag}, which was not given: {stderr}"
            );
        }
    }
    // A flag given wins over its variable, and is named as the flag.
    let out = with_env(
        &["bench", "fib", "--threads", "0"],
        &[("LOCUS_NUM_THREADS", "2")],
    );
    assert!(
        text(&out.stderr).contains("--threads"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_machine_larger_than_a_pool_asks_for_threads() {
    let big = "pack:16 l3:1(size=8MB) core:1024 pu:1";
    refused(
        &["topo", "--machine", big],
        &["16384 PUs", "at most 4096 workers", "give --threads N"],
    );
    let out = locus(&["topo", "--machine", big, "--threads", "64"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn counts_have_upper_bounds() {
    for (flag, value) in [
        ("--reps", "18446744073709551615"),
        ("--reps", "10001"),
        ("--warmup", "18446744073709551615"),
        ("--warmup", "1001"),
    ] {
        refused(&["bench", "fib", "--size", "10", flag, value], &[flag]);
    }
    let out = locus(&[
        "bench",
        "fib",
        "--size",
        "5",
        "--reps",
        "10000",
        "--warmup",
        "0",
        "--no-rayon",
        "--policy",
        "ws",
    ]);
    assert!(
        out.status.success(),
        "the bounds themselves are accepted: {}",
        text(&out.stderr)
    );
}

#[test]
fn exit_statuses_are_documented() {
    for args in [
        &["--help"][..],
        &["bench", "--help"],
        &["sim", "--help"],
        &["topo", "--help"],
    ] {
        let out = locus(args);
        let help = text(&out.stdout);
        assert!(
            help.contains("1 a result failed verification")
                && help.contains("2 bad input")
                && help.contains("3 the run could not be made"),
            "{args:?}: {help}"
        );
    }
}

#[test]
fn sim_follows_the_variables_where_its_flags_are_absent() {
    let vars = [
        ("LOCUS_TOPOLOGY", "2x2"),
        ("LOCUS_NUM_THREADS", "3"),
        ("LOCUS_POLICY", "ws"),
    ];
    let out = with_env(&["sim", "fib", "--size", "10"], &vars);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("machine 2x2: 3 workers"), "{stdout}");
    let rows: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("policy"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(rows.len(), 1, "LOCUS_POLICY=ws runs ws alone: {stdout}");
    assert!(rows[0].starts_with("ws "), "{stdout}");
    // The flags win over the variables.
    let out = with_env(
        &[
            "sim",
            "fib",
            "--size",
            "10",
            "--machine",
            "2x1",
            "--threads",
            "1",
            "--policy",
            "ws,mts",
        ],
        &vars,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("machine 2x1: 1 workers"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("mts")), "{stdout}");
}

#[test]
fn an_existing_output_keeps_its_mode_and_its_hard_links() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = scratch("files-inplace");
    let json = dir.join("mine.json");
    std::fs::write(&json, "old").unwrap();
    std::fs::set_permissions(&json, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("also-mine.json");
    std::fs::hard_link(&json, &link).unwrap();
    let ino = std::fs::metadata(&json).unwrap().ino();
    let args = [
        "sim",
        "fib",
        "--size",
        "10",
        "--policy",
        "ws",
        "--json",
        s(&json),
    ];
    let out = locus(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let meta = std::fs::metadata(&json).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o640, "the mode is kept");
    assert_eq!(
        (meta.ino(), meta.nlink()),
        (ino, 2),
        "the same file, both names"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&link).unwrap()).unwrap();
    assert!(doc["results"].is_array(), "the other name sees it: {doc}");
    // A file this user cannot write: `>` writes it for the superuser (the tests' usual
    // user), so locus does, in place; anyone else is refused before anything runs. The
    // decision itself is tested on given modes and users in locus-files.
    std::fs::write(&link, "before").unwrap();
    std::fs::set_permissions(&json, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read_to_string(&json).unwrap();
    let out = locus(&args);
    let meta = std::fs::metadata(&json).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o444, "the mode is kept");
    assert_eq!((meta.ino(), meta.nlink()), (ino, 2));
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if root {
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_ne!(std::fs::read_to_string(&json).unwrap(), before);
    } else {
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--json") && stderr.contains("not writable"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_to_string(&json).unwrap(), before);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
