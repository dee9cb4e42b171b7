//! Schedules end to end: `locus profile` writes one and prints the command that runs
//! it; `locus sim` and `locus bench` follow it under `--policy affinity --schedule FILE`
//! beside `static`, and refuse a schedule made for another machine or input, and the
//! flags that do not go together. Also `--matrix` and `--iters` on the loop kernels.
//! Every run is irreg's small mesh (400 nodes, 4000 edges) in 16-edge chunks, two
//! iterations, on the 4-worker altix-2x2: well under a second each in a debug build.

use crate::common;

use crate::common::{locus, refused, text};
use std::path::{Path, PathBuf};

const SIZE: &str = "small,grain=16,iters=2";

/// A fresh folder for one test's files.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("schedule-{name}"))
}

/// Profiles irreg at [`SIZE`] on altix-2x2 into `dir`; returns the schedule's path and
/// the report.
fn profile(dir: &Path) -> (String, String) {
    let out = locus(&[
        "profile",
        "irreg",
        "--size",
        SIZE,
        "--machine",
        "altix-2x2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let schedule = dir.join("schedule.json").to_str().unwrap().to_owned();
    (schedule, text(&out.stdout))
}

/// The number before `what` in `text` ("550 tasks placed" -> 550).
fn count_before(text: &str, what: &str) -> u64 {
    let at = text
        .find(what)
        .unwrap_or_else(|| panic!("{what:?} not in:\n{text}"));
    let digits: String = text[..at]
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

#[test]
fn profile_prints_the_command_that_runs_its_schedule_and_sim_follows_it() {
    let dir = scratch("sim");
    let (schedule, report) = profile(&dir);
    let expected = format!(
        "run it: locus sim irreg --size {SIZE} --machine altix-2x2 --policy static,affinity \
         --schedule {schedule}"
    );
    let line = report
        .lines()
        .find(|l| l.starts_with("run it: "))
        .unwrap_or_else(|| panic!("no run-it line in:\n{report}"));
    assert_eq!(line, expected);

    // The printed command runs as it is.
    let mut args: Vec<&str> = line["run it: locus ".len()..].split(' ').collect();
    args.push("--explain");
    let out = locus(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for row in ["\nstatic ", "\naffinity "] {
        assert!(stdout.contains(row), "{row:?} row missing from:\n{stdout}");
    }
    assert!(
        stdout.contains("\n[affinity]\naffinity: a schedule of "),
        "{stdout}"
    );
    let placed = count_before(&stdout, "tasks placed from it");
    assert!(placed > 0, "no task placed from the schedule:\n{stdout}");
    assert!(stdout.contains("schedule_placed="), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_follows_the_schedule_on_the_machine_it_was_made_for() {
    let dir = scratch("bench");
    let (schedule, _) = profile(&dir);
    let out = locus(&[
        "bench",
        "irreg",
        "--size",
        SIZE,
        "--machine",
        "altix-2x2",
        "--threads",
        "4",
        "--policy",
        "static,affinity",
        "--schedule",
        &schedule,
        "--reps",
        "1",
        "--warmup",
        "0",
        "--no-rayon",
        "--explain",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for row in ["\nstatic ", "\naffinity "] {
        assert!(stdout.contains(row), "{row:?} row missing from:\n{stdout}");
    }
    assert!(
        stdout.contains("-- affinity\n   affinity: a schedule of ")
            && stdout.contains("tasks placed from it"),
        "{stdout}"
    );

    // A schedule is for one input: not for every kernel, nor for this machine's pool.
    refused(
        &[
            "bench",
            "all",
            "--policy",
            "affinity",
            "--schedule",
            &schedule,
        ],
        &["--policy", "affinity", "one input", "KERNEL \"all\""],
    );
    refused(
        &[
            "bench",
            "irreg",
            "--size",
            SIZE,
            "--machine",
            "altix-2x2",
            "--threads",
            "2",
            "--policy",
            "affinity",
            "--schedule",
            &schedule,
        ],
        &["--schedule", &schedule, "another machine", "--threads 2"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn schedules_for_other_runs_and_flags_that_do_not_go_together_are_refused() {
    let dir = scratch("refused");
    let (schedule, _) = profile(&dir);
    let sim = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["sim", "irreg", "--size", SIZE];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect()
    };
    let run = |args: Vec<String>, names: &[&str]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, names);
    };

    // affinity without its schedule, a schedule without affinity.
    run(
        sim(&["--machine", "altix-2x2", "--policy", "static,affinity"]),
        &["--policy", "affinity", "--schedule FILE", "locus profile"],
    );
    run(
        sim(&[
            "--machine",
            "altix-2x2",
            "--policy",
            "static",
            "--schedule",
            &schedule,
        ]),
        &["--schedule", "only read by --policy affinity"],
    );
    run(
        sim(&["--machine", "altix-2x2", "--schedule", &schedule]),
        &["--schedule", "only read by --policy affinity", "\"all\""],
    );

    // Another machine, another input, another worker count, no file.
    run(
        sim(&[
            "--machine",
            "opteron-8380",
            "--policy",
            "affinity",
            "--schedule",
            &schedule,
        ]),
        &[
            &schedule,
            "another machine",
            "re-run locus profile --machine opteron-8380",
        ],
    );
    let other_size = [
        "sim",
        "irreg",
        "--size",
        "small,grain=32,iters=2",
        "--machine",
        "altix-2x2",
        "--policy",
        "affinity",
        "--schedule",
        &schedule,
    ];
    refused(&other_size, &[&schedule, "another input", "--size"]);
    run(
        sim(&[
            "--machine",
            "altix-2x2",
            "--iters",
            "3",
            "--policy",
            "ws,affinity",
            "--schedule",
            &schedule,
        ]),
        &[&schedule, "another input", "iters=3"],
    );
    run(
        sim(&[
            "--machine",
            "altix-2x2",
            "--threads",
            "2",
            "--policy",
            "affinity",
            "--schedule",
            &schedule,
        ]),
        &[&schedule, "another machine", "--threads 2"],
    );
    let missing = dir.join("missing.json");
    run(
        sim(&[
            "--machine",
            "altix-2x2",
            "--policy",
            "affinity",
            "--schedule",
            missing.to_str().unwrap(),
        ]),
        &["--schedule", "missing.json", "cannot read it"],
    );

    // A sweep runs several settings; a schedule is for one.
    let sweep = [
        "sim", "sweep", "irreg", "--param", "rows", "--values", "400-401",
    ];
    for (extra, expect) in [
        (
            ["--schedule", schedule.as_str()],
            &["--schedule", "a sweep takes no schedule"][..],
        ),
        (
            ["--policy", "ws,affinity"],
            &["--policy", "affinity", "one input"],
        ),
    ] {
        let args: Vec<&str> = sweep.iter().chain(&extra).copied().collect();
        refused(&args, expect);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn iters_set_the_loop_kernels_and_are_refused_where_there_are_none() {
    let out = locus(&[
        "sim",
        "irreg",
        "--size",
        "small,grain=64",
        "--iters",
        "3",
        "--policy",
        "static",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("irreg small,iters=3,grain=64:"),
        "{stdout}"
    );
    assert!(stdout.contains(", 6 iterations,"), "{stdout}");
    refused(
        &["sim", "fib", "--iters", "3"],
        &["--iters 3", "fib", "no iterations", "spmv-crs", "irreg"],
    );
}

/// A 6 x 6 tridiagonal matrix in Matrix Market form.
const MATRIX: &str = "%%MatrixMarket matrix coordinate real symmetric\n\
                      6 6 11\n\
                      1 1 4\n2 2 4\n3 3 4\n4 4 4\n5 5 4\n6 6 4\n\
                      2 1 -1\n3 2 -1\n4 3 -1\n5 4 -1\n6 5 -1\n";

/// Profiles spmv-crs on the Matrix Market file `matrix` into `out`; returns the
/// command the report prints to run the schedule, without `locus `.
fn profile_matrix(matrix: &str, out: &Path) -> String {
    let done = locus(&[
        "profile",
        "spmv-crs",
        "--size",
        "laplace2d:4,iters=2,grain=2",
        "--matrix",
        matrix,
        "--machine",
        "altix-2x2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    let report = text(&done.stdout);
    let line = report.lines().find(|l| l.starts_with("run it: ")).unwrap();
    assert!(line.contains(&format!(" --matrix {matrix} ")), "{line}");
    line["run it: locus ".len()..].to_owned()
}

#[test]
fn a_matrix_file_replaces_the_sparse_kernels_matrix() {
    let dir = scratch("matrix");
    let file = dir.join("tri.mtx");
    std::fs::write(&file, MATRIX).unwrap();
    let m = file.to_str().unwrap();

    let out = locus(&[
        "sim",
        "spmv-crs",
        "--size",
        "laplace2d:4,iters=2,grain=2",
        "--matrix",
        m,
        "--policy",
        "ws,static",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(&format!("spmv-crs matrix={m},iters=2,grain=2:")),
        "{stdout}"
    );

    // A profile of the file's matrix, and the command it prints, which runs it.
    let out_dir = dir.join("out");
    let run = profile_matrix(m, &out_dir);
    let args: Vec<&str> = run.split(' ').collect();
    let out = locus(&args);
    assert!(out.status.success(), "{run}: {}", text(&out.stderr));

    // The input is the file's content, whatever its name: a schedule for one matrix
    // is refused for another at the same path, a comma in the name included.
    let comma = dir.join("tri,6.mtx");
    std::fs::write(&comma, MATRIX).unwrap();
    let run = profile_matrix(comma.to_str().unwrap(), &dir.join("comma"));
    let args: Vec<&str> = run.split(' ').collect();
    assert!(locus(&args).status.success(), "{run}");
    std::fs::write(&comma, MATRIX.replace("6 6 4\n", "6 6 5\n")).unwrap();
    refused(&args, &["made for another input", "re-run locus profile"]);

    refused(
        &["sim", "fib", "--matrix", m],
        &["--matrix", "takes no matrix", "spmv-crs"],
    );
    refused(
        &["bench", "heat", "--matrix", m],
        &["--matrix", "takes no matrix", "spmv-crs"],
    );
    refused(
        &[
            "profile",
            "irreg",
            "--matrix",
            m,
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &["--matrix", "takes no matrix"],
    );
    let size = format!("matrix={m},iters=2");
    refused(
        &["sim", "spmm", "--size", &size, "--matrix", m],
        &["--matrix", "already names a matrix file"],
    );
    refused(
        &["bench", "all", "--matrix", m],
        &["--matrix", "single sparse KERNEL"],
    );
    let missing = dir.join("none.mtx");
    refused(
        &["sim", "spmv-ccs", "--matrix", missing.to_str().unwrap()],
        &["--matrix", "none.mtx"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
