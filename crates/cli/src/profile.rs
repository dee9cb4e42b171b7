//! `locus profile`: the profile run of feedback-directed affinity scheduling. Records a
//! kernel as `locus sim` does, profiles the cache lines each leaf task touches, builds
//! the affinity graph, partitions it onto a machine's workers, and writes the schedule
//! that later runs follow, with the profile and the graph beside it (DESIGN.md,
//! "profile"; `papers/affinity-graph-feedback-scheduling.txt`).
//!
//! Every argument is resolved and the output folder made writable before anything
//! runs (bad input exits 2). Files are written through temporary names renamed into
//! place, so a folder never holds half a file.

use crate::app::Failure;
use crate::report::count;
use anyhow::{ensure, Context, Result};
use clap::Args;
use locus_kernels::{Kernel, Params};
use locus_profile::graph::{DEFAULT_DENSE_RATIO, DEFAULT_MAX_EDGES};
use locus_profile::partition::DEFAULT_TOLERANCE;
use locus_profile::profile::DEFAULT_CAP;
use locus_profile::{
    AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile, Schedule,
};
use locus_topo::Topology;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Above this many tasks the DOT file is not written: Graphviz lays such graphs out
/// slowly and nobody reads them.
pub(crate) const DOT_LIMIT: usize = 2000;

/// `locus profile KERNEL --out DIR`.
#[derive(Debug, Args)]
#[command(after_help = crate::bench::kernels_help())]
pub(crate) struct ProfileArgs {
    /// The kernel to record and profile.
    #[arg(value_name = "KERNEL")]
    pub(crate) kernel: String,

    /// The kernel's input (syntax below). [default: the kernel's default size]
    #[arg(long, short = 's', value_name = "S")]
    pub(crate) size: Option<String>,

    /// The machine the schedule is for: a preset (`locus topo --list-presets`), an hwloc
    /// synthetic string, SxC shorthand, or an hwloc XML file. Later runs follow the
    /// schedule only on this machine with this many workers. [default: this machine]
    #[arg(long, short = 'm', value_name = "M", env = "LOCUS_TOPOLOGY")]
    pub(crate) machine: Option<String>,

    /// Workers to place tasks on; worker i runs on PU i in tree order, wrapping around,
    /// as in a locus pool. [default: one per PU of the machine]
    #[arg(long, short = 't', value_name = "N", env = "LOCUS_NUM_THREADS",
          value_parser = threads)]
    pub(crate) threads: Option<usize>,

    /// The folder to write profile.json, graph.dot, graph.metis and schedule.json into;
    /// created if missing, files in it replaced.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub(crate) out: PathBuf,

    /// DenseRatio: a cache line touched by more than this fraction of the tasks is left
    /// out of the affinity graph (a global every task reads would link every pair). 0
    /// gives no edges, 1 keeps every pair that shares a line.
    #[arg(long, value_name = "R", default_value_t = DEFAULT_DENSE_RATIO,
          value_parser = dense_ratio)]
    pub(crate) dense_ratio: f64,

    /// Balance tolerance: the most a worker's work may exceed its share, as a ratio
    /// (1.05: 5% more). Split evenly over the levels of the hierarchy the partition
    /// goes through (NUMA nodes or packages, squads, workers).
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE,
          value_parser = tolerance)]
    pub(crate) tolerance: f64,

    /// Most edges the affinity graph may have; a graph with more is refused (lower
    /// --dense-ratio, or raise this where memory allows: each million edges costs about
    /// 60 MB while building and partitioning).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EDGES, value_parser = max_edges)]
    pub(crate) max_edges: usize,

    /// Most runs of contiguous cache lines kept per task; a task past it keeps its
    /// lowest-addressed runs and is counted as truncated.
    #[arg(long, value_name = "RUNS", default_value_t = DEFAULT_CAP, value_parser = cap)]
    pub(crate) cap: usize,
}

/// `--threads`: 1 up to the runtime's limit.
fn threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("a pool needs at least one thread".to_owned()),
        Ok(n) if n > locus::MAX_THREADS => Err(format!(
            "locus allows at most {} threads",
            locus::MAX_THREADS
        )),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number of threads".to_owned()),
    }
}

/// `--dense-ratio`: a fraction in [0, 1].
fn dense_ratio(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err("expected a fraction from 0 (no edges) to 1 (every shared line)".to_owned()),
    }
}

/// `--tolerance`: above 1, at most 10.
fn tolerance(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 1.0 && t <= locus_profile::partition::MAX_TOLERANCE => Ok(t),
        _ => Err("expected a ratio above 1 and at most 10, e.g. 1.05".to_owned()),
    }
}

/// `--max-edges`: 1 up to what METIS's 32-bit indices take.
fn max_edges(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=1 << 29).contains(&n) => Ok(n),
        _ => Err("expected a whole number of edges from 1 to 536870912 (2^29)".to_owned()),
    }
}

/// `--cap`: at least 1.
fn cap(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number of runs, at least 1".to_owned()),
    }
}

/// The validated input of `locus profile`.
#[derive(Debug)]
pub(crate) struct ProfilePlan {
    params: Params,
    input: String,
    machine: MachineDesc,
    out: PathBuf,
    graph: GraphOptions,
    partition: PartitionOptions,
    cap: usize,
}

impl ProfilePlan {
    /// Resolves the arguments; every error here is bad input, found before any run.
    pub(crate) fn new(args: &ProfileArgs) -> Result<ProfilePlan> {
        let kernel: Kernel = args.kernel.parse().context("bad KERNEL")?;
        let params = match &args.size {
            Some(s) => kernel.parse_size(s).context("bad --size")?,
            None => kernel.default_params(),
        };
        let input = locus_profile::input_identity(kernel.name(), &params.to_string())
            .context("cannot identify the input")?;
        let topology: Topology = crate::topo::machine(args.machine.as_deref())?;
        let threads = args.threads.unwrap_or_else(|| topology.num_pus());
        ensure!(
            (1..=locus::MAX_THREADS).contains(&threads),
            "--threads {threads}: expected 1..={}",
            locus::MAX_THREADS
        );
        let machine = MachineDesc::new(&topology, threads)?;
        prepare_out(&args.out)?;
        Ok(ProfilePlan {
            params,
            input,
            machine,
            out: args.out.clone(),
            graph: GraphOptions {
                dense_ratio: args.dense_ratio,
                max_edges: args.max_edges,
            },
            partition: PartitionOptions {
                tolerance: args.tolerance,
                ..PartitionOptions::default()
            },
            cap: args.cap,
        })
    }
}

/// Creates `dir` if needed and checks that files can be written in it.
fn prepare_out(dir: &Path) -> Result<()> {
    ensure!(
        !dir.as_os_str().is_empty(),
        "--out: the folder name is empty"
    );
    ensure!(
        !dir.exists() || dir.is_dir(),
        "--out {dir:?} is a file, not a folder"
    );
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--out {dir:?}: cannot create the folder"))?;
    let probe = dir.join(".locus-profile-probe");
    File::create(&probe).with_context(|| format!("--out {dir:?}: cannot write files there"))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `path` through `PATH.tmp`, renamed into place once complete.
fn write_file(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let result = File::create(&tmp).and_then(|f| {
        let mut w = BufWriter::new(f);
        write(&mut w)?;
        w.flush()
    });
    let result = result.and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {path:?}"))
}

/// A phase's time in milliseconds, right-aligned.
fn secs(d: Duration) -> String {
    format!("{:>9.1} ms", d.as_secs_f64() * 1e3)
}

/// `locus profile`: resolves the arguments (bad input exits 2), runs, prints the report.
pub(crate) fn command(args: &ProfileArgs) -> Result<(), Failure> {
    let plan = ProfilePlan::new(args).map_err(Failure::Input)?;
    tracing::info!(kernel = %plan.params.kernel(), machine = %plan.machine, "profile start");
    let text = run(&plan)
        .with_context(|| format!("{} {}", plan.params.kernel(), plan.params))
        .map_err(Failure::Run)?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .context("cannot write to stdout")
        .map_err(Failure::Run)
}

/// Runs `locus profile`; returns the report to print.
pub(crate) fn run(plan: &ProfilePlan) -> Result<String> {
    let m = &plan.machine;
    let mut out = format!(
        "locus profile: {} {}\nmachine {m}\n\n",
        plan.params.kernel(),
        plan.params
    );

    let t = Instant::now();
    let workload = locus_sim::record::record(&plan.params).context("cannot record the kernel")?;
    let _ = writeln!(
        out,
        "record    {}  {} tasks, {} iterations, {} line accesses",
        secs(t.elapsed()),
        count(workload.tasks().len() as f64),
        workload.iterations(),
        count(workload.line_accesses() as f64)
    );

    let t = Instant::now();
    let profile = Profile::from_workload(&workload, m.clone(), &plan.input, plan.cap)
        .context("cannot profile the kernel")?;
    drop(workload);
    let s = profile.summary();
    let _ = writeln!(
        out,
        "profile   {}  {} leaf tasks, {} line runs over {} lines, {} truncated at {} runs",
        secs(t.elapsed()),
        count(s.tasks as f64),
        count(s.runs as f64),
        count(s.lines as f64),
        s.truncated,
        plan.cap
    );

    let t = Instant::now();
    let graph =
        AffinityGraph::build(&profile, &plan.graph).context("cannot build the affinity graph")?;
    let g = graph.stats();
    let _ = writeln!(
        out,
        "graph     {}  {} vertices, {} edges from {} shared lines; dense ratio {} dropped {} lines",
        secs(t.elapsed()),
        count(g.vertices as f64),
        count(g.edges as f64),
        count(g.shared_lines as f64),
        plan.graph.dense_ratio,
        count(g.dense_lines as f64)
    );

    let t = Instant::now();
    let partition =
        Partition::compute(&graph, m, &plan.partition).context("cannot partition the graph")?;
    let p = partition.stats();
    let percent = |x: u64| {
        if p.total_edge_weight == 0 {
            0.0
        } else {
            100.0 * x as f64 / p.total_edge_weight as f64
        }
    };
    let _ = writeln!(
        out,
        "partition {}  cut between workers {:.1}%, between squads {:.1}% of {} shared lines; \
         imbalance {:.3} (tolerance {}, METIS ufactor {}, {} {})",
        secs(t.elapsed()),
        percent(p.edge_cut),
        percent(p.squad_cut),
        count(p.total_edge_weight as f64),
        p.imbalance,
        plan.partition.tolerance,
        p.ufactor,
        p.metis_calls,
        if p.metis_calls == 1 { "call" } else { "calls" }
    );

    let t = Instant::now();
    let schedule =
        Schedule::new(m, &plan.input, &graph, &partition).context("cannot make the schedule")?;
    let dir = &plan.out;
    let mut written = Vec::new();
    let path = dir.join("profile.json");
    write_file(&path, |w| w.write_all(profile.to_json().as_bytes()))?;
    written.push(path);
    let dot = dir.join("graph.dot");
    let dot_note = if graph.num_vertices() <= DOT_LIMIT {
        write_file(&dot, |w| graph.write_dot(w, Some(&partition)))?;
        written.push(dot);
        None
    } else {
        Some(format!(
            "graph.dot not written: {} tasks, more than the {DOT_LIMIT} Graphviz lays out usefully",
            graph.num_vertices()
        ))
    };
    let path = dir.join("graph.metis");
    write_file(&path, |w| graph.write_metis(w))?;
    written.push(path);
    let path = dir.join("schedule.json");
    schedule.save(&path).context("cannot write the schedule")?;
    written.push(path);
    let _ = writeln!(out, "write     {}", secs(t.elapsed()));

    let _ = writeln!(
        out,
        "\nsizes: {} tasks, {} edges, {} line runs",
        graph.num_vertices(),
        graph.num_edges(),
        profile.summary().runs
    );
    if let Some(note) = dot_note {
        let _ = writeln!(out, "note: {note}");
    }
    let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    let _ = writeln!(out, "wrote {}", names.join(", "));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values_are_checked() {
        assert_eq!(dense_ratio("0.5"), Ok(0.5));
        assert!(dense_ratio("1.5").is_err() && dense_ratio("x").is_err());
        assert!(dense_ratio("NaN").is_err());
        assert_eq!(tolerance("1.1"), Ok(1.1));
        assert!(tolerance("1").is_err() && tolerance("11").is_err());
        assert_eq!(cap("7"), Ok(7));
        assert!(cap("0").is_err());
        assert!(threads("0").is_err());
    }
}
