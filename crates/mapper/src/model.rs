//! The types both halves of the mapper share: what a sample of one thread is,
//! what the machine looks like to the mapper, what a decision is, and where
//! samples come from.
//!
//! Nothing here makes a system call. The operating-system side fills
//! [`ThreadSample`]s from `perf_event_open` and applies [`Move`]s with
//! `sched_setaffinity`; the simulated side ([`crate::workload`]) fills them from
//! a model of the machine and moves its simulated threads. The decisions
//! ([`crate::decide`]) see only these types.

use locus_topo::Topology;

/// One operating-system thread's counter deltas over one sampling interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadSample {
    /// The process (thread group) id; the mapper groups threads into applications by it.
    pub pid: u32,
    /// The thread id (`gettid`).
    pub tid: u32,
    /// The process's command name (`/proc/PID/comm`), for logs.
    pub comm: String,
    /// The PU (OS CPU index) the thread last ran on, where known.
    pub cpu: Option<usize>,
    /// The counts over the interval.
    pub counts: Counts,
}

/// Counter deltas over one interval. `None` where the processor or the source does not
/// provide the event; the decisions then use what is there (see the decision library).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counts {
    /// Instructions retired.
    pub instructions: u64,
    /// Unhalted core cycles.
    pub cycles: u64,
    /// Last-level cache misses.
    pub llc_misses: Option<u64>,
    /// Cycles stalled with outstanding cache misses.
    pub stall_cycles: Option<u64>,
    /// Loads that hit a modified line in another core's cache of the same socket.
    pub hitm_local: Option<u64>,
    /// Loads that hit a modified line in another socket's cache (cross-socket coherence).
    pub hitm_remote: Option<u64>,
    /// Reads served by the local socket's DRAM.
    pub dram_local: Option<u64>,
    /// Reads served by a remote socket's DRAM.
    pub dram_remote: Option<u64>,
}

/// The machine as the mapper sees it: sockets, each a list of physical cores, each a
/// list of PUs (OS CPU indices; two or more where hyperthreading is on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineShape {
    /// `sockets[s][c]` lists the PUs (OS CPU indices) of core `c` of socket `s`.
    pub sockets: Vec<Vec<Vec<usize>>>,
}

impl MachineShape {
    /// The shape of a locus topology: its packages as sockets, its cores in
    /// tree order, each core's PUs by OS index where the topology has them
    /// (a discovered machine), else by logical index (presets, synthetic
    /// strings, XML).
    pub fn from_topology(t: &Topology) -> MachineShape {
        let mut sockets: Vec<Vec<Vec<usize>>> = vec![Vec::new(); t.num_packages()];
        for core in t.cores() {
            let pus = core
                .pus
                .iter()
                .map(|&p| {
                    let pu = &t.pus()[p];
                    pu.os_index.unwrap_or(pu.index)
                })
                .collect();
            if let Some(socket) = sockets.get_mut(core.package) {
                socket.push(pus);
            }
        }
        MachineShape { sockets }
    }

    /// The number of PUs over all sockets and cores.
    pub fn num_pus(&self) -> usize {
        self.sockets
            .iter()
            .flat_map(|s| s.iter())
            .map(|c| c.len())
            .sum()
    }

    /// The socket holding `pu` (an OS CPU index); `None` if no core lists it.
    pub fn socket_of(&self, pu: usize) -> Option<usize> {
        self.sockets
            .iter()
            .position(|s| s.iter().any(|c| c.contains(&pu)))
    }
}

/// One decision: pin thread `tid` of `pid` to `cpus` (OS CPU indices), because `reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// The process of the thread.
    pub pid: u32,
    /// The thread to pin.
    pub tid: u32,
    /// The CPUs (OS CPU indices) it may run on from now on.
    pub cpus: Vec<usize>,
    /// One line: the thread's and application's classes that led here.
    pub reason: String,
}

/// Where per-thread samples come from.
pub trait SampleSource {
    /// A name for logs (`perf`, `sim`).
    fn name(&self) -> &str;
    /// The samples of the interval that ended now (counter deltas since the last call).
    ///
    /// # Errors
    ///
    /// [`SourceError::Unavailable`] when the machine has no usable counters,
    /// [`SourceError::Io`] when reading them failed.
    fn sample(&mut self) -> Result<Vec<ThreadSample>, SourceError>;
    /// Applies moves (the simulated source moves its simulated threads; the perf source
    /// does not implement this itself — the OS side's actuator does). Default: nothing.
    fn apply(&mut self, moves: &[Move]) {
        let _ = moves;
    }
}

/// Why a [`SampleSource`] gave no samples.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The machine or the process cannot provide the counters at all (a virtual
    /// machine without a PMU, `perf_event_paranoid` too strict).
    #[error("hardware counters are unavailable: {reason}")]
    Unavailable {
        /// What is missing, in words.
        reason: String,
    },
    /// Reading or opening something failed.
    #[error("cannot read {what}")]
    Io {
        /// What was being read (a path, a counter of a thread).
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
