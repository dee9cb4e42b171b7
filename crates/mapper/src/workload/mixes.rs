//! The applications of the simulator and the named mixes of them: behaviours
//! (rates per instruction, calibrated where the paper gives numbers), the kinds
//! of application built from them (sharing groups and phases), and [`MIXES`].

use serde::Serialize;

/// What a thread does for a while: rates per instruction, so that its progress
/// follows from where it runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Behaviour {
    /// A short name, for tables.
    pub name: &'static str,
    /// IPC of its computation alone on a core with no miss.
    pub ipc: f64,
    /// Coherence transfers with its partners per instruction.
    pub sharing: f64,
    /// Private memory lines (64 bytes) read from DRAM per instruction.
    pub memory: f64,
    /// Fraction of every miss latency overlapped with other work (0 to 1).
    pub hide: f64,
}

/// HuBench (the paper's heavy-sharing, latency-sensitive microbenchmark): pairs
/// incrementing shared counters between short register loops. Calibrated to the
/// paper's Fig. 1 (right): IPC 1 between misses and 6.3 transfers per thousand
/// instructions give 1.2 × 10⁻³ coherence events per cycle and SPC 677 across
/// sockets, and 2.4 × the speed on one socket.
pub const HUBENCH: Behaviour = Behaviour {
    name: "hubench",
    ipc: 1.0,
    sharing: 6.3e-3,
    memory: 0.0,
    hide: 0.0,
};

/// LuBench (sharing with enough private work to hide it): high-ILP loops (IPC 2)
/// with 0.4 transfers per thousand instructions, half of each latency
/// overlapped; across sockets: IPC 1.6, 0.63 × 10⁻³ events per cycle (medium).
pub const LUBENCH: Behaviour = Behaviour {
    name: "lubench",
    ipc: 2.0,
    sharing: 0.4e-3,
    memory: 0.0,
    hide: 0.5,
};

/// MemBench (streaming private memory): a line every 20 instructions at IPC 2,
/// 90 % of the latency hidden by prefetching; about 5 GB/s per thread on an
/// idle socket, so ten threads saturate one socket's `B`.
pub const MEMBENCH: Behaviour = Behaviour {
    name: "membench",
    ipc: 2.0,
    sharing: 0.0,
    memory: 0.05,
    hide: 0.9,
};

/// The sharing phase of a graph-style application: every thread shares with
/// every other (4 transfers per thousand instructions, 20 % hidden) and reads a
/// little memory.
pub const GRAPH: Behaviour = Behaviour {
    name: "graph",
    ipc: 1.2,
    sharing: 4.0e-3,
    memory: 0.002,
    hide: 0.2,
};

/// The streaming phase of a graph-style application: MemBench's behaviour.
pub const STREAM: Behaviour = Behaviour {
    name: "stream",
    ..MEMBENCH
};

/// The kinds of simulated application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AppKind {
    /// [`HUBENCH`] in pairs of consecutive threads.
    HuBench,
    /// [`LUBENCH`] in pairs of consecutive threads.
    LuBench,
    /// [`MEMBENCH`], no sharing.
    MemBench,
    /// All threads one group, alternating [`GRAPH`] for 0.6 to 1.2 s and
    /// [`STREAM`] bursts of 0.2 to 0.4 s (durations drawn from the seed): a
    /// sharing application with transient streaming phases.
    Phased,
}

impl AppKind {
    /// The command name its threads report.
    pub fn name(self) -> &'static str {
        match self {
            AppKind::HuBench => "hubench",
            AppKind::LuBench => "lubench",
            AppKind::MemBench => "membench",
            AppKind::Phased => "phased",
        }
    }

    /// Threads per sharing group (0: no sharing; the whole application: `usize::MAX`).
    pub(super) fn group_size(self) -> usize {
        match self {
            AppKind::HuBench | AppKind::LuBench => 2,
            AppKind::MemBench => 1,
            AppKind::Phased => usize::MAX,
        }
    }

    /// Its phases: `(behaviour, shortest, longest)` durations in seconds, cycled.
    pub(super) fn phases(self) -> &'static [(Behaviour, f64, f64)] {
        match self {
            AppKind::HuBench => &[(HUBENCH, f64::INFINITY, f64::INFINITY)],
            AppKind::LuBench => &[(LUBENCH, f64::INFINITY, f64::INFINITY)],
            AppKind::MemBench => &[(MEMBENCH, f64::INFINITY, f64::INFINITY)],
            AppKind::Phased => &[(GRAPH, 0.6, 1.2), (STREAM, 0.2, 0.4)],
        }
    }
}

/// A named workload mix: applications and their thread counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MixSpec {
    /// The name `--mix` takes.
    pub name: &'static str,
    /// One line on what it shows.
    pub description: &'static str,
    /// Each application's kind and threads, in creation order.
    pub apps: &'static [(AppKind, usize)],
}

impl MixSpec {
    /// The mix called `name` (case-insensitive).
    pub fn find(name: &str) -> Option<&'static MixSpec> {
        MIXES
            .iter()
            .find(|m| m.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Threads over all its applications.
    pub fn threads(&self) -> usize {
        self.apps.iter().map(|&(_, n)| n).sum()
    }
}

/// The named mixes (on the two-socket `xeon-e5-2660v2`, 20 or 30 threads on 40 PUs).
pub const MIXES: &[MixSpec] = &[
    MixSpec {
        name: "hu-hu",
        description:
            "two HuBench apps: latency-bound sharing pairs; the paper's ideal is one app per socket",
        apps: &[(AppKind::HuBench, 10), (AppKind::HuBench, 10)],
    },
    MixSpec {
        name: "hu-mem",
        description: "HuBench with MemBench: consolidate the sharer, spread the streamer",
        apps: &[(AppKind::HuBench, 10), (AppKind::MemBench, 10)],
    },
    MixSpec {
        name: "lu-lu",
        description: "two LuBench apps: tolerant sharing, high IPC, little to gain",
        apps: &[(AppKind::LuBench, 10), (AppKind::LuBench, 10)],
    },
    MixSpec {
        name: "phase-hu",
        description: "a sharing app with short streaming bursts, with HuBench",
        apps: &[(AppKind::Phased, 10), (AppKind::HuBench, 10)],
    },
    MixSpec {
        name: "hu-hu-lu",
        description:
            "two HuBench apps and LuBench (30 threads): SPC priority, LuBench off shared cores",
        apps: &[
            (AppKind::HuBench, 10),
            (AppKind::HuBench, 10),
            (AppKind::LuBench, 10),
        ],
    },
];
