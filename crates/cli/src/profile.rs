//! `locus profile`: the profile run of feedback-directed affinity scheduling. Records a
//! kernel as `locus sim` does, profiles the cache lines each leaf task touches, builds
//! the affinity graph, partitions it onto a machine's workers, and writes the schedule
//! that later runs follow, with the profile and the graph beside it (docs/design.md,
//! "profile"; `papers/affinity-graph-feedback-scheduling.txt`).
//!
//! Every argument is resolved and the output folder made writable before anything
//! runs (bad input exits 2). Files are written through temporary names renamed into
//! place, so a folder never holds half a file. The report ends with the command that
//! runs the schedule.
//!
//! The other end is [`crate::policies`]: `locus sim` and `locus bench` read `--schedule
//! FILE` there, identifying the machine and the input with the same functions as a
//! profile run ([`input_identity`]), so a schedule loads only for the run it was made
//! for.

use crate::cli::ProfileArgs;
use crate::failure::{run_failure, Failure};
use crate::inputs::{machine, note_inputs, threads, with_matrix};
use crate::policies::input_identity;
use crate::report::count;
use anyhow::{ensure, Context, Result};
use locus_files::RunFiles;
use locus_kernels::{Kernel, Params};
use locus_profile::{
    AffinityGraph, GraphOptions, MachineDesc, Partition, PartitionOptions, Profile, Schedule,
};
use locus_topo::Topology;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Above this many tasks the DOT file is not written: Graphviz lays such graphs out
/// slowly and nobody reads them.
pub(crate) const DOT_LIMIT: usize = 2000;

/// The files `locus profile` writes into `--out`.
const OUT_FILES: [&str; 4] = ["profile.json", "graph.dot", "graph.metis", "schedule.json"];

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
        let params = with_matrix(params, args.matrix.as_deref())?;
        let given =
            crate::limits::given(&params, args.size.as_deref(), args.matrix.as_deref(), None);
        crate::limits::check(&params, &given, true)?;
        let mut files = RunFiles::new();
        note_inputs(
            &mut files,
            std::slice::from_ref(&params),
            args.matrix.as_deref(),
        )?;
        let input = input_identity(&params)?;
        let topology: Topology = machine(args.machine.as_deref(), &mut files)?;
        let threads = threads(
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

/// Creates `dir` if needed (a symbolic link, to a folder too, is refused) and checks
/// that files can be written in it.
fn prepare_out(dir: &Path, force: bool, files: &mut RunFiles) -> Result<()> {
    locus_files::create_output_dir("--out", dir)?;
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
    for name in OUT_FILES {
        files.output("--out", &dir.join(name))?;
    }
    Ok(())
}

/// Writes the output `path` of `--out`, whole or not at all (see
/// [`locus_files::write_output`]).
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
        .map_err(run_failure)?;
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
    use locus_profile::graph::{DEFAULT_DENSE_RATIO, DEFAULT_MAX_EDGES};
    use locus_profile::partition::DEFAULT_TOLERANCE;
    use locus_profile::profile::DEFAULT_CAP;

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
}
