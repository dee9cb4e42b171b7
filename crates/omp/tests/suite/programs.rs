//! OpenMP programs written in C (and two builds of one in Fortran), built here with the
//! system's `gcc -fopenmp` (and `gfortran -fopenmp`), run on locus's libgomp under every
//! policy and on virtual machines: each checks its own answer, and prints the same as
//! under GCC's libgomp. Plus the load-time contract: a
//! program needing an entry point locus lacks fails to load, naming it, and every
//! symbol locus exports carries GCC's version for it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The programs of `tests/c`, with the arguments each runs with here (small inputs).
const PROGRAMS: &[(&str, &[&str])] = &[
    ("fib", &["17"]),
    ("nqueens", &["6"]),
    ("mergesort", &["6000", "200"]),
    ("firstprivate", &[]),
    ("locks", &[]),
    ("threadprivate", &[]),
    ("iffinal", &[]),
    ("taskgroup", &[]),
    ("atonce", &[]),
    ("depend", &[]),
    ("loops", &[]),
    ("jacobi", &[]),
    ("taskloop", &[]),
    ("loops_ull", &[]),
    ("sections", &[]),
    ("ordered", &[]),
    ("omp_api", &[]),
    ("reduction", &[]),
    ("parallel_start", &[]),
    ("cancel", &[]),
    ("taskwait_depend", &[]),
    ("teams", &[]),
    ("alloc", &[]),
    ("error", &[]),
    ("target", &[]),
    ("doacross", &[]),
    ("detach", &[]),
    ("affinity", &[]),
    ("task_reduction", &[]),
    ("pthread_teams", &[]),
    ("team_sizes", &["12"]),
    ("concurrent", &["100"]),
    ("copyin", &[]),
    ("nested", &[]),
    ("thread_limit", &[]),
    // Settings and internal control variables, worksharing scratch memory, deep
    // doacross loops, the error directive, allocators and detached tasks.
    ("icvs", &[]),
    ("scan", &[]),
    ("lastprivate_conditional", &[]),
    ("doacross_deep", &[]),
    ("error_message", &[]),
    ("allocate_default", &[]),
    ("detach_thread", &[]),
    ("pause", &[]),
    // nthreads-var per task, and the host fallback of `target` as a fresh initial task.
    ("icv_tasks", &[]),
    ("target_fallback", &[]),
    ("cancel_taskgroup", &[]),
];

/// The Fortran programs of `tests/fortran`: a name, the source, gfortran's flags. The
/// second build calls the `_8_` forms of the routines (64-bit default integers).
const FORTRAN: &[(&str, &str, &[&str])] = &[
    ("omp_lib", "omp_lib.f90", &[]),
    ("omp_lib_8", "omp_lib.f90", &["-fdefault-integer-8"]),
];

/// Virtual machines and team sizes: two squads of two, three squads of one.
const MACHINES: &[(&str, &str)] = &[("2x2", "4"), ("3x1", "3")];

/// The folder of the built programs, built once per test binary.
pub(crate) fn programs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-programs");
        std::fs::create_dir_all(&out).expect("make the programs' folder");
        let names = PROGRAMS
            .iter()
            .map(|(n, _)| *n)
            .chain(["missing", "thread0_helps", "apart"]);
        for name in names {
            let status = Command::new("gcc")
                .args(["-O2", "-fopenmp", "-Wall", "-Werror", "-o"])
                .arg(out.join(name))
                .arg(src.join(format!("{name}.c")))
                .status()
                .expect("gcc runs");
            assert!(status.success(), "gcc -fopenmp failed on {name}.c");
        }
        let fortran = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fortran");
        for (name, source, flags) in FORTRAN {
            let status = Command::new("gfortran")
                .args(["-O2", "-fopenmp", "-Wall", "-Werror"])
                .args(*flags)
                .arg("-o")
                .arg(out.join(name))
                .arg(fortran.join(source))
                .status()
                .expect("gfortran runs (the Fortran programs need it: apt-get install gfortran)");
            assert!(status.success(), "gfortran -fopenmp failed on {source}");
        }
        out
    })
}

/// A folder holding this build's library under the name `libgomp.so.1`.
pub(crate) fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test's path");
        let deps = exe.parent().expect("deps folder");
        let lib = [
            deps.join("liblocus_omp.so"),
            deps.join("../liblocus_omp.so"),
        ]
        .into_iter()
        .find(|p| p.is_file())
        .expect("cargo builds liblocus_omp.so beside the tests");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("omp-lib");
        std::fs::create_dir_all(&dir).expect("make the library's folder");
        let link = dir.join("libgomp.so.1");
        let _ = std::fs::remove_file(&link);
        std::fs::copy(&lib, &link).expect("copy the library");
        dir
    })
}

/// Runs a program (killed after 120 s) with `env`, on locus's libgomp if `locus`.
pub(crate) fn run(name: &str, args: &[&str], locus: bool, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(programs().join(name));
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .env_remove("LOCUS_STATS")
        .env("OMP_SCHEDULE", "guided,3");
    if locus {
        cmd.env("LD_LIBRARY_PATH", library_dir())
            .env("LD_BIND_NOW", "1");
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the program starts");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{name} {args:?} with {env:?} ran past 120 s");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.wait_with_output().expect("output")
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every policy a pool can be built with by name (not `affinity`, which needs a
/// schedule file), and `ws:near`, the one form that places tasks otherwise than its
/// name's policy does (it deals the top of every tree to squads).
fn policies() -> Vec<&'static str> {
    locus::PolicyKind::NAMES
        .into_iter()
        .filter(|n| n.parse::<locus::PolicyKind>().is_ok())
        .chain(["ws:near"])
        .collect()
}

#[test]
fn programs_give_libgomps_answers_under_every_policy_and_machine() {
    let policies = policies();
    assert!(policies.len() >= 6, "{policies:?}");
    let fortran = FORTRAN.iter().map(|(name, _, _)| (*name, &[][..]));
    for (name, args) in PROGRAMS.iter().copied().chain(fortran) {
        let gomp = run(name, args, false, &[("OMP_NUM_THREADS", "3")]);
        assert!(
            gomp.status.success(),
            "{name} under GCC's libgomp: {}",
            text(&gomp.stderr)
        );
        let expected = text(&gomp.stdout);
        assert!(!expected.is_empty());
        for policy in &policies {
            for (machine, threads) in MACHINES {
                let env = [
                    ("LOCUS_POLICY", *policy),
                    ("LOCUS_TOPOLOGY", *machine),
                    ("OMP_NUM_THREADS", *threads),
                ];
                let out = run(name, args, true, &env);
                assert!(
                    out.status.success(),
                    "{name} under {policy} on {machine}: {:?}\n{}",
                    out.status,
                    text(&out.stderr)
                );
                assert_eq!(
                    text(&out.stdout),
                    expected,
                    "{name} under {policy} on {machine}"
                );
            }
        }
    }
}

/// The number after `prefix` on the `LOCUS_STATS` report line that starts with it.
fn stat(stderr: &str, prefix: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("a line {prefix:?} in {stderr}"))
}

#[test]
fn the_library_in_use_is_locus_and_reports_its_pool() {
    // A team of three: the thread that meets the region and a crew of two workers.
    let env = [
        ("LOCUS_STATS", "1"),
        ("OMP_NUM_THREADS", "3"),
        ("LOCUS_TOPOLOGY", "2x1"),
    ];
    let out = run("fib", &["15"], true, &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("locus stats: 2 workers, 2 squads, policy cats"),
        "{stderr}"
    );
    let count = |prefix: &str| stat(&stderr, prefix);
    let spawned = count("locus stats:   tasks ");
    let at_once = count("locus stats:   tasks run at once ");
    // fib(15) makes 1972 tasks per run, twice (with and without a cutoff), plus the
    // regions' shares; the cutoff run makes fewer. Those its workers ran at once are
    // counted apart from the pool's.
    assert!(
        spawned + at_once > 1972,
        "{spawned} spawned, {at_once} run at once"
    );
    // Its deque holds several of fib's tasks at once most of the time.
    assert!(at_once > 0, "no task ran at once: {stderr}");
}

#[test]
fn the_stats_count_every_task_once_thread_0_s_too() {
    // A team of two: thread 0 and one crew worker, both running fib's tasks at once, and
    // thread 0 taking some from the worker's deque while it waits.
    let env = [
        ("LOCUS_STATS", "1"),
        ("OMP_NUM_THREADS", "2"),
        ("LOCUS_TOPOLOGY", "2x1"),
        ("LOCUS_POLICY", "ws"),
    ];
    let out = run("fib", &["20", "0"], true, &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let count = |prefix: &str| stat(&stderr, prefix);
    let by_workers = count("locus stats:   tasks ");
    let at_once = count("locus stats:   tasks run at once ");
    let by_thread_0 = count("locus stats:   tasks run by thread 0 ");
    // fib(20) without a cutoff makes 21890 tasks, each counted once, wherever it ran;
    // the pool's count also holds its worker's broadcast share (the crew loop).
    let total = by_workers + at_once + by_thread_0;
    assert!(
        (21890..=21891).contains(&total),
        "{by_workers} by the worker, {at_once} at once, {by_thread_0} by thread 0: {stderr}"
    );
}

#[test]
fn cancellation_asked_for_is_followed_for_taskgroups_only_with_a_message() {
    let out = run("cancel", &[], true, &[("OMP_CANCELLATION", "true")]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(text(&out.stdout), "cancel ok\n");
    assert!(
        stderr.contains("OMP_CANCELLATION=true is followed for taskgroups only"),
        "{stderr}"
    );
    let bad = run("cancel", &[], true, &[("OMP_CANCELLATION", "maybe")]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("OMP_CANCELLATION=\"maybe\""));
}

#[test]
fn an_error_directive_warns_or_ends_the_program_as_under_libgomp() {
    let warned = run("error", &[], true, &[]);
    assert!(warned.status.success(), "{}", text(&warned.stderr));
    assert!(
        text(&warned.stderr).contains("error directive encountered: a warning from error.c"),
        "{}",
        text(&warned.stderr)
    );
    for locus in [false, true] {
        let fatal = run("error", &["fatal"], locus, &[]);
        assert_eq!(fatal.status.code(), Some(1), "locus: {locus}");
        assert!(text(&fatal.stderr).contains("a fatal error from error.c"));
        assert!(!text(&fatal.stdout).contains("error ok"));
    }
}

#[test]
fn mandatory_offload_runs_on_the_host_and_refuses_another_device() {
    let env = [("OMP_TARGET_OFFLOAD", "mandatory")];
    let host = run("target", &[], true, &env);
    assert!(host.status.success(), "{}", text(&host.stderr));
    for locus in [false, true] {
        let other = run("target", &["device 7"], locus, &env);
        assert!(!other.status.success(), "locus: {locus}");
        assert!(!text(&other.stdout).contains("target ok"));
    }
    let refused = run("target", &["device 7"], true, &env);
    assert!(
        text(&refused.stderr).contains("device 7"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn omp_display_env_shows_the_settings_in_use() {
    let env = [("OMP_DISPLAY_ENV", "verbose"), ("LOCUS_POLICY", "mts")];
    let out = run("fib", &["10"], true, &env);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    for line in [
        "OPENMP DISPLAY ENVIRONMENT BEGIN",
        "  OMP_SCHEDULE = 'GUIDED,3'",
        "  LOCUS_POLICY = 'mts'",
        "OPENMP DISPLAY ENVIRONMENT END",
    ] {
        assert!(stderr.contains(line), "{line:?} not in {stderr}");
    }
    // The program's own output is untouched.
    assert_eq!(
        text(&out.stdout),
        text(&run("fib", &["10"], true, &[]).stdout)
    );
}

#[test]
fn omp_display_affinity_prints_each_members_line_once() {
    let env = [
        ("OMP_DISPLAY_AFFINITY", "true"),
        ("OMP_AFFINITY_FORMAT", "member %n of %N"),
        ("OMP_NUM_THREADS", "3"),
    ];
    let out = run("fib", &["12"], true, &env);
    assert!(out.status.success());
    let stderr = text(&out.stderr);
    for t in 0..3 {
        let line = format!("member {t} of 3");
        assert_eq!(stderr.lines().filter(|l| *l == line).count(), 1, "{stderr}");
    }
}

#[test]
fn a_missing_entry_point_fails_at_load_naming_it() {
    // The program needs acc_get_num_devices (OpenACC); the loader names it.
    let names_one = |stderr: &str| {
        ["acc_get_num_devices"]
            .iter()
            .any(|name| stderr.contains(&format!("undefined symbol: {name}")))
    };
    let out = run("missing", &[], true, &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(names_one(&stderr), "{stderr}");
    // Bound lazily, it fails when it first calls the entry point, naming it too.
    let lazy = run("missing", &[], true, &[("LD_BIND_NOW", "")]);
    assert!(!lazy.status.success());
    let stderr = text(&lazy.stderr);
    assert!(names_one(&stderr), "{stderr}");
    // The same program runs under GCC's libgomp.
    let gomp = run("missing", &[], false, &[]);
    assert_eq!(text(&gomp.stdout), "4950\n");
}

#[test]
fn bad_settings_are_named_and_end_the_program() {
    for (var, value) in [
        ("OMP_NUM_THREADS", "none"),
        ("OMP_STACKSIZE", "huge"),
        ("OMP_SCHEDULE", "sometimes"),
        ("LOCUS_POLICY", "fastest"),
        ("LOCUS_TOPOLOGY", "pack:0 pu:1"),
        ("OMP_ALLOCATOR", "omp_default_mem_space:alignment=3"),
        ("OMP_NUM_TEAMS", "-1"),
        ("OMP_TARGET_OFFLOAD", "always"),
        ("OMP_DISPLAY_ENV", "loud"),
        ("OMP_AFFINITY_FORMAT", "%{colour}"),
    ] {
        let out = run("fib", &["10"], true, &[(var, value)]);
        assert_eq!(out.status.code(), Some(2), "{var}={value}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(var) && stderr.contains(value),
            "{var}={value}: {stderr}"
        );
    }
}

/// `objdump -T` of a shared library: its defined symbols with their versions.
fn exports(lib: &Path) -> BTreeSet<(String, String)> {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(lib)
        .output()
        .expect("objdump runs");
    assert!(out.status.success());
    text(&out.stdout)
        .lines()
        .filter(|l| l.contains(" DF .text") || l.contains(" DO .bss"))
        .filter_map(|l| {
            let mut words = l.split_whitespace().rev();
            let name = words.next()?.to_string();
            let version = words
                .next()?
                .trim_matches(|c| c == '(' || c == ')')
                .to_string();
            Some((name, version))
        })
        .collect()
}

#[test]
fn every_export_carries_gccs_version() {
    let ours = exports(&library_dir().join("libgomp.so.1"));
    let system = Command::new("gcc")
        .arg("-print-file-name=libgomp.so.1")
        .output()
        .expect("gcc runs");
    let gcc = exports(Path::new(text(&system.stdout).trim()));
    let gomp: Vec<_> = ours
        .iter()
        .filter(|(name, _)| name.starts_with("GOMP_") || name.starts_with("omp_"))
        .collect();
    assert!(gomp.len() >= 50, "{ours:?}");
    for entry in gomp {
        assert!(gcc.contains(entry), "{entry:?} is not in GCC's libgomp");
    }
    assert!(ours.contains(&("locus_footprint_read".into(), "LOCUS_1.0".into())));
    // What the library exports is exactly its table (`abi.rs`): each symbol bound to
    // the version written beside it.
    let table: BTreeSet<(String, String)> = locus_omp::abi::symbols()
        .map(|(name, version)| (name.to_string(), version.to_string()))
        .collect();
    assert_eq!(ours, table);
}

/// `cancel taskgroup` under `OMP_CANCELLATION=true` (every policy, as the other
/// programs run without it): the cancelled group's later tasks do not run, as under
/// GCC's libgomp.
#[test]
fn cancel_taskgroup_cancels_under_the_setting() {
    let env = [("OMP_CANCELLATION", "true")];
    let gomp = run("cancel_taskgroup", &[], false, &env);
    assert!(gomp.status.success(), "{}", text(&gomp.stderr));
    assert!(text(&gomp.stdout).contains("0 of 1000 ran"));
    for policy in ["ws", "cats", "mts"] {
        let env = [("OMP_CANCELLATION", "true"), ("LOCUS_POLICY", policy)];
        let out = run("cancel_taskgroup", &[], true, &env);
        assert!(out.status.success(), "{policy}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), text(&gomp.stdout), "{policy}");
    }
}

/// Thread 0 runs its team's tasks while it waits at the region's end, as under
/// libgomp, under the policies that take task events too (`cab` and `cats` where the
/// crew spans two squads, as a team of three on `2x1` does): `thread0_helps` fails,
/// after 20 s, where it runs none. (Not under the policies that deal tasks to given
/// workers, whose tasks thread 0 leaves to them.)
#[test]
fn thread_0_runs_its_teams_tasks_while_it_waits() {
    let gomp = run("thread0_helps", &[], false, &[("OMP_NUM_THREADS", "3")]);
    assert!(gomp.status.success(), "{}", text(&gomp.stderr));
    for policy in ["ws", "cab", "cats", "mts"] {
        for machine in ["2x1", "1x2"] {
            let env = [
                ("LOCUS_POLICY", policy),
                ("LOCUS_TOPOLOGY", machine),
                ("OMP_NUM_THREADS", "3"),
            ];
            let out = run("thread0_helps", &[], true, &env);
            assert!(
                out.status.success(),
                "{policy} on {machine}: {}",
                text(&out.stderr)
            );
            assert_eq!(
                text(&out.stdout),
                text(&gomp.stdout),
                "{policy} on {machine}"
            );
        }
    }
}

/// A team's thread 0 never shares a CPU with its crew's pinned worker where the process
/// has another (left where the program put it, it shared one whenever the kernel chose
/// that: fib took 1.9x the time), and gets every CPU back where the workers are not
/// pinned; `omp_get_num_procs` counts the CPUs as libgomp does, on every member.
#[test]
fn thread_0_is_kept_off_its_workers_cpus() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let gomp = run("apart", &[], false, &[]);
    assert!(gomp.status.success(), "{}", text(&gomp.stderr));
    let n = cpus.to_string();
    let cases: [(&[(&str, &str)], String); 3] = [
        (
            &[("LOCUS_POLICY", "ws")],
            if cpus > 1 {
                format!("procs {n} {n} {n} shared 0\nagain shared 0 procs {n}\n")
            } else {
                text(&gomp.stdout)
            },
        ),
        (
            &[("LOCUS_POLICY", "ws"), ("OMP_PROC_BIND", "false")],
            text(&gomp.stdout),
        ),
        (&[("LOCUS_POLICY", "ws-unpinned")], text(&gomp.stdout)),
    ];
    for (env, want) in cases {
        let out = run("apart", &[], true, env);
        assert!(out.status.success(), "{env:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "{env:?}");
    }
}

/// A crew worker that waits runs other tasks on top of its wait; under `rr-fifo`, which
/// gives it the oldest first, those waits nested breadth-first until the stack
/// overflowed (fib 22 without a cutoff on a 1 MiB stack: SIGSEGV every run). Past the
/// middle of its stack a worker runs its new tasks at once, so the depth stays bounded.
#[test]
fn waits_nested_oldest_first_stay_within_the_stack() {
    let env = [("OMP_NUM_THREADS", "2"), ("OMP_STACKSIZE", "1M")];
    let gomp = run("fib", &["22", "0"], false, &env);
    assert!(gomp.status.success(), "{}", text(&gomp.stderr));
    for policy in ["rr-fifo", "ws"] {
        let env = [("LOCUS_POLICY", policy), env[0], env[1]];
        let out = run("fib", &["22", "0"], true, &env);
        assert!(
            out.status.success(),
            "{policy}: {:?} {}",
            out.status,
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), text(&gomp.stdout), "{policy}");
    }
}

/// The environments the settings test runs `icvs` with: each sets ICVs that locus
/// honours, whose values the program prints.
const ICV_SETTINGS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("OMP_THREAD_LIMIT", "1"),
        ("OMP_DYNAMIC", "true"),
        ("OMP_MAX_ACTIVE_LEVELS", "3"),
        ("OMP_DEFAULT_DEVICE", "2"),
        ("OMP_MAX_TASK_PRIORITY", "9"),
        ("OMP_PROC_BIND", "spread,close"),
    ],
    &[
        ("OMP_MAX_ACTIVE_LEVELS", "0"),
        ("OMP_PROC_BIND", "close"),
        ("OMP_PLACES", "threads"),
        ("OMP_WAIT_POLICY", "passive"),
    ],
    &[("OMP_NESTED", "true"), ("OMP_PROC_BIND", "false")],
    &[("OMP_THREAD_LIMIT", "2"), ("OMP_DYNAMIC", "false")],
    &[("OMP_PLACES", "ll_caches"), ("OMP_DEFAULT_DEVICE", "0")],
    &[("OMP_PROC_BIND", "master")],
];

#[test]
fn omp_settings_set_the_icvs_as_under_libgomp() {
    for settings in ICV_SETTINGS {
        let mut env = vec![("OMP_NUM_THREADS", "3")];
        env.extend_from_slice(settings);
        let gomp = run("icvs", &[], false, &env);
        assert!(
            gomp.status.success(),
            "{settings:?}: {}",
            text(&gomp.stderr)
        );
        let out = run("icvs", &[], true, &env);
        assert!(out.status.success(), "{settings:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), text(&gomp.stdout), "{settings:?}");
    }
}

#[test]
fn garbage_in_omp_settings_is_named_in_one_line_and_ends_the_program() {
    for (var, value, says) in [
        ("OMP_THREAD_LIMIT", "0", "1..="),
        ("OMP_DYNAMIC", "maybe", "expected false or true"),
        ("OMP_NESTED", "yes", "expected false or true"),
        ("OMP_WAIT_POLICY", "busy", "expected passive or active"),
        ("OMP_MAX_ACTIVE_LEVELS", "abc", "whole number"),
        ("OMP_DEFAULT_DEVICE", "abc", "whole number"),
        ("OMP_MAX_TASK_PRIORITY", "-1", "whole number"),
        ("OMP_AFFINITY_FORMAT", "%99999999999n", "at most"),
        ("OMP_STACKSIZE", "99999999999999G", "more than"),
        ("OMP_STACKSIZE", "20G", "more than"),
        ("OMP_PROC_BIND", "spread,sideways", "not a binding"),
        ("OMP_PLACES", "{0,1", "unclosed"),
        ("OMP_PLACES", "cores(0)", "no count"),
        ("OMP_NUM_THREADS", "4,0", "not a number of threads"),
        ("OMP_TOOL", "on", "expected disabled or enabled"),
    ] {
        let out = run("icvs", &[], true, &[(var, value)]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{var}={value}: {stderr}");
        assert!(text(&out.stdout).is_empty(), "{var}={value} ran");
        assert_eq!(stderr.lines().count(), 1, "{var}={value}: {stderr}");
        let named = format!("{var}={value:?}");
        assert!(
            stderr.contains(&named) && stderr.contains(says),
            "{var}={value}: {stderr}"
        );
    }
}

#[test]
fn settings_locus_cannot_follow_are_said_and_the_program_runs() {
    for (env, says) in [
        (
            &[("OMP_WAIT_POLICY", "active")][..],
            "OMP_WAIT_POLICY=active is not followed",
        ),
        (
            &[("OMP_PLACES", "{0},{1}:2")],
            "OMP_PLACES={0},{1}:2 is not followed",
        ),
        (
            &[("OMP_PLACES", "sockets")],
            "OMP_PLACES=sockets is not followed",
        ),
        (
            &[("OMP_NUM_THREAD", "4")],
            "OMP_NUM_THREAD is not an OpenMP setting",
        ),
        (
            &[("OMP_NUM_THREADS_DEV_0", "4")],
            "OMP_NUM_THREADS_DEV_0 is not followed",
        ),
    ] {
        let gomp = run("icvs", &[], false, env);
        assert!(gomp.status.success(), "{env:?}: {}", text(&gomp.stderr));
        let out = run("icvs", &[], true, env);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{env:?}: {stderr}");
        assert_eq!(text(&out.stdout), text(&gomp.stdout), "{env:?}");
        assert!(stderr.contains(says), "{env:?}: {stderr}");
    }
}

#[test]
fn the_error_directive_prints_its_messages_as_libgomp_does() {
    for args in [&[][..], &["fatal"]] {
        let gomp = run("error_message", args, false, &[]);
        let out = run("error_message", args, true, &[]);
        assert_eq!(out.status.code(), gomp.status.code(), "{args:?}");
        assert_eq!(text(&out.stderr), text(&gomp.stderr), "{args:?}");
        assert_eq!(text(&out.stdout), text(&gomp.stdout), "{args:?}");
    }
}
