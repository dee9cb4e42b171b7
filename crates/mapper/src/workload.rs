//! A closed-loop simulator of long-running multi-threaded applications on a
//! multi-socket machine, to judge the mapper where no such machine (or no
//! counter) is at hand.
//!
//! Applications are built like the paper's microbenchmarks (Section 5): threads
//! in *sharing groups* (partners that write what the others read), each running
//! a [`Behaviour`] — computation at some IPC, coherence transfers with its
//! partners, private memory streamed from DRAM — that may change in *phases*.
//! Every interval (100 ms), given where each thread runs, the model computes
//! each thread's progress (instructions) and the counters a real machine would
//! show ([`Counts`]); a [`SimSource`] hands them to the mapper as a
//! [`SampleSource`] and moves its threads when told. [`compare`] runs the
//! named mixes of [`MIXES`] under four placements.
//!
//! # The model, per thread and interval
//!
//! With `b` the thread's behaviour this interval (its sharing and memory rates
//! scaled by a seeded noise factor `1 ± noise`), `g` its partners (the other
//! threads of its group) and `f_core`, `f_socket`, `f_remote` the fractions of
//! `g` on the same core, on another core of the same socket, and on another
//! socket:
//!
//! ```text
//! stall_coh  = b.sharing · (f_core·L_core + f_socket·L_socket + f_remote·L_remote) · (1 − b.hide)
//! stall_mem  = b.memory · L_dram(node) · m(node) · (1 − b.hide)      L_dram: local or remote
//! CPI        = 1 / (b.ipc · smt) + stall_coh + stall_mem
//! insts      = (cycles · share − migration penalty) / CPI
//! ```
//!
//! * `smt` (hyperthread contention): 1 alone on a core; with busy siblings,
//!   `min(1, W / Σ IPC of the core's threads) · P`, so two high-IPC threads
//!   slow each other down and two stalled ones barely do.
//! * `m(node)` (bandwidth contention): 1 while the reads that node's DRAM serves
//!   (lines per cycle, from every socket) stay under its bandwidth `B`; beyond,
//!   the latency grows until they fit (`m ← max(1, m · demand / B)`).
//! * `smt` and `m` are solved together by fixed-point iteration (16 rounds).
//! * `share` is 1 over the number of threads on the PU (time sharing).
//! * A thread's memory is on the socket where it ran first (first touch) and
//!   stays there when it moves.
//! * A move costs the thread `migration` of lost time in the next interval
//!   (cache refill), counted as stall cycles.
//!
//! Counters: `cycles = interval · clock · share`; `instructions = insts`;
//! `hitm_remote = insts · b.sharing · f_remote`; `hitm_local = insts · b.sharing
//! · f_socket` (transfers between hyperthreads of one core hit in the core's own
//! caches and count nowhere); `dram_local`/`dram_remote = insts · b.memory` by
//! where the memory is; `llc_misses = hitm_remote + dram reads`; `stall_cycles =
//! insts · (stall_coh + stall_mem) + penalty`.
//!
//! # Constants
//!
//! | constant | value | origin |
//! | --- | --- | --- |
//! | `L_remote` | 308 ns (677 cycles at 2.2 GHz) | the paper, Fig. 1: the microbenchmark on the right shows SPC 677 across sockets at 1.2 × 10⁻³ coherence events per cycle |
//! | `L_socket` | 86 ns (190 cycles at 2.2 GHz) | derived from the same point: 2.4 × faster on one socket means 190 stall cycles per event there |
//! | `L_core` | 18 ns (40 cycles at 2.2 GHz) | guess: a line the sibling wrote, found in the shared L1/L2, plus the pipeline's ordering cost |
//! | `L_dram` local / remote | per preset: `xeon-e5-2660v2` 82 / 127 ns, `xeon-e7-4820v3` 126 / 189 ns, other machines 90 / 140 ns | the same estimates as locus-sim's latency table |
//! | clock | 2.2 GHz, 1.9 GHz, other 2.5 GHz | the SAM paper; locus-sim's generic clock |
//! | `B` | 40 GB/s per socket | guess: STREAM on two-socket Ivy Bridge-EP servers reaches about 80 GB/s |
//! | `W`, `P` | 2.0, 0.9 | guess: Hyper-Threading adds 15-30 % throughput to high-IPC code |
//! | migration | 200 µs | guess: refilling ~1 MiB of cache at ~5 GB/s |
//! | noise | ± 10 % | guess: interval-to-interval variation |
//!
//! The behaviours ([`HUBENCH`], [`LUBENCH`], [`MEMBENCH`], [`GRAPH`],
//! [`STREAM`]) carry their own numbers and reasons.
//!
//! Everything is deterministic: the same mix, machine, placement and seed give
//! bit-identical results, and every placement of one comparison sees the same
//! phases and noise.

mod compare;
mod mixes;

use std::collections::HashMap;

use locus_task::rng::{mix64, SplitMix64};
use locus_topo::Topology;
use serde::Serialize;

pub use compare::{
    compare, geometric_mean, linux_placement, run, MixResult, Placement, RunOptions, RunResult,
    ThreadPlace,
};
pub use mixes::{AppKind, Behaviour, MixSpec, GRAPH, HUBENCH, LUBENCH, MEMBENCH, MIXES, STREAM};

use crate::model::{Counts, MachineShape, Move, SampleSource, SourceError, ThreadSample};

/// The machine-dependent constants of the model (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SimParams {
    /// Core clock, GHz.
    pub clock_ghz: f64,
    /// Stall per coherence transfer with a partner on another socket, ns.
    pub remote_ns: f64,
    /// ... on another core of the same socket, ns.
    pub socket_ns: f64,
    /// ... on the sibling hyperthread of the same core, ns.
    pub core_ns: f64,
    /// Local DRAM latency, ns.
    pub dram_local_ns: f64,
    /// Remote DRAM latency, ns.
    pub dram_remote_ns: f64,
    /// Sustainable DRAM bandwidth per socket, GB/s.
    pub bandwidth_gbs: f64,
    /// Combined IPC the hyperthreads of one core can sustain (`W`).
    pub core_issue: f64,
    /// Slowdown factor of sharing a core's private caches (`P`).
    pub smt_penalty: f64,
    /// Time lost by a moved thread, µs.
    pub migration_us: f64,
    /// Sampling interval, ms.
    pub interval_ms: f64,
    /// Relative amplitude of the per-interval noise on sharing and memory rates.
    pub noise: f64,
}

impl SimParams {
    /// The constants for a machine, by its topology name (a preset's name).
    pub fn for_machine(name: &str) -> SimParams {
        let (clock_ghz, dram_local_ns, dram_remote_ns) = match name {
            "xeon-e5-2660v2" => (2.2, 82.0, 127.0),
            "xeon-e7-4820v3" => (1.9, 126.0, 189.0),
            _ => (2.5, 90.0, 140.0),
        };
        SimParams {
            clock_ghz,
            remote_ns: 677.0 / 2.2,
            socket_ns: 190.0 / 2.2,
            core_ns: 40.0 / 2.2,
            dram_local_ns,
            dram_remote_ns,
            bandwidth_gbs: 40.0,
            core_issue: 2.0,
            smt_penalty: 0.9,
            migration_us: 200.0,
            interval_ms: 100.0,
            noise: 0.1,
        }
    }

    fn cycles(&self, ns: f64) -> f64 {
        ns * self.clock_ghz
    }

    fn interval_cycles(&self) -> f64 {
        self.interval_ms * 1e6 * self.clock_ghz
    }
}

/// A simulation that cannot run as asked.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// No mix has this name.
    #[error("unknown workload mix {name:?}; the mixes are: {known}")]
    UnknownMix {
        /// The name given.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The mix has more threads than the machine has PUs.
    #[error("mix {mix:?} has {threads} threads but machine {machine:?} has {pus} PUs; the simulator starts at most one thread per PU")]
    TooManyThreads {
        /// The mix.
        mix: String,
        /// Its threads.
        threads: usize,
        /// The machine.
        machine: String,
        /// Its PUs.
        pus: usize,
    },
    /// The simulated duration is unusable.
    #[error("simulated duration {seconds} s is invalid; expected a number of seconds above 0 and at most 86400 (one interval at least)")]
    Duration {
        /// The seconds given.
        seconds: f64,
    },
    /// A placement names a PU the machine does not have, or misses a thread.
    #[error("placement is invalid: {reason}")]
    Placement {
        /// What is wrong.
        reason: String,
    },
}

/// One PU of the simulated machine.
#[derive(Debug, Clone, Copy)]
struct PuInfo {
    os: usize,
    socket: usize,
    /// Global core index.
    core: usize,
}

/// One application's phase schedule, extended lazily from its own seed.
#[derive(Debug, Clone)]
struct Schedule {
    kind: AppKind,
    /// `(first interval after the segment, phase index)`.
    segments: Vec<(u64, usize)>,
    rng: SplitMix64,
}

impl Schedule {
    fn new(kind: AppKind, seed: u64) -> Schedule {
        Schedule {
            kind,
            segments: Vec::new(),
            rng: SplitMix64::new(seed),
        }
    }

    fn behaviour(&mut self, interval: u64, interval_s: f64) -> Behaviour {
        let phases = self.kind.phases();
        while self.segments.last().is_none_or(|&(end, _)| end <= interval) {
            let (start, next) = match self.segments.last() {
                Some(&(end, p)) => (end, (p + 1) % phases.len()),
                None => (0, 0),
            };
            let (_, lo, hi) = phases[next];
            let seconds = lo + (hi - lo) * self.rng.next_f64();
            let len = if seconds.is_finite() {
                ((seconds / interval_s).round() as u64).max(1)
            } else {
                u64::MAX - start
            };
            self.segments.push((start.saturating_add(len), next));
        }
        let i = self.segments.partition_point(|&(end, _)| end <= interval);
        phases[self.segments[i].1].0
    }
}

/// One simulated application.
#[derive(Debug, Clone)]
struct SimApp {
    kind: AppKind,
    pid: u32,
    schedule: Schedule,
}

/// One simulated thread.
#[derive(Debug, Clone)]
struct SimThread {
    app: usize,
    tid: u32,
    /// Index into the world's groups.
    group: usize,
    /// Index into the world's PUs.
    pu: usize,
    /// The socket its memory is on.
    memory: usize,
    /// Cycles it will lose in the next interval (migration).
    penalty: f64,
    instructions: f64,
}

/// The simulated machine and its threads. Advance it with [`World::step`].
#[derive(Debug, Clone)]
pub struct World {
    machine: String,
    shape: MachineShape,
    params: SimParams,
    pus: Vec<PuInfo>,
    by_os: HashMap<usize, usize>,
    apps: Vec<SimApp>,
    threads: Vec<SimThread>,
    groups: Vec<Vec<usize>>,
    interval: u64,
    migrations: u64,
    seed: u64,
}

impl World {
    /// The threads of `mix` on `topology`, placed by `placement` (PU OS indices
    /// in [`MachineShape::from_topology`]'s numbering, one per thread in creation
    /// order); their memory is on the socket each starts on.
    ///
    /// # Errors
    ///
    /// [`WorkloadError::TooManyThreads`] when the mix has more threads than the
    /// machine PUs; [`WorkloadError::Placement`] when `placement` has the wrong
    /// length or names a PU the machine does not have.
    pub fn new(
        mix: &MixSpec,
        topology: &Topology,
        seed: u64,
        placement: &[usize],
    ) -> Result<World, WorkloadError> {
        let shape = MachineShape::from_topology(topology);
        let mut pus = Vec::new();
        let mut core_index = 0;
        for (s, cores) in shape.sockets.iter().enumerate() {
            for core in cores {
                for &os in core {
                    pus.push(PuInfo {
                        os,
                        socket: s,
                        core: core_index,
                    });
                }
                core_index += 1;
            }
        }
        let threads = mix.threads();
        if threads > pus.len() {
            return Err(WorkloadError::TooManyThreads {
                mix: mix.name.to_owned(),
                threads,
                machine: topology.name().to_owned(),
                pus: pus.len(),
            });
        }
        if placement.len() != threads {
            return Err(WorkloadError::Placement {
                reason: format!(
                    "{} PUs given for the {threads} threads of mix {:?}",
                    placement.len(),
                    mix.name
                ),
            });
        }
        let by_os: HashMap<usize, usize> = pus.iter().enumerate().map(|(i, p)| (p.os, i)).collect();
        let mut apps = Vec::with_capacity(mix.apps.len());
        let mut list = Vec::with_capacity(threads);
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (a, &(kind, n)) in mix.apps.iter().enumerate() {
            let pid = 100 + a as u32;
            apps.push(SimApp {
                kind,
                pid,
                schedule: Schedule::new(kind, mix_seed(seed, a as u64)),
            });
            let size = kind.group_size().max(1);
            for t in 0..n {
                if t % size == 0 {
                    groups.push(Vec::new());
                }
                let g = groups.len() - 1;
                let index = list.len();
                groups[g].push(index);
                let os = placement[index];
                let pu = *by_os.get(&os).ok_or_else(|| WorkloadError::Placement {
                    reason: format!("PU {os} is not on machine {:?}", topology.name()),
                })?;
                list.push(SimThread {
                    app: a,
                    tid: pid * 1000 + t as u32,
                    group: g,
                    pu,
                    memory: pus[pu].socket,
                    penalty: 0.0,
                    instructions: 0.0,
                });
            }
        }
        Ok(World {
            machine: topology.name().to_owned(),
            params: SimParams::for_machine(topology.name()),
            shape,
            pus,
            by_os,
            apps,
            threads: list,
            groups,
            interval: 0,
            migrations: 0,
            seed,
        })
    }

    /// The machine as the mapper sees it.
    pub fn shape(&self) -> &MachineShape {
        &self.shape
    }

    /// The model's constants.
    pub fn params(&self) -> &SimParams {
        &self.params
    }

    /// Replaces the model's constants.
    pub fn set_params(&mut self, params: SimParams) {
        self.params = params;
    }

    /// Intervals simulated so far.
    pub fn intervals(&self) -> u64 {
        self.interval
    }

    /// Migrations so far (moves that changed a thread's PU).
    pub fn migrations(&self) -> u64 {
        self.migrations
    }

    /// Instructions retired so far, per application in mix order.
    pub fn app_instructions(&self) -> Vec<f64> {
        let mut v = vec![0.0; self.apps.len()];
        for t in &self.threads {
            v[t.app] += t.instructions;
        }
        v
    }

    /// Where every thread runs now, in creation order.
    pub fn placement(&self) -> Vec<ThreadPlace> {
        self.threads
            .iter()
            .map(|t| {
                let pu = self.pus[t.pu];
                ThreadPlace {
                    app: t.app,
                    pid: self.apps[t.app].pid,
                    tid: t.tid,
                    pu: pu.os,
                    socket: pu.socket,
                    core: pu.core,
                }
            })
            .collect()
    }

    /// Simulates one interval with the current placement; returns every thread's
    /// sample (in creation order).
    pub fn step(&mut self) -> Vec<ThreadSample> {
        const ROUNDS: usize = 16;
        let p = self.params;
        let n = self.threads.len();
        let interval_s = p.interval_ms / 1e3;
        let behaviours: Vec<Behaviour> = {
            let interval = self.interval;
            let per_app: Vec<Behaviour> = self
                .apps
                .iter_mut()
                .map(|a| a.schedule.behaviour(interval, interval_s))
                .collect();
            self.threads.iter().map(|t| per_app[t.app]).collect()
        };
        // Occupancy of PUs and cores.
        let mut on_pu = vec![0u32; self.pus.len()];
        let num_cores = self.pus.last().map_or(0, |p| p.core + 1);
        let mut on_core: Vec<Vec<usize>> = vec![Vec::new(); num_cores];
        for (i, t) in self.threads.iter().enumerate() {
            on_pu[t.pu] += 1;
            on_core[self.pus[t.pu].core].push(i);
        }
        let sockets = self.shape.sockets.len();
        // Per thread: noise, share, partner fractions.
        let mut noise = vec![1.0; n];
        let mut share = vec![1.0; n];
        let mut fractions = vec![(0.0, 0.0, 0.0); n];
        for (i, t) in self.threads.iter().enumerate() {
            let u = unit(mix_seed(
                self.seed ^ 0x5eed,
                (u64::from(t.tid) << 32) ^ self.interval,
            ));
            noise[i] = 1.0 + p.noise * (2.0 * u - 1.0);
            share[i] = 1.0 / f64::from(on_pu[t.pu].max(1));
            let me = self.pus[t.pu];
            let group = &self.groups[t.group];
            let partners = group.len().saturating_sub(1);
            if partners > 0 {
                let (mut core, mut socket) = (0usize, 0usize);
                for &j in group {
                    if j == i {
                        continue;
                    }
                    let other = self.pus[self.threads[j].pu];
                    if other.core == me.core {
                        core += 1;
                    } else if other.socket == me.socket {
                        socket += 1;
                    }
                }
                let total = partners as f64;
                let remote = partners - core - socket;
                fractions[i] = (
                    core as f64 / total,
                    socket as f64 / total,
                    remote as f64 / total,
                );
            }
        }
        let (l_core, l_socket, l_remote) = (
            p.cycles(p.core_ns),
            p.cycles(p.socket_ns),
            p.cycles(p.remote_ns),
        );
        let (d_local, d_remote) = (p.cycles(p.dram_local_ns), p.cycles(p.dram_remote_ns));
        let bandwidth = p.bandwidth_gbs * 1e9 / 64.0 / (p.clock_ghz * 1e9);
        let mut smt = vec![1.0; n];
        let mut mult = vec![1.0; sockets];
        let mut cpi = vec![1.0; n];
        let mut stall_coh = vec![0.0; n];
        let mut stall_mem = vec![0.0; n];
        for _ in 0..ROUNDS {
            let mut demand = vec![0.0; sockets];
            for (i, t) in self.threads.iter().enumerate() {
                let b = &behaviours[i];
                let hidden = 1.0 - b.hide.clamp(0.0, 1.0);
                let (fc, fs, fr) = fractions[i];
                stall_coh[i] =
                    b.sharing * noise[i] * (fc * l_core + fs * l_socket + fr * l_remote) * hidden;
                let here = self.pus[t.pu].socket;
                let latency = if t.memory == here { d_local } else { d_remote };
                stall_mem[i] = b.memory * noise[i] * latency * mult[t.memory] * hidden;
                cpi[i] = 1.0 / (b.ipc * smt[i]) + stall_coh[i] + stall_mem[i];
                demand[t.memory] += b.memory * noise[i] * share[i] / cpi[i];
            }
            for threads in &on_core {
                if threads.len() < 2 {
                    continue;
                }
                let issue: f64 = threads.iter().map(|&i| share[i] / cpi[i]).sum();
                let target = (p.core_issue / issue).min(1.0) * p.smt_penalty;
                for &i in threads {
                    smt[i] = 0.5 * smt[i] + 0.5 * target;
                }
            }
            for (m, d) in mult.iter_mut().zip(&demand) {
                *m = (*m * d / bandwidth).max(1.0);
            }
        }
        let cycles_all = p.interval_cycles();
        let mut samples = Vec::with_capacity(n);
        for (i, t) in self.threads.iter_mut().enumerate() {
            let b = &behaviours[i];
            let cycles = cycles_all * share[i];
            let penalty = t.penalty.min(cycles);
            t.penalty = 0.0;
            let insts = (cycles - penalty) / cpi[i];
            t.instructions += insts;
            let (_, fs, fr) = fractions[i];
            let transfers = insts * b.sharing * noise[i];
            let lines = insts * b.memory * noise[i];
            let remote = transfers * fr;
            let local_memory = t.memory == self.pus[t.pu].socket;
            let app = &self.apps[t.app];
            samples.push(ThreadSample {
                pid: app.pid,
                tid: t.tid,
                comm: app.kind.name().to_owned(),
                cpu: Some(self.pus[t.pu].os),
                counts: Counts {
                    instructions: insts.round() as u64,
                    cycles: cycles.round() as u64,
                    llc_misses: Some((remote + lines).round() as u64),
                    stall_cycles: Some(
                        (insts * (stall_coh[i] + stall_mem[i]) + penalty).round() as u64
                    ),
                    hitm_local: Some((transfers * fs).round() as u64),
                    hitm_remote: Some(remote.round() as u64),
                    dram_local: Some(if local_memory {
                        lines.round() as u64
                    } else {
                        0
                    }),
                    dram_remote: Some(if local_memory {
                        0
                    } else {
                        lines.round() as u64
                    }),
                },
            });
        }
        self.interval += 1;
        samples
    }

    /// Applies moves: each named thread goes to the first of the move's CPUs
    /// that exists (staying put when it already runs on one of them), and pays
    /// the migration penalty when its PU changed. Moves naming unknown threads
    /// or no CPU of this machine are ignored.
    pub fn apply(&mut self, moves: &[Move]) {
        let penalty = self.params.migration_us * 1e3 * self.params.clock_ghz;
        for m in moves {
            let Some(t) = self
                .threads
                .iter_mut()
                .find(|t| t.tid == m.tid && self.apps[t.app].pid == m.pid)
            else {
                continue;
            };
            let cpus: Vec<usize> = m
                .cpus
                .iter()
                .filter_map(|c| self.by_os.get(c).copied())
                .collect();
            if cpus.is_empty() || cpus.contains(&t.pu) {
                continue;
            }
            t.pu = cpus[0];
            t.penalty += penalty;
            self.migrations += 1;
        }
    }

    /// The machine's name.
    pub fn machine(&self) -> &str {
        &self.machine
    }
}

/// A [`SampleSource`] over a simulated [`World`]: each `sample` simulates one
/// interval, and `apply` moves the simulated threads.
#[derive(Debug, Clone)]
pub struct SimSource {
    world: World,
}

impl SimSource {
    /// A source over `world`.
    pub fn new(world: World) -> SimSource {
        SimSource { world }
    }

    /// The simulated world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The simulated world, to change its constants.
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The world, giving up the source.
    pub fn into_world(self) -> World {
        self.world
    }
}

impl SampleSource for SimSource {
    fn name(&self) -> &str {
        "sim"
    }

    fn sample(&mut self) -> Result<Vec<ThreadSample>, SourceError> {
        Ok(self.world.step())
    }

    fn apply(&mut self, moves: &[Move]) {
        self.world.apply(moves);
    }
}

/// A seed derived from `seed` and `k`.
fn mix_seed(seed: u64, k: u64) -> u64 {
    mix64(seed ^ mix64(k.wrapping_add(0x2545_f491_4f6c_dd1d)))
}

/// Uniform in [0, 1) from a hash.
fn unit(h: u64) -> f64 {
    (mix64(h) >> 11) as f64 / (1u64 << 53) as f64
}
