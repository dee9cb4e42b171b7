//! `locus sim`: run the policies on a simulated machine over a kernel's recorded task
//! tree, and `locus sim sweep`: the same over a range of one parameter, with a plot.
//!
//! Every argument is resolved before anything runs (bad input exits 2), the schedule of
//! `--policy affinity --schedule FILE` included: it is loaded and checked against the
//! simulated machine, the simulated workers and the kernel's input. Each kernel
//! input is recorded once; the simulations of one command run in parallel on this
//! machine's cores (each is deterministic, so the order does not matter).
//!
//! As the other commands do, `sim` takes the machine, the workers and the policies from
//! `LOCUS_TOPOLOGY`, `LOCUS_NUM_THREADS` and `LOCUS_POLICY` where the flag is absent
//! (the defaults are the papers' Opteron, one worker per PU, and every policy), and an
//! error names the variable. Two bounds hold besides [`limits::check`]'s: the
//! simulator's own work ([`limits::check_simulation`], after recording, before any
//! simulation; `--no-limit` lifts it), and a simulated time that reached the end of
//! the clock (`u64::MAX` cycles, where latencies make time overflow) is refused, not
//! printed as a result.

use crate::cli::{SimCommonArgs, SimRunArgs, SweepArgs, SweepParam, DEFAULT_MACHINE};
use crate::given::{flag_or_env, Given, Origin};
use crate::inputs::{note_inputs, with_matrix};
use crate::limits;
use crate::policies::{self, Engine};
use crate::report::{count, sig3};
use anyhow::{anyhow, bail, ensure, Context, Result};
use indicatif::ProgressBar;
use locus_files::RunFiles;
use locus_kernels::record;
use locus_kernels::{Kernel, Params};
use locus_policy::{boundary_level, CabInputs, PolicyKind, WorkerMap};
use locus_sim::engine::{simulate, SimConfig, SimResult};
use locus_sim::latency::Latencies;
use locus_sim::plot::{Plot, Series};
use locus_task::workload::Workload;
use locus_topo::Topology;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What every simulation of one command shares.
#[derive(Debug)]
pub(crate) struct Setup {
    pub(crate) topology: Topology,
    pub(crate) config: SimConfig,
    pub(crate) json: Option<PathBuf>,
    /// Whether `--no-limit` lifts the bound on the simulator's work.
    pub(crate) no_limit: bool,
}

/// `--policy`, else `LOCUS_POLICY`, else `default`.
fn policy_list(flag: Option<&str>, default: &str) -> Result<Given<String>> {
    Ok(
        flag_or_env(flag.map(str::to_owned), "--policy", "LOCUS_POLICY", |s| {
            Ok(s.to_owned())
        })?
        .unwrap_or_else(|| policies::flag(default)),
    )
}

impl Setup {
    /// Resolves the shared flags; the machine and latencies files are noted in `files`
    /// as inputs, and `--json` as an output.
    fn new(args: &SimCommonArgs, files: &mut RunFiles) -> Result<Setup> {
        let Given {
            value: spec,
            origin,
        } = flag_or_env(args.machine.clone(), "--machine", "LOCUS_TOPOLOGY", |s| {
            Ok(s.to_owned())
        })?
        .unwrap_or(Given {
            value: DEFAULT_MACHINE.to_owned(),
            origin: Origin::Flag("--machine"),
        });
        if Path::new(spec.trim()).exists() {
            files.input(&origin.to_string(), Path::new(spec.trim()))?;
        }
        let topology =
            Topology::parse_spec(&spec).with_context(|| format!("bad {}", origin.with(&spec)))?;
        // The simulator counts every task's misses itself; a bad LOCUS_COUNTERS is still
        // an error here, as it is in every other command, so a typo is not carried along.
        flag_or_env(
            None,
            "--counters",
            locus::counters::ENV_VAR,
            crate::cli::counter_kind,
        )?;
        let mut latencies = Latencies::defaults_for(topology.name());
        if let Some(path) = &args.latencies {
            files.input("--latencies", path)?;
            latencies = latencies
                .load_overrides(path)
                .with_context(|| format!("bad --latencies {path:?}"))?;
        }
        let threads = flag_or_env(
            args.threads,
            "--threads",
            "LOCUS_NUM_THREADS",
            crate::cli::threads,
        )?;
        if let Some(Given { value: n, origin }) = &threads {
            ensure!(
                *n <= topology.num_pus(),
                "{}: the simulated machine {:?} has {} PUs; the simulator runs at most one \
                 worker per PU",
                origin.with(&n.to_string()),
                topology.name(),
                topology.num_pus()
            );
        }
        if let Some(path) = &args.json {
            files.output("--json", path)?;
        }
        let config = SimConfig {
            threads: threads.map(|given| given.value),
            seed: args.seed,
            latencies,
            clock: args.clock,
            placement: args.memory,
            trace: false,
            policy_costs: Default::default(),
        };
        Ok(Setup {
            topology,
            config,
            json: args.json.clone(),
            no_limit: args.no_limit,
        })
    }

    fn workers(&self) -> usize {
        self.config.threads.unwrap_or(self.topology.num_pus())
    }
}

/// The validated input of `locus sim KERNEL`.
#[derive(Debug)]
pub(crate) struct RunPlan {
    pub(crate) setup: Setup,
    pub(crate) params: Params,
    pub(crate) policies: Vec<PolicyKind>,
    pub(crate) trace: Option<PathBuf>,
    pub(crate) explain: bool,
    pub(crate) per_socket: bool,
}

impl RunPlan {
    pub(crate) fn new(args: &SimRunArgs) -> Result<RunPlan> {
        let kernel = args.kernel.as_deref().with_context(|| {
            format!(
                "locus sim needs a KERNEL (one of: {}), or `locus sim sweep`",
                Kernel::ALL.map(Kernel::name).join(", ")
            )
        })?;
        let mut files = RunFiles::new();
        let params = kernel_params(kernel, &args.common, args.iters)?;
        limits::check(
            &params,
            &given_input(&params, &args.common, args.iters),
            true,
        )?;
        note_inputs(
            &mut files,
            std::slice::from_ref(&params),
            args.common.matrix.as_deref(),
        )?;
        let given = policy_list(args.policy.as_deref(), "all")?;
        let schedule = policies::schedule_flag(&given, args.schedule.as_deref())?;
        if let Some(path) = schedule {
            files.input("--schedule", path)?;
        }
        let setup = Setup::new(&args.common, &mut files)?;
        // The schedule is for the simulated machine and the workers the run uses.
        let affinity = schedule
            .map(|path| policies::load_affinity(path, &params, &setup.topology, setup.workers()))
            .transpose()?;
        let policies = policies::list(&given, Engine::Simulator, affinity.as_ref())?;
        if let Some(path) = &args.trace {
            files.output("--trace", path)?;
            ensure!(
                policies.len() == 1,
                "--trace {path:?} keeps the timeline of one run: give a single --policy \
                 (not {})",
                given.origin.with(&given.value)
            );
        }
        Ok(RunPlan {
            setup,
            params,
            policies,
            trace: args.trace.clone(),
            explain: args.explain,
            per_socket: args.per_socket,
        })
    }
}

/// Runs `locus sim KERNEL`; returns the report to print.
pub(crate) fn run(plan: &RunPlan, bar: &ProgressBar) -> Result<String> {
    bar.set_length(plan.policies.len() as u64 + 1);
    bar.set_message(format!(
        "recording {} {}",
        plan.params.kernel(),
        plan.params
    ));
    let workload = record(&plan.params).context("cannot record the kernel")?;
    limits::check_simulation(&[(&workload, plan.policies.len())], plan.setup.no_limit)?;
    bar.inc(1);
    bar.set_message("simulating");
    let mut config = plan.setup.config.clone();
    config.trace = plan.trace.is_some();
    let results = simulate_all(
        &workload,
        &plan.setup.topology,
        &plan.policies,
        &config,
        bar,
    )?;
    if let Some(path) = &plan.trace {
        let timeline = results[0]
            .timeline
            .as_ref()
            .context("the simulation kept no timeline")?;
        locus_files::write_output("--trace", path, |out| timeline.write_chrome_trace(out))?;
    }
    if let Some(path) = &plan.setup.json {
        write_json(path, &workload, &results)?;
    }
    for r in &results {
        if let Some(warning) = policies::unmatched_schedule(&r.policy, &r.policy_stats) {
            bar.suspend(|| eprintln!("{warning}"));
        }
    }
    let mut out = header(&plan.setup, &workload);
    out.push_str(&table(&results));
    if plan.per_socket {
        out.push_str(&sockets(&results));
    }
    if plan.explain {
        out.push_str(&explanations(&results));
    }
    if let Some(path) = &plan.trace {
        let _ = writeln!(
            out,
            "\ntimeline written to {} (open it in https://ui.perfetto.dev)",
            path.display()
        );
    }
    Ok(out)
}

/// The validated input of `locus sim sweep`.
#[derive(Debug)]
pub(crate) struct SweepPlan {
    setup: Setup,
    param: SweepParam,
    /// One job per value: the value, its input, its policies.
    jobs: Vec<(u64, Params, Vec<PolicyKind>)>,
    /// Policies run once (not per value) as horizontal references.
    references: Vec<PolicyKind>,
    base: Params,
    marker: Option<(f64, String)>,
    plot: Option<PathBuf>,
}

impl SweepPlan {
    pub(crate) fn new(args: &SweepArgs) -> Result<SweepPlan> {
        let mut files = RunFiles::new();
        let base = kernel_params(&args.kernel, &args.common, args.iters)?;
        limits::check(&base, &given_input(&base, &args.common, args.iters), true)?;
        note_inputs(
            &mut files,
            std::slice::from_ref(&base),
            args.common.matrix.as_deref(),
        )?;
        let setup = Setup::new(&args.common, &mut files)?;
        let values = values(&args.values)?;
        if let Some(path) = &args.plot {
            files.output("--plot", path)?;
        }
        refuse_schedules(args)?;
        // LOCUS_POLICY chooses a rows sweep's policies as --policy does; a bl or batch
        // sweep runs its own, and only refuses a variable that names no policies.
        let validate_only = args.policy.is_none() && args.param != SweepParam::Rows;
        let given = flag_or_env(args.policy.clone(), "--policy", "LOCUS_POLICY", |s| {
            Ok(s.to_owned())
        })?
        .map(|list| policies::list(&list, Engine::Simulator, None))
        .transpose()?
        .filter(|_| !validate_only);
        let mut jobs = Vec::with_capacity(values.len());
        let mut references = Vec::new();
        let mut marker = None;
        match args.param {
            SweepParam::Rows => {
                let policies = given.unwrap_or_else(|| {
                    std::iter::once(PolicyKind::Ws)
                        .chain(policies::locality())
                        .collect()
                });
                for &v in &values {
                    let params = with_rows(&base, v)?;
                    let given = format!("--values {v} ({} {params})", params.kernel());
                    limits::check(&params, &given, true)?;
                    jobs.push((v, params, policies.clone()));
                }
            }
            SweepParam::Bl => {
                let paper = match given.as_deref() {
                    None | Some([PolicyKind::Cab(CabInputs::Auto)]) => false,
                    Some([PolicyKind::CabPaper(CabInputs::Auto)]) => true,
                    Some(_) => bail!(
                        "--policy: a sweep over bl runs cab:bl=N (or, with --policy cab-paper, \
                         cab-paper:bl=N) for each value, and ws once as the reference; give \
                         cab, cab-paper or leave --policy out"
                    ),
                };
                for &v in &values {
                    ensure!(v <= 64, "--values: boundary level {v} is above 64");
                    let level = CabInputs::Level(v as u32);
                    let kind = if paper {
                        PolicyKind::CabPaper(level)
                    } else {
                        PolicyKind::Cab(level)
                    };
                    jobs.push((v, base.clone(), vec![kind]));
                }
                references.push(PolicyKind::Ws);
                let map = WorkerMap::new(&setup.topology, setup.workers());
                let shared = (0..map.num_squads())
                    .filter_map(|s| map.llc_size(s))
                    .min()
                    .unwrap_or(8 << 20);
                let data = args.data_bytes.unwrap_or_else(|| base.data_bytes());
                let bl = boundary_level(map.num_squads(), shared, base.branching(), data);
                marker = Some((
                    f64::from(bl),
                    format!("Eq. 4: BL = {bl} (S_d {})", locus_topo::format_size(data)),
                ));
            }
            SweepParam::Batch => {
                ensure!(
                    given.is_none(),
                    "--policy: a sweep over batch runs mts:N for each value (and ws once as \
                     the reference); leave --policy out"
                );
                for &v in &values {
                    ensure!(v >= 1, "--values: an mts batch must be at least 1");
                    jobs.push((
                        v,
                        base.clone(),
                        vec![PolicyKind::Mts {
                            batch: Some(v as usize),
                        }],
                    ));
                }
                references.push(PolicyKind::Ws);
            }
        }
        Ok(SweepPlan {
            setup,
            param: args.param,
            jobs,
            references,
            base,
            marker,
            plot: args.plot.clone(),
        })
    }
}

/// Runs `locus sim sweep`; returns the report to print.
pub(crate) fn sweep(plan: &SweepPlan, bar: &ProgressBar) -> Result<String> {
    let runs: usize =
        plan.jobs.iter().map(|(_, _, p)| p.len()).sum::<usize>() + plan.references.len();
    bar.set_length(runs as u64);
    let topology = &plan.setup.topology;
    let config = &plan.setup.config;
    // Inputs are recorded once each: one for bl and chunk sweeps, one per value for rows.
    let mut workloads: Vec<(Params, Workload)> = Vec::new();
    for (_, params, _) in &plan.jobs {
        if !workloads.iter().any(|(p, _)| p == params) {
            bar.set_message(format!("recording {} {params}", params.kernel()));
            workloads.push((
                params.clone(),
                record(params).context("cannot record the kernel")?,
            ));
        }
    }
    let workload_of = |p: &Params| {
        &workloads
            .iter()
            .find(|(q, _)| q == p)
            .expect("recorded above")
            .1
    };
    let runs_of = |p: &Params| {
        let per_value: usize = plan
            .jobs
            .iter()
            .filter(|(_, q, _)| q == p)
            .map(|(_, _, k)| k.len())
            .sum();
        per_value
            + if *p == plan.base {
                plan.references.len()
            } else {
                0
            }
    };
    let work: Vec<(&Workload, usize)> = workloads.iter().map(|(p, w)| (w, runs_of(p))).collect();
    limits::check_simulation(&work, plan.setup.no_limit)?;
    bar.set_message("simulating");
    let tasks: Vec<(Option<u64>, Params, PolicyKind)> = plan
        .jobs
        .iter()
        .flat_map(|(v, params, policies)| {
            policies
                .iter()
                .map(move |k| (Some(*v), params.clone(), k.clone()))
        })
        .chain(
            plan.references
                .iter()
                .map(|k| (None, plan.base.clone(), k.clone())),
        )
        .collect();
    let results: Vec<(Option<u64>, SimResult)> = tasks
        .par_iter()
        .map(|(v, params, kind)| {
            let r = simulate(workload_of(params), topology, kind.clone(), config)
                .with_context(|| format!("simulating {kind}"))
                .and_then(in_time);
            bar.inc(1);
            r.map(|r| (*v, r))
        })
        .collect::<Result<_>>()?;

    let name = plan.param.name();
    let mut out = header(&plan.setup, workload_of(&plan.base));
    let _ = writeln!(
        out,
        "\n{:>8}  {:<14} {:>14} {:>10} {:>12} {:>12}",
        name, "policy", "makespan (Mc)", "ms", "L3 misses", "remote steals"
    );
    let best = results
        .iter()
        .filter(|(v, _)| v.is_some())
        .map(|(_, r)| r.makespan)
        .min()
        .unwrap_or(0);
    for (v, r) in &results {
        let value = v.map_or("-".to_string(), |v| v.to_string());
        let mark = if v.is_some() && r.makespan == best {
            "  <- best"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{:>8}  {:<14} {:>14} {:>10} {:>12} {:>12}{mark}",
            value,
            r.policy,
            sig3(r.makespan as f64 / 1e6),
            sig3(r.seconds * 1e3),
            count(r.l3_misses() as f64),
            count(r.sched.steals_remote as f64),
        );
    }
    if let Some((x, label)) = &plan.marker {
        let _ = writeln!(out, "{label}: x = {x}");
    }
    if let Some(path) = &plan.plot {
        let plot = sweep_plot(plan, &results);
        let svg = plot
            .to_svg_string()
            .with_context(|| format!("cannot draw --plot {path:?}"))?;
        locus_files::write_output("--plot", path, |out| out.write_all(svg.as_bytes()))?;
        let _ = writeln!(out, "plot written to {}", path.display());
    }
    if let Some(path) = &plan.setup.json {
        let all: Vec<&SimResult> = results.iter().map(|(_, r)| r).collect();
        let doc = serde_json::json!({
            "sweep": name,
            "values": results.iter().map(|(v, _)| *v).collect::<Vec<_>>(),
            "marker": plan.marker.as_ref().map(|(x, l)| serde_json::json!({"x": x, "label": l})),
            "results": all,
        });
        crate::report::write_json("--json", path, &doc)?;
    }
    Ok(out)
}

/// Makespan (ms) against the swept value, one series per policy; references as flat
/// lines across the swept range.
fn sweep_plot(plan: &SweepPlan, results: &[(Option<u64>, SimResult)]) -> Plot {
    let mut series: Vec<Series> = Vec::new();
    let (lo, hi) = plan.jobs.iter().fold((u64::MAX, 0), |(lo, hi), (v, _, _)| {
        (lo.min(*v), hi.max(*v))
    });
    for (v, r) in results {
        let label = match plan.param {
            SweepParam::Bl => r.policy.split(':').next().unwrap_or("cab").to_string(),
            SweepParam::Batch => "mts".to_string(),
            SweepParam::Rows => r.policy.clone(),
        };
        let label = if v.is_none() {
            format!("{} (reference)", r.policy)
        } else {
            label
        };
        let ms = r.seconds * 1e3;
        let points: Vec<(f64, f64)> = match v {
            Some(v) => vec![(*v as f64, ms)],
            None => vec![(lo as f64, ms), (hi as f64, ms)],
        };
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.extend(points),
            None => series.push(Series { label, points }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Plot {
        title: format!(
            "{} {} on {}: makespan by {}",
            plan.base.kernel(),
            plan.base,
            plan.setup.topology.name(),
            plan.param.name()
        ),
        x_label: plan.param.axis().to_string(),
        y_label: "simulated makespan (ms)".to_string(),
        series,
        marker: plan.marker.clone(),
        y_from_zero: false,
    }
}

/// Simulates every policy over one workload, in parallel, in the order given.
fn simulate_all(
    workload: &Workload,
    topology: &Topology,
    policies: &[PolicyKind],
    config: &SimConfig,
    bar: &ProgressBar,
) -> Result<Vec<SimResult>> {
    policies
        .par_iter()
        .map(|kind| {
            let r = simulate(workload, topology, kind.clone(), config)
                .with_context(|| format!("simulating {kind}"))
                .and_then(in_time);
            bar.inc(1);
            r
        })
        .collect()
}

/// `result`, unless its simulated time reached the end of the clock: times saturate at
/// `u64::MAX` cycles rather than wrap, and a saturated makespan is no result.
fn in_time(result: SimResult) -> Result<SimResult> {
    ensure!(
        result.makespan < u64::MAX,
        "simulating {}: the simulated time reached the end of the clock ({} cycles), so \
         the makespan is no result; the latencies (--latencies) make every access far too \
         slow for this input",
        result.policy,
        u64::MAX
    );
    Ok(result)
}

/// A sweep runs several inputs or policy settings; a schedule is for one input.
fn refuse_schedules(args: &SweepArgs) -> Result<()> {
    let run_one = "run `locus sim KERNEL --policy static,affinity --schedule FILE` on the \
                   input the schedule was made for";
    if let Some(path) = &args.schedule {
        bail!(
            "--schedule {path:?}: a sweep takes no schedule, since it runs several settings \
             and a schedule is for one input; {run_one}"
        );
    }
    if let Some(list) = &args.policy {
        ensure!(
            !list
                .split(',')
                .any(|item| item.trim().eq_ignore_ascii_case("affinity")),
            "--policy {list:?}: a sweep cannot run affinity, whose schedule is for one input; \
             {run_one}"
        );
    }
    Ok(())
}

/// The kernel's parameters from KERNEL, `--size`, `--matrix` and `--iters`.
fn kernel_params(kernel: &str, common: &SimCommonArgs, iters: Option<usize>) -> Result<Params> {
    let kernel: Kernel = kernel.parse().context("bad KERNEL")?;
    let params = match common.size.as_deref() {
        Some(s) => kernel.parse_size(s).context("bad --size")?,
        None => kernel.default_params(),
    };
    let mut params = with_matrix(params, common.matrix.as_deref())?;
    if let Some(k) = iters {
        locus_kernels::check_iters(k).map_err(|reason| anyhow!("--iters {k}: {reason}"))?;
        match iterations(&mut params) {
            Some(iters) => *iters = k,
            None => bail!(
                "--iters {k}: {} runs once, it has no iterations ({} have)",
                params.kernel(),
                iterative_kernels()
            ),
        }
    }
    Ok(params)
}

/// How the input of a `sim` command was given, for messages ([`limits::given`]).
fn given_input(params: &Params, common: &SimCommonArgs, iters: Option<usize>) -> String {
    limits::given(
        params,
        common.size.as_deref(),
        common.matrix.as_deref(),
        iters,
    )
}

/// The iteration count of `params` (sweeps, sorts, products), for kernels that repeat.
fn iterations(params: &mut Params) -> Option<&mut usize> {
    match params {
        Params::Heat(p) | Params::HeatUb(p) | Params::HeatLoop(p) | Params::HeatIter(p) => {
            Some(&mut p.iters)
        }
        Params::HeatMoving(p) => Some(&mut p.heat.iters),
        Params::Sor(p) | Params::SorUb(p) => Some(&mut p.iters),
        Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::SpmvCcs(p) | Params::Spmm(p) => {
            Some(&mut p.iters)
        }
        Params::Radix(p) => Some(&mut p.iters),
        Params::Irreg(p) => Some(&mut p.iters),
        Params::MapReduce(p) => Some(&mut p.iters),
        Params::Fib(_)
        | Params::Nqueens(_)
        | Params::Sort(_)
        | Params::Ge(_)
        | Params::GeUb(_)
        | Params::Mergesort(_)
        | Params::Mandelbrot(_)
        | Params::Fft(_)
        | Params::Knapsack(_) => None,
    }
}

/// The kernels `--iters` applies to, as a list for messages: "heat, ..., sor and irreg".
fn iterative_kernels() -> String {
    let names: Vec<&str> = Kernel::ALL
        .into_iter()
        .filter(|k| iterations(&mut k.default_params()).is_some())
        .map(Kernel::name)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// `base` with its first number (grid rows; n for the other kernels) set to `rows`.
fn with_rows(base: &Params, rows: u64) -> Result<Params> {
    let text = base.to_string();
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    ensure!(
        digits > 0,
        "{} {text}: its size does not start with a number to sweep",
        base.kernel()
    );
    let size = format!("{rows}{}", &text[digits..]);
    base.kernel()
        .parse_size(&size)
        .with_context(|| format!("--values: {rows} does not make a valid input"))
}

/// `--values`: a comma-separated list of whole numbers, or ranges `A-B` (inclusive).
fn values(list: &str) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim) {
        let parse = |s: &str| -> Result<u64> {
            s.trim()
                .parse()
                .with_context(|| format!("--values {list:?}: {s:?} is not a whole number"))
        };
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (parse(a)?, parse(b)?);
                ensure!(a <= b, "--values {list:?}: the range {item} runs backwards");
                ensure!(
                    b - a < 1000,
                    "--values {list:?}: the range {item} has more than 1000 values"
                );
                out.extend(a..=b);
            }
            None => out.push(parse(item)?),
        }
    }
    let mut seen = out.clone();
    seen.sort_unstable();
    seen.dedup();
    ensure!(
        seen.len() == out.len(),
        "--values {list:?}: a value is listed twice"
    );
    Ok(out)
}

fn header(setup: &Setup, workload: &Workload) -> String {
    let map = WorkerMap::new(&setup.topology, setup.workers());
    format!(
        "{workload}\nmachine {}: {} workers in {} squads; latencies: {}; clock {}; memory {}; \
         seed {}\n",
        setup.topology.name(),
        map.num_workers(),
        map.num_squads(),
        setup.config.latencies.source,
        setup.config.clock.name(),
        setup.config.placement.name(),
        setup.config.seed,
    )
}

/// The results table; ratios against `ws` when it ran, else against the first policy.
///
/// Where a package holds more than one squad (a chiplet machine), or some remote steal
/// stayed inside a package, a last column splits the remote steals by tier: from the
/// thief's NUMA node, its package, another package (`st node/pkg/xpkg`). On a machine
/// with one squad per package (the papers') every remote steal crosses packages, and
/// the column would repeat `st rem`.
fn table(results: &[SimResult]) -> String {
    let base = results
        .iter()
        .find(|r| r.policy == "ws")
        .or(results.first());
    let base_name = base.map_or("-", |b| b.policy.as_str());
    let tiers = results.iter().any(|r| {
        r.squads > r.sockets.len() || r.sched.steals_same_node + r.sched.steals_same_package > 0
    });
    let mut out = String::new();
    let _ = write!(
        out,
        "\n{:<14} {:>13} {:>9} {:>7} {:>10} {:>10} {:>10} {:>7} {:>9} {:>9} {:>9} {:>10} {:>8} {:>8} {:>8} {:>6} {:>6}",
        "policy",
        "makespan (Mc)",
        "ms",
        format!("/{base_name}"),
        "L1 miss",
        "L2 miss",
        "L3 miss",
        format!("/{base_name}"),
        "DRAM loc",
        "DRAM rem",
        "cache rem",
        "xsocket MB",
        "st squad",
        "st rem",
        "st fail",
        "bulk",
        "stable"
    );
    if tiers {
        let _ = write!(out, " {:>17}", "st node/pkg/xpkg");
    }
    out.push('\n');
    for r in results {
        let ratio = |a: u64, b: Option<u64>| match b {
            Some(b) if b > 0 => format!("{:.2}", a as f64 / b as f64),
            _ => "-".to_string(),
        };
        let t = &r.total;
        let _ = write!(
            out,
            "{:<14} {:>13} {:>9} {:>7} {:>10} {:>10} {:>10} {:>7} {:>9} {:>9} {:>9} {:>10} {:>8} {:>8} {:>8} {:>6} {:>6}",
            r.policy,
            sig3(r.makespan as f64 / 1e6),
            sig3(r.seconds * 1e3),
            ratio(r.makespan, base.map(|b| b.makespan)),
            count(t.misses[0] as f64),
            count(t.misses[1] as f64),
            count(t.misses[2] as f64),
            ratio(t.misses[2], base.map(|b| b.total.misses[2])),
            count(t.dram_local as f64),
            count(t.dram_remote as f64),
            count((t.remote_cache + t.near_cache) as f64),
            sig3(t.interconnect_bytes as f64 / 1e6),
            count(r.sched.steals_squad as f64),
            count(r.sched.steals_remote as f64),
            count(r.sched.empty_scans as f64),
            count(r.sched.bulk_steals as f64),
            r.placement_stability
                .map_or("-".to_string(), |s| format!("{s:.2}")),
        );
        if tiers {
            let s = &r.sched;
            let split = format!(
                "{}/{}/{}",
                count(s.steals_same_node as f64),
                count(s.steals_same_package as f64),
                count(s.steals_other_package as f64)
            );
            let _ = write!(out, " {split:>17}");
        }
        out.push('\n');
    }
    out
}

/// L2 and L3 misses and DRAM accesses per socket, per policy.
fn sockets(results: &[SimResult]) -> String {
    let mut out = String::from("\nper socket: L2 miss / L3 miss / DRAM local / DRAM remote\n");
    for r in results {
        let _ = write!(out, "{:<14}", r.policy);
        for (i, s) in r.sockets.iter().enumerate() {
            let _ = write!(
                out,
                "  s{i}: {}/{}/{}/{}",
                count(s.misses[1] as f64),
                count(s.misses[2] as f64),
                count(s.dram_local as f64),
                count(s.dram_remote as f64)
            );
        }
        out.push('\n');
    }
    out
}

/// What each policy decided, and its nonzero statistics.
fn explanations(results: &[SimResult]) -> String {
    let mut out = String::new();
    for r in results {
        let _ = writeln!(out, "\n[{}]", r.policy);
        if r.explain.is_empty() {
            out.push_str("(nothing to explain)\n");
        } else {
            out.push_str(r.explain.trim_end());
            out.push('\n');
        }
        let stats: Vec<String> = r
            .policy_stats
            .iter()
            .filter(|(_, v)| *v > 0)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        if !stats.is_empty() {
            let _ = writeln!(out, "  stats: {}", stats.join(" "));
        }
    }
    out
}

fn write_json(path: &Path, workload: &Workload, results: &[SimResult]) -> Result<()> {
    let doc = serde_json::json!({
        "workload": workload.name,
        "tasks": workload.tasks().len(),
        "iterations": workload.iterations(),
        "line_accesses": workload.line_accesses(),
        "instructions": workload.work(),
        "results": results,
    });
    crate::report::write_json("--json", path, &doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_take_lists_and_ranges() {
        assert_eq!(values("1,3,5").unwrap(), vec![1, 3, 5]);
        assert_eq!(values("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(values("1, 4-5").unwrap(), vec![1, 4, 5]);
        for bad in ["", "x", "3-1", "1,1", "1-2,2", "0-5000", "-1"] {
            let e = values(bad).unwrap_err().to_string();
            assert!(e.contains("--values"), "{bad}: {e}");
        }
    }

    #[test]
    fn rows_replace_the_first_number() {
        let heat = Kernel::Heat.parse_size("1024x512,leaf=8,iters=3").unwrap();
        assert_eq!(
            with_rows(&heat, 2048).unwrap().to_string(),
            "2048x512,leaf=8,iters=3"
        );
        assert!(with_rows(&heat, 1).is_err(), "too few rows for heat");
        let fib = Kernel::Fib.parse_size("20").unwrap();
        assert_eq!(with_rows(&fib, 25).unwrap().to_string(), "25,cutoff=0");
    }

    fn common(size: Option<&str>) -> SimCommonArgs {
        SimCommonArgs {
            machine: None,
            threads: None,
            size: size.map(str::to_owned),
            matrix: None,
            seed: 1,
            latencies: None,
            clock: locus_sim::clock::ClockKind::default(),
            memory: locus_sim::machine::Placement::default(),
            json: None,
            no_limit: false,
        }
    }

    #[test]
    fn a_makespan_at_the_end_of_the_clock_is_no_result() {
        let setup = Setup::new(&common(None), &mut RunFiles::new()).unwrap();
        let params = Kernel::Fib.parse_size("8").unwrap();
        let workload = record(&params).unwrap();
        let r = simulate(&workload, &setup.topology, PolicyKind::Ws, &setup.config).unwrap();
        let r = in_time(r).unwrap();
        let saturated = SimResult {
            makespan: u64::MAX,
            ..r
        };
        let e = in_time(saturated).unwrap_err().to_string();
        assert!(
            e.starts_with("simulating ws") && e.contains("end of the clock"),
            "{e}"
        );
    }

    fn params(kernel: &str, size: Option<&str>, iters: Option<usize>) -> Result<Params> {
        kernel_params(kernel, &common(size), iters)
    }

    #[test]
    fn iterations_only_where_a_kernel_has_them() {
        let p = params("heat", Some("130x64"), Some(3)).unwrap();
        assert_eq!(p.to_string(), "130x64,leaf=8,iters=3");
        for (kernel, size, expect) in [
            ("heat-loop", "130x64", "130x64,leaf=8,iters=3"),
            ("irreg", "small,grain=16", "small,iters=3,grain=16"),
            (
                "spmv-crs",
                "laplace2d:8,grain=4",
                "laplace2d:8,iters=3,grain=4",
            ),
            (
                "spmv-ccs",
                "laplace2d:8,grain=4",
                "laplace2d:8,iters=3,grain=4",
            ),
            ("spmm", "laplace2d:8,grain=4", "laplace2d:8,iters=3,grain=4"),
            ("radix", "1024,grain=64", "1024,iters=3,grain=64"),
        ] {
            let p = params(kernel, Some(size), Some(3)).unwrap();
            assert_eq!(p.to_string(), expect, "{kernel}");
        }
        let e = params("fib", None, Some(3)).unwrap_err().to_string();
        assert!(e.contains("no iterations"), "{e}");
        assert!(e.contains("heat, heat-ub, heat-loop,") && e.contains("irreg and mapreduce have"));
        assert!(params("heat", None, Some(0)).is_err());
    }

    #[test]
    fn the_iters_help_lists_the_kernels_with_iterations() {
        use clap::CommandFactory;
        let mut cli = crate::cli::Cli::command();
        let help = cli
            .find_subcommand_mut("sim")
            .expect("sim")
            .render_long_help()
            .to_string();
        let listed = iterative_kernels().replace(" and ", ", ");
        assert!(
            help.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&format!("({listed}), replacing")),
            "--iters help does not list {listed}:\n{help}"
        );
    }
}
