//! `locus profile`: the profile run of feedback-directed affinity scheduling. Records a
//! kernel as `locus sim` does, profiles the cache lines each leaf task touches, builds
//! the affinity graph, partitions it onto a machine's workers, and writes the schedule
//! that later runs follow, with the profile and the graph beside it (DESIGN.md,
//! "profile"; `papers/affinity-graph-feedback-scheduling.txt`).
//!
//! Every argument is resolved and the output folder made writable before anything
//! runs (bad input exits 2). Files are written through temporary names renamed into
//! place, so a folder never holds half a file. The report ends with the command that
//! runs the schedule.
//!
//! The other end lives here too: `locus sim` and `locus bench` read `--schedule FILE`
//! through [`schedule_flag`] and [`load_affinity`], which identify the machine and the
//! input exactly as a profile run does, so a schedule loads only for the run it was
//! made for.

use crate::app::Failure;
use crate::given::Given;
use crate::report::count;
use anyhow::{anyhow, bail, ensure, Context, Result};
use clap::Args;
use locus_files::RunFiles;
use locus_kernels::{Kernel, Params};
use locus_policy::{PolicyKind, SCHEDULE_PLACED, SCHEDULE_UNKNOWN};
use locus_profile::graph::{DEFAULT_DENSE_RATIO, DEFAULT_MAX_EDGES};
use locus_profile::partition::DEFAULT_TOLERANCE;
use locus_profile::profile::DEFAULT_CAP;
use locus_profile::{
    schedule, AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile,
    Schedule,
};
use locus_topo::Topology;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Above this many tasks the DOT file is not written: Graphviz lays such graphs out
/// slowly and nobody reads them.
pub(crate) const DOT_LIMIT: usize = 2000;

/// The files `locus profile` writes into `--out`.
const OUT_FILES: [&str; 4] = ["profile.json", "graph.dot", "graph.metis", "schedule.json"];

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

    /// A Matrix Market file (.mtx) whose matrix replaces the one --size names, for the
    /// sparse kernels (spmv-crs, spmv-iter, spmv-ccs, spmm); the schedule is then for this file's
    /// content. Refused for other kernels and with a --size that names matrix=PATH.
    #[arg(long, value_name = "FILE")]
    pub(crate) matrix: Option<PathBuf>,

    /// The machine the schedule is for: a preset (`locus topo --list-presets`), an hwloc
    /// synthetic string, SxC shorthand, or an hwloc XML file. Later runs follow the
    /// schedule only on this machine with this many workers. [default: LOCUS_TOPOLOGY if
    /// set, else this machine]
    #[arg(long, short = 'm', value_name = "M")]
    pub(crate) machine: Option<String>,

    /// Workers to place tasks on; worker i runs on PU i in tree order, wrapping around,
    /// as in a locus pool. [default: LOCUS_NUM_THREADS if set, else one per PU of the
    /// machine]
    #[arg(long, short = 't', value_name = "N", value_parser = threads)]
    pub(crate) threads: Option<usize>,

    /// The folder to write profile.json, graph.dot, graph.metis and schedule.json into.
    /// Created if missing (its parent must exist); a folder that already holds a profile
    /// is refused unless --force is given.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub(crate) out: PathBuf,

    /// Replace the profile files already in --out (files of other names are left alone).
    #[arg(long)]
    pub(crate) force: bool,

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
    /// 40 MB while building and partitioning).
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
    /// The command that runs the schedule, without `--schedule FILE`.
    run_it: String,
}

impl ProfilePlan {
    /// Resolves the arguments; every error here is bad input, found before any run.
    pub(crate) fn new(args: &ProfileArgs) -> Result<ProfilePlan> {
        let kernel: Kernel = args.kernel.parse().context("bad KERNEL")?;
        let params = match &args.size {
            Some(s) => kernel.parse_size(s).context("bad --size")?,
            None => kernel.default_params(),
        };
        let params = crate::bench::with_matrix(params, args.matrix.as_deref())?;
        let given =
            crate::limits::given(&params, args.size.as_deref(), args.matrix.as_deref(), None);
        crate::limits::check(&params, &given, true)?;
        let mut files = RunFiles::new();
        crate::bench::note_inputs(
            &mut files,
            std::slice::from_ref(&params),
            args.matrix.as_deref(),
        )?;
        let input = input_identity(&params)?;
        let topology: Topology = crate::topo::machine(args.machine.as_deref(), &mut files)?;
        let threads = crate::topo::threads(
            args.threads,
            topology.num_pus(),
            &format!("machine {:?}", topology.name()),
        )?;
        let machine = MachineDesc::new(&topology, threads)?;
        prepare_out(&args.out, args.force, &mut files)?;
        let run_it = run_command(args, kernel, threads, topology.num_pus());
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
            run_it,
        })
    }
}

/// The identity of the input of `params`, as schedules record it.
fn input_identity(params: &Params) -> Result<String> {
    locus_profile::input_identity(
        params.kernel().name(),
        &params.to_string(),
        &params.input_files(),
    )
    .context("cannot identify the input")
}

/// The command that runs a schedule made with `args`, up to `--schedule`: `locus sim`
/// on the described machine, or `locus bench` where the simulator cannot run it (this
/// machine, or more workers than PUs).
fn run_command(args: &ProfileArgs, kernel: Kernel, threads: usize, pus: usize) -> String {
    let mut words = Vec::new();
    match &args.machine {
        Some(m) if threads <= pus => {
            words.extend(["sim".to_owned(), kernel.name().to_owned()]);
            push_flag(&mut words, "--size", args.size.as_deref());
            push_path(&mut words, "--matrix", args.matrix.as_deref());
            push_flag(&mut words, "--machine", Some(m));
            let given = args.threads.map(|n| n.to_string());
            push_flag(&mut words, "--threads", given.as_deref());
        }
        machine => {
            words.extend(["bench".to_owned(), kernel.name().to_owned()]);
            push_flag(&mut words, "--size", args.size.as_deref());
            push_path(&mut words, "--matrix", args.matrix.as_deref());
            push_flag(&mut words, "--machine", machine.as_deref());
            // bench's default thread count is this process's CPUs, not the PUs.
            push_flag(&mut words, "--threads", Some(&threads.to_string()));
        }
    }
    push_flag(&mut words, "--policy", Some("static,affinity"));
    format!("locus {}", words.join(" "))
}

fn push_flag(words: &mut Vec<String>, flag: &str, value: Option<&str>) {
    if let Some(v) = value {
        words.push(flag.to_owned());
        words.push(shell_word(v));
    }
}

fn push_path(words: &mut Vec<String>, flag: &str, path: Option<&Path>) {
    let text = path.map(|p| p.display().to_string());
    push_flag(words, flag, text.as_deref());
}

/// `s` as one word of a POSIX shell command: as it is when it has no character the shell
/// reads specially, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-+./:=,@%^".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The schedule `--policy LIST` (or `LOCUS_POLICY`) needs: `--schedule FILE` when the
/// list names affinity (`None` when it does not). Refuses the one without the other.
pub(crate) fn schedule_flag<'a>(
    policies: &Given<String>,
    schedule: Option<&'a Path>,
) -> Result<Option<&'a Path>> {
    let list = &policies.value;
    let named = policies.origin.with(list);
    let affinity = list
        .split(',')
        .any(|item| item.trim().eq_ignore_ascii_case("affinity"));
    match (affinity, schedule) {
        (true, Some(path)) => Ok(Some(path)),
        (false, None) => Ok(None),
        (true, None) => bail!(
            "{named} names affinity, which follows a schedule file: give it with \
             --schedule FILE (`locus profile KERNEL --out DIR` writes DIR/schedule.json)"
        ),
        (false, Some(path)) => bail!(
            "--schedule {path:?} is only read by --policy affinity, which {named} does not \
             name: add it (e.g. --policy static,affinity) or leave --schedule out"
        ),
    }
}

/// The warning for a run under `policy` whose schedule placed none of the tasks it was
/// asked about, all of which then ran under work stealing (which the table alone does
/// not show). Task ids come from call sites (file, line and column), so the likely cause
/// is a schedule made by another build of the program.
pub(crate) fn unmatched_schedule(policy: &str, stats: &[(String, u64)]) -> Option<String> {
    let stat = |name: &str| stats.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v);
    let unknown = stat(SCHEDULE_UNKNOWN);
    (stat(SCHEDULE_PLACED) == 0 && unknown > 0).then(|| {
        format!(
            "warning: {policy}: the schedule placed none of the {unknown} tasks it was asked \
             about, so work stealing ran them all; task ids come from call sites (file, \
             line, column), and a schedule made by another build of the program knows none \
             of them: re-run locus profile with this build"
        )
    })
}

/// The `affinity` policy following the schedule file at `path`, which must have been
/// made for the input of `params` and `workers` workers on `topology`: the machine and
/// input identity are computed as `locus profile` computes them.
pub(crate) fn load_affinity(
    path: &Path,
    params: &Params,
    topology: &Topology,
    workers: usize,
) -> Result<PolicyKind> {
    let machine = MachineDesc::new(topology, workers)?;
    let input = input_identity(params)?;
    let loaded = schedule::load(path, &machine, &input)
        .and_then(|s| s.task_schedule())
        .map_err(|e| anyhow!(chain(&e)))
        // The error names the file already ("schedule PATH: ...").
        .context("bad --schedule")?;
    Ok(PolicyKind::Affinity(Arc::new(loaded)))
}

/// An error's message followed by those of its causes, each left out where the message
/// before already includes it (a schedule error's message includes its kind's).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// Creates `dir` if needed and checks that files can be written in it.
fn prepare_out(dir: &Path, force: bool, files: &mut RunFiles) -> Result<()> {
    let present: Vec<&str> = OUT_FILES
        .into_iter()
        .filter(|name| std::fs::symlink_metadata(dir.join(name)).is_ok())
        .collect();
    ensure!(
        present.is_empty() || force,
        "--out {dir:?} already holds a profile ({}); give --force to replace it, or name \
         another folder",
        present.join(", ")
    );
    locus_files::create_output_dir("--out", dir)?;
    for name in OUT_FILES {
        files.output("--out", &dir.join(name))?;
    }
    Ok(())
}

/// Writes the output `path` of `--out` atomically (see [`locus_files::write_output`]).
fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    locus_files::write_output("--out", path, write)?;
    Ok(())
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
        .map_err(crate::app::run_failure)?;
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
    let workload = locus_kernels::record(&plan.params).context("cannot record the kernel")?;
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
    write_file(&path, |w| w.write_all(schedule.to_json().as_bytes()))?;
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
    let schedule = shell_word(&dir.join("schedule.json").display().to_string());
    let _ = writeln!(out, "run it: {} --schedule {schedule}", plan.run_it);
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

    #[test]
    fn shell_words_are_quoted_where_needed() {
        assert_eq!(shell_word("small,grain=16"), "small,grain=16");
        assert_eq!(
            shell_word("/tmp/out/schedule.json"),
            "/tmp/out/schedule.json"
        );
        assert_eq!(shell_word("pack:2 core:4"), "'pack:2 core:4'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn the_run_command_gives_the_flags_that_make_the_same_schedule() {
        let args = |machine: Option<&str>, threads: Option<usize>| ProfileArgs {
            kernel: "irreg".to_owned(),
            size: Some("small,grain=16".to_owned()),
            matrix: None,
            machine: machine.map(str::to_owned),
            threads,
            out: PathBuf::from("out"),
            force: false,
            dense_ratio: DEFAULT_DENSE_RATIO,
            tolerance: DEFAULT_TOLERANCE,
            max_edges: DEFAULT_MAX_EDGES,
            cap: DEFAULT_CAP,
        };
        let irreg = Kernel::Irreg;
        assert_eq!(
            run_command(&args(Some("2x2"), Some(3)), irreg, 3, 4),
            "locus sim irreg --size small,grain=16 --machine 2x2 --threads 3 --policy \
             static,affinity"
        );
        // More workers than PUs: the simulator cannot, a pool on the described machine can.
        assert_eq!(
            run_command(&args(Some("pack:2 pu:2"), Some(8)), irreg, 8, 4),
            "locus bench irreg --size small,grain=16 --machine 'pack:2 pu:2' --threads 8 \
             --policy static,affinity"
        );
        // This machine: bench, with the profile's worker count.
        assert_eq!(
            run_command(&args(None, None), irreg, 6, 6),
            "locus bench irreg --size small,grain=16 --threads 6 --policy static,affinity"
        );
    }

    #[test]
    fn a_schedule_that_placed_nothing_is_warned_of() {
        let stats = |placed: u64, unknown: u64| {
            vec![
                (SCHEDULE_PLACED.to_owned(), placed),
                (SCHEDULE_UNKNOWN.to_owned(), unknown),
            ]
        };
        let warning = unmatched_schedule("affinity", &stats(0, 440)).unwrap();
        assert!(
            warning.contains("placed none of the 440 tasks") && warning.contains("re-run"),
            "{warning}"
        );
        assert_eq!(unmatched_schedule("affinity", &stats(400, 40)), None);
        assert_eq!(unmatched_schedule("affinity", &stats(0, 0)), None);
        assert_eq!(unmatched_schedule("ws", &[]), None);
    }

    #[test]
    fn affinity_and_schedule_go_together() {
        let file = Path::new("s.json");
        let flag = |list: &str| Given {
            value: list.to_owned(),
            origin: crate::given::Origin::Flag("--policy"),
        };
        assert_eq!(schedule_flag(&flag("ws,static"), None).unwrap(), None);
        assert_eq!(
            schedule_flag(&flag("static, Affinity"), Some(file)).unwrap(),
            Some(file)
        );
        let e = schedule_flag(&flag("ws,affinity"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--schedule FILE"), "{e}");
        let e = schedule_flag(&flag("all"), Some(file))
            .unwrap_err()
            .to_string();
        assert!(e.contains("only read by --policy affinity"), "{e}");
        let env = Given {
            value: "affinity".to_owned(),
            origin: crate::given::Origin::Env("LOCUS_POLICY"),
        };
        let e = schedule_flag(&env, None).unwrap_err().to_string();
        assert!(
            e.starts_with("LOCUS_POLICY=\"affinity\" names affinity"),
            "{e}"
        );
    }
}
