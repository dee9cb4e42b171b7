//! Presenting bench results: the text table per kernel, the `--explain` text and the
//! JSON document. Pure functions of the results, so they are tested without running
//! anything.

use super::{BenchPlan, ExecResult, KernelResult, RAYON};
use crate::report::{count, sig3, write_json};
use anyhow::Result;
use locus::{PoolStats, WorkerStats};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::path::Path;
use std::time::Duration;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `result`'s median over `rayon`'s, if both are there and this is not rayon.
pub(crate) fn ratio(result: &ExecResult, rayon: Option<Duration>) -> Option<f64> {
    match rayon {
        Some(base) if result.name != RAYON && !base.is_zero() => {
            Some(result.median().as_secs_f64() / base.as_secs_f64())
        }
        _ => None,
    }
}

/// The statistics per timed repetition, in the order of [`WorkerStats::NAMES`].
pub(crate) fn per_rep(stats: &WorkerStats, reps: usize) -> Vec<(&'static str, f64)> {
    let reps = reps.max(1) as f64;
    WorkerStats::NAMES
        .iter()
        .zip(stats.values())
        .map(|(&name, v)| (name, v as f64 / reps))
        .collect()
}

/// What each locus policy decided on one kernel, and its own statistics (`--explain`).
pub(crate) fn explanations(kernel: &KernelResult) -> String {
    let mut out = String::new();
    for r in &kernel.results {
        let Some(explain) = &r.explain else { continue };
        out.push_str(&format!("-- {}\n", r.name));
        if explain.is_empty() {
            out.push_str("   (nothing to explain: no decision depends on the program)\n");
        }
        for line in explain.lines() {
            out.push_str(&format!("   {line}\n"));
        }
        let nonzero: Vec<String> = r
            .policy_stats
            .iter()
            .filter(|(_, v)| *v != 0)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        if !nonzero.is_empty() {
            out.push_str(&format!("   policy statistics: {}\n", nonzero.join(" ")));
        }
    }
    out
}

/// The header line above a kernel's table.
pub(crate) fn header(plan: &BenchPlan, kernel: &KernelResult) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let virt = if plan.topology.is_virtual() {
        " (virtual)"
    } else {
        ""
    };
    format!(
        "{} {}: {} thread{}, machine {:?}{virt}, {} rep{} (+{} warm-up)",
        kernel.params.kernel(),
        kernel.params,
        plan.threads,
        plural(plan.threads),
        plan.topology.name(),
        plan.reps,
        plural(plan.reps),
        plan.warmup
    )
}

/// The table of one kernel: one row per executor, right-aligned columns (the verdict,
/// free text, comes last and is left-aligned).
pub(crate) fn table(kernel: &KernelResult, reps: usize) -> String {
    const HEAD: [&str; 12] = [
        "executor",
        "median ms",
        "vs rayon",
        "min..max ms",
        "tasks",
        "steals sq/rem",
        "lost",
        "bulk st/tasks",
        "taken back/at once",
        "idle ms",
        "stable",
        "verified",
    ];
    let rayon = kernel.rayon_median();
    let mut rows: Vec<Vec<String>> = vec![HEAD.iter().map(|s| s.to_string()).collect()];
    for r in &kernel.results {
        let mut row = vec![
            r.name.clone(),
            sig3(ms(r.median())),
            ratio(r, rayon).map_or_else(|| "-".to_owned(), |x| format!("{x:.2}")),
            format!("{}..{}", sig3(ms(r.min())), sig3(ms(r.max()))),
        ];
        match r.stats.as_ref().map(PoolStats::total) {
            Some(s) => {
                let n = reps.max(1) as f64;
                let c = |v: u64| count(v as f64 / n);
                row.extend([
                    c(s.tasks),
                    format!("{}/{}", c(s.steals_squad), c(s.steals_remote)),
                    c(s.lost_steals),
                    format!("{}/{}", c(s.bulk_steals), c(s.bulk_tasks)),
                    format!("{}/{}", c(s.taken_back), c(s.run_at_once)),
                    sig3(s.idle_ns as f64 / 1e6 / n),
                ]);
            }
            None => row.extend(std::iter::repeat_n("-".to_owned(), 6)),
        }
        row.push(
            locus_policy::placement_stability(&r.policy_stats)
                .map_or_else(|| "-".to_owned(), |s| format!("{s:.2}")),
        );
        row.push(match &r.failure {
            None => "ok".to_owned(),
            Some(detail) if r.failed_runs > 1 => {
                format!("FAILED: {detail} ({} runs failed)", r.failed_runs)
            }
            Some(detail) => format!("FAILED: {detail}"),
        });
        rows.push(row);
    }
    let widths: Vec<usize> = (0..HEAD.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = format!("{:<w$}", row[0], w = widths[0]);
        for (cell, w) in row.iter().zip(&widths).skip(1).take(HEAD.len() - 2) {
            line.push_str(&format!("  {cell:>w$}"));
        }
        line.push_str("  ");
        line.push_str(&row[HEAD.len() - 1]);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The JSON document of `--json`.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Report {
    threads: usize,
    machine: String,
    reps: usize,
    warmup: usize,
    kernels: Vec<KernelReport>,
}

#[derive(Debug, serde::Serialize)]
struct KernelReport {
    kernel: &'static str,
    size: String,
    results: Vec<ResultReport>,
}

#[derive(Debug, serde::Serialize)]
struct ResultReport {
    policy: String,
    median_s: f64,
    min_s: f64,
    max_s: f64,
    ratio_to_rayon: Option<f64>,
    verified: bool,
    /// What was wrong with the first run that did not verify.
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
    times_s: Vec<f64>,
    /// Summed over the workers, per repetition.
    stats: Option<StatsPerRep>,
    /// Per worker (by index), per repetition.
    stats_per_worker: Option<Vec<StatsPerRep>>,
    /// What the policy decided (`--explain`'s text), after the runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<String>,
    /// The policy's own statistics after the runs, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    policy_stats: Vec<(String, u64)>,
    /// Placement stability of leaf inter-squad tasks over all runs, where the policy
    /// has them (bi-tier policies on more than one squad).
    placement_stability: Option<f64>,
}

/// Statistics per repetition as a JSON object, keys in [`WorkerStats::NAMES`] order.
#[derive(Debug)]
struct StatsPerRep(Vec<(&'static str, f64)>);

impl Serialize for StatsPerRep {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl Report {
    /// The document for `kernels`, run as `plan` says.
    pub(crate) fn new(plan: &BenchPlan, kernels: &[KernelResult]) -> Report {
        let kernels = kernels
            .iter()
            .map(|k| {
                let rayon = k.rayon_median();
                let results = k
                    .results
                    .iter()
                    .map(|r| ResultReport {
                        policy: r.name.clone(),
                        median_s: r.median().as_secs_f64(),
                        min_s: r.min().as_secs_f64(),
                        max_s: r.max().as_secs_f64(),
                        ratio_to_rayon: ratio(r, rayon),
                        verified: r.verified(),
                        failure: r.failure.clone(),
                        times_s: r.times.iter().map(Duration::as_secs_f64).collect(),
                        stats: r
                            .stats
                            .as_ref()
                            .map(|s| StatsPerRep(per_rep(&s.total(), plan.reps))),
                        explain: r.explain.clone().filter(|_| plan.explain),
                        policy_stats: r.policy_stats.clone(),
                        placement_stability: locus_policy::placement_stability(&r.policy_stats),
                        stats_per_worker: r.stats.as_ref().map(|s| {
                            s.workers
                                .iter()
                                .map(|w| StatsPerRep(per_rep(w, plan.reps)))
                                .collect()
                        }),
                    })
                    .collect();
                KernelReport {
                    kernel: k.params.kernel().name(),
                    size: k.params.to_string(),
                    results,
                }
            })
            .collect();
        Report {
            threads: plan.threads,
            machine: plan.topology.name().to_owned(),
            reps: plan.reps,
            warmup: plan.warmup,
            kernels,
        }
    }

    /// Writes the document to `--json PATH` (see [`write_json`]).
    pub(crate) fn write(&self, path: &Path) -> Result<()> {
        write_json("--json", path, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_kernels::Kernel;

    #[test]
    fn explanations_show_each_policy_and_its_nonzero_statistics() {
        let text = explanations(&fake());
        assert!(
            text.contains("-- ws\n   ws: nothing to explain\n"),
            "{text}"
        );
        assert!(
            text.contains("policy statistics: busy_refusals_squad0=3\n"),
            "zeros are left out: {text}"
        );
        assert!(text.contains("-- mts\n   (nothing to explain"), "{text}");
        assert!(!text.contains("rayon"), "rayon has no policy: {text}");
    }

    fn fake() -> KernelResult {
        let ms = Duration::from_millis;
        let stats = WorkerStats {
            tasks: 20,
            steals_remote: 4,
            idle_ns: 3_000_000,
            ..Default::default()
        };
        KernelResult {
            params: Kernel::Fib.parse_size("10").unwrap(),
            results: vec![
                ExecResult {
                    name: "ws".into(),
                    times: vec![ms(3), ms(4)],
                    failed_runs: 0,
                    failure: None,
                    stats: Some(PoolStats {
                        workers: vec![stats, WorkerStats::default()],
                    }),
                    explain: Some("ws: nothing to explain\n".into()),
                    policy_stats: vec![
                        ("busy_refusals_squad0".into(), 3),
                        ("profile_iterations".into(), 0),
                    ],
                },
                ExecResult {
                    name: "mts".into(),
                    times: vec![ms(2), ms(2)],
                    failed_runs: 1,
                    failure: Some("rep 2: expected 55, got 54".into()),
                    stats: Some(PoolStats {
                        workers: vec![WorkerStats::default()],
                    }),
                    explain: Some(String::new()),
                    policy_stats: Vec::new(),
                },
                ExecResult {
                    name: RAYON.into(),
                    times: vec![ms(2), ms(2)],
                    failed_runs: 0,
                    failure: None,
                    stats: None,
                    explain: None,
                    policy_stats: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn table_rows_align_and_show_ratios() {
        let text = table(&fake(), 2);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("executor") && lines[0].ends_with("verified"),
            "{text}"
        );
        assert!(
            lines[1].contains("3.50")
                && lines[1].contains("1.75")
                && lines[1].contains("3.00..4.00"),
            "{text}"
        );
        assert!(
            lines[1].contains(" 10 ") && lines[1].contains("0/2") && lines[1].contains("1.50"),
            "per rep: {text}"
        );
        assert!(
            lines[2].contains("FAILED") && lines[2].contains("expected 55"),
            "{text}"
        );
        assert!(
            lines[3].starts_with("rayon") && lines[3].ends_with("ok"),
            "{text}"
        );
        let verdict_col = lines[0].find("verified").unwrap();
        assert!(lines.iter().all(|l| l.len() >= verdict_col), "{text}");
    }
}
