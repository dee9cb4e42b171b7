//! The team model seen from outside: threads reused across team sizes (the peak thread
//! count against GCC's libgomp on the same binary), `OMP_THREAD_LIMIT` and the nesting
//! settings read as libgomp reads them, and a team whose workers cannot start ending
//! the program with locus's could-not-run status, statistics on or off, never hanging.
//! The programs are `tests/c`'s, built by `programs.rs`.

use super::programs::{library_dir, programs, run, text};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `peak threads N` line a `team_sizes` run prints on stderr.
fn peak(out: &Output) -> usize {
    let stderr = text(&out.stderr);
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak threads "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {stderr}"))
}

#[test]
fn threads_are_reused_across_team_sizes_as_under_libgomp() {
    let sizes = "100";
    let gomp = run("team_sizes", &[sizes], false, &[]);
    assert!(gomp.status.success(), "{}", text(&gomp.stderr));
    for policy in ["ws", "mts", "cab"] {
        let env = [("LOCUS_POLICY", policy), ("LOCUS_TOPOLOGY", "2x2")];
        let started = Instant::now();
        let ours = run("team_sizes", &[sizes], true, &env);
        let took = started.elapsed();
        assert!(ours.status.success(), "{policy}: {}", text(&ours.stderr));
        assert_eq!(text(&ours.stdout), text(&gomp.stdout));
        // Teams of 1..=100 threads: the largest team's threads, as libgomp holds (its
        // own peak can pass them on a loaded machine, its surplus threads leaving late).
        let (ours, theirs) = (peak(&ours), peak(&gomp));
        assert!(
            ours <= 102 && theirs >= 100,
            "{policy}: peak {ours} threads against libgomp's {theirs}"
        );
        eprintln!("{policy}: peak {ours} threads (libgomp {theirs}), {took:?}");
    }
}

#[test]
fn the_thread_limit_bounds_every_team_and_is_displayed() {
    for limit in ["1", "3", "5"] {
        let env = [("OMP_THREAD_LIMIT", limit), ("OMP_DISPLAY_ENV", "true")];
        let gomp = run("thread_limit", &[], false, &env);
        assert!(gomp.status.success(), "{}", text(&gomp.stderr));
        let ours = run("thread_limit", &[], true, &env);
        assert!(
            ours.status.success(),
            "OMP_THREAD_LIMIT={limit}: {}",
            text(&ours.stderr)
        );
        assert_eq!(text(&ours.stdout), text(&gomp.stdout));
        let line = format!("  OMP_THREAD_LIMIT = '{limit}'");
        let stderr = text(&ours.stderr);
        assert!(stderr.contains(&line), "{line:?} not in {stderr}");
    }
}

#[test]
fn nesting_settings_are_read_as_libgomp_reads_them() {
    // `omp_display_env` names max-active-levels-var; both libraries print the same line.
    for env in [
        &[("OMP_NESTED", "true")][..],
        &[("OMP_MAX_ACTIVE_LEVELS", "3")],
        &[("OMP_NESTED", "true"), ("OMP_MAX_ACTIVE_LEVELS", "2")],
        &[],
    ] {
        let mut with_display = env.to_vec();
        with_display.push(("OMP_DISPLAY_ENV", "true"));
        let levels = |out: &Output| {
            text(&out.stderr)
                .lines()
                .find(|l| l.contains("OMP_MAX_ACTIVE_LEVELS"))
                .map(str::to_string)
        };
        let gomp = run("copyin", &[], false, &with_display);
        let ours = run("copyin", &[], true, &with_display);
        assert!(ours.status.success(), "{env:?}: {}", text(&ours.stderr));
        assert!(levels(&gomp).is_some(), "{}", text(&gomp.stderr));
        assert_eq!(levels(&ours), levels(&gomp), "{env:?}");
        assert!(
            !text(&ours.stderr).contains("not followed"),
            "{env:?}: {}",
            text(&ours.stderr)
        );
    }
}

/// Runs `name` on locus's library with `env`, killed (and the test failed) after 20 s.
fn run_briefly(name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(programs().join(name))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .env_remove("LOCUS_STATS")
        .env("LD_LIBRARY_PATH", library_dir())
        .envs(env.iter().copied())
        .spawn()
        .expect("the program starts");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{name} {args:?} with {env:?} ran past 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn workers_that_cannot_start_end_the_program_with_status_3_without_hanging() {
    // Teams of 1, 2, 3... threads with stacks of 1 GiB under `prlimit --as` of 6 GiB:
    // the first teams start (and, with `LOCUS_STATS`, the report at exit is armed),
    // a later one cannot.
    let has_prlimit = Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(has_prlimit, "prlimit (util-linux) is needed for this test");
    for stats in ["0", "1"] {
        let env = [("LOCUS_STATS", stats), ("OMP_STACKSIZE", "1G")];
        let mut child = Command::new("prlimit")
            .arg(format!("--as={}", 6u64 << 30))
            .arg(programs().join("team_sizes"))
            .arg("16")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove("LOCUS_POLICY")
            .env_remove("LOCUS_TOPOLOGY")
            .env("LD_LIBRARY_PATH", library_dir())
            .envs(env)
            .spawn()
            .expect("prlimit starts");
        let start = Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                panic!("LOCUS_STATS={stats}: the program hung after a team failed to start");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let out = child.wait_with_output().expect("output");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "LOCUS_STATS={stats}: {stderr}");
        assert!(
            stderr.contains("cannot start the OpenMP team's workers"),
            "{stderr}"
        );
        assert!(!text(&out.stdout).contains("ok"), "a team started short");
        // The report at exit ran: no lock was held across the exit.
        assert_eq!(
            stderr.contains("locus stats:"),
            stats == "1",
            "LOCUS_STATS={stats}: {stderr}"
        );
    }
}

#[test]
fn concurrent_regions_from_eight_threads_stay_right_under_every_policy() {
    // `programs.rs` runs `concurrent` briefly under every policy; here longer under a
    // bi-tier one and plain stealing, on two squads.
    for policy in ["cab", "ws"] {
        let env = [
            ("LOCUS_POLICY", policy),
            ("LOCUS_TOPOLOGY", "2x2"),
            ("OMP_NUM_THREADS", "4"),
        ];
        let out = run_briefly("concurrent", &["500"], &env);
        assert!(out.status.success(), "{policy}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "concurrent ok\n");
    }
}
