//! `locus run`: an OpenMP program built here with `gcc -fopenmp` runs on locus's
//! libgomp with the flags' policy, machine and team size; its exit status passes
//! through; bad flags are refused, named, before the program starts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The omp crate's fib test program, built once.
fn fib() -> &'static Path {
    static FIB: OnceLock<PathBuf> = OnceLock::new();
    FIB.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../omp/tests/c/fib.c");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("locus-run-fib");
        let status = Command::new("gcc")
            .args(["-O2", "-fopenmp", "-o"])
            .arg(&out)
            .arg(src)
            .status()
            .expect("gcc runs");
        assert!(status.success(), "gcc -fopenmp fib.c");
        out
    })
}

fn locus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(args)
        .env_remove("LOCUS_OMP_LIB")
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .output()
        .expect("locus runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn locus_run_runs_an_openmp_program_on_locus() {
    let fib = fib().to_str().expect("a UTF-8 path");
    for policy in ["ws", "mts", "cab"] {
        let out = locus(&[
            "run",
            "--policy",
            policy,
            "--machine",
            "2x1",
            "--threads",
            "2",
            "--stats",
            "--",
            fib,
            "16",
        ]);
        assert!(out.status.success(), "{policy}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            "fib(16) cutoff 0 = 987\nfib(16) cutoff 10 = 987\n"
        );
        let stderr = text(&out.stderr);
        let header = format!("locus stats: 2 workers, 2 squads, policy {policy}");
        assert!(stderr.contains(&header), "{stderr}");
    }
}

#[test]
fn locus_run_passes_the_programs_status_through() {
    let out = locus(&["run", "--", "sh", "-c", "exit 7"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let out = locus(&["run", "--", "sh", "-c", "echo \"$LD_BIND_NOW\""]);
    assert_eq!(text(&out.stdout), "1\n");
}

#[test]
fn locus_run_refuses_bad_flags_by_name() {
    let fib = fib().to_str().expect("a UTF-8 path");
    for (flags, named) in [
        (&["--policy", "fastest"][..], "--policy"),
        (&["--machine", "pack:0 pu:1"][..], "--machine"),
        (&["--threads", "0"][..], "--threads"),
        (
            &["--library", "/nonexistent/liblocus_omp.so"][..],
            "--library",
        ),
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(flags);
        args.extend(["--", fib, "10"]);
        let out = locus(&args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(named), "{flags:?}: {stderr}");
        assert!(out.stdout.is_empty(), "the program ran despite {flags:?}");
    }
}
