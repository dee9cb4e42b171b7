//! `locus trace summarize FILE`: reads a trace of a real run (the runtime's) or of a
//! simulated one (the simulator's; one format, see [`read`]), checks it as a viewer
//! would draw it, and prints what a person reads of it per squad ([`summary`]) as
//! tables or JSON; `--plot` draws the busy workers of each squad over time with the
//! simulator's plots (`locus_sim::plot`).
//!
//! A file that is not such a trace is bad input (exit 2), named with what is wrong and
//! where; nothing here panics on a file's content.

mod read;
mod summary;
#[cfg(test)]
mod tests;

use crate::cli::{SummarizeArgs, TraceArgs, TraceCommand};
use crate::failure::Failure;
use crate::report::{count, print, sig3};
use anyhow::{anyhow, Context};
use locus_files::RunFiles;
use locus_sim::plot::{Plot, Series};
use std::fmt::Write as _;
use summary::{busy_over_time, summarize, Summary};

/// The largest trace read. Guess: a runtime worker keeps at most about a million
/// events by default, some 200 MB of JSON; this is twenty such workers.
const MAX_TRACE_BYTES: u64 = 4 << 30;

/// Bins of the `--plot`'s time axis. Guess: fine enough to see a squad go idle in a
/// ten-iteration run, coarse enough that the dots stay apart on 800 pixels.
const PLOT_BINS: usize = 100;

/// Runs `locus trace`.
pub(crate) fn command(args: &TraceArgs) -> Result<(), Failure> {
    match &args.command {
        TraceCommand::Summarize(args) => summarize_command(args),
    }
}

fn summarize_command(args: &SummarizeArgs) -> Result<(), Failure> {
    let origin = "trace file";
    let mut files = RunFiles::new();
    files
        .input(origin, &args.file)
        .map_err(|e| Failure::Input(e.into()))?;
    if let Some(plot) = &args.plot {
        files
            .output("--plot", plot)
            .map_err(|e| Failure::Input(e.into()))?;
    }
    let bytes = locus_files::read_input(origin, &args.file, MAX_TRACE_BYTES, "a trace")
        .map_err(|e| Failure::Input(e.into()))?;
    let trace = read::parse(&bytes)
        .map_err(|why| Failure::Input(anyhow!("{origin} {:?}: {why}", args.file)))?;
    let summary = summarize(&trace, args.top);
    if let Some(path) = &args.plot {
        let svg = plot(&trace)
            .to_svg_string()
            .map_err(|e| Failure::Input(anyhow!("{origin} {:?}: {e}", args.file)))?;
        locus_files::write_output("--plot", path, |out| out.write_all(svg.as_bytes()))
            .map_err(|e| Failure::Run(e.into()))?;
    }
    let text = if args.json {
        let mut doc = serde_json::to_string_pretty(&summary)
            .context("cannot write the summary as JSON")
            .map_err(Failure::Run)?;
        doc.push('\n');
        doc
    } else {
        let mut text = table(&args.file.display().to_string(), &summary);
        if let Some(path) = &args.plot {
            let _ = writeln!(text, "plot written to {}", path.display());
        }
        text
    };
    print(&text).map_err(Failure::Run)
}

/// The busy workers of each squad over time.
fn plot(trace: &read::Trace) -> Plot {
    Plot {
        title: format!("Busy workers per squad: {}", trace.title),
        x_label: "time (ms)".to_owned(),
        y_label: "busy workers (mean over a bin)".to_owned(),
        series: busy_over_time(trace, PLOT_BINS)
            .into_iter()
            .map(|(squad, points)| Series {
                label: format!("squad {squad}"),
                points,
            })
            .collect(),
        marker: None,
        y_from_zero: true,
    }
}

fn percent(share: f64) -> String {
    format!("{}%", sig3(share * 100.0))
}

/// The summary as a person reads it.
fn table(file: &str, s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trace {file}: {:?} ({} run), {} workers, {} squads, {} ms",
        s.title,
        s.source,
        s.workers,
        s.squads.len(),
        sig3(s.span_ms)
    );
    let _ = writeln!(
        out,
        "squad  workers  tasks   busy   idle  asleep  steals in          steals out\n\
         {:39}squad/node/package/remote/bulk, each",
        ""
    );
    for q in &s.squads {
        let tiers = |t: &summary::Tiers| {
            t.0.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("/")
        };
        let _ = writeln!(
            out,
            "{:>5}  {:>7}  {:>5}  {:>5}  {:>5}  {:>6}  {:<17}  {}",
            q.squad,
            q.workers,
            count(q.tasks as f64),
            percent(q.busy),
            percent(q.idle),
            percent(q.sleep),
            tiers(&q.steals_in),
            tiers(&q.steals_out)
        );
    }
    let _ = writeln!(out, "placements by the policy: {}", s.placements);
    if s.moved.is_empty() {
        let _ = writeln!(out, "no task ran on two squads");
    } else {
        let _ = writeln!(
            out,
            "tasks that moved between squads most often (moves/runs, squads in order of first run):"
        );
        for m in &s.moved {
            let squads: Vec<String> = m.squads.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "  {}  {}/{}  {}",
                m.task,
                m.moves,
                m.runs,
                squads.join(", ")
            );
        }
    }
    if s.steals_not_drawn > 0 {
        let _ = writeln!(
            out,
            "steals not drawn: {} (the victim was in no slice and the placement is unknown; \
             not counted above)",
            s.steals_not_drawn
        );
    }
    let _ = match (s.dropped_events, s.cap_per_worker) {
        (Some(0), Some(cap)) => writeln!(out, "dropped events: none (a worker keeps {cap})"),
        (Some(n), Some(cap)) => writeln!(
            out,
            "dropped events: {n}: a worker's buffer holds {cap} events, and the counts above \
             miss what did not fit (raise LOCUS_TRACE_CAP or ThreadPoolBuilder::trace_cap)"
        ),
        _ => writeln!(
            out,
            "dropped events: none recorded (the trace does not say; the simulator keeps every event)"
        ),
    };
    out
}
