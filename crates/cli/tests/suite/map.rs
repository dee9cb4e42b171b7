//! `locus map` end to end: the hardware path on this machine (counters unavailable on a
//! virtual machine without a PMU, a well-formed dry run where they exist), bad input
//! (exit 2, with the reason), and the decision loop on the simulated machine.

use crate::common;

use crate::common::{locus, text};

/// Bad input, refused with exit status 2 and an error line containing `says`.
fn refused(args: &[&str], says: &str) {
    common::refused(args, &[says]);
}

#[test]
fn the_hardware_path_says_why_counters_are_missing_or_runs_dry() {
    // This test process is a real process that is not locus itself.
    let me = std::process::id().to_string();
    let out = locus(&[
        "map",
        "--dry-run",
        "--pid",
        &me,
        "--rounds",
        "2",
        "--interval",
        "10ms",
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    if out.status.success() {
        // A machine with counters: two rounds of a dry run over this test's threads.
        assert!(stdout.starts_with("locus map: watching pid "), "{stdout}");
        assert!(stdout.contains("dry run: nothing is changed"), "{stdout}");
        assert!(stdout.contains("round 2: "), "{stdout}");
        assert!(stdout.contains("locus map: 2 round(s)"), "{stdout}");
        assert!(
            !stdout.contains("  moved "),
            "a dry run moves nothing: {stdout}"
        );
    } else {
        // No counters (this project's virtual machine): the run cannot be made (exit 3),
        // the reason in words.
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(
            stderr.starts_with("error: locus map needs per-thread hardware counters"),
            "{stderr}"
        );
        assert!(
            stderr.contains("hardware counters are unavailable: perf_event_open refused"),
            "{stderr}"
        );
        assert!(
            stderr.contains("virtual machine")
                || stderr.contains("perf_event_paranoid")
                || stderr.contains("no hardware counters"),
            "the reason says what would help: {stderr}"
        );
        assert!(stderr.contains("--source sim"), "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
    }
}

#[test]
fn a_selection_is_required() {
    refused(&["map"], "select processes with --pid, --comm or --user");
    refused(
        &["map", "--dry-run", "--rounds", "1"],
        "select processes with --pid, --comm or --user",
    );
}

#[test]
fn bad_intervals_are_refused() {
    refused(
        &["map", "--user", "--interval", "0ms"],
        "must be between 1ms and 1h",
    );
    refused(
        &["map", "--user", "--interval", "fast"],
        "expected a number and a unit",
    );
    refused(&["map", "--user", "--interval", "100"], "give a unit");
    refused(
        &["map", "--user", "--interval=-5ms"],
        "expected a number and a unit",
    );
}

#[test]
fn other_bad_input_is_refused() {
    refused(&["map", "--user", "--rounds", "0"], "at least one round");
    refused(&["map", "--pid", "0"], "0 is not a process id");
    refused(&["map", "--pid", "x"], "expected a process id");
    refused(&["map", "--source", "perfect", "--user"], "perfect");
    // A pid that is not running (pid_max is at most 2^22).
    refused(
        &["map", "--pid", "4194304", "--dry-run"],
        "--pid 4194304: no such process",
    );
    refused(
        &["map", "--user", "--mix", "hu-hu"],
        "--mix describes the simulated machine",
    );
    refused(
        &["map", "--user", "--machine", "2x4"],
        "--machine describes the simulated machine",
    );
    refused(
        &["map", "--source", "sim", "--comm", "bash"],
        "touches no process",
    );
    refused(
        &["map", "--source", "sim", "--mix", "no-such-mix"],
        "unknown --mix \"no-such-mix\"; the mixes are: hu-hu",
    );
    refused(
        &["map", "--source", "sim", "--machine", "pack:0 pu:1"],
        "bad --machine",
    );
}

#[test]
fn the_simulated_loop_prints_its_decisions() {
    let out = locus(&[
        "map",
        "--source",
        "sim",
        "--rounds",
        "3",
        "--dry-run",
        "--interval",
        "1ms",
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("locus map: simulating mix hu-hu"),
        "{stdout}"
    );
    assert!(
        stdout.contains("on xeon-e5-2660v2 (2 socket(s), 40 PUs)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("dry run: the simulated threads stay where they are"),
        "{stdout}"
    );
    for round in 1..=3 {
        let line = format!("round {round}: 20 thread(s) of 2 process(es) sampled, ");
        assert!(stdout.contains(&line), "{line:?} missing from:\n{stdout}");
    }
    assert!(!stdout.contains("round 4:"), "{stdout}");
    // Every move line is a decision with its reason, and nothing was applied.
    for line in stdout.lines().filter(|l| l.starts_with("  ")) {
        assert!(line.starts_with("  would move pid "), "{line}");
        assert!(line.contains(" -> cpus ") && line.contains(": "), "{line}");
    }
    assert!(
        stdout.contains("locus map: 3 round(s), 20 thread(s) seen, "),
        "{stdout}"
    );
    assert!(stdout.contains(", 0 migration(s)"), "{stdout}");

    // Longer than the history's occurrence threshold (6 of 10 intervals): decisions
    // appear, and still nothing moves.
    let out = locus(&[
        "map",
        "--source",
        "sim",
        "--rounds",
        "10",
        "--dry-run",
        "--interval",
        "1ms",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let decided = stdout
        .lines()
        .filter(|l| l.starts_with("  would move pid "))
        .count();
    assert!(decided > 0, "no decision in 10 rounds:\n{stdout}");
    assert!(
        stdout.contains(&format!(", {decided} move(s) decided, 0 migration(s)")),
        "{stdout}"
    );
}

#[test]
fn the_simulated_loop_moves_simulated_threads() {
    // Two sharing applications spread over both sockets: the mapper consolidates them,
    // once the history has seen the sharing in enough intervals.
    let out = locus(&[
        "map",
        "--source",
        "sim",
        "--mix",
        "hu-hu",
        "--rounds",
        "30",
        "--interval",
        "1ms",
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    let moved = stdout
        .lines()
        .filter(|l| l.starts_with("  moved pid "))
        .count();
    assert!(
        moved > 0,
        "no simulated thread moved in 30 rounds:\n{stdout}"
    );
    assert!(
        stdout
            .lines()
            .filter(|l| l.starts_with("  moved "))
            .all(|l| l.ends_with("[sim]")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(", {moved} migration(s)")),
        "{stdout}"
    );
}

#[test]
fn the_help_explains_every_flag_and_its_default() {
    let out = locus(&["map", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for flag in [
        "--pid",
        "--comm",
        "--user",
        "--interval",
        "--dry-run",
        "--restore",
        "--rounds",
        "--source",
        "--mix",
        "--machine",
    ] {
        assert!(help.contains(flag), "{flag} missing from:\n{help}");
    }
    for default in [
        "[default: 100ms]",
        "[default: perf]",
        "xeon-e5-2660v2",
        "SIGINT",
    ] {
        assert!(help.contains(default), "{default} missing from:\n{help}");
    }
    let out = locus(&["--help"]);
    assert!(text(&out.stdout).contains("map"), "{}", text(&out.stdout));
}

#[test]
fn sigint_and_sigterm_end_the_loop_after_the_round_with_a_summary() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    for signal in ["-INT", "-TERM"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_locus"))
            .args(["map", "--source", "sim", "--interval", "20ms"])
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start the locus binary");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Wait for two rounds, so the loop is running.
        let mut seen = Vec::new();
        for line in lines.by_ref() {
            let line = line.unwrap();
            let second = line.starts_with("round 2:");
            seen.push(line);
            if second {
                break;
            }
        }
        assert!(
            seen.last().is_some_and(|l| l.starts_with("round 2:")),
            "{seen:?}"
        );
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("cannot run kill");
        assert!(status.success());
        let rest: Vec<String> = lines.map(Result::unwrap).collect();
        let exit = child.wait().unwrap();
        assert!(exit.success(), "{signal}: {exit:?} {rest:?}");
        let last = rest
            .last()
            .unwrap_or_else(|| panic!("{signal}: no summary"));
        assert!(last.starts_with("locus map: "), "{signal}: {last}");
        assert!(last.ends_with("(stopped by a signal)"), "{signal}: {last}");
    }
}
