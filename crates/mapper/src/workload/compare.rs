//! Four placements of one mix, simulated over the same phases and noise:
//!
//! * **linux**: what Linux's load balancer does with busy threads: spread
//!   round-robin over the sockets, then over the physical cores of each socket,
//!   hyperthread siblings last; never moved by counters;
//! * **sam**: the [`Mapper`] with [`Config::sam`], from the linux placement;
//! * **sam-mph**: the [`Mapper`] with [`Config::default`], from the linux placement;
//! * **best static**: the best fixed placement found by search. Units are the
//!   applications' sharing groups (each thread of an application without
//!   sharing is its own unit); every assignment of units to sockets that fits
//!   is tried (the first unit on socket 0 when the sockets are alike), each
//!   with every choice of in-socket layout per application (threads spread
//!   over cores, or consecutive threads paired on hyperthreads). When that is
//!   more than `static_budget` simulations, neighbouring units of one
//!   application are merged (the smallest pair first) until it is not, so the
//!   search stays exhaustive over a coarser grain; only a mix of more
//!   applications than the budget allows even then is cut off at the budget.
//!   Each candidate is simulated for the whole run; the one with the most
//!   instructions wins.
//!
//! Every run starts from its placement at time 0 (memory is first touched
//! there) and lasts `seconds`, in 100 ms intervals. The dynamic placements
//! sample, decide and move after every interval but the last.

use locus_topo::Topology;
use serde::Serialize;

use super::{MixSpec, WorkloadError, World};
use crate::decide::{Config, Mapper};
use crate::model::MachineShape;

/// A way to place the threads of a mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Spread like Linux's load balancer, never moved.
    Linux,
    /// The mapper's SAM variant.
    Sam,
    /// The mapper (SAM-MPH).
    SamMph,
    /// The best fixed placement the search finds.
    BestStatic,
}

impl Placement {
    /// All four, in table order.
    pub const ALL: [Placement; 4] = [
        Placement::Linux,
        Placement::Sam,
        Placement::SamMph,
        Placement::BestStatic,
    ];

    /// `linux`, `sam`, `sam-mph` or `best-static`.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Linux => "linux",
            Placement::Sam => "sam",
            Placement::SamMph => "sam-mph",
            Placement::BestStatic => "best-static",
        }
    }
}

/// How long, from which seed, and how hard the static search tries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunOptions {
    /// Simulated seconds (above 0, at most a day).
    pub seconds: f64,
    /// Seed of phases and noise.
    pub seed: u64,
    /// Most candidate simulations of the best-static search (at least 1).
    pub static_budget: usize,
}

impl Default for RunOptions {
    /// 10 simulated seconds, seed 1, 256 candidates.
    fn default() -> RunOptions {
        RunOptions {
            seconds: 10.0,
            seed: 1,
            static_budget: 256,
        }
    }
}

/// Where one thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ThreadPlace {
    /// Its application's index in the mix.
    pub app: usize,
    /// Its application's pid.
    pub pid: u32,
    /// Its tid.
    pub tid: u32,
    /// Its PU.
    pub pu: usize,
    /// Its socket.
    pub socket: usize,
    /// Its core (global index).
    pub core: usize,
}

/// One placement's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    /// Which placement.
    pub placement: Placement,
    /// Instructions retired by all threads.
    pub instructions: f64,
    /// Instructions per application, in mix order.
    pub app_instructions: Vec<f64>,
    /// Moves that changed a thread's PU.
    pub migrations: u64,
    /// Simulated seconds.
    pub seconds: f64,
    /// Where the threads ran at the end.
    pub final_placement: Vec<ThreadPlace>,
    /// Candidates simulated (best static only; 1 otherwise).
    pub candidates: usize,
}

impl RunResult {
    /// Migrations per simulated minute.
    pub fn migrations_per_minute(&self) -> f64 {
        self.migrations as f64 * 60.0 / self.seconds
    }

    /// The sockets each application's threads ended on (sorted, distinct), in mix order.
    pub fn app_sockets(&self) -> Vec<Vec<usize>> {
        let apps = self.app_instructions.len();
        let mut v: Vec<Vec<usize>> = vec![Vec::new(); apps];
        for t in &self.final_placement {
            if let Some(s) = v.get_mut(t.app) {
                s.push(t.socket);
            }
        }
        for s in &mut v {
            s.sort_unstable();
            s.dedup();
        }
        v
    }
}

/// All placements of one mix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MixResult {
    /// The mix.
    pub mix: MixSpec,
    /// The machine's name.
    pub machine: String,
    /// The options of the runs.
    pub options: RunOptions,
    /// One run per placement, in [`Placement::ALL`] order.
    pub runs: Vec<RunResult>,
}

impl MixResult {
    /// The run of `placement`.
    pub fn run(&self, placement: Placement) -> Option<&RunResult> {
        self.runs.iter().find(|r| r.placement == placement)
    }

    /// Total instructions of `placement` over those of linux.
    pub fn speedup(&self, placement: Placement) -> Option<f64> {
        let base = self.run(Placement::Linux)?.instructions;
        let this = self.run(placement)?.instructions;
        (base > 0.0).then(|| this / base)
    }

    /// The geometric mean over applications of each one's instructions under
    /// `placement` over those under linux (the paper's metric, with linux as
    /// the reference).
    pub fn app_speedup(&self, placement: Placement) -> Option<f64> {
        let base = &self.run(Placement::Linux)?.app_instructions;
        let this = &self.run(placement)?.app_instructions;
        geometric_mean(
            base.iter()
                .zip(this)
                .map(|(&b, &t)| if b > 0.0 { t / b } else { f64::NAN }),
        )
    }
}

/// The geometric mean of positive finite values; `None` when there is none or
/// one is not positive and finite.
pub fn geometric_mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut sum = 0.0;
    let mut n = 0usize;
    for v in values {
        if !(v.is_finite() && v > 0.0) {
            return None;
        }
        sum += v.ln();
        n += 1;
    }
    (n > 0).then(|| (sum / n as f64).exp())
}

/// Runs `mix` on `topology` under every placement.
///
/// # Errors
///
/// As [`run`].
pub fn compare(
    mix: &MixSpec,
    topology: &Topology,
    options: &RunOptions,
) -> Result<MixResult, WorkloadError> {
    let runs = Placement::ALL
        .iter()
        .map(|&p| run(mix, topology, p, options))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MixResult {
        mix: *mix,
        machine: topology.name().to_owned(),
        options: *options,
        runs,
    })
}

/// Runs `mix` on `topology` under one placement.
///
/// # Errors
///
/// [`WorkloadError::Duration`] for `seconds` not above 0 or over a day (or
/// shorter than one interval); [`WorkloadError::TooManyThreads`] when the mix
/// does not fit the machine.
pub fn run(
    mix: &MixSpec,
    topology: &Topology,
    placement: Placement,
    options: &RunOptions,
) -> Result<RunResult, WorkloadError> {
    let shape = MachineShape::from_topology(topology);
    let intervals = intervals(options.seconds, topology)?;
    if mix.threads() > shape.num_pus() {
        return Err(WorkloadError::TooManyThreads {
            mix: mix.name.to_owned(),
            threads: mix.threads(),
            machine: topology.name().to_owned(),
            pus: shape.num_pus(),
        });
    }
    match placement {
        Placement::Linux => {
            let world = World::new(
                mix,
                topology,
                options.seed,
                &linux_placement(&shape, mix.threads()),
            )?;
            Ok(finish(placement, simulate(world, intervals, None), 1))
        }
        Placement::Sam | Placement::SamMph => {
            let config = if placement == Placement::Sam {
                Config::sam()
            } else {
                Config::sam_mph()
            };
            let world = World::new(
                mix,
                topology,
                options.seed,
                &linux_placement(&shape, mix.threads()),
            )?;
            let mapper = Mapper::new(shape, config);
            Ok(finish(
                placement,
                simulate(world, intervals, Some(mapper)),
                1,
            ))
        }
        Placement::BestStatic => best_static(mix, topology, &shape, intervals, options),
    }
}

/// Whole intervals in `seconds`.
fn intervals(seconds: f64, topology: &Topology) -> Result<u64, WorkloadError> {
    let interval_s = super::SimParams::for_machine(topology.name()).interval_ms / 1e3;
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
        return Err(WorkloadError::Duration { seconds });
    }
    let n = (seconds / interval_s).round() as u64;
    if n == 0 {
        return Err(WorkloadError::Duration { seconds });
    }
    Ok(n)
}

fn simulate(mut world: World, intervals: u64, mut mapper: Option<Mapper>) -> World {
    for i in 0..intervals {
        let samples = world.step();
        if let Some(m) = mapper.as_mut() {
            if i + 1 < intervals {
                let moves = m.decide(&samples);
                world.apply(&moves);
            }
        }
    }
    world
}

fn finish(placement: Placement, world: World, candidates: usize) -> RunResult {
    let app_instructions = world.app_instructions();
    let interval_s = world.params().interval_ms / 1e3;
    RunResult {
        placement,
        instructions: app_instructions.iter().sum(),
        app_instructions,
        migrations: world.migrations(),
        seconds: world.intervals() as f64 * interval_s,
        final_placement: world.placement(),
        candidates,
    }
}

/// Linux-like spreading: thread `g` on socket `g mod S`, then over that socket's
/// cores, siblings after every core has one thread.
pub fn linux_placement(shape: &MachineShape, threads: usize) -> Vec<usize> {
    let sockets: Vec<&Vec<Vec<usize>>> = shape.sockets.iter().filter(|s| !s.is_empty()).collect();
    let mut used = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(threads);
    if sockets.is_empty() {
        return out;
    }
    let all: Vec<usize> = sockets
        .iter()
        .flat_map(|s| s.iter().flatten().copied())
        .collect();
    for g in 0..threads {
        let socket = sockets[g % sockets.len()];
        let j = g / sockets.len();
        let core = &socket[j % socket.len()];
        let rank = (j / socket.len()) % core.len().max(1);
        let mut pu = core.get(rank).copied();
        if pu.is_none_or(|p| used.contains(&p)) {
            pu = all.iter().copied().find(|p| !used.contains(p));
        }
        if let Some(p) = pu {
            used.insert(p);
            out.push(p);
        }
    }
    out
}

/// A unit of the static search: threads (indices in creation order) of one application.
#[derive(Debug, Clone)]
struct Unit {
    app: usize,
    threads: Vec<usize>,
}

fn best_static(
    mix: &MixSpec,
    topology: &Topology,
    shape: &MachineShape,
    intervals: u64,
    options: &RunOptions,
) -> Result<RunResult, WorkloadError> {
    let sockets: Vec<usize> = (0..shape.sockets.len())
        .filter(|&s| !shape.sockets[s].is_empty())
        .collect();
    // Units: sharing groups, or single threads of applications without sharing.
    let mut units: Vec<Unit> = Vec::new();
    let mut first = 0;
    for (a, &(kind, n)) in mix.apps.iter().enumerate() {
        let size = kind.group_size().clamp(1, n.max(1));
        for start in (0..n).step_by(size) {
            units.push(Unit {
                app: a,
                threads: (first + start..first + (start + size).min(n)).collect(),
            });
        }
        first += n;
    }
    // Layouts: per application, spread (false) or paired (true).
    let apps = mix.apps.len();
    let layouts: Vec<Vec<bool>> = if apps <= 4 {
        (0..1usize << apps)
            .map(|m| (0..apps).map(|a| m >> a & 1 == 1).collect())
            .collect()
    } else {
        vec![vec![false; apps], vec![true; apps]]
    };
    let alike = sockets.windows(2).all(|w| {
        let (a, b) = (&shape.sockets[w[0]], &shape.sockets[w[1]]);
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.len() == y.len())
    });
    let budget = (options.static_budget.max(1) / layouts.len()).max(1);
    let count = |units: usize| -> usize {
        let free = if alike {
            units.saturating_sub(1)
        } else {
            units
        };
        (0..free).fold(1usize, |acc, _| acc.saturating_mul(sockets.len()))
    };
    while count(units.len()) > budget {
        let best = (0..units.len().saturating_sub(1))
            .filter(|&i| units[i].app == units[i + 1].app)
            .min_by_key(|&i| (units[i].threads.len() + units[i + 1].threads.len(), i));
        let Some(i) = best else { break };
        let next = units.remove(i + 1);
        units[i].threads.extend(next.threads);
    }
    let capacity: Vec<usize> = shape
        .sockets
        .iter()
        .map(|s| s.iter().map(Vec::len).sum())
        .collect();
    let mut best: Option<(f64, World)> = None;
    let mut candidates = 0usize;
    let mut digits = vec![0usize; units.len()];
    loop {
        let mut load = vec![0usize; shape.sockets.len()];
        for (u, &d) in units.iter().zip(&digits) {
            load[sockets[d]] += u.threads.len();
        }
        if load.iter().zip(&capacity).all(|(l, c)| l <= c) {
            for layout in &layouts {
                if candidates >= options.static_budget.max(1) {
                    break;
                }
                let Some(pus) =
                    static_placement(shape, &sockets, &units, &digits, layout, mix.threads())
                else {
                    continue;
                };
                let world = World::new(mix, topology, options.seed, &pus)?;
                let world = simulate(world, intervals, None);
                candidates += 1;
                let total: f64 = world.app_instructions().iter().sum();
                if best.as_ref().is_none_or(|(b, _)| total > *b) {
                    best = Some((total, world));
                }
            }
        }
        // Next assignment (mixed radix; the first unit stays on the first socket
        // when the sockets are alike).
        let start = usize::from(alike);
        let mut i = start;
        while i < digits.len() {
            digits[i] += 1;
            if digits[i] < sockets.len() {
                break;
            }
            digits[i] = 0;
            i += 1;
        }
        if i >= digits.len() || candidates >= options.static_budget.max(1) {
            break;
        }
    }
    match best {
        Some((_, world)) => Ok(finish(Placement::BestStatic, world, candidates)),
        None => {
            // Nothing fitted (cannot happen when threads <= PUs): linux then.
            let world = World::new(
                mix,
                topology,
                options.seed,
                &linux_placement(shape, mix.threads()),
            )?;
            Ok(finish(
                Placement::BestStatic,
                simulate(world, intervals, None),
                1,
            ))
        }
    }
}

/// The PUs of one static candidate, in thread creation order: per socket, the
/// paired applications' threads fill whole cores two by two, then the spread
/// ones take the first PU of the free cores, then the siblings.
fn static_placement(
    shape: &MachineShape,
    sockets: &[usize],
    units: &[Unit],
    digits: &[usize],
    paired: &[bool],
    threads: usize,
) -> Option<Vec<usize>> {
    let mut out = vec![usize::MAX; threads];
    for (si, &s) in sockets.iter().enumerate() {
        let cores = &shape.sockets[s];
        let mut used: Vec<Vec<bool>> = cores.iter().map(|c| vec![false; c.len()]).collect();
        let here: Vec<&Unit> = units
            .iter()
            .zip(digits)
            .filter(|(_, &d)| d == si)
            .map(|(u, _)| u)
            .collect();
        let pair_threads: Vec<usize> = here
            .iter()
            .filter(|u| paired[u.app])
            .flat_map(|u| u.threads.iter().copied())
            .collect();
        let spread_threads: Vec<usize> = here
            .iter()
            .filter(|u| !paired[u.app])
            .flat_map(|u| u.threads.iter().copied())
            .collect();
        let mut core = 0;
        for chunk in pair_threads.chunks(2) {
            while core < cores.len() && used[core].iter().any(|&u| u) {
                core += 1;
            }
            if core >= cores.len() {
                // No free core left: place the rest as spread threads.
                return None;
            }
            for (rank, &t) in chunk.iter().enumerate() {
                let rank = rank.min(cores[core].len() - 1);
                if used[core][rank] {
                    return None;
                }
                used[core][rank] = true;
                out[t] = cores[core][rank];
            }
            core += 1;
        }
        let max_rank = cores.iter().map(Vec::len).max().unwrap_or(0);
        let mut free = (0..max_rank).flat_map(|r| (0..cores.len()).map(move |c| (c, r)));
        for t in spread_threads {
            let (c, r) = free
                .by_ref()
                .find(|&(c, r)| r < cores[c].len() && !used[c][r])?;
            used[c][r] = true;
            out[t] = cores[c][r];
        }
    }
    out.iter().all(|&p| p != usize::MAX).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_spreads_over_sockets_then_cores() {
        let t = Topology::preset("xeon-e5-2660v2").unwrap();
        let shape = MachineShape::from_topology(&t);
        let pus = linux_placement(&shape, 22);
        // Socket 0 cores 0, 1 (PUs 0, 2), socket 1 core 0 (PU 20), ...
        assert_eq!(&pus[..4], &[0, 20, 2, 22]);
        // Thread 20 is the 11th on socket 0: the sibling of core 0.
        assert_eq!(pus[20], 1);
        let mut sorted = pus.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 22);
    }

    #[test]
    fn geometric_mean_refuses_non_positive_values() {
        assert_eq!(geometric_mean([]), None);
        assert_eq!(geometric_mean([1.0, 0.0]), None);
        let g = geometric_mean([2.0, 8.0]).unwrap();
        assert!((g - 4.0).abs() < 1e-12);
    }
}
