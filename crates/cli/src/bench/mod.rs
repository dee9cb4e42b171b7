//! `locus bench`: times the kernels under locus policies and rayon, in one process, on
//! the same prepared input, and verifies every run.
//!
//! Protocol per kernel: prepare the input and its serial reference once; build every
//! executor up front (one locus pool per policy, same threads and topology, plus a rayon
//! pool) and keep them all alive until the kernel is done (idle pools sleep); warm each
//! up; then for each repetition run every executor in turn, so drift on a shared
//! machine hits all of them alike. Only `execute` is timed (`reset` and `verify` are
//! not). Pool statistics are summed over snapshots taken just before and just after
//! each timed run, so the time a pool sleeps while the other executors take their turn
//! is not counted as its idle time.
//!
//! `--policy affinity` follows `--schedule FILE`, loaded before anything runs and checked
//! against the pools' machine, their thread count and the one kernel input of the run.

mod matrix;
mod report;

use crate::cli::{BenchArgs, BenchCommand};
use crate::failure::Failure;
use crate::given::{flag_or_env, Given, Origin};
use crate::inputs::{note_inputs, with_matrix};
use crate::limits;
use crate::policies::{self, Engine};
use crate::progress::progress_bar;
use crate::report::print;
use anyhow::{bail, ensure, Context, Result};
use indicatif::ProgressBar;
use locus::{PolicyKind, PoolStats, ThreadPoolBuilder};
use locus_files::RunFiles;
use locus_kernels::{Kernel, Locus, Params, Prepared, Rayon};
use locus_topo::Topology;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The executor name rayon results carry.
pub(crate) const RAYON: &str = "rayon";

/// Validated input of `locus bench`.
#[derive(Debug)]
pub(crate) struct BenchPlan {
    /// The kernels to run, with their sizes, in order.
    pub(crate) jobs: Vec<Params>,
    /// The locus policies, in order, without repeats.
    pub(crate) policies: Vec<PolicyKind>,
    /// Workers of every pool.
    pub(crate) threads: usize,
    /// The topology of the locus pools (this machine, or a virtual one).
    pub(crate) topology: Topology,
    /// Timed repetitions per executor (at least 1).
    pub(crate) reps: usize,
    /// Untimed repetitions per executor before the timed ones.
    pub(crate) warmup: usize,
    /// Whether rayon runs as the baseline.
    pub(crate) rayon: bool,
    /// Where to write the JSON document, if anywhere.
    pub(crate) json: Option<PathBuf>,
    /// Whether to report what each policy decided.
    pub(crate) explain: bool,
    /// The counter source for policies that measure tasks, if forced.
    pub(crate) counters: Option<locus::counters::CounterKind>,
    /// Where the workers run, if forced.
    pub(crate) pin: Option<locus::Pinning>,
    /// Where to write each locus pool's trace, if anywhere (see [`trace_path`]), and
    /// the events a worker keeps (`LOCUS_TRACE_CAP`, as the library reads it).
    pub(crate) trace: Option<(PathBuf, Option<usize>)>,
}

impl BenchPlan {
    /// Resolves the arguments; every error here is bad input, found before any run.
    pub(crate) fn new(args: &BenchArgs) -> Result<BenchPlan> {
        let mut files = RunFiles::new();
        let jobs = jobs(&args.kernel, args.size.as_deref(), args.matrix.as_deref())?;
        note_inputs(&mut files, &jobs, args.matrix.as_deref())?;
        for params in &jobs {
            let given = limits::given(params, args.size.as_deref(), args.matrix.as_deref(), None);
            limits::check(params, &given, false)?;
        }
        let policy = flag_or_env(args.policy.clone(), "--policy", "LOCUS_POLICY", |s| {
            Ok(s.to_owned())
        })?
        .unwrap_or(Given {
            value: "all".to_owned(),
            origin: Origin::Flag("--policy"),
        });
        let schedule = policies::schedule_flag(&policy, args.schedule.as_deref())?;
        if let Some(path) = schedule {
            files.input("--schedule", path)?;
            ensure!(
                jobs.len() == 1,
                "{} names affinity, whose schedule is for one input, but KERNEL {:?} runs \
                 {} kernels: name the kernel the schedule was made for",
                policy.origin.with(&policy.value),
                args.kernel,
                jobs.len()
            );
        }
        let topology = crate::inputs::machine(args.machine.as_deref(), &mut files)?;
        // As the pool builder does: one worker per PU of the machine the pools run on,
        // which for a described machine is its PU count, not this machine's.
        let default_threads = if topology.is_virtual() {
            topology.num_pus()
        } else {
            std::thread::available_parallelism()
                .context("cannot tell how many CPUs this process may use; give --threads")?
                .get()
        };
        let threads = crate::inputs::threads(
            args.threads,
            default_threads,
            &format!("machine {:?}", topology.name()),
        )?;
        let affinity = schedule
            .map(|path| policies::load_affinity(path, &jobs[0], &topology, threads))
            .transpose()?;
        let policies = policies::list(&policy, Engine::Runtime, affinity.as_ref())?;
        ensure!(
            args.reps >= 1,
            "--reps 0: at least one timed repetition is needed"
        );
        let counters = flag_or_env(
            args.counters,
            "--counters",
            locus::counters::ENV_VAR,
            crate::cli::counter_kind,
        )?
        .map(|given| given.value);
        let pin = flag_or_env(args.pin, "--pin", "LOCUS_PIN", crate::cli::pinning)?
            .map(|given| given.value);
        if let Some(path) = &args.json {
            files.output("--json", path)?;
        }
        let trace = match &args.trace {
            Some(path) => {
                files.output("--trace", path)?;
                let cap = flag_or_env(None, "--trace", "LOCUS_TRACE_CAP", |s| {
                    s.trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|&c| c > 0)
                        .ok_or_else(|| "expected a positive whole number of events".to_owned())
                })?;
                Some((path.clone(), cap.map(|given| given.value)))
            }
            None => None,
        };
        Ok(BenchPlan {
            jobs,
            policies,
            threads,
            topology,
            reps: args.reps,
            warmup: args.warmup,
            rayon: !args.no_rayon,
            json: args.json.clone(),
            explain: args.explain,
            counters,
            pin,
            trace,
        })
    }

    /// Executors per kernel.
    pub(crate) fn num_executors(&self) -> usize {
        self.policies.len() + usize::from(self.rayon)
    }

    /// Kernel runs in the whole bench, warm-ups included (the progress bar's length).
    pub(crate) fn total_runs(&self) -> u64 {
        (self.jobs.len() * self.num_executors() * (self.warmup + self.reps)) as u64
    }
}

/// The kernels of `KERNEL` (a name or `all`) with the sizes of `--size` and the matrix
/// of `--matrix`.
fn jobs(kernel: &str, size: Option<&str>, matrix: Option<&Path>) -> Result<Vec<Params>> {
    if kernel.trim().eq_ignore_ascii_case("all") {
        if let Some(size) = size {
            bail!(
                "--size {size:?} needs a single KERNEL, not `all` (every kernel reads sizes \
                 differently); name one of: {}",
                Kernel::ALL.map(Kernel::name).join(", ")
            );
        }
        if let Some(path) = matrix {
            bail!(
                "--matrix {path:?} needs a single sparse KERNEL (spmv-crs, spmv-iter, spmv-ccs or spmm), \
                 not `all`"
            );
        }
        return Ok(Kernel::ALL.iter().map(|k| k.default_params()).collect());
    }
    let kernel: Kernel = kernel.parse().context("bad KERNEL (or `all`)")?;
    let params = match size {
        Some(s) => kernel.parse_size(s).context("bad --size")?,
        None => kernel.default_params(),
    };
    Ok(vec![with_matrix(params, matrix)?])
}

/// `locus bench`: resolves the arguments (bad input exits 2), runs every kernel,
/// prints each table as it is done, writes `--json`; exit 1 if a result did not verify.
pub(crate) fn command(args: &BenchArgs) -> Result<(), Failure> {
    if let Some(BenchCommand::Matrix(matrix)) = &args.command {
        return matrix::command(matrix);
    }
    let plan = BenchPlan::new(args).map_err(Failure::Input)?;
    tracing::info!(
        threads = plan.threads,
        machine = plan.topology.name(),
        kernels = plan.jobs.len(),
        "bench start"
    );
    let bar = progress_bar(plan.total_runs());
    let mut kernels: Vec<KernelResult> = Vec::with_capacity(plan.jobs.len());
    for params in &plan.jobs {
        let result = run_kernel(&plan, params, &bar)
            .with_context(|| format!("{} {params}", params.kernel()))
            .map_err(Failure::Run)?;
        let sep = if kernels.is_empty() { "" } else { "\n" };
        let text = format!(
            "{sep}{}\n{}",
            report::header(&plan, &result),
            report::table(&result, plan.reps)
        );
        bar.suspend(|| print(&text)).map_err(Failure::Run)?;
        for r in &result.results {
            if let Some(warning) = policies::unmatched_schedule(&r.name, &r.policy_stats) {
                bar.suspend(|| eprintln!("{warning}"));
            }
        }
        if plan.explain {
            let text = report::explanations(&result);
            bar.suspend(|| print(&text)).map_err(Failure::Run)?;
        }
        kernels.push(result);
    }
    bar.finish_and_clear();
    if let Some(path) = &plan.json {
        report::Report::new(&plan, &kernels)
            .write(path)
            .with_context(|| format!("cannot write --json {path:?}"))
            .map_err(Failure::Run)?;
    }
    match unverified(&kernels) {
        None => Ok(()),
        Some(what) => Err(Failure::Unverified(what)),
    }
}

/// The error line naming every result that did not verify, if any.
fn unverified(kernels: &[KernelResult]) -> Option<String> {
    let failed: Vec<String> = kernels
        .iter()
        .flat_map(|k| {
            k.results
                .iter()
                .filter(|r| !r.verified())
                .map(move |r| format!("{} {} under {}", k.params.kernel(), k.params, r.name))
        })
        .collect();
    match failed.len() {
        0 => None,
        1 => Some(format!("1 result failed verification: {}", failed[0])),
        n => Some(format!(
            "{n} results failed verification: {}",
            failed.join("; ")
        )),
    }
}

/// One contender of a kernel: a locus pool or the rayon baseline.
enum Executor {
    Locus(Locus),
    Rayon(Rayon),
}

impl Executor {
    fn execute(&self, prepared: &mut Prepared) {
        match self {
            Executor::Locus(ex) => prepared.execute(ex),
            Executor::Rayon(ex) => prepared.execute(ex),
        }
    }

    fn stats(&self) -> Option<locus::PoolStats> {
        match self {
            Executor::Locus(ex) => Some(ex.pool.stats()),
            Executor::Rayon(_) => None,
        }
    }
}

/// What one executor did on one kernel.
#[derive(Debug, Clone)]
pub(crate) struct ExecResult {
    /// The policy as `--policy` spells it, or [`RAYON`].
    pub(crate) name: String,
    /// Wall time of each timed repetition, in order.
    pub(crate) times: Vec<Duration>,
    /// Runs (warm-ups included) whose result did not verify.
    pub(crate) failed_runs: usize,
    /// What was wrong with the first run that did not verify.
    pub(crate) failure: Option<String>,
    /// Pool statistics per worker, summed over the timed repetitions (`None` for rayon).
    pub(crate) stats: Option<PoolStats>,
    /// What the policy decided and from what, after the runs (`None` for rayon).
    pub(crate) explain: Option<String>,
    /// The policy's own statistics after the runs, by name (empty for rayon).
    pub(crate) policy_stats: Vec<(String, u64)>,
}

impl ExecResult {
    fn new(name: String) -> ExecResult {
        ExecResult {
            name,
            times: Vec::new(),
            failed_runs: 0,
            failure: None,
            stats: None,
            explain: None,
            policy_stats: Vec::new(),
        }
    }

    /// Whether every run verified.
    pub(crate) fn verified(&self) -> bool {
        self.failed_runs == 0
    }

    fn record(&mut self, what: &str, check: std::result::Result<(), String>) {
        if let Err(detail) = check {
            self.failed_runs += 1;
            if self.failure.is_none() {
                self.failure = Some(format!("{what}: {detail}"));
            }
        }
    }

    /// Median of the timed repetitions (mean of the middle two for an even count).
    pub(crate) fn median(&self) -> Duration {
        median(&self.times)
    }

    /// Fastest timed repetition.
    pub(crate) fn min(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }

    /// Slowest timed repetition.
    pub(crate) fn max(&self) -> Duration {
        self.times.iter().copied().max().unwrap_or_default()
    }
}

/// Median of `times`; zero for none.
pub(crate) fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

/// All executors on one kernel.
#[derive(Debug, Clone)]
pub(crate) struct KernelResult {
    /// The kernel and its size.
    pub(crate) params: Params,
    /// One per executor: the policies in plan order, then rayon.
    pub(crate) results: Vec<ExecResult>,
}

impl KernelResult {
    /// Rayon's median, if rayon ran.
    pub(crate) fn rayon_median(&self) -> Option<Duration> {
        self.results
            .iter()
            .find(|r| r.name == RAYON)
            .map(ExecResult::median)
    }
}

/// Where the pool of `kernel` under `policy` writes its trace: `path` itself where the
/// plan runs one kernel under one policy, else `path` with `.KERNEL.POLICY` before its
/// extension (characters other than letters, digits, `-` and `_` made `-`).
fn trace_path(plan: &BenchPlan, path: &Path, kernel: &str, policy: &PolicyKind) -> PathBuf {
    if plan.jobs.len() <= 1 && plan.policies.len() <= 1 {
        return path.to_path_buf();
    }
    let tag: String = format!("{kernel}.{policy}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{tag}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{tag}"),
    };
    path.with_file_name(name)
}

/// Runs one kernel under every executor of `plan` (see the module docs), advancing
/// `bar` once per run.
pub(crate) fn run_kernel(
    plan: &BenchPlan,
    params: &Params,
    bar: &ProgressBar,
) -> Result<KernelResult> {
    let kernel = params.kernel();
    let _span =
        tracing::info_span!("bench kernel", kernel = kernel.name(), size = %params).entered();
    bar.set_message(format!("{kernel}: preparing input"));
    let mut prepared = params.prepare();

    let mut executors = Vec::with_capacity(plan.num_executors());
    for kind in &plan.policies {
        let mut builder = ThreadPoolBuilder::new()
            .num_threads(plan.threads)
            .policy(kind.clone())
            .topology(plan.topology.clone());
        if let Some(counters) = plan.counters {
            builder = builder.counters(counters);
        }
        if let Some(pin) = plan.pin.filter(|_| *kind != locus::PolicyKind::WsUnpinned) {
            builder = builder.pinning(pin);
        }
        if let Some((path, cap)) = &plan.trace {
            builder = builder.trace(trace_path(plan, path, kernel.name(), kind));
            if let Some(cap) = cap {
                builder = builder.trace_cap(*cap);
            }
        }
        let pool = builder
            .build()
            .with_context(|| format!("could not build the locus pool for policy {kind}"))?;
        executors.push((kind.to_string(), Executor::Locus(Locus::new(pool))));
    }
    if plan.rayon {
        let rayon = Rayon::new(plan.threads)
            .with_context(|| format!("could not build a rayon pool of {} threads", plan.threads))?;
        executors.push((RAYON.to_owned(), Executor::Rayon(rayon)));
    }
    let mut results: Vec<ExecResult> = executors
        .iter()
        .map(|(name, _)| ExecResult::new(name.clone()))
        .collect();

    for ((name, ex), result) in executors.iter().zip(&mut results) {
        bar.set_message(format!("{kernel}: warming up {name}"));
        for w in 0..plan.warmup {
            let run = run_once(&mut prepared, ex);
            result.record(&format!("warm-up {}", w + 1), run.check);
            bar.inc(1);
        }
    }

    for rep in 0..plan.reps {
        bar.set_message(format!("{kernel}: rep {}/{}", rep + 1, plan.reps));
        for ((_, ex), result) in executors.iter().zip(&mut results) {
            let before = ex.stats();
            let run = run_once(&mut prepared, ex);
            if let (Some(after), Some(before)) = (ex.stats(), before) {
                let run_stats = after.since(&before);
                result.stats = Some(match result.stats.take() {
                    Some(sum) => sum.add(&run_stats),
                    None => run_stats,
                });
            }
            result.times.push(run.end - run.start);
            result.record(&format!("rep {}", rep + 1), run.check);
            bar.inc(1);
        }
    }
    for ((_, ex), result) in executors.iter().zip(&mut results) {
        if let Executor::Locus(locus) = ex {
            if let Some(report) = locus
                .pool
                .flush_trace()
                .with_context(|| format!("could not write the trace of {}", result.name))?
            {
                eprintln!("{report}");
            }
            result.explain = Some(locus.pool.explain());
            result.policy_stats = locus.pool.policy_stats();
        }
    }
    tracing::debug!(executors = executors.len(), "kernel done");
    Ok(KernelResult {
        params: params.clone(),
        results,
    })
}

/// One kernel run: when `execute` started and ended, and whether the result verified.
struct Run {
    start: Instant,
    end: Instant,
    check: std::result::Result<(), String>,
}

/// One repetition: reset (untimed), execute (timed), verify (untimed). A panic in the
/// kernel is a failed run, not the end of the bench.
fn run_once(prepared: &mut Prepared, ex: &Executor) -> Run {
    prepared.reset();
    let start = Instant::now();
    let ran = catch_unwind(AssertUnwindSafe(|| ex.execute(prepared)));
    let end = Instant::now();
    let check = match ran {
        Err(panic) => Err(format!("panicked: {}", panic_message(&*panic))),
        Ok(()) => {
            let outcome = prepared.verify();
            if outcome.verified {
                Ok(())
            } else {
                Err(outcome.detail)
            }
        }
    };
    Run { start, end, check }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(kernel: &str) -> BenchArgs {
        BenchArgs {
            command: None,
            kernel: kernel.to_owned(),
            policy: Some("all".to_owned()),
            threads: Some(2),
            machine: None,
            size: None,
            matrix: None,
            schedule: None,
            reps: 2,
            warmup: 0,
            json: None,
            no_rayon: false,
            explain: false,
            counters: None,
            pin: None,
            trace: None,
        }
    }

    #[test]
    fn kernels_and_sizes_resolve() {
        assert_eq!(jobs("all", None, None).unwrap().len(), Kernel::ALL.len());
        assert_eq!(
            jobs("FIB", Some("12"), None).unwrap(),
            vec![Kernel::Fib.parse_size("12").unwrap()]
        );
        let e = format!("{:#}", jobs("all", Some("12"), None).unwrap_err());
        assert!(e.contains("--size") && e.contains("single KERNEL"), "{e}");
        let e = format!("{:#}", jobs("fibb", None, None).unwrap_err());
        assert!(e.contains("fibb"), "{e}");
        let e = format!("{:#}", jobs("fib", Some("x"), None).unwrap_err());
        assert!(e.contains("--size") && e.contains("\"x\""), "{e}");
    }

    /// A 3 x 3 matrix in a scratch file named after the test.
    fn matrix_file(name: &str) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("locus-bench-{name}-{}.mtx", std::process::id()));
        std::fs::write(
            &path,
            "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2.0\n2 2 2.0\n3 3 2.0\n1 3 -1.0\n",
        )
        .unwrap();
        path
    }

    #[test]
    fn a_matrix_file_replaces_the_sizes_matrix_of_sparse_kernels_only() {
        let path = matrix_file("matrix");
        let m = Some(path.as_path());
        let p = jobs("spmv-crs", Some("laplace2d:8,iters=3,grain=2"), m).unwrap();
        let text = p[0].to_string();
        assert_eq!(text, format!("matrix={},iters=3,grain=2", path.display()));
        for (kernel, size, what) in [
            ("fib", None, "takes no matrix"),
            ("all", None, "single sparse KERNEL"),
            ("spmm", Some(text.as_str()), "already names a matrix file"),
        ] {
            let e = format!("{:#}", jobs(kernel, size, m).unwrap_err());
            assert!(e.contains("--matrix") && e.contains(what), "{kernel}: {e}");
        }
        let missing = path.with_extension("none");
        let e = format!("{:#}", jobs("spmv-ccs", None, Some(&missing)).unwrap_err());
        assert!(e.contains("--matrix") && e.contains(".none"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn affinity_needs_a_schedule_for_one_kernel() {
        let mut a = args("all");
        a.policy = Some("ws,affinity".to_owned());
        let e = format!("{:#}", BenchPlan::new(&a).unwrap_err());
        assert!(e.contains("--schedule FILE"), "{e}");
        a.schedule = Some(PathBuf::from("schedule.json"));
        let e = format!("{:#}", BenchPlan::new(&a).unwrap_err());
        assert!(e.contains("for one input") && e.contains("kernels"), "{e}");
        a.kernel = "irreg".to_owned();
        a.policy = Some("static".to_owned());
        let e = format!("{:#}", BenchPlan::new(&a).unwrap_err());
        assert!(e.contains("only read by --policy affinity"), "{e}");
        a.schedule = None;
        assert_eq!(BenchPlan::new(&a).unwrap().policies, [PolicyKind::Static]);
    }

    #[test]
    fn medians() {
        let ms = Duration::from_millis;
        assert_eq!(median(&[ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(
            median(&[ms(4), ms(1), ms(2), ms(3)]),
            Duration::from_micros(2500)
        );
        assert_eq!(median(&[]), Duration::ZERO);
    }

    #[test]
    fn json_path_checked_up_front() {
        let mut a = args("fib");
        a.json = Some(PathBuf::from("/no/such/folder/x.json"));
        let e = format!("{:#}", BenchPlan::new(&a).unwrap_err());
        assert!(e.contains("/no/such/folder"), "{e}");
    }

    #[test]
    fn a_tiny_bench_runs_and_verifies() {
        let mut a = args("fib");
        a.size = Some("12".to_owned());
        a.policy = Some("ws,mts".to_owned());
        a.machine = Some("2x1".to_owned());
        a.warmup = 1;
        let plan = BenchPlan::new(&a).unwrap();
        assert_eq!(plan.total_runs(), 3 * 3);
        let result = run_kernel(&plan, &plan.jobs[0], &ProgressBar::hidden()).unwrap();
        let names: Vec<_> = result.results.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["ws", "mts", "rayon"]);
        for r in &result.results {
            assert!(r.verified(), "{}: {:?}", r.name, r.failure);
            assert_eq!(r.times.len(), 2);
            assert_eq!(r.stats.is_some(), r.name != RAYON);
        }
        assert!(result.results[0].stats.as_ref().unwrap().total().tasks > 0);
    }

    #[test]
    fn unverified_results_are_named() {
        let ok = ExecResult {
            name: "ws".into(),
            times: vec![],
            failed_runs: 0,
            failure: None,
            stats: None,
            explain: None,
            policy_stats: Vec::new(),
        };
        let bad = ExecResult {
            failed_runs: 2,
            failure: Some("rep 1: wrong".into()),
            name: "mts".into(),
            ..ok.clone()
        };
        let mut k = KernelResult {
            params: Kernel::Fib.parse_size("9").unwrap(),
            results: vec![ok.clone()],
        };
        assert_eq!(unverified(&[k.clone()]), None);
        k.results.push(bad);
        assert_eq!(
            unverified(&[k]).as_deref(),
            Some("1 result failed verification: fib 9,cutoff=0 under mts")
        );
    }
}
