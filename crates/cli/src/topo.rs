//! `locus topo`: a machine's tree, then the squads a pool of N workers forms on it.
//!
//! The squads come from [`WorkerMap::new`], the same placement the pool builder uses,
//! so no threads are started to show them.

use crate::cli::TopoArgs;
use crate::failure::Failure;
use crate::inputs::{machine, threads};
use crate::report::print;
use anyhow::Result;
use locus_files::RunFiles;
use locus_policy::WorkerMap;
use locus_topo::Topology;
use std::fmt::Write as _;

/// `locus topo`: the presets, or the machine and its squads.
pub(crate) fn command(args: &TopoArgs) -> Result<(), Failure> {
    if args.list_presets {
        return print(&presets()).map_err(Failure::Run);
    }
    let plan = TopoPlan::new(args).map_err(Failure::Input)?;
    print(&plan.render()).map_err(Failure::Run)
}

/// Validated input of `locus topo`.
#[derive(Debug)]
pub(crate) struct TopoPlan {
    topology: Topology,
    threads: usize,
}

impl TopoPlan {
    /// Resolves the arguments; every error here is bad input.
    pub(crate) fn new(args: &TopoArgs) -> Result<TopoPlan> {
        let topology = machine(args.machine.as_deref(), &mut RunFiles::new())?;
        let threads = threads(
            args.threads,
            topology.num_pus(),
            &format!("machine {:?}", topology.name()),
        )?;
        Ok(TopoPlan { topology, threads })
    }

    /// The whole output of `locus topo`.
    pub(crate) fn render(&self) -> String {
        let t = &self.topology;
        let mut out = t.render();
        if t.is_virtual() {
            let _ = writeln!(
                out,
                "\n{:?} is a virtual topology: pools built on it follow its squads, and their \
                 threads run on this machine's CPUs, round robin.",
                t.name()
            );
        }
        out.push('\n');
        out.push_str(&squads(t, self.threads));
        out
    }
}

/// One line per squad of a pool of `threads` workers on `topology`.
pub(crate) fn squads(topology: &Topology, threads: usize) -> String {
    let map = WorkerMap::new(topology, threads);
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut out = format!(
        "A pool of {} on {:?} forms {}:\n",
        plural(threads, "worker"),
        topology.name(),
        plural(map.num_squads(), "squad")
    );
    for s in 0..map.num_squads() {
        let llc = match map.llc_size(s) {
            Some(size) => format!("shared cache {}", locus_topo::format_size(size)),
            None => "no shared cache described".to_owned(),
        };
        let workers = map.squad(s);
        let _ = writeln!(
            out,
            "  squad {s}: {} {}, head {}, {llc}",
            if workers.len() == 1 {
                "worker"
            } else {
                "workers"
            },
            locus_topo::format_ranges(workers),
            map.head(s)
        );
    }
    out
}

/// The names and synthetic strings of the built-in machines, one per line.
pub(crate) fn presets() -> String {
    let names = Topology::preset_names();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut out = String::new();
    for name in names {
        let synthetic = Topology::preset_synthetic(name).unwrap_or("");
        let synthetic = synthetic.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ = writeln!(out, "{name:width$}  {synthetic}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opteron_has_four_squads_of_four() {
        let t = Topology::preset("opteron-8380").unwrap();
        let text = squads(&t, 16);
        assert!(text.contains("forms 4 squads"), "{text}");
        assert!(
            text.contains("squad 3: workers 12-15, head 12, shared cache 6 MiB"),
            "{text}"
        );
        let one = squads(&t, 1);
        assert!(
            one.contains("1 worker on") && one.contains("squad 0: worker 0, head 0"),
            "{one}"
        );
    }

    #[test]
    fn presets_are_listed() {
        assert!(presets()
            .lines()
            .any(|l| l.starts_with("opteron-8380 ") && l.contains("pack:4")));
        for (name, shape) in [
            ("epyc-7763-2s-nps4", "numa:4 l3:2"),
            ("epyc-9654-2s", "l3:12"),
            ("xeon-6230-2s", "ways=11"),
        ] {
            assert!(
                presets()
                    .lines()
                    .any(|l| l.starts_with(&format!("{name} ")) && l.contains(shape)),
                "{name}"
            );
        }
    }
}
