//! Sizes and counts the `locus` binary refuses before anything is allocated or run: every
//! input estimated above this machine's memory (`MemAvailable`), above the work bound
//! (2^38 instructions to prepare and run once) or, for `sim` and `profile`, above the
//! recorder's 2^24 tasks; iterations, repetitions and warm-ups above their bounds; no
//! input of size 0 and no run of 0 iterations; Matrix Market headers that the file or
//! the machine cannot hold. Each is bad input (exit status 2) with a message naming the
//! flag and the bound, no panic, and an answer within seconds. The memory cases ask for
//! 48 GiB to 22 TiB.

use crate::common::{locus, scratch, text};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a refusal may take: it comes before anything is prepared.
const FAST: Duration = Duration::from_secs(5);

/// Refused as bad input, quickly, with each of `names` in the message and nothing on
/// stdout; returns the message.
fn refused(args: &[&str], names: &[&str]) -> String {
    let start = Instant::now();
    let out = locus(args);
    let took = start.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    for bad in ["panicked", "memory allocation", "abort", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(bad), "{args:?}: {stderr}");
    }
    for n in names {
        assert!(stderr.contains(n), "{args:?}: {n:?} not named in: {stderr}");
    }
    assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    assert!(took < FAST, "{args:?} took {took:?} to be refused");
    stderr
}

/// The message of an input refused for its memory: the estimate against what this
/// machine has available.
const MEMORY: [&str; 3] = ["of memory, more than the", "available", "MemAvailable"];

/// Whether `message` refuses its input for the work bound (checked first, the same on
/// every machine) or for this machine's memory: the inputs below are over the one or
/// the other depending on the kernel's estimate, and over memory on every machine.
fn memory_or_work(message: &str) -> bool {
    MEMORY.iter().all(|m| message.contains(m))
        && (message.contains(" GiB") || message.contains(" TiB"))
        || message.contains("instructions") && message.contains("more than the")
}

#[test]
fn grids_and_arrays_larger_than_memory_are_refused() {
    for (kernel, size) in [
        ("heat", "100000x100000"),
        ("sort", "10000000000"),
        ("ge", "1000000"),
        ("mandelbrot", "100000x100000"),
    ] {
        let flag = format!("--size \"{size}\"");
        for command in ["bench", "sim"] {
            let e = refused(&[command, kernel, "--size", size], &[flag.as_str()]);
            assert!(memory_or_work(&e), "{e}");
        }
    }
    let dir = scratch("limits-profile");
    let out = dir.join("p");
    let out = out.to_str().unwrap();
    let e = refused(
        &["profile", "heat", "--size", "100000x100000", "--out", out],
        &["--size \"100000x100000\""],
    );
    assert!(memory_or_work(&e), "{e}");
    assert!(
        !Path::new(out).exists(),
        "a refused profile made its folder"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn huge_irregular_meshes_are_refused_by_their_work() {
    for command in ["bench", "sim"] {
        refused(
            &[command, "irreg", "--size", "100000000:100000000"],
            &[
                "--size \"100000000:100000000\"",
                "instructions",
                "more than the 2.7e11",
            ],
        );
    }
    refused(
        &["bench", "heat-moving", "--size", "1024x512,hot=1000000000"],
        &["--size", "instructions", "2.7e11"],
    );
}

#[test]
fn a_task_tree_beyond_the_recorder_is_refused_before_recording() {
    let dir = scratch("limits-recorder");
    let out = dir.join("p");
    for args in [
        &["sim", "fib", "--size", "40"][..],
        &[
            "profile",
            "fib",
            "--size",
            "40",
            "--out",
            out.to_str().unwrap(),
        ],
        &["sim", "sweep", "fib", "--param", "rows", "--values", "40"],
    ] {
        let flag = if args[1] == "sweep" {
            "--values 40"
        } else {
            "--size \"40\""
        };
        refused(args, &[flag, "16777216", "MAX_TASKS"]);
    }
    assert!(!out.exists(), "a refused profile made its folder");
    std::fs::remove_dir_all(&dir).unwrap();
    // bench records nothing: fib 40 is within its bounds (and not run here).
}

#[test]
fn iterations_repetitions_and_warm_ups_are_bounded() {
    const HUGE: &str = "18446744073709551615";
    refused(
        &["bench", "irreg", "--size", "small,iters=100000000"],
        &["--size", "iters = 100000000", "10000"],
    );
    refused(&["sim", "heat", "--iters", HUGE], &["--iters", "10000"]);
    refused(
        &[
            "sim", "sweep", "heat", "--param", "bl", "--values", "1", "--iters", "10001",
        ],
        &["--iters 10001", "10000"],
    );
    refused(&["bench", "fib", "--reps", HUGE], &["--reps", "10000"]);
    refused(&["bench", "fib", "--warmup", HUGE], &["--warmup", "1000"]);
}

#[test]
fn no_input_of_size_zero_and_no_run_of_zero_iterations() {
    for (kernel, size) in [
        ("heat", "64x64,iters=0"),
        ("sor", "64x64,iters=0"),
        ("spmv-crs", "laplace2d:8,iters=0"),
        ("radix", "1000,iters=0"),
        ("irreg", "small,iters=0"),
    ] {
        refused(&["bench", kernel, "--size", size], &["--size", "iters = 0"]);
    }
    refused(
        &["sim", "heat", "--iters", "0"],
        &["--iters 0", "at least one"],
    );
    for (kernel, size) in [
        ("fib", "0"),
        ("sort", "0"),
        ("radix", "0"),
        ("ge", "0"),
        ("mandelbrot", "0x10"),
        ("spmm", "laplace2d:0"),
    ] {
        let input = format!("{size:?}");
        refused(&["bench", kernel, "--size", size], &["--size", &input]);
    }
}

/// A Matrix Market file with this size line and these entries, in `dir`.
fn matrix(dir: &Path, name: &str, size_line: &str, entries: &str) -> String {
    let path = dir.join(name);
    let text = format!("%%MatrixMarket matrix coordinate real general\n{size_line}\n{entries}");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn matrix_headers_are_held_against_the_file_and_the_memory() {
    let dir = scratch("limits-matrix");
    let entries = "1 1 1.0\n2 2 1.0\n3 2 1.0\n";
    // 2^31 rows or columns (the reproduction) need 48 to 80 GiB, which a large machine
    // has; the largest dimension a file may give, 2^32 - 1, squared needs 160 GiB, and
    // one past it is refused on any machine.
    let square = matrix(&dir, "square.mtx", "4294967295 4294967295 3", entries);
    let rows = matrix(&dir, "rows.mtx", "4294967296 2 3", entries);
    let cols = matrix(&dir, "cols.mtx", "3 68719476736 3", entries);
    for (path, shape, reason) in [
        (&square, "4294967295 x 4294967295", "MemAvailable"),
        (&rows, "4294967296 x 2", "dimensions are at most"),
        (&cols, "3 x 68719476736", "dimensions are at most"),
    ] {
        for command in ["bench", "sim"] {
            refused(
                &[command, "spmv-crs", "--matrix", path],
                &["--matrix", shape, reason],
            );
        }
    }
    let short = matrix(&dir, "short.mtx", "100000 100000 1000000", entries);
    refused(
        &["sim", "spmm", "--matrix", &short],
        &[
            "--matrix",
            "declares 1000000 entries",
            "more than a file of",
        ],
    );
    let size = format!("matrix={short}");
    refused(
        &["bench", "spmv-ccs", "--size", &size],
        &["--size", "more than a file of"],
    );
    let fifo = dir.join("fifo.mtx");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "cannot make a FIFO");
    refused(
        &["bench", "spmv-ccs", "--matrix", fifo.to_str().unwrap()],
        &["--matrix", "is a FIFO, not a regular file"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_help_documents_the_bounds_and_the_progress() {
    for command in ["bench", "sim"] {
        let out = locus(&[command, "--help"]);
        let help = text(&out.stdout);
        for words in [
            "Limits:",
            "MemAvailable",
            "2^38",
            "2^24 tasks",
            "iters=, --iters) are 1 to 10000",
            "Progress:",
            "every 10 s",
        ] {
            assert!(
                help.contains(words),
                "{command} --help lacks {words:?}:\n{help}"
            );
        }
    }
}

#[test]
fn a_short_run_prints_no_progress() {
    let out = locus(&[
        "bench",
        "fib",
        "--size",
        "12",
        "--reps",
        "2",
        "--threads",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "", "a run of a second shows no progress");
}

/// `locus` with `args` under `ulimit -v KIB` (the `LOCUS_*` variables removed).
fn under_ulimit_v(kib: u64, args: &[&str]) -> std::process::Output {
    let mut line = format!("ulimit -v {kib} && exec \"$0\"");
    for i in 1..=args.len() {
        line.push_str(&format!(" \"${{{i}}}\""));
    }
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .arg(env!("CARGO_BIN_EXE_locus"))
        .args(args)
        .env_remove("LOCUS_NUM_THREADS")
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .output()
        .expect("cannot start sh")
}

#[test]
fn an_address_space_limit_bounds_the_estimate_as_the_machine_does() {
    // heat 8000x8000 holds about 1.5 GiB; under `ulimit -v` of 600 MB it cannot be
    // prepared, whatever this machine has free, and is refused as bad input naming the
    // limit (or, on a machine with less free than that, MemAvailable) instead of
    // aborting on a failed allocation.
    let start = Instant::now();
    let out = under_ulimit_v(
        600_000,
        &[
            "bench",
            "heat",
            "--size",
            "8000x8000,iters=1",
            "--policy",
            "ws",
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--size \"8000x8000,iters=1\"")
            && stderr.contains("of memory, more than the")
            && (stderr.contains("RLIMIT_AS (ulimit -v)") || stderr.contains("MemAvailable")),
        "{stderr}"
    );
    assert!(start.elapsed() < FAST, "took {:?}", start.elapsed());
    // A size that fits runs under the same limit.
    let out = under_ulimit_v(
        600_000,
        &[
            "bench",
            "heat",
            "--size",
            "66x64,iters=1",
            "--policy",
            "ws",
            "--reps",
            "1",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_simulation_beyond_the_simulators_bound_is_refused_unless_forced() {
    // About 1.3e9 events: 1.3e8 line accesses and tasks for each of the ten policies
    // `all` runs, found once the input is recorded (seconds), before any simulation.
    let args = [
        "sim",
        "heat",
        "--machine",
        "epyc-9654-2s",
        "--size",
        "2048x2048,leaf=1,iters=60",
        "--policy",
        "all",
    ];
    // Bounded: a simulation that does start runs for minutes.
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(args)
        .env_remove("LOCUS_NUM_THREADS")
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the locus binary");
    while child.try_wait().expect("cannot wait for locus").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after a minute: it simulated");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child
        .wait_with_output()
        .expect("cannot read locus's output");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the simulations of heat 2048x2048")
            && stderr.contains("events")
            && stderr.contains("--no-limit"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the refusal comes before any simulation: {:?}",
        start.elapsed()
    );
}
