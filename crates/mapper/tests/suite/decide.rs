//! The decision library through its public API: the paper's threshold table,
//! the history's hysteresis, the mapping rules of Section 4, and rounds that
//! must not panic (threads coming and going, missing events, odd machines).

use std::collections::{BTreeMap, HashSet};

use locus_mapper::classify::{classify, Level};
use locus_mapper::{Config, Counts, MachineShape, Mapper, MapperError, Move, ThreadSample};
use locus_topo::Topology;

const CYCLES: u64 = 100_000_000;

/// What a simulated thread shows per interval, as rates per cycle.
#[derive(Debug, Clone, Copy)]
struct Rates {
    coherence: f64,
    local: f64,
    ipc: f64,
    /// Stall cycles per cross-socket event (stall cycles are 0 without events).
    spc: f64,
    /// DRAM reads per cycle, and the share of them that is remote.
    bandwidth: f64,
    remote_share: f64,
}

const QUIET: Rates = Rates {
    coherence: 0.05e-3,
    local: 0.0,
    ipc: 0.5,
    spc: 0.0,
    bandwidth: 0.0,
    remote_share: 0.0,
};

/// HuBench-like: high coherence, very high SPC, low IPC.
const HU: Rates = Rates {
    coherence: 1.2e-3,
    spc: 677.0,
    ipc: 0.2,
    ..QUIET
};

/// High coherence, SPC under 550.
const SHARER: Rates = Rates {
    coherence: 1.2e-3,
    spc: 400.0,
    ipc: 0.4,
    ..QUIET
};

/// LuBench-like: medium coherence, high IPC.
const LU: Rates = Rates {
    coherence: 0.6e-3,
    ipc: 1.6,
    ..QUIET
};

/// MemBench-like: no sharing, high bandwidth, all local.
const MEM: Rates = Rates {
    coherence: 0.0,
    bandwidth: 0.03,
    ipc: 0.7,
    ..QUIET
};

fn counts(r: Rates) -> Counts {
    let c = CYCLES as f64;
    let remote = (r.coherence * c) as u64;
    let dram = r.bandwidth * c;
    Counts {
        instructions: (r.ipc * c) as u64,
        cycles: CYCLES,
        llc_misses: Some(remote + dram as u64),
        stall_cycles: Some((r.spc * remote as f64) as u64),
        hitm_local: Some((r.local * c) as u64),
        hitm_remote: Some(remote),
        dram_local: Some((dram * (1.0 - r.remote_share)) as u64),
        dram_remote: Some((dram * r.remote_share) as u64),
    }
}

/// `s` sockets x `c` cores x 2 PUs, numbered like Linux on Intel: the first PU of
/// every core socket by socket, then the siblings.
fn machine(s: usize, c: usize) -> MachineShape {
    MachineShape {
        sockets: (0..s)
            .map(|si| {
                (0..c)
                    .map(|ci| vec![si * c + ci, s * c + si * c + ci])
                    .collect()
            })
            .collect(),
    }
}

/// A mapper and where each thread runs; moves are applied between rounds.
struct Driver {
    mapper: Mapper,
    shape: MachineShape,
    /// `(pid, tid)` -> `(PU, rates)`.
    threads: BTreeMap<(u32, u32), (usize, Rates)>,
    moves: usize,
}

impl Driver {
    fn new(shape: MachineShape, config: Config) -> Driver {
        Driver {
            mapper: Mapper::new(shape.clone(), config),
            shape,
            threads: BTreeMap::new(),
            moves: 0,
        }
    }

    /// Adds `n` threads of `pid` with `rates`, spread like Linux: round-robin over
    /// the sockets, then over cores, starting at the `first`-th thread slot.
    fn app(&mut self, pid: u32, n: usize, first: usize, rates: Rates) {
        let s = self.shape.sockets.len();
        let c = self.shape.sockets[0].len();
        for t in 0..n {
            let g = first + t;
            let (socket, j) = (g % s, g / s);
            let pu = self.shape.sockets[socket][j % c][(j / c) % 2];
            self.threads.insert((pid, t as u32), (pu, rates));
        }
    }

    fn set_rates(&mut self, pid: u32, rates: Rates) {
        for ((p, _), v) in self.threads.iter_mut() {
            if *p == pid {
                v.1 = rates;
            }
        }
    }

    fn samples(&self) -> Vec<ThreadSample> {
        self.threads
            .iter()
            .map(|(&(pid, tid), &(pu, r))| ThreadSample {
                pid,
                tid,
                comm: format!("app{pid}"),
                cpu: Some(pu),
                counts: counts(r),
            })
            .collect()
    }

    /// One round; returns its moves (after checking and applying them).
    fn round(&mut self) -> Vec<Move> {
        let moves = self.mapper.decide(&self.samples());
        check_moves(&self.shape, &moves);
        for m in &moves {
            if let Some(t) = self.threads.get_mut(&(m.pid, m.tid)) {
                t.0 = m.cpus[0];
            }
        }
        self.moves += moves.len();
        moves
    }

    fn rounds(&mut self, n: usize) {
        for _ in 0..n {
            self.round();
        }
    }

    fn socket_of(&self, pu: usize) -> usize {
        self.shape.socket_of(pu).expect("a PU of the machine")
    }

    fn sockets_of(&self, pid: u32) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .threads
            .iter()
            .filter(|((p, _), _)| *p == pid)
            .map(|(_, &(pu, _))| self.socket_of(pu))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The core (socket, index) of a PU.
    fn core_of(&self, pu: usize) -> (usize, usize) {
        for (s, cores) in self.shape.sockets.iter().enumerate() {
            for (c, pus) in cores.iter().enumerate() {
                if pus.contains(&pu) {
                    return (s, c);
                }
            }
        }
        panic!("PU {pu} is not on the machine")
    }

    /// Cores holding two threads of `pid`.
    fn doubled_cores(&self, pid: u32) -> usize {
        let mut seen = HashSet::new();
        let mut doubled = 0;
        for (&(p, _), &(pu, _)) in &self.threads {
            if p == pid && !seen.insert(self.core_of(pu)) {
                doubled += 1;
            }
        }
        doubled
    }
}

/// Every move names at least one CPU, only CPUs of the machine, and no thread twice.
fn check_moves(shape: &MachineShape, moves: &[Move]) {
    let mut threads = HashSet::new();
    for m in moves {
        assert!(!m.cpus.is_empty(), "{m:?}");
        for &c in &m.cpus {
            assert!(
                shape.socket_of(c).is_some(),
                "CPU {c} is not on the machine: {m:?}"
            );
        }
        assert!(threads.insert((m.pid, m.tid)), "thread moved twice: {m:?}");
        assert!(!m.reason.is_empty() && !m.reason.contains('\n'), "{m:?}");
    }
}

// ---- The threshold table of Section 3, case by case.

fn class_of(r: Rates) -> locus_mapper::classify::IntervalClass {
    classify(&counts(r), &Config::default()).expect("cycles were run")
}

#[test]
fn coherence_above_0_78e_3_per_cycle_is_high() {
    let c = class_of(Rates {
        coherence: 0.80e-3,
        ..QUIET
    });
    assert_eq!(c.coherence, Level::High);
}

#[test]
fn coherence_below_0_78e_3_per_cycle_is_medium() {
    let c = class_of(Rates {
        coherence: 0.76e-3,
        ..QUIET
    });
    assert_eq!(c.coherence, Level::Medium);
}

#[test]
fn coherence_below_the_low_cut_is_low() {
    let cut = Config::default().coherence_medium;
    let below = class_of(Rates {
        coherence: cut * 0.9,
        ..QUIET
    });
    let above = class_of(Rates {
        coherence: cut * 1.1,
        ..QUIET
    });
    assert_eq!(
        (below.coherence, above.coherence),
        (Level::Low, Level::Medium)
    );
}

#[test]
fn ipc_above_0_9_is_high_and_below_is_low() {
    let hi = class_of(Rates { ipc: 0.91, ..QUIET });
    let lo = class_of(Rates { ipc: 0.89, ..QUIET });
    assert!(hi.ipc_high);
    assert!(!lo.ipc_high);
}

#[test]
fn spc_above_550_is_high_and_below_is_not() {
    let config = Config::default();
    let hi = class_of(Rates { spc: 560.0, ..HU });
    let lo = class_of(Rates { spc: 540.0, ..HU });
    assert!((hi.spc.unwrap() - 560.0).abs() < 1.0);
    assert_eq!(hi.spc_high(&config), Some(true));
    assert_eq!(lo.spc_high(&config), Some(false));
}

#[test]
fn spc_exists_only_where_coherence_is_high() {
    let medium = class_of(Rates { spc: 900.0, ..LU });
    assert_eq!(medium.coherence, Level::Medium);
    assert_eq!(medium.spc, None);
}

#[test]
fn thresholds_are_config_fields() {
    let config = Config {
        coherence_high: 2e-3,
        ipc_high: 2.0,
        ..Config::default()
    };
    let c = classify(&counts(Rates { ipc: 1.5, ..HU }), &config).unwrap();
    assert_eq!(c.coherence, Level::Medium);
    assert!(!c.ipc_high);
}

// ---- History.

/// Two sharing applications spread over two sockets by Linux.
fn two_sharers(rates: Rates) -> Driver {
    let mut d = Driver::new(machine(2, 4), Config::default());
    d.app(1, 4, 0, rates);
    d.app(2, 4, 4, rates);
    d
}

#[test]
fn a_single_high_interval_in_ten_moves_nothing() {
    let mut d = two_sharers(QUIET);
    for i in 0..10 {
        d.set_rates(1, if i == 9 { SHARER } else { QUIET });
        d.set_rates(2, if i == 9 { SHARER } else { QUIET });
        assert!(d.round().is_empty(), "round {i} moved threads");
    }
    // Also a single high interval in the middle of lows.
    for i in 0..10 {
        let r = if i == 4 { SHARER } else { QUIET };
        d.set_rates(1, r);
        d.set_rates(2, r);
        assert!(d.round().is_empty(), "round {i} moved threads");
    }
    assert_eq!(d.mapper.app_class(1).unwrap().coherence, Level::Low);
}

#[test]
fn six_high_intervals_move_threads() {
    let mut d = two_sharers(SHARER);
    for i in 0..5 {
        assert!(d.round().is_empty(), "round {i} moved threads");
    }
    assert_eq!(d.mapper.thread_class(1, 0).unwrap().coherence, Level::Low);
    let moves = d.round();
    assert!(!moves.is_empty(), "the sixth high interval moved nothing");
    assert_eq!(d.mapper.thread_class(1, 0).unwrap().coherence, Level::High);
    assert!(
        moves[0].reason.contains("coherence high"),
        "{}",
        moves[0].reason
    );
}

#[test]
fn five_high_intervals_in_ten_move_nothing() {
    let mut d = two_sharers(QUIET);
    for i in 0..20 {
        let r = if i % 2 == 0 { SHARER } else { QUIET };
        d.set_rates(1, r);
        d.set_rates(2, r);
        assert!(d.round().is_empty(), "round {i} moved threads");
    }
}

#[test]
fn the_sam_variant_reacts_to_one_interval() {
    let mut d = Driver::new(machine(2, 4), Config::sam());
    d.app(1, 4, 0, SHARER);
    d.app(2, 4, 4, SHARER);
    assert!(!d.round().is_empty());
}

// ---- Mapping.

#[test]
fn two_sharing_applications_get_a_socket_each() {
    let mut d = two_sharers(SHARER);
    assert_eq!(d.sockets_of(1), [0, 1]);
    d.rounds(6);
    let (a, b) = (d.sockets_of(1), d.sockets_of(2));
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(b.len(), 1, "{b:?}");
    assert_ne!(a, b);
    // And then nothing moves any more.
    let before = d.moves;
    d.rounds(20);
    assert_eq!(d.moves, before);
}

#[test]
fn two_sharing_applications_on_the_paper_machine() {
    let t = Topology::preset("xeon-e5-2660v2").unwrap();
    let shape = MachineShape::from_topology(&t);
    let mut d = Driver::new(shape, Config::default());
    d.app(1, 10, 0, HU);
    d.app(2, 10, 10, HU);
    d.rounds(7);
    let (a, b) = (d.sockets_of(1), d.sockets_of(2));
    assert!(a.len() == 1 && b.len() == 1 && a != b, "{a:?} {b:?}");
}

#[test]
fn very_high_spc_pairs_threads_on_hyperthreads() {
    let mut d = two_sharers(HU);
    d.rounds(6);
    // Four threads per app, paired: two cores each.
    assert_eq!(d.doubled_cores(1), 2);
    assert_eq!(d.doubled_cores(2), 2);
    let moves_reason = d.mapper.app_class(1).unwrap();
    assert!(moves_reason.spc.unwrap() > 550.0);
}

#[test]
fn spc_under_550_does_not_pair() {
    let mut d = two_sharers(SHARER);
    d.rounds(6);
    assert_eq!(d.doubled_cores(1), 0);
    assert_eq!(d.doubled_cores(2), 0);
}

/// 2 sockets x 8 cores x 2 PUs: HuBench-like (8 threads) pairs on four cores of
/// one socket; twelve LuBench-like threads need twelve cores and must not share
/// any with each other.
fn lu_case(config: Config) -> Driver {
    let mut d = Driver::new(machine(2, 8), config);
    d.app(1, 8, 0, HU);
    d.app(2, 12, 8, LU);
    d.rounds(8);
    d
}

#[test]
fn lubench_like_threads_are_not_paired_on_hyperthreads() {
    let d = lu_case(Config::default());
    assert_eq!(d.doubled_cores(2), 0, "{:?}", d.threads);
    assert_eq!(d.sockets_of(2), [0, 1]);
    assert_eq!(d.sockets_of(1).len(), 1);
}

#[test]
fn the_sam_variant_does_pair_lubench_like_threads() {
    // The same case without hyperthread awareness consolidates LuBench on one
    // socket: 12 threads on 8 cores share 4 of them.
    let d = lu_case(Config::sam());
    assert_eq!(d.sockets_of(2).len(), 1);
    assert!(d.doubled_cores(2) > 0);
}

#[test]
fn higher_spc_is_consolidated_first() {
    // Three applications of five threads, 16 PUs: one of them must be split.
    let run = |config: Config| {
        let mut d = Driver::new(machine(2, 4), config);
        d.app(
            1,
            5,
            0,
            Rates {
                spc: 300.0,
                ..SHARER
            },
        );
        d.app(
            2,
            5,
            5,
            Rates {
                spc: 450.0,
                ..SHARER
            },
        );
        d.app(
            3,
            5,
            10,
            Rates {
                spc: 500.0,
                ..SHARER
            },
        );
        d.rounds(8);
        [1, 2, 3].map(|p| d.sockets_of(p).len())
    };
    assert_eq!(run(Config::default()), [2, 1, 1]);
    // Without latency awareness the order follows the coherence rate (equal
    // here), then the pid: the first application gets a socket.
    assert_eq!(run(Config::sam())[0], 1);
}

#[test]
fn lower_ipc_is_consolidated_first_among_medium_sharers() {
    let medium = Rates {
        coherence: 0.5e-3,
        ..QUIET
    };
    let mut d = Driver::new(machine(2, 4), Config::default());
    d.app(1, 5, 0, Rates { ipc: 0.8, ..medium });
    d.app(2, 5, 5, Rates { ipc: 0.3, ..medium });
    d.app(3, 5, 10, Rates { ipc: 0.6, ..medium });
    d.rounds(8);
    assert_eq!([1, 2, 3].map(|p| d.sockets_of(p).len()), [2, 1, 1]);
}

#[test]
fn memory_bound_threads_spread_next_to_their_memory() {
    let mut d = Driver::new(machine(2, 4), Config::default());
    // Eight streaming threads all on socket 0 (PUs 0-3 and their siblings 8-11);
    // threads 6 and 7 read their memory from the other socket.
    for t in 0..8u32 {
        let pu = if t < 4 {
            t as usize
        } else {
            8 + t as usize - 4
        };
        let rates = if t >= 6 {
            Rates {
                remote_share: 0.9,
                ..MEM
            }
        } else {
            MEM
        };
        d.threads.insert((1, t), (pu, rates));
    }
    d.rounds(7);
    let per_socket = |s: usize| {
        d.threads
            .values()
            .filter(|(pu, _)| d.socket_of(*pu) == s)
            .count()
    };
    assert_eq!((per_socket(0), per_socket(1)), (4, 4));
    for t in [6, 7] {
        assert_eq!(d.socket_of(d.threads[&(1, t)].0), 1, "thread {t}");
    }
}

// ---- Rounds that must not panic.

#[test]
fn empty_rounds_do_nothing() {
    let mut m = Mapper::new(machine(2, 4), Config::default());
    for _ in 0..20 {
        assert!(m.decide(&[]).is_empty());
    }
}

#[test]
fn samples_with_every_event_missing() {
    let mut m = Mapper::new(machine(2, 4), Config::default());
    let samples: Vec<ThreadSample> = (0..8)
        .map(|t| ThreadSample {
            pid: 7,
            tid: t,
            comm: "x".into(),
            cpu: Some(t as usize),
            counts: Counts {
                instructions: 5,
                cycles: 10,
                ..Counts::default()
            },
        })
        .collect();
    for _ in 0..12 {
        assert!(m.decide(&samples).is_empty());
    }
    assert_eq!(m.app_class(7).unwrap().coherence, Level::Low);
    // Nothing at all, not even cycles, nor a CPU.
    let blank: Vec<ThreadSample> = (0..8)
        .map(|t| ThreadSample {
            pid: 7,
            tid: t,
            ..ThreadSample::default()
        })
        .collect();
    for _ in 0..12 {
        assert!(m.decide(&blank).is_empty());
    }
}

#[test]
fn threads_appear_and_vanish() {
    let shape = machine(2, 4);
    let mut m = Mapper::new(shape.clone(), Config::default());
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for round in 0..200 {
        let n = (next() % 20) as usize;
        let samples: Vec<ThreadSample> = (0..n)
            .map(|_| {
                let pid = (next() % 3) as u32;
                let tid = (next() % 12) as u32;
                let rates = [QUIET, HU, SHARER, LU, MEM][(next() % 5) as usize];
                ThreadSample {
                    pid,
                    tid,
                    comm: String::new(),
                    cpu: match next() % 4 {
                        0 => None,
                        1 => Some(1000),
                        _ => Some((next() % 16) as usize),
                    },
                    counts: counts(rates),
                }
            })
            .collect();
        let moves = m.decide(&samples);
        check_moves(&shape, &moves);
        let listed: HashSet<(u32, u32)> = samples.iter().map(|s| (s.pid, s.tid)).collect();
        for mv in &moves {
            assert!(listed.contains(&(mv.pid, mv.tid)), "round {round}: {mv:?}");
        }
        // Threads missing from this round are forgotten.
        for pid in 0..3 {
            for tid in 0..12 {
                let known = m.thread_class(pid, tid).is_some();
                assert_eq!(known, listed.contains(&(pid, tid)), "round {round}");
            }
        }
    }
}

#[test]
fn a_new_thread_starts_with_an_empty_history() {
    let mut d = two_sharers(SHARER);
    d.rounds(8);
    d.threads.insert((1, 99), (7, SHARER));
    d.round();
    let class = d.mapper.thread_class(1, 99).unwrap();
    assert_eq!((class.intervals, class.coherence), (1, Level::Low));
    // A thread that leaves and comes back starts over.
    let (pu, r) = d.threads.remove(&(1, 99)).unwrap();
    d.round();
    assert!(d.mapper.thread_class(1, 99).is_none());
    d.threads.insert((1, 99), (pu, r));
    d.round();
    assert_eq!(d.mapper.thread_class(1, 99).unwrap().intervals, 1);
}

#[test]
fn one_socket_leaves_nothing_to_do() {
    let mut d = Driver::new(machine(1, 8), Config::default());
    d.app(1, 6, 0, HU);
    d.app(2, 6, 6, LU);
    for _ in 0..15 {
        assert!(d.round().is_empty());
    }
    assert_eq!(d.mapper.app_class(1).unwrap().coherence, Level::High);
}

#[test]
fn more_threads_than_pus_stay_on_the_machine() {
    let mut d = Driver::new(machine(2, 2), Config::default());
    d.app(1, 6, 0, HU);
    d.app(2, 6, 6, MEM);
    d.app(3, 6, 12, LU);
    d.rounds(12);
}

#[test]
fn idle_threads_are_not_moved() {
    let mut d = two_sharers(SHARER);
    let mut m = Mapper::new(d.shape.clone(), Config::default());
    let mut samples = d.samples();
    for s in &mut samples {
        s.counts.cycles = 0;
    }
    for _ in 0..10 {
        assert!(m.decide(&samples).is_empty());
    }
    d.rounds(1);
}

#[test]
fn duplicate_samples_count_once() {
    let d = two_sharers(SHARER);
    let mut m = Mapper::new(d.shape.clone(), Config::default());
    let mut samples = d.samples();
    samples.extend(d.samples());
    for _ in 0..6 {
        let moves = m.decide(&samples);
        check_moves(&d.shape, &moves);
    }
    assert_eq!(m.thread_class(1, 0).unwrap().intervals, 6);
}

#[test]
fn extreme_counts_do_not_panic() {
    let mut m = Mapper::new(machine(2, 4), Config::default());
    let samples: Vec<ThreadSample> = (0..8)
        .map(|t| ThreadSample {
            pid: 1,
            tid: t,
            comm: String::new(),
            cpu: Some(t as usize),
            counts: Counts {
                instructions: u64::MAX,
                cycles: 1,
                llc_misses: Some(u64::MAX),
                stall_cycles: Some(u64::MAX),
                hitm_local: Some(u64::MAX),
                hitm_remote: Some(u64::MAX),
                dram_local: Some(u64::MAX),
                dram_remote: Some(u64::MAX),
            },
        })
        .collect();
    for _ in 0..8 {
        check_moves(&machine(2, 4), &m.decide(&samples));
    }
}

#[test]
fn odd_machines_do_not_panic() {
    let shapes = [
        MachineShape { sockets: vec![] },
        MachineShape {
            sockets: vec![vec![], vec![vec![]]],
        },
        MachineShape {
            sockets: vec![vec![vec![0]], vec![vec![1, 2, 3]], vec![]],
        },
        // A PU listed twice counts once.
        MachineShape {
            sockets: vec![vec![vec![0, 1]], vec![vec![1, 2]]],
        },
    ];
    for shape in shapes {
        let mut d = Driver::new(shape.clone(), Config::default());
        let pus: Vec<usize> = shape.sockets.iter().flatten().flatten().copied().collect();
        for t in 0..4u32 {
            let pu = pus.get(t as usize % pus.len().max(1)).copied().unwrap_or(0);
            d.threads.insert((1, t), (pu, HU));
        }
        for _ in 0..8 {
            let moves = d.mapper.decide(&d.samples());
            check_moves(&shape, &moves);
        }
    }
}

// ---- Construction.

#[test]
fn invalid_configs_are_named() {
    let cases: [(Config, &str); 5] = [
        (
            Config {
                history: 0,
                ..Config::default()
            },
            "history",
        ),
        (
            Config {
                history: 65,
                ..Config::default()
            },
            "history",
        ),
        (
            Config {
                occurrence: 11,
                ..Config::default()
            },
            "occurrence",
        ),
        (
            Config {
                ipc_high: f64::NAN,
                ..Config::default()
            },
            "ipc_high",
        ),
        (
            Config {
                coherence_medium: 1e-3,
                ..Config::default()
            },
            "coherence_medium",
        ),
    ];
    for (config, field) in cases {
        let err = config.validate().unwrap_err();
        assert!(err.to_string().contains(field), "{err}");
        assert!(Mapper::try_new(machine(2, 2), config.clone()).is_err());
        // `new` repairs instead, and the repaired config is valid.
        let m = Mapper::new(machine(2, 2), config);
        m.config().validate().unwrap();
    }
    Config::default().validate().unwrap();
    Config::sam().validate().unwrap();
}

#[test]
fn invalid_machines_are_named() {
    let empty = Mapper::try_new(MachineShape { sockets: vec![] }, Config::default());
    assert!(matches!(empty, Err(MapperError::Machine { .. })));
    let twice = MachineShape {
        sockets: vec![vec![vec![0, 1]], vec![vec![1, 2]]],
    };
    let err = Mapper::try_new(twice, Config::default()).unwrap_err();
    assert!(err.to_string().contains("PU 1"), "{err}");
    assert!(Mapper::try_new(machine(2, 4), Config::default()).is_ok());
}

#[test]
fn machine_shape_of_a_preset() {
    let t = Topology::preset("xeon-e7-4820v3").unwrap();
    let shape = MachineShape::from_topology(&t);
    assert_eq!(shape.sockets.len(), 4);
    assert!(shape.sockets.iter().all(|s| s.len() == 10));
    assert_eq!(shape.num_pus(), 80);
    assert_eq!(shape.socket_of(0), Some(0));
    assert_eq!(shape.socket_of(79), Some(3));
    assert_eq!(shape.socket_of(80), None);
}
