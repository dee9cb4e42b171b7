//! `locus run`: an OpenMP program built here with `gcc -fopenmp` runs on locus's
//! libgomp with the flags' policy, machine and team size; its exit status passes
//! through; bad flags are refused, named, before the program starts. Nothing it is
//! handed is trusted: a folder or link planted where it works, a library that is not
//! locus's, an unknown flag, a `TMPDIR` that cannot hold its folder; and signals sent
//! to it reach the program. Every run here is killed after [`LIMIT`]: a hang fails.

use crate::common::{scratch, text};
use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long one `locus run` may take before the test fails.
const LIMIT: Duration = Duration::from_secs(30);

/// The omp crate's fib test program, built once.
fn fib() -> &'static str {
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
    .to_str()
    .expect("a UTF-8 path")
}

/// locus's built library, where `locus run` finds it beside the binary.
fn built_library() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_locus")).parent().unwrap();
    [
        dir.join("liblocus_omp.so"),
        dir.join("deps/liblocus_omp.so"),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .expect("cargo builds liblocus_omp.so for these tests")
}

/// `locus` with `args`, prepared as [`prepare`] says.
fn command(args: &[&str], env: &[(&str, &OsStr)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_locus"));
    c.args(args);
    prepare(&mut c, env);
    c
}

/// Removes the variables that change a run, sets `env`, captures the output and sets
/// the signals `locus run` passes on to their defaults (a test runner in the
/// background may ignore SIGINT, which the program would inherit).
fn prepare(c: &mut Command, env: &[(&str, &OsStr)]) {
    c.env_remove("LOCUS_OMP_LIB")
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only `signal`, which is async-signal-safe, runs between fork and exec.
    unsafe {
        c.pre_exec(|| {
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(s, libc::SIG_DFL);
            }
            Ok(())
        })
    };
}

/// Waits for `child`, killing it and failing after [`LIMIT`].
fn finish(child: Child, what: &str) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(LIMIT) {
        Ok(out) => out.expect("locus's output"),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("{what}: still running after {LIMIT:?}");
        }
    }
}

/// Runs `locus` (see [`command`]) to its end.
fn locus_env(args: &[&str], env: &[(&str, &OsStr)]) -> Output {
    let child = command(args, env).spawn().expect("locus starts");
    finish(child, &format!("{args:?}"))
}

fn locus(args: &[&str]) -> Output {
    locus_env(args, &[])
}

/// `sh -c script` with `env` and `$LOCUS`, for runs that start `locus` from a shell
/// whose pid they know; killed and failed after [`LIMIT`].
fn shell(script: &str, env: &[(&str, &OsStr)]) -> Output {
    let mut c = Command::new("sh");
    c.args(["-c", script])
        .env("LOCUS", env!("CARGO_BIN_EXE_locus"));
    prepare(&mut c, env);
    finish(c.spawn().expect("sh starts"), script)
}

/// The pid a program wrote to `file`, once it has (failing after [`LIMIT`]).
fn wait_for_pid(file: &Path) -> String {
    let started = Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .filter(|s| s.ends_with('\n'))
        {
            return pid.trim().to_owned();
        }
        assert!(started.elapsed() < LIMIT, "the program never started");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Bad input: exit 2, nothing on stdout (the program did not run), `named` on stderr.
fn refused(out: &Output, named: &[&str], what: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    assert!(out.stdout.is_empty(), "{what}: the program ran");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    for n in named {
        assert!(stderr.contains(n), "{what}: {n:?} not named in: {stderr}");
    }
}

#[test]
fn locus_run_runs_an_openmp_program_on_locus() {
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
            fib(),
            "16",
        ]);
        assert!(out.status.success(), "{policy}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            "fib(16) cutoff 0 = 987\nfib(16) cutoff 10 = 987\n"
        );
        let stderr = text(&out.stderr);
        // The worker count is the library's to report (a team of two may lease one
        // worker beside its encountering thread); the flags' policy and machine are
        // what `locus run` passes.
        let header = format!("policy {policy}, machine 2x1\n");
        assert!(stderr.contains(&header), "{stderr}");
        assert!(!stderr.contains("never loaded"), "{stderr}");
    }
}

#[test]
fn locus_run_passes_the_programs_status_through() {
    let out = locus(&["run", "--", "sh", "-c", "exit 7"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let out = locus(&["run", "--", "sh", "-c", "echo \"$LD_BIND_NOW\""]);
    assert_eq!(text(&out.stdout), "1\n");
    let script = "echo $OMP_NUM_THREADS $LOCUS_POLICY $LOCUS_TOPOLOGY $LOCUS_STATS";
    let flags = ["--threads", "3", "--policy", "mts", "--machine", "2x2"];
    let out = locus(&[&["run"][..], &flags, &["--", "sh", "-c", script]].concat());
    assert_eq!(text(&out.stdout), "3 mts 2x2\n", "{}", text(&out.stderr));
    // Without `--` too: what follows the program is the program's, flags included.
    let out = locus(&["run", "sh", "-c", "echo $0 $1", "--stats", "x"]);
    assert_eq!(text(&out.stdout), "--stats x\n", "{}", text(&out.stderr));
}

#[test]
fn locus_run_refuses_bad_flags_by_name() {
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
        args.extend(["--", fib(), "10"]);
        refused(&locus(&args), &[named], &format!("{flags:?}"));
    }
    let bad_machine = [("LOCUS_TOPOLOGY", OsStr::new("pack:0 pu:1"))];
    let out = locus_env(&["run", "--", fib(), "10"], &bad_machine);
    refused(&out, &["LOCUS_TOPOLOGY"], "LOCUS_TOPOLOGY");
    let out = locus(&["run", "--", "/nonexistent/program"]);
    refused(&out, &["/nonexistent/program"], "a missing program");
}

#[test]
fn an_unknown_flag_is_refused_not_taken_for_the_program() {
    // A program named like the flag, first on PATH, must not run either.
    let bin = scratch("run-unknown-flag");
    for name in ["--bogus", "--thread"] {
        let program = bin.join(name);
        std::fs::write(&program, "#!/bin/sh\necho ran\n").unwrap();
        let made = Command::new("chmod")
            .arg("+x")
            .arg(&program)
            .status()
            .unwrap();
        assert!(made.success());
    }
    let mut path = bin.clone().into_os_string();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    for args in [
        &["run", "--bogus", "--", "echo", "ran"][..],
        &["run", "--bogus", "echo", "ran"][..],
        &["run", "--thread", "2", "--", "echo", "ran"][..],
    ] {
        let out = locus_env(args, &[("PATH", path.as_os_str())]);
        refused(
            &out,
            &[args[1], "unexpected argument"],
            &format!("{args:?}"),
        );
    }
    let _ = std::fs::remove_dir_all(bin);
}

#[test]
fn affinity_is_refused_with_the_reason_and_what_to_use() {
    let out = locus(&["run", "--policy", "affinity", "--", fib(), "10"]);
    refused(
        &out,
        &["--policy", "schedule file", "ws"],
        "--policy affinity",
    );
    // `run` has no --schedule: the message must not send the user to it.
    assert!(
        !text(&out.stderr).contains("--schedule"),
        "{}",
        text(&out.stderr)
    );
    let env = [("LOCUS_POLICY", OsStr::new("affinity"))];
    let out = locus_env(&["run", "--", fib(), "10"], &env);
    refused(
        &out,
        &["LOCUS_POLICY", "schedule file"],
        "LOCUS_POLICY=affinity",
    );
}

#[test]
fn a_planted_folder_of_a_guessable_name_is_neither_used_nor_deleted() {
    let tmp = scratch("run-planted-folder");
    let script = r#"mkdir -p "$TMPDIR/locus-run-$$" &&
        echo precious > "$TMPDIR/locus-run-$$/keep.txt" &&
        exec "$LOCUS" run -- sh -c 'echo "${LD_LIBRARY_PATH%%:*}"'"#;
    let out = shell(script, &[("TMPDIR", tmp.as_os_str())]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let planted = names(&tmp);
    assert_eq!(planted.len(), 1, "left behind: {planted:?}");
    let folder = tmp.join(&planted[0]);
    assert_eq!(names(&folder), ["keep.txt"]);
    let kept = std::fs::read_to_string(folder.join("keep.txt")).unwrap();
    assert_eq!(kept, "precious\n");
    let used = PathBuf::from(text(&out.stdout).trim_end());
    assert_ne!(used, folder, "the planted folder was used");
    assert_eq!(used.parent(), Some(tmp.as_path()));
    let _ = std::fs::remove_dir_all(tmp);
}

#[test]
fn a_planted_symlink_of_a_guessable_name_is_not_followed() {
    let tmp = scratch("run-planted-link");
    let elsewhere = scratch("run-planted-link-target");
    let script = r#"ln -s "$ELSEWHERE" "$TMPDIR/locus-run-$$" && exec "$LOCUS" run -- true"#;
    let env = [
        ("TMPDIR", tmp.as_os_str()),
        ("ELSEWHERE", elsewhere.as_os_str()),
    ];
    let out = shell(script, &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        names(&elsewhere).is_empty(),
        "written through the link: {:?}",
        names(&elsewhere)
    );
    let left = names(&tmp);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(tmp.join(&left[0]).is_symlink(), "the planted link is gone");
    let _ = std::fs::remove_dir_all(tmp);
    let _ = std::fs::remove_dir_all(elsewhere);
}

#[test]
fn the_folder_is_fresh_private_and_removed() {
    let tmp = scratch("run-private");
    let script = r#"d="${LD_LIBRARY_PATH%%:*}"; echo "$d"; stat -c %a "$d"; ls "$d""#;
    let out = locus_env(
        &["run", "--", "sh", "-c", script],
        &[("TMPDIR", tmp.as_os_str())],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let [folder, mode, contents] = lines[..] else {
        panic!("{stdout}");
    };
    let folder = Path::new(folder);
    assert_eq!(folder.parent(), Some(tmp.as_path()));
    let name = folder.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with("locus-run-"), "{name}");
    let random = &name["locus-run-".len()..];
    assert!(
        random.len() == 16 && random.chars().all(|c| c.is_ascii_hexdigit()),
        "{name}: not a fresh random name"
    );
    assert_eq!(mode, "700");
    assert_eq!(contents, "libgomp.so.1");
    assert!(names(&tmp).is_empty(), "left behind: {:?}", names(&tmp));
    let _ = std::fs::remove_dir_all(tmp);
}

#[test]
fn a_tmpdir_that_cannot_hold_the_folder_is_a_run_not_made() {
    let tmp = scratch("run-bad-tmpdir");
    let file = tmp.join("a-file");
    std::fs::write(&file, "").unwrap();
    let colon = tmp.join("a:b");
    std::fs::create_dir(&colon).unwrap();
    let missing = tmp.join("missing/deeper");
    for (dir, says) in [
        (&missing, "no such folder"),
        (&file, "cannot make"),
        (&colon, "LD_LIBRARY_PATH"),
    ] {
        let out = locus_env(
            &["run", "--", "echo", "ran"],
            &[("TMPDIR", dir.as_os_str())],
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{dir:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{dir:?}: the program ran");
        assert!(
            stderr.contains("TMPDIR") && stderr.contains(says),
            "{stderr}"
        );
    }
    assert!(
        !tmp.join("missing").exists(),
        "a folder above TMPDIR was made"
    );
    assert!(names(&colon).is_empty(), "{:?}", names(&colon));
    let _ = std::fs::remove_dir_all(tmp);
}

#[test]
fn a_library_that_is_not_locus_s_is_refused_naming_where_it_came_from() {
    let tmp = scratch("run-bad-library");
    let garbage = tmp.join("garbage.so");
    std::fs::write(&garbage, "not a library\n").unwrap();
    let cut = tmp.join("cut.so");
    let mut head = vec![0; 4096];
    std::io::Read::read_exact(
        &mut std::fs::File::open(built_library()).unwrap(),
        &mut head,
    )
    .unwrap();
    std::fs::write(&cut, &head).unwrap();
    let fifo = tmp.join("fifo.so");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let empty_dir = tmp.join("empty");
    std::fs::create_dir(&empty_dir).unwrap();
    let mut cases = vec![
        (garbage.clone(), "not an ELF file"),
        (cut, "cut short"),
        (fifo, "not a regular file"),
        (empty_dir, "no such library"),
    ];
    // GCC's own libgomp: a real shared library, but not locus's.
    let gcc = Command::new("gcc")
        .arg("-print-file-name=libgomp.so.1")
        .output()
        .unwrap();
    let gomp = PathBuf::from(text(&gcc.stdout).trim());
    if gomp.is_absolute() && gomp.exists() {
        cases.push((gomp, "does not define locus_footprint_read"));
    }
    for (path, says) in &cases {
        let p = path.to_str().unwrap();
        let out = locus(&["run", "--library", p, "--", fib(), "10"]);
        refused(&out, &["--library", says], p);
        let env = [("LOCUS_OMP_LIB", path.as_os_str())];
        let out = locus_env(&["run", "--", fib(), "10"], &env);
        refused(&out, &["LOCUS_OMP_LIB", says], p);
    }
    // The built library, given, runs.
    let lib = built_library();
    let out = locus(&["run", "--library", lib.to_str().unwrap(), "--", fib(), "10"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(tmp);
}

#[test]
fn a_program_ended_by_a_signal_is_said_to_be() {
    for (signal, number) in [("KILL", 9), ("SEGV", 11)] {
        let script = format!("kill -{signal} $$");
        let out = locus(&["run", "--", "sh", "-c", &script]);
        assert_eq!(out.status.code(), Some(128 + number), "{signal}");
        let stderr = text(&out.stderr);
        let said = format!("sh was killed by signal {number} (SIG{signal}");
        assert!(stderr.contains(&said), "{stderr}");
    }
}

#[test]
fn stats_say_when_the_program_never_loaded_the_library() {
    let out = locus(&["run", "--stats", "--", "sh", "-c", "exit 0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "sh never loaded locus's libgomp (statically linked, or not an OpenMP program?)"
        ),
        "{stderr}"
    );
    // Loaded by a program the first one started counts as loaded.
    let out = locus(&[
        "run",
        "--stats",
        "--threads",
        "1",
        "--",
        "sh",
        "-c",
        &format!("exec {} 5", fib()),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("never loaded"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn team_workers_that_cannot_start_are_a_run_not_made() {
    // Each worker's 4 GiB stack is above the 2 GB of address space the program may map.
    let script = format!("ulimit -v 2000000 && exec {} 10", fib());
    let out = locus_env(
        &["run", "--threads", "2", "--", "sh", "-c", &script],
        &[("OMP_STACKSIZE", OsStr::new("4G"))],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("cannot start the OpenMP team's workers"),
        "{stderr}"
    );
}

#[test]
fn signals_to_locus_run_reach_the_program_and_the_folder_is_removed() {
    let tmp = scratch("run-signals");
    let marks = scratch("run-signals-pids");
    for (signal, number, script, code) in [
        ("TERM", 15, "exec sleep 60", 128 + 15),
        ("INT", 2, "exec sleep 60", 128 + 2),
        ("HUP", 1, "exec sleep 60", 128 + 1),
        (
            "TERM",
            15,
            "trap 'exit 42' TERM; while :; do sleep 0.05; done",
            42,
        ),
    ] {
        let pid_file = marks.join(format!("{signal}-{code}"));
        let script = format!("echo $$ > {}; {script}", pid_file.display());
        let child = command(
            &["run", "--", "sh", "-c", &script],
            &[("TMPDIR", tmp.as_os_str())],
        )
        .spawn()
        .expect("locus starts");
        let program = wait_for_pid(&pid_file);
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = finish(child, &script);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "SIG{signal}: {stderr}");
        if code > 128 {
            let said = format!("was killed by signal {number} (SIG{signal})");
            assert!(stderr.contains(&said), "{stderr}");
        }
        assert!(
            !Path::new("/proc").join(&program).exists(),
            "SIG{signal}: the program {program} outlived locus run"
        );
        assert!(names(&tmp).is_empty(), "left behind: {:?}", names(&tmp));
    }
    let _ = std::fs::remove_dir_all(tmp);
    let _ = std::fs::remove_dir_all(marks);
}

#[test]
fn a_locus_run_killed_outright_takes_the_program_with_it() {
    let marks = scratch("run-killed");
    let pid_file = marks.join("pid");
    let script = format!("echo $$ > {}; exec sleep 60", pid_file.display());
    let child = command(&["run", "--", "sh", "-c", &script], &[])
        .spawn()
        .expect("locus starts");
    let program = wait_for_pid(&pid_file);
    let sent = Command::new("kill")
        .args(["-KILL", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let _ = finish(child, &script);
    // Gone, or a zombie its new parent has not reaped yet.
    let started = Instant::now();
    let stat = Path::new("/proc").join(&program).join("stat");
    while let Ok(s) = std::fs::read_to_string(&stat) {
        if s.rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        {
            break;
        }
        assert!(
            started.elapsed() < LIMIT,
            "the program {program} outlived a killed locus run"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = std::fs::remove_dir_all(marks);
}
