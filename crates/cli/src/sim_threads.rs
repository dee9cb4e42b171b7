//! `locus sim threads`: the thread mapper judged on a simulated machine. Named mixes of
//! long-running multi-threaded applications (locus-mapper's `workload` module) run under
//! four placements — linux (spread, never moved), sam, sam-mph and the best static
//! placement found by search — and the table compares their progress.
//!
//! Every argument is resolved before anything runs (bad input exits 2). The mixes run
//! in parallel on this machine's cores; each run is deterministic, so the order does
//! not matter and the same seed gives the same table.

use crate::cli::ThreadsArgs;
use crate::failure::Failure;
use crate::report::{count, sig3};
use anyhow::{ensure, Context, Result};
use locus_files::RunFiles;
use locus_mapper::workload::{self, MixResult, MixSpec, Placement, RunOptions, MIXES};
use locus_topo::Topology;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The validated input.
#[derive(Debug)]
struct Plan {
    mixes: Vec<&'static MixSpec>,
    topology: Topology,
    options: RunOptions,
    json: Option<PathBuf>,
}

impl Plan {
    fn new(args: &ThreadsArgs) -> Result<Plan> {
        let mixes: Vec<&'static MixSpec> = if args.mix.trim().eq_ignore_ascii_case("all") {
            MIXES.iter().collect()
        } else {
            let mix = MixSpec::find(&args.mix).with_context(|| {
                format!(
                    "unknown --mix {:?}; the mixes are: all, {}",
                    args.mix,
                    MIXES.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
                )
            })?;
            vec![mix]
        };
        let mut files = RunFiles::new();
        let machine_file = std::path::Path::new(args.machine.trim());
        if machine_file.exists() {
            files.input("--machine", machine_file)?;
        }
        let topology = Topology::parse_spec(&args.machine)
            .with_context(|| format!("bad --machine {:?}", args.machine))?;
        ensure!(
            args.seconds.is_finite() && args.seconds >= 0.1 && args.seconds <= 86_400.0,
            "--seconds {}: expected 0.1 (one 100 ms interval) to 86400",
            args.seconds
        );
        for m in &mixes {
            ensure!(
                m.threads() <= topology.num_pus(),
                "--mix {}: {} threads do not fit machine {:?} ({} PUs); the simulator starts \
                 at most one thread per PU",
                m.name,
                m.threads(),
                topology.name(),
                topology.num_pus()
            );
        }
        if let Some(path) = &args.json {
            files.output("--json", path)?;
        }
        Ok(Plan {
            mixes,
            topology,
            options: RunOptions {
                seconds: args.seconds,
                seed: args.seed,
                ..RunOptions::default()
            },
            json: args.json.clone(),
        })
    }
}

/// Runs `locus sim threads` and returns the table.
pub(crate) fn run(args: &ThreadsArgs) -> Result<String, Failure> {
    let plan = Plan::new(args).map_err(Failure::Input)?;
    let _span = tracing::info_span!("sim threads", machine = plan.topology.name()).entered();
    let results = plan
        .mixes
        .par_iter()
        .map(|m| {
            workload::compare(m, &plan.topology, &plan.options)
                .with_context(|| format!("mix {}", m.name))
        })
        .collect::<Result<Vec<MixResult>>>()
        .map_err(Failure::Run)?;
    if let Some(path) = &plan.json {
        write_json(path, &plan, &results).map_err(Failure::Run)?;
    }
    Ok(table(&plan, &results))
}

/// The geometric mean over mixes of `placement`'s speedup over linux.
fn mean_speedup(results: &[MixResult], placement: Placement) -> Option<f64> {
    workload::geometric_mean(
        results
            .iter()
            .map(|r| r.speedup(placement).unwrap_or(f64::NAN)),
    )
}

fn table(plan: &Plan, results: &[MixResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "locus sim threads: {} ({} PUs), {} s in 100 ms intervals, seed {}",
        plan.topology.name(),
        plan.topology.num_pus(),
        plan.options.seconds,
        plan.options.seed
    );
    let _ = writeln!(
        s,
        "speedup: total instructions over linux's; app gmean: geometric mean over the \
         applications of each one's speedup\n"
    );
    let _ = writeln!(
        s,
        "{:<10} {:<12} {:>12} {:>8} {:>9} {:>10} {:>9}",
        "mix", "placement", "instructions", "speedup", "app gmean", "migrations", "migr/min"
    );
    for r in results {
        for (i, run) in r.runs.iter().enumerate() {
            let name = if i == 0 { r.mix.name } else { "" };
            let speedup = r.speedup(run.placement).map_or("-".into(), sig3);
            let app = r.app_speedup(run.placement).map_or("-".into(), sig3);
            let _ = writeln!(
                s,
                "{:<10} {:<12} {:>12} {:>8} {:>9} {:>10} {:>9}",
                name,
                run.placement.name(),
                count(run.instructions),
                speedup,
                app,
                run.migrations,
                sig3(run.migrations_per_minute())
            );
        }
    }
    let _ = writeln!(s);
    for m in results {
        let _ = writeln!(s, "{:<10} {}", m.mix.name, m.mix.description);
    }
    let _ = writeln!(s);
    let mean = |p| mean_speedup(results, p).map_or("-".into(), sig3);
    let _ = writeln!(
        s,
        "geometric-mean speedup over linux across {} mix{}: sam-mph {} (sam {}, best-static {})",
        results.len(),
        if results.len() == 1 { "" } else { "es" },
        mean(Placement::SamMph),
        mean(Placement::Sam),
        mean(Placement::BestStatic)
    );
    s
}

fn write_json(path: &std::path::Path, plan: &Plan, results: &[MixResult]) -> Result<()> {
    let doc = serde_json::json!({
        "machine": plan.topology.name(),
        "seconds": plan.options.seconds,
        "seed": plan.options.seed,
        "mixes": results,
        "geomean_speedup_over_linux": {
            "sam": mean_speedup(results, Placement::Sam),
            "sam-mph": mean_speedup(results, Placement::SamMph),
            "best-static": mean_speedup(results, Placement::BestStatic),
        },
    });
    crate::report::write_json("--json", path, &doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command, SimCommand, THREADS_MACHINE};
    use clap::Parser;

    fn args(line: &[&str]) -> ThreadsArgs {
        let cli = Cli::try_parse_from(line).unwrap();
        let Some(Command::Sim(sim)) = cli.command else {
            panic!("not sim")
        };
        match sim.sweep {
            Some(SimCommand::Threads(a)) => a,
            other => panic!("not sim threads: {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let a = args(&["locus", "sim", "threads"]);
        assert_eq!(a.mix, "all");
        assert_eq!(a.machine, THREADS_MACHINE);
        assert_eq!((a.seconds, a.seed), (10.0, 1));
        assert!(a.json.is_none());
        let plan = Plan::new(&a).unwrap();
        assert_eq!(plan.mixes.len(), MIXES.len());
    }

    #[test]
    fn bad_input_names_the_flag() {
        let plan = |line: &[&str]| Plan::new(&args(line)).unwrap_err().to_string();
        assert!(plan(&["locus", "sim", "threads", "--mix", "nope"]).contains("--mix \"nope\""));
        assert!(plan(&["locus", "sim", "threads", "--machine", "nope"]).contains("--machine"));
        assert!(plan(&["locus", "sim", "threads", "--seconds", "0"]).contains("--seconds"));
        assert!(plan(&["locus", "sim", "threads", "--seconds", "NaN"]).contains("--seconds"));
        let small = plan(&["locus", "sim", "threads", "--mix", "hu-hu", "-m", "2x4x2"]);
        assert!(
            small.contains("20 threads") && small.contains("16 PUs"),
            "{small}"
        );
        let json = plan(&["locus", "sim", "threads", "--json", "/no/such/dir/x.json"]);
        assert!(json.contains("--json"), "{json}");
        assert!(Cli::try_parse_from(["locus", "sim", "threads", "--seconds", "x"]).is_err());
        assert!(Cli::try_parse_from(["locus", "sim", "threads", "--seed", "-1"]).is_err());
    }

    #[test]
    fn a_table_with_every_placement() {
        let a = args(&[
            "locus",
            "sim",
            "threads",
            "--mix",
            "HU-HU",
            "--seconds",
            "1",
            "--seed",
            "3",
        ]);
        let text = run(&a).unwrap();
        for word in [
            "xeon-e5-2660v2",
            "hu-hu",
            "linux",
            "sam",
            "sam-mph",
            "best-static",
            "geometric-mean speedup over linux across 1 mix: sam-mph",
        ] {
            assert!(text.contains(word), "{word} missing from:\n{text}");
        }
        assert_eq!(text, run(&a).unwrap(), "not deterministic");
    }

    #[test]
    fn json_has_every_run() {
        let dir = std::env::temp_dir().join(format!("locus-sim-threads-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.json");
        let p = path.to_str().unwrap();
        let a = args(&[
            "locus",
            "sim",
            "threads",
            "--mix",
            "lu-lu",
            "--seconds",
            "0.5",
            "--json",
            p,
        ]);
        run(&a).unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let runs = doc["mixes"][0]["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 4);
        assert_eq!(runs[2]["placement"], "sam-mph");
        assert!(
            doc["geomean_speedup_over_linux"]["sam-mph"]
                .as_f64()
                .unwrap()
                > 0.0
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
