//! The programs under `mpirun` on this machine: 1, 2 and 4 ranks over loopback, under
//! the default binding, bound to cores and bound to sockets. Every run must verify on
//! every rank and keep every rank's workers inside that rank's binding, as each rank
//! reports it (its own `sched_getaffinity`, and each worker's, read on the worker).
//!
//! These tests need Open MPI's `mpirun`; without it they fail with the command that
//! installs it (`bash scripts/test-mpi.sh`), never skip. Each `mpirun` is bounded in
//! time ([`LIMIT`]) and runs alone (two at once would share this machine's few cores
//! and the bindings would overlap).

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use locus_mpi::report::RankReport;

/// The program under test.
const PROGRAM: &str = env!("CARGO_BIN_EXE_locus-mpi");
/// The longest one `mpirun` may take before it is stopped and the test fails. A run
/// here takes about half a second.
const LIMIT: Duration = Duration::from_secs(120);
/// One `mpirun` at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// What one `mpirun` printed, and its verdict.
struct Run {
    command: String,
    success: bool,
    /// mpirun's exit status (a failed rank's own), where it exited.
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The rank report lines, parsed, in the order printed (rank order).
    fn reports(&self) -> Vec<RankReport> {
        self.stdout
            .lines()
            .filter(|l| l.starts_with("rank="))
            .map(|l| RankReport::parse(l).unwrap_or_else(|e| panic!("{e}\n{self}")))
            .collect()
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "$ {}\n--- stdout\n{}--- stderr\n{}",
            self.command, self.stdout, self.stderr
        )
    }
}

/// Runs `mpirun -n RANKS` with the options every run here needs (ranks above the core
/// count, root in containers, loopback only, no cross-process copies), then `binding` (mpirun's own options),
/// then the program with `args`. Fails the test if mpirun is missing or takes longer
/// than [`LIMIT`].
fn mpirun(ranks: usize, binding: &[&str], args: &[&str]) -> Run {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = ranks.to_string();
    let mut all: Vec<&str> = vec![
        "-n",
        &n,
        "--oversubscribe",
        "--allow-run-as-root",
        "--mca",
        "btl_tcp_if_include",
        "lo",
        "--mca",
        "oob_tcp_if_include",
        "lo",
        // Shared-memory copies through process_vm_readv need ptrace rights that
        // containers often withhold (large messages then fail: "Read -1, ... errno = 1").
        "--mca",
        "btl_vader_single_copy_mechanism",
        "none",
    ];
    all.extend_from_slice(binding);
    all.push(PROGRAM);
    all.extend_from_slice(args);
    let command = format!("mpirun {}", all.join(" "));
    let mut child = Command::new("mpirun")
        .args(&all)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start `{command}`: {e}. These tests need Open MPI's mpirun: \
                 `bash scripts/test-mpi.sh` installs it (apt-get install openmpi-bin \
                 libopenmpi-dev libclang-dev pkg-config) and runs them"
            )
        });
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for mpirun") {
            break Some(status);
        }
        if start.elapsed() > LIMIT {
            // mpirun passes SIGTERM on to its ranks; SIGKILL would orphan them.
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            std::thread::sleep(Duration::from_secs(5));
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        command,
        success: status.is_some_and(|s| s.success()),
        code: status.and_then(|s| s.code()),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    };
    assert!(
        status.is_some(),
        "mpirun ran past {} s and was stopped\n{run}",
        LIMIT.as_secs()
    );
    run
}

/// Checks a run that should pass: exit status 0, one report per rank in rank order,
/// each verified, each worker's CPUs inside its rank's binding, one worker per CPU of
/// the binding unless `workers` says how many, the squads covering the pool's CPUs, and
/// rank 0's summary. Returns the reports.
fn check(run: &Run, kernel: &str, ranks: usize, workers: Option<usize>) -> Vec<RankReport> {
    assert!(run.success, "the run failed\n{run}");
    let reports = run.reports();
    assert_eq!(reports.len(), ranks, "one report per rank\n{run}");
    for (i, r) in reports.iter().enumerate() {
        assert_eq!((r.rank, r.ranks), (i, ranks), "{run}");
        assert_eq!(r.kernel, kernel, "{run}");
        assert_eq!(r.threading, "MPI_THREAD_FUNNELED", "{run}");
        assert!(r.verified, "rank {i} did not verify: {}\n{run}", r.detail);
        assert!(!r.binding.is_empty(), "rank {i} has no binding\n{run}");
        // The binding check, done here from the raw lists.
        for (w, cpus) in r.workers.iter().enumerate() {
            assert!(
                !cpus.is_empty() && cpus.iter().all(|c| r.binding.contains(c)),
                "rank {i}'s worker {w} may run on {cpus:?}, outside its binding {:?}\n{run}",
                r.binding
            );
        }
        assert_eq!(
            r.workers.len(),
            workers.unwrap_or(r.binding.len()),
            "rank {i}'s pool size\n{run}"
        );
        let mut squad_cpus: Vec<usize> = r.squads.concat();
        squad_cpus.sort_unstable();
        assert_eq!(
            squad_cpus, r.binding,
            "rank {i}'s squads cover its binding\n{run}"
        );
    }
    let summary = format!("{kernel}: all {ranks} ranks verified, every worker inside");
    assert!(run.stdout.contains(&summary), "no summary\n{run}");
    reports
}

#[test]
fn heat_verifies_on_1_2_and_4_ranks() {
    for ranks in [1, 2, 4] {
        let run = mpirun(ranks, &[], &["heat"]);
        check(&run, "heat", ranks, None);
    }
}

#[test]
fn spmv_verifies_on_1_2_and_4_ranks() {
    for ranks in [1, 2, 4] {
        let run = mpirun(ranks, &[], &["spmv"]);
        check(&run, "spmv", ranks, None);
    }
}

#[test]
fn every_policy_runs_heat_and_spmv_on_2_ranks() {
    // affinity is left out: it needs a schedule file made by `locus profile`.
    for policy in [
        "ws",
        "ws:near",
        "ws-unpinned",
        "central",
        "rr-fifo",
        "rr-lifo",
        "mts",
        "cab",
        "cats",
        "static",
    ] {
        for kernel in ["heat", "spmv"] {
            let run = mpirun(2, &[], &[kernel, "--policy", policy, "--iters", "4"]);
            let reports = check(&run, kernel, 2, None);
            let name = policy.split(':').next().unwrap();
            assert!(reports.iter().all(|r| r.policy.starts_with(name)), "{run}");
        }
    }
}

/// Bound to a core each, two ranks on two or more cores get one CPU each, different
/// CPUs, and a pool of one worker on it.
#[test]
fn bound_to_cores_each_rank_has_one_worker_on_its_core() {
    let cores = locus::Topology::discover().unwrap().num_cores();
    assert!(
        cores >= 2,
        "this test needs two cores, the machine has {cores}"
    );
    for kernel in ["heat", "spmv"] {
        let run = mpirun(2, &["--bind-to", "core"], &[kernel]);
        let reports = check(&run, kernel, 2, Some(1));
        for r in &reports {
            assert_eq!(
                r.binding.len(),
                1,
                "rank {} bound to one core\n{run}",
                r.rank
            );
            assert_eq!(r.workers, std::slice::from_ref(&r.binding), "{run}");
        }
        assert_ne!(reports[0].binding, reports[1].binding, "{run}");
    }
}

/// Four ranks bound to cores on fewer cores: Open MPI refuses `--bind-to core` then
/// ("binding more processes than cpus") unless told `core:overload-allowed`; each rank
/// still gets one core and a pool of one worker there.
#[test]
fn four_ranks_overloading_the_cores_keep_one_worker_each() {
    let run = mpirun(4, &["--bind-to", "core:overload-allowed"], &["heat"]);
    let reports = check(&run, "heat", 4, Some(1));
    for r in &reports {
        assert_eq!(r.binding.len(), 1, "{run}");
        assert_eq!(r.workers, std::slice::from_ref(&r.binding), "{run}");
    }
}

/// The command of `docs/mpi.md`: one rank per socket, bound there. Each rank's pool has its
/// socket's CPUs and squads.
#[test]
fn one_rank_per_socket_gets_the_sockets_squads() {
    let machine = locus::Topology::discover().unwrap();
    let sockets = machine.num_packages();
    let run = mpirun(
        sockets,
        &["--map-by", "ppr:1:socket", "--bind-to", "socket"],
        &["heat"],
    );
    let reports = check(&run, "heat", sockets, None);
    let cpus_of = |pus: &[usize]| -> Vec<usize> {
        let mut c: Vec<usize> = pus
            .iter()
            .filter_map(|&p| machine.pus()[p].os_index)
            .collect();
        c.sort_unstable();
        c
    };
    for r in &reports {
        let socket = machine
            .packages()
            .iter()
            .find(|p| cpus_of(&p.pus).contains(&r.binding[0]))
            .unwrap_or_else(|| panic!("rank {} is on no socket\n{run}", r.rank));
        assert_eq!(
            r.binding,
            cpus_of(&socket.pus),
            "bound to its socket\n{run}"
        );
        let squads: Vec<Vec<usize>> = machine
            .cache_domains()
            .iter()
            .filter(|d| d.package == socket.index)
            .map(|d| cpus_of(&d.pus))
            .collect();
        assert_eq!(r.squads, squads, "its socket's squads\n{run}");
    }
}

/// Bad input is an error naming it, on every rank, and no panic.
#[test]
fn bad_input_fails_with_a_message() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["heat", "--size", "3x8"],
            "1 interior rows cannot be shared by 2 ranks",
        ),
        (&["heat", "--size", "2x8"], "--size \"2x8\""),
        (&["spmv", "--policy", "nope"], "policy 'nope'"),
        (&["spmv", "--size", "laplace2d:0"], "--size \"laplace2d:0\""),
    ];
    for (args, message) in cases {
        let run = mpirun(2, &[], args);
        assert!(!run.success, "bad input accepted\n{run}");
        assert!(
            run.stderr.contains(message),
            "no {message:?} in stderr\n{run}"
        );
        assert!(!run.stderr.contains("panicked"), "a panic\n{run}");
    }
}

/// Bad input as `locus` reports it: exit status 2 (not 1, a wrong answer), from
/// mpirun and from the program alone, with each of `names` in the message.
fn bad_input(run: &Run, names: &[&str]) {
    assert_eq!(run.code, Some(2), "bad input exits 2\n{run}");
    assert!(!run.stdout.contains("rank="), "no rank ran\n{run}");
    for n in names {
        assert!(run.stderr.contains(n), "{n:?} not named\n{run}");
    }
}

#[test]
fn a_grid_no_rank_could_hold_is_refused_before_anything_runs() {
    let start = Instant::now();
    let run = mpirun(2, &[], &["heat", "--size", "100000x100000"]);
    bad_input(&run, &["--size \"100000x100000\"", "heat 100000x100000"]);
    assert!(
        run.stderr.contains("of memory") || run.stderr.contains("instructions"),
        "{run}"
    );
    assert!(start.elapsed() < Duration::from_secs(60), "{run}");
    // Without mpirun too: the bound comes before MPI starts.
    let out = Command::new(PROGRAM)
        .args(["heat", "--size", "100000x100000"])
        .output()
        .expect("the program starts");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn sizes_the_ranks_cannot_share_are_bad_input() {
    // Two interior rows for four ranks; a matrix of three rows for four ranks.
    let run = mpirun(4, &[], &["heat", "--size", "4x64"]);
    bad_input(&run, &["--size", "cannot be shared by 4 ranks"]);
    let run = mpirun(4, &[], &["spmv", "--size", "laplace2d:1"]);
    bad_input(&run, &["--size", "cannot be shared by 4 ranks"]);
    let run = mpirun(1, &[], &["heat", "--size", "sixty"]);
    bad_input(&run, &["--size \"sixty\""]);
}
