//! `locus bench matrix`: the runtime counterpart of `locus sim matrix`. Every kernel at
//! a fine and a coarse grain, every locality policy against `ws`, on virtual machines of
//! several squads laid over this machine's CPUs, with the noise of the measurement
//! measured in the same run.
//!
//! The simulator does not charge what a policy costs in the runtime (profiling events,
//! per-task bookkeeping, locks on homes); this command does, on the engine that runs
//! users' programs. On a virtual machine the squads share this machine's caches, so
//! there is little locality to gain: what shows is mostly the policies' cost.
//!
//! Protocol per machine and input: one pool per policy plus two `ws` pools, all built
//! up front, warmed up, then run in turn for each repetition ([`super::run_kernel`]), so
//! that drift on a shared machine hits every pool alike. A row's ratios are medians over
//! the first `ws` pool's median; its noise is the spread of the two `ws` pools, the
//! larger of their two ratios (at least 1). A policy loses a row only when its ratio is
//! above `--limit` and above the row's noise: a loss smaller than what `ws` does against
//! itself cannot be told from chance. The table holds ratios only (the `ws` median in
//! milliseconds is there to judge the grain).
//!
//! One extra machine has twice as many workers as this process has CPUs (two squads of
//! as many workers as CPUs each) and is marked oversubscribed: there a worker can be
//! descheduled while it holds work, which is where a policy that waits on a squad's
//! state pays most.

use super::{run_kernel, BenchPlan, ExecResult};
use crate::cli::BenchMatrixArgs;
use crate::failure::Failure;
use crate::policies::Engine;
use crate::progress::progress_bar;
use crate::report::{print, sig3, write_json};
use anyhow::{bail, ensure, Context, Result};
use indicatif::ProgressBar;
use locus::PolicyKind;
use locus_files::RunFiles;
use locus_kernels::{Kernel, Params};
use locus_policy::WorkerMap;
use locus_topo::Topology;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The inputs of the full matrix: every kernel at a fine grain (many small tasks, where
/// per-task costs show) and a coarse one (few large tasks), each a few to a few tens of
/// milliseconds on two workers of a current core (guess, checked on this project's
/// build machine).
const FULL: &[(&str, &str, &str)] = &[
    ("fib", "25,cutoff=0", "30,cutoff=16"),
    ("nqueens", "10,depth=8", "11,depth=2"),
    ("knapsack", "28,depth=28", "32,depth=8"),
    ("heat", "512x256,leaf=2,iters=5", "512x256,leaf=64,iters=5"),
    (
        "heat-ub",
        "512x256,leaf=2,iters=5",
        "512x256,leaf=64,iters=5",
    ),
    (
        "heat-loop",
        "512x256,leaf=2,iters=5",
        "512x256,leaf=64,iters=5",
    ),
    (
        "heat-iter",
        "512x256,leaf=2,iters=5",
        "512x256,leaf=64,iters=5",
    ),
    (
        "heat-moving",
        "512x256,leaf=2,iters=5",
        "512x256,leaf=64,iters=5",
    ),
    ("sor", "512x256,leaf=2,iters=5", "512x256,leaf=64,iters=5"),
    (
        "sor-ub",
        "512x256,leaf=2,iters=5",
        "512x256,leaf=64,iters=5",
    ),
    ("ge", "256,leaf=2", "256,leaf=32"),
    ("ge-ub", "256,leaf=2", "256,leaf=32"),
    ("sort", "262144,cutoff=256", "262144,cutoff=16384"),
    ("mergesort", "262144,cutoff=256", "262144,cutoff=16384"),
    (
        "mandelbrot",
        "128x128,maxiter=128,leaf=1",
        "128x128,maxiter=128,leaf=16",
    ),
    ("fft", "2^16,cutoff=128", "2^16,cutoff=8192"),
    (
        "spmv-crs",
        "laplace2d:128,iters=5,grain=32",
        "laplace2d:128,iters=5,grain=2048",
    ),
    (
        "spmv-iter",
        "laplace2d:128,iters=5,grain=32",
        "laplace2d:128,iters=5,grain=2048",
    ),
    (
        "spmv-ccs",
        "laplace2d:128,iters=5,grain=32",
        "laplace2d:128,iters=5,grain=2048",
    ),
    (
        "spmm",
        "laplace2d:32,iters=5,grain=8",
        "laplace2d:32,iters=5,grain=256",
    ),
    (
        "radix",
        "65536,iters=5,grain=256",
        "65536,iters=5,grain=8192",
    ),
    (
        "irreg",
        "medium,iters=5,grain=32",
        "medium,iters=5,grain=2048",
    ),
    (
        "mapreduce",
        "262144,iters=5,grain=512",
        "262144,iters=5,grain=32768",
    ),
];

/// The inputs of `--quick`: five kernels, small enough for the test suite's debug build.
const QUICK: &[(&str, &str, &str)] = &[
    ("fib", "15,cutoff=0", "18,cutoff=10"),
    ("nqueens", "6,depth=6", "7,depth=1"),
    ("knapsack", "12,depth=12", "14,depth=4"),
    ("heat", "64x32,leaf=1,iters=2", "64x32,leaf=16,iters=2"),
    ("sort", "4096,cutoff=16", "4096,cutoff=1024"),
];

/// One virtual machine of the matrix.
#[derive(Debug)]
struct Machine {
    /// As the report names it.
    name: String,
    topology: Topology,
    threads: usize,
    /// More workers than this process has CPUs.
    oversubscribed: bool,
}

/// The validated input of `locus bench matrix`.
#[derive(Debug)]
pub(crate) struct MatrixPlan {
    machines: Vec<Machine>,
    /// The policies compared with ws, without ws.
    policies: Vec<PolicyKind>,
    /// Each input with its grain, `fine` or `coarse`.
    cases: Vec<(Params, &'static str)>,
    reps: usize,
    warmup: usize,
    limit: Option<f64>,
    json: Option<PathBuf>,
}

impl MatrixPlan {
    /// Resolves the arguments; every error here is bad input, found before any run.
    pub(crate) fn new(args: &BenchMatrixArgs) -> Result<MatrixPlan> {
        let cpus = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        let mut machines = Vec::new();
        for m in args.machine.split(',') {
            let m = m.trim();
            let topology =
                Topology::parse_spec(m).with_context(|| format!("bad --machine {m:?}"))?;
            machines.push(Machine {
                name: topology.name().to_string(),
                topology,
                threads: args.threads,
                oversubscribed: args.threads > cpus,
            });
        }
        if !args.no_oversubscribed {
            let threads = 2 * cpus;
            ensure!(
                threads <= locus::MAX_THREADS,
                "this process may use {cpus} CPUs, and the oversubscribed machine would need \
                 {threads} workers, above a pool's {}: give --no-oversubscribed",
                locus::MAX_THREADS
            );
            let spec = format!("2x{cpus}");
            let topology = Topology::parse_spec(&spec)
                .with_context(|| format!("the oversubscribed machine {spec:?}"))?;
            machines.push(Machine {
                name: topology.name().to_string(),
                topology,
                threads,
                oversubscribed: true,
            });
        }
        let policies = crate::policies::rivals_of_ws(&args.policy, Engine::Runtime)?;
        let table = if args.quick { QUICK } else { FULL };
        let wanted = crate::inputs::kernels_wanted(args.kernel.as_deref())?;
        let mut cases = Vec::new();
        for (name, fine, coarse) in table {
            let kernel = Kernel::from_str(name).map_err(|e| anyhow::anyhow!("{e}"))?;
            if wanted.as_ref().is_some_and(|w| !w.contains(&kernel)) {
                continue;
            }
            for (size, grain) in [(fine, "fine"), (coarse, "coarse")] {
                cases.push((
                    kernel
                        .parse_size(size)
                        .with_context(|| format!("the matrix's input {name} {size}"))?,
                    grain,
                ));
            }
        }
        if let Some(w) = &wanted {
            for k in w {
                if !cases.iter().any(|(p, _)| p.kernel() == *k) {
                    bail!(
                        "bad --kernel {}: the {} matrix has no input for it",
                        k.name(),
                        if args.quick { "--quick" } else { "full" }
                    );
                }
            }
        }
        if let Some(path) = &args.json {
            RunFiles::new().output("--json", path)?;
        }
        let (reps, warmup) = if args.quick { (3, 1) } else { (11, 2) };
        Ok(MatrixPlan {
            machines,
            policies,
            cases,
            reps: args.reps.unwrap_or(reps),
            warmup: args.warmup.unwrap_or(warmup),
            limit: args.limit,
            json: args.json.clone(),
        })
    }

    /// The pools of every row: ws, ws again (the noise), then the policies.
    fn pools(&self) -> Vec<PolicyKind> {
        let mut pools = vec![PolicyKind::Ws, PolicyKind::Ws];
        pools.extend(self.policies.iter().cloned());
        pools
    }

    /// The bench plan of one machine.
    fn bench_plan(&self, machine: &Machine) -> BenchPlan {
        BenchPlan {
            jobs: Vec::new(),
            policies: self.pools(),
            threads: machine.threads,
            topology: machine.topology.clone(),
            reps: self.reps,
            warmup: self.warmup,
            rayon: false,
            json: None,
            explain: false,
            counters: None,
            pin: None,
            trace: None,
        }
    }
}

/// One row: an input on a machine.
#[derive(Debug, Clone)]
struct Row {
    machine: usize,
    case: usize,
    /// The first ws pool's median.
    ws: Duration,
    /// The spread of ws against itself: the larger of the two ws pools' ratios, >= 1.
    noise: f64,
    /// Each policy's median over ws's, in plan order.
    ratios: Vec<f64>,
}

impl Row {
    fn new(machine: usize, case: usize, results: &[ExecResult]) -> Row {
        let ms = |r: &ExecResult| r.median().as_secs_f64().max(1e-9);
        let ws = ms(&results[0]);
        let again = ms(&results[1]);
        Row {
            machine,
            case,
            ws: results[0].median(),
            noise: (again / ws).max(ws / again),
            ratios: results[2..].iter().map(|r| ms(r) / ws).collect(),
        }
    }

    /// Whether policy `p` loses this row: above `limit` and above the noise.
    fn loses(&self, p: usize, limit: Option<f64>) -> bool {
        limit.is_some_and(|l| self.ratios[p] > l && self.ratios[p] > self.noise)
    }
}

/// `locus bench matrix`: resolves the arguments (bad input exits 2), runs the matrix,
/// prints its table; exit 1 if a result did not verify or a row loses beyond `--limit`.
pub(crate) fn command(args: &BenchMatrixArgs) -> Result<(), Failure> {
    let plan = MatrixPlan::new(args).map_err(Failure::Input)?;
    let bar = progress_bar(0);
    let (rows, unverified) = run(&plan, &bar).map_err(Failure::Run)?;
    bar.finish_and_clear();
    let (text, within) = report(&plan, &rows);
    print(&text).map_err(Failure::Run)?;
    if let Some(path) = &plan.json {
        write_json("--json", path, &document(&plan, &rows))
            .with_context(|| format!("cannot write --json {path:?}"))
            .map_err(Failure::Run)?;
    }
    if !unverified.is_empty() {
        return Err(Failure::Unverified(format!(
            "{} results failed verification: {}",
            unverified.len(),
            unverified.join("; ")
        )));
    }
    if !within {
        return Err(Failure::Unverified(
            "a policy's ratio to ws is above --limit and above the noise".to_string(),
        ));
    }
    Ok(())
}

/// Runs every input on every machine; the rows, and the results that did not verify.
fn run(plan: &MatrixPlan, bar: &ProgressBar) -> Result<(Vec<Row>, Vec<String>)> {
    let per_row = (plan.pools().len() * (plan.reps + plan.warmup)) as u64;
    bar.set_length(per_row * (plan.machines.len() * plan.cases.len()) as u64);
    let mut rows = Vec::new();
    let mut unverified = Vec::new();
    for (m, machine) in plan.machines.iter().enumerate() {
        let bench = plan.bench_plan(machine);
        for (c, (params, _)) in plan.cases.iter().enumerate() {
            let result = run_kernel(&bench, params, bar)
                .with_context(|| format!("{} {params} on {}", params.kernel(), machine.name))?;
            for r in result.results.iter().filter(|r| !r.verified()) {
                unverified.push(format!(
                    "{} {params} under {} on {}: {}",
                    params.kernel(),
                    r.name,
                    machine.name,
                    r.failure.as_deref().unwrap_or("")
                ));
            }
            rows.push(Row::new(m, c, &result.results));
        }
    }
    Ok((rows, unverified))
}

/// The table, and whether no row loses beyond `--limit`.
fn report(plan: &MatrixPlan, rows: &[Row]) -> (String, bool) {
    let mut out = format!(
        "median time of each policy over ws's in the same run, {} interleaved repetitions \
         (+{} warm-up) per pool (below 1: faster); noise: a second ws pool against the \
         first, the larger ratio of the two{}\n",
        plan.reps,
        plan.warmup,
        match plan.limit {
            Some(l) => format!("; `!`: above --limit {l} and above the noise"),
            None => String::new(),
        }
    );
    let label = |(p, grain): &(Params, &str)| format!("{:<12}{:<7}{}", p.kernel().name(), grain, p);
    let width = plan.cases.iter().map(|c| label(c).len()).max().unwrap_or(0) + 2;
    let names: Vec<String> = plan.policies.iter().map(|p| p.to_string()).collect();
    let column = names.iter().map(|n| n.len() + 2).max().unwrap_or(0).max(8);
    for (m, machine) in plan.machines.iter().enumerate() {
        let map = WorkerMap::new(&machine.topology, machine.threads);
        let _ = writeln!(
            out,
            "\nmachine {}: {} workers in {} squads{}\n{:width$}{:>9}{:>8}{}",
            machine.name,
            map.num_workers(),
            map.num_squads(),
            if machine.oversubscribed {
                ", oversubscribed (more workers than CPUs)"
            } else {
                ""
            },
            "",
            "ws ms",
            "noise",
            names
                .iter()
                .map(|n| format!("{n:>column$}"))
                .collect::<String>(),
        );
        for row in rows.iter().filter(|r| r.machine == m) {
            let cells: String = row
                .ratios
                .iter()
                .enumerate()
                .map(|(p, r)| {
                    let mark = if row.loses(p, plan.limit) { "!" } else { "" };
                    format!("{:>column$}", format!("{r:.2}{mark}"))
                })
                .collect();
            let _ = writeln!(
                out,
                "{:width$}{:>9}{:>8.2}{cells}",
                label(&plan.cases[row.case]),
                sig3(row.ws.as_secs_f64() * 1e3),
                row.noise,
            );
        }
    }
    let mut noises: Vec<f64> = rows.iter().map(|r| r.noise).collect();
    noises.sort_by(f64::total_cmp);
    if let (Some(mid), Some(max)) = (noises.get(noises.len() / 2), noises.last()) {
        let _ = writeln!(
            out,
            "\nnoise (ws against itself): median {mid:.3}, worst {max:.3}"
        );
    }
    let _ = writeln!(out, "worst ratio to ws:");
    let mut within = true;
    let name_width = column - 2;
    for (p, policy) in names.iter().enumerate() {
        let Some(worst) = rows
            .iter()
            .max_by(|a, b| a.ratios[p].total_cmp(&b.ratios[p]))
        else {
            continue;
        };
        let losses = rows.iter().filter(|r| r.loses(p, plan.limit)).count();
        within &= losses == 0;
        let (params, grain) = &plan.cases[worst.case];
        let _ = writeln!(
            out,
            "  {policy:<name_width$}  {:.3}  ({} {grain} {params} on {}; noise {:.3}){}",
            worst.ratios[p],
            params.kernel().name(),
            plan.machines[worst.machine].name,
            worst.noise,
            match losses {
                0 => String::new(),
                n => format!("  {n} row(s) above --limit and the noise"),
            }
        );
    }
    (out, within)
}

/// The rows as JSON: per machine its workers, squads and whether it is oversubscribed;
/// per row the ws median, the noise, each policy's ratio and whether it loses.
fn document(plan: &MatrixPlan, rows: &[Row]) -> Value {
    let machines: Vec<Value> = plan
        .machines
        .iter()
        .map(|m| {
            let map = WorkerMap::new(&m.topology, m.threads);
            json!({
                "name": m.name,
                "workers": map.num_workers(),
                "squads": map.num_squads(),
                "oversubscribed": m.oversubscribed,
            })
        })
        .collect();
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let (params, grain) = &plan.cases[r.case];
            let policies: serde_json::Map<String, Value> = plan
                .policies
                .iter()
                .enumerate()
                .map(|(p, kind)| {
                    (
                        kind.to_string(),
                        json!({ "ratio": r.ratios[p], "loses": r.loses(p, plan.limit) }),
                    )
                })
                .collect();
            json!({
                "machine": plan.machines[r.machine].name,
                "kernel": params.kernel().name(),
                "size": params.to_string(),
                "grain": grain,
                "ws_ms": r.ws.as_secs_f64() * 1e3,
                "noise": r.noise,
                "policies": policies,
            })
        })
        .collect();
    json!({
        "reps": plan.reps,
        "warmup": plan.warmup,
        "limit": plan.limit,
        "machines": machines,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_has_a_fine_and_a_coarse_input() {
        for kernel in Kernel::ALL {
            assert!(
                FULL.iter().any(|(k, _, _)| *k == kernel.name()),
                "the matrix lacks {}",
                kernel.name()
            );
        }
        for (k, fine, coarse) in FULL.iter().chain(QUICK) {
            let kernel = Kernel::from_str(k).unwrap();
            for s in [fine, coarse] {
                kernel
                    .parse_size(s)
                    .unwrap_or_else(|e| panic!("{k} {s}: {e}"));
            }
        }
    }

    fn plan(limit: Option<f64>) -> MatrixPlan {
        MatrixPlan {
            machines: vec![Machine {
                name: "2x1".to_string(),
                topology: Topology::parse_spec("2x1").unwrap(),
                threads: 2,
                oversubscribed: false,
            }],
            policies: vec![PolicyKind::Ws, PolicyKind::Mts { batch: None }],
            cases: vec![(Kernel::Fib.parse_size("20").unwrap(), "fine")],
            reps: 3,
            warmup: 1,
            limit,
            json: None,
        }
    }

    fn row(noise: f64, ratios: Vec<f64>) -> Row {
        Row {
            machine: 0,
            case: 0,
            ws: Duration::from_millis(2),
            noise,
            ratios,
        }
    }

    #[test]
    fn a_row_loses_only_above_the_limit_and_the_noise() {
        let r = row(1.10, vec![1.05, 1.12]);
        assert!(!r.loses(0, Some(1.03)), "within the noise");
        assert!(r.loses(1, Some(1.03)));
        assert!(!r.loses(1, Some(1.2)), "within the limit");
        assert!(!r.loses(1, None), "no limit, no loss");
        let (out, within) = report(&plan(Some(1.03)), std::slice::from_ref(&r));
        assert!(!within, "{out}");
        assert!(out.contains("1.12!"), "{out}");
        assert!(out.contains("1 row(s) above --limit"), "{out}");
        let (out, within) = report(&plan(None), &[r]);
        assert!(within && !out.contains('!'), "{out}");
    }

    #[test]
    fn the_noise_is_the_larger_ratio_of_the_two_ws_pools() {
        let result = |name: &str, ms: u64| ExecResult {
            times: vec![Duration::from_millis(ms)],
            ..ExecResult::new(name.to_string())
        };
        let r = Row::new(
            0,
            0,
            &[result("ws", 10), result("ws", 8), result("mts", 12)],
        );
        assert!((r.noise - 1.25).abs() < 1e-9, "{}", r.noise);
        assert!((r.ratios[0] - 1.2).abs() < 1e-9);
        let doc = document(&plan(Some(1.1)), &[row(1.0, vec![1.0, 1.2])]);
        assert_eq!(doc["rows"][0]["policies"]["mts"]["loses"], json!(true));
        assert_eq!(doc["rows"][0]["policies"]["ws"]["loses"], json!(false));
        assert_eq!(doc["machines"][0]["squads"], json!(2));
    }
}
