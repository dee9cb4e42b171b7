//! The README's table "The papers' figures, side by side": one test per row that the
//! debug suite can afford, each simulating the row's input on the paper's machine and
//! checking that the simulated ratio is the one the README gives (to 0.015), and that
//! the README's row says what this table says. A change to the clock, the caches or a
//! policy that moves a figure fails here until the README says the new figure.
//!
//! The rows at 8192x512 and 4096x4096 are in the README with their commands but not
//! here: each takes minutes in a debug build.

use locus_kernels::{record, Kernel};
use locus_policy::PolicyKind;
use locus_sim::engine::{simulate, SimConfig, SimResult};
use locus_topo::Topology;

/// What a row compares against ws.
#[derive(Clone, Copy)]
enum Measure {
    Time,
    L3Misses,
}

/// One row: the paper's figure, the input, and the simulated ratio against ws.
struct Row {
    source: &'static str,
    kernel: Kernel,
    size: &'static str,
    policy: &'static str,
    measure: Measure,
    paper: f64,
    locus: f64,
}

impl Row {
    /// The README's line for this row.
    fn line(&self) -> String {
        let what = match self.measure {
            Measure::Time => "time",
            Measure::L3Misses => "L3 misses",
        };
        format!(
            "| {} | {} {} | `{}` {what} / ws | {:.2} | {:.2} | {:+.0}% |",
            self.source,
            self.kernel,
            self.size,
            self.policy,
            self.paper,
            self.locus,
            (self.locus / self.paper - 1.0) * 100.0
        )
    }
}

fn run(kernel: Kernel, size: &str, policy: PolicyKind) -> SimResult {
    let params = kernel.parse_size(size).expect("size");
    let workload = record(&params).expect("record");
    let machine = Topology::preset("opteron-8380").expect("preset");
    let config = SimConfig::for_machine(&machine);
    simulate(&workload, &machine, policy, &config).expect("simulate")
}

fn check(row: &Row) {
    let policy: PolicyKind = row.policy.parse().expect("policy");
    let ws = run(row.kernel, row.size, PolicyKind::Ws);
    let r = run(row.kernel, row.size, policy);
    let ratio = match row.measure {
        Measure::Time => r.makespan as f64 / ws.makespan as f64,
        Measure::L3Misses => r.l3_misses() as f64 / ws.l3_misses() as f64,
    };
    assert!(
        (ratio - row.locus).abs() < 0.015,
        "{} {}: simulated {ratio:.3}, the README says {:.2}",
        row.kernel,
        row.size,
        row.locus
    );
    let readme = include_str!("../../../../README.md");
    assert!(
        readme.lines().any(|l| l == row.line()),
        "the README lacks the line\n{}",
        row.line()
    );
}

macro_rules! rows {
    ($($name:ident: $source:literal, $kernel:ident, $size:literal, $policy:literal, $measure:ident, $paper:literal, $locus:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check(&Row {
                    source: $source,
                    kernel: Kernel::$kernel,
                    size: $size,
                    policy: $policy,
                    measure: Measure::$measure,
                    paper: $paper,
                    locus: $locus,
                });
            }
        )*
    };
}

rows! {
    cats_fig9_heat_time: "CATS Fig. 9", Heat, "1024x512", "cats", Time, 0.596, 0.69;
    cats_fig9_sor_time: "CATS Fig. 9", Sor, "1024x512", "cats", Time, 0.439, 0.74;
    cats_fig10_heat_l3: "CATS Fig. 10", Heat, "1024x512", "cats", L3Misses, 0.239, 0.28;
    cats_fig11_heat_ub_time: "CATS Fig. 11", HeatUb, "1024x512", "cats", Time, 0.647, 0.70;
    cats_fig11_sor_ub_time: "CATS Fig. 11", SorUb, "1024x512", "cats", Time, 0.551, 0.71;
    cats_fig12_sor_ub_l3: "CATS Fig. 12", SorUb, "1024x512", "cats", L3Misses, 0.269, 0.18;
    cab_fig6_heat_time: "CAB Fig. 6", Heat, "512x512", "cab", Time, 0.454, 0.73;
    cab_fig6_sor_time: "CAB Fig. 6", Sor, "512x512", "cab", Time, 0.313, 0.67;
    cab_table4_heat_l3: "CAB Table IV", Heat, "1024x1024", "cab", L3Misses, 0.269, 0.27;
    cab_table4_sor_l3: "CAB Table IV", Sor, "1024x1024", "cab", L3Misses, 0.239, 0.15;
}
