//! Thread pools: the builder, the handle, and the global pool.
//!
//! A pool is a topology (the machine, or a described one laid over the real cores), a
//! number of workers placed on it (worker `i` on PU `i` in tree order, wrapping around),
//! and a policy. The global pool is built on first use from `LOCUS_NUM_THREADS`,
//! `LOCUS_POLICY` and `LOCUS_TOPOLOGY`; [`ThreadPoolBuilder::build_global`] configures it
//! explicitly and reports bad settings as errors.

use crate::counters::{self, CounterKind};
use crate::domains::Domain;
use crate::pin::Pinning;
use crate::registry::{Registry, ThreadSpec};
use crate::scope::{scope_in, Scope};
use crate::stats::PoolStats;
use locus_policy::{PolicyFactory, PolicyKind, WorkerMap};
use locus_topo::{allowed_cpus, TopoError, Topology};
use std::fmt;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock, Weak};
use std::thread::JoinHandle;

/// Pools larger than this are refused: more is a typo, not a machine.
pub const MAX_THREADS: usize = 4096;

/// Worker stack size unless set: tasks run on the worker's stack and a waiting worker
/// runs other tasks on top of its wait, so workers get more than Rust's 2 MiB default.
/// Only touched pages cost memory.
const DEFAULT_STACK_SIZE: usize = 64 << 20;

/// Where the workers of a pool run when neither the builder nor `LOCUS_PIN` says, for
/// the policies that pin (all but `ws-unpinned`).
pub const DEFAULT_PINNING: Pinning = Pinning::Pu;

/// Why a pool could not be built.
#[derive(Debug)]
pub struct BuildError {
    kind: BuildErrorKind,
}

#[derive(Debug)]
enum BuildErrorKind {
    Env {
        var: &'static str,
        value: String,
        reason: String,
    },
    Threads {
        requested: usize,
    },
    Discover {
        source: TopoError,
    },
    Spawn {
        source: std::io::Error,
    },
    Counters {
        source: crate::counters::CounterError,
    },
    GlobalAlreadyBuilt,
    NoDomain {
        domain: Domain,
        machine: String,
    },
    DomainCut {
        domain: Domain,
        index: usize,
        source: TopoError,
    },
    NoAllowedCpu {
        machine: String,
        cpus: String,
        allowed: String,
    },
    Trace {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BuildErrorKind::Env { var, value, reason } => write!(f, "{var}={value:?}: {reason}"),
            BuildErrorKind::Threads { requested: 0 } => {
                write!(f, "a pool needs at least one thread, not 0")
            }
            BuildErrorKind::Threads { requested } => {
                write!(
                    f,
                    "{requested} threads requested; locus allows at most {MAX_THREADS}"
                )
            }
            BuildErrorKind::Discover { .. } => write!(f, "could not read this machine's topology"),
            BuildErrorKind::Spawn { .. } => write!(f, "could not start a worker thread"),
            BuildErrorKind::Counters { .. } => {
                write!(f, "could not open the counter source the policy needs")
            }
            BuildErrorKind::GlobalAlreadyBuilt => {
                write!(f, "the global pool has already been built")
            }
            BuildErrorKind::NoDomain { domain, machine } => write!(
                f,
                "machine {machine:?} reports no {noun} with PUs to build a pool on",
                noun = domain.noun()
            ),
            BuildErrorKind::DomainCut { domain, index, .. } => {
                write!(f, "cannot cut {} {index} out for its pool", domain.noun())
            }
            BuildErrorKind::NoAllowedCpu {
                machine,
                cpus,
                allowed,
            } => write!(
                f,
                "none of the CPUs of machine {machine:?} ({cpus}) is one this process may \
                 run on ({allowed})"
            ),
            BuildErrorKind::Trace { path, .. } => {
                write!(f, "cannot write the trace file {}", path.display())
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            BuildErrorKind::Discover { source } => Some(source),
            BuildErrorKind::Spawn { source } => Some(source),
            BuildErrorKind::Counters { source } => Some(source),
            BuildErrorKind::DomainCut { source, .. } => Some(source),
            BuildErrorKind::Trace { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl BuildError {
    fn env(var: &'static str, value: &str, reason: impl Into<String>) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Env {
                var,
                value: value.to_string(),
                reason: reason.into(),
            },
        }
    }

    pub(crate) fn no_domain(domain: Domain, machine: &str) -> BuildError {
        BuildError {
            kind: BuildErrorKind::NoDomain {
                domain,
                machine: machine.to_string(),
            },
        }
    }

    pub(crate) fn domain_cut(domain: Domain, index: usize, source: TopoError) -> BuildError {
        BuildError {
            kind: BuildErrorKind::DomainCut {
                domain,
                index,
                source,
            },
        }
    }

    pub(crate) fn no_allowed_cpu(machine: &str, cpus: &[usize], allowed: &[usize]) -> BuildError {
        BuildError {
            kind: BuildErrorKind::NoAllowedCpu {
                machine: machine.to_string(),
                cpus: locus_topo::format_ranges(cpus),
                allowed: locus_topo::format_ranges(allowed),
            },
        }
    }

    pub(crate) fn discover(source: TopoError) -> BuildError {
        BuildError {
            kind: BuildErrorKind::Discover { source },
        }
    }
}

/// Configures and builds a [`ThreadPool`].
///
/// ```
/// use locus::{PolicyKind, ThreadPoolBuilder, Topology};
/// let pool = ThreadPoolBuilder::new()
///     .num_threads(4)
///     .policy(PolicyKind::Mts { batch: None })
///     .topology(Topology::parse_spec("2x2").unwrap())
///     .build()
///     .unwrap();
/// assert_eq!(pool.num_squads(), 2);
/// let sum = pool.install(|| {
///     let (a, b) = locus::join(|| (0..50u64).sum::<u64>(), || (50..100u64).sum::<u64>());
///     a + b
/// });
/// assert_eq!(sum, 4950);
/// ```
#[derive(Debug, Clone)]
pub struct ThreadPoolBuilder {
    num_threads: Option<usize>,
    policy: PolicyKind,
    factory: Option<PolicyFactory>,
    topology: Option<Topology>,
    pin: Option<Pinning>,
    stack_size: usize,
    counters: Option<CounterKind>,
    /// For a pool over one domain cut out of a virtual machine: the PU of that machine
    /// behind each PU of the pool's topology. CPUs are dealt round robin by these, so
    /// the pools of all domains spread over the allowed CPUs as one pool over the whole
    /// machine would.
    origin_pus: Option<Vec<usize>>,
    /// Where to write a trace of the run, if anywhere; and how that path was given
    /// (`LOCUS_TRACE` or the builder), for the error naming it.
    trace: Option<(std::path::PathBuf, Option<&'static str>)>,
    /// Events each worker keeps for the trace.
    trace_cap: usize,
    /// Where the panics of detached spawns go (`crate::spawn`).
    panic_handler: Option<PanicHandlerSlot>,
    /// Each worker thread's name, from its index (rayon's `thread_name`).
    thread_name: Option<ThreadNameSlot>,
}

/// A builder's thread-naming closure, shown by `Debug` as being there.
#[derive(Clone)]
struct ThreadNameSlot(Arc<std::sync::Mutex<dyn FnMut(usize) -> String + Send>>);

impl fmt::Debug for ThreadNameSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ThreadName")
    }
}

/// A builder's panic handler, shown by `Debug` as being there.
#[derive(Clone)]
struct PanicHandlerSlot(crate::spawn::PanicHandler);

impl fmt::Debug for PanicHandlerSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PanicHandler")
    }
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder::new()
    }
}

impl ThreadPoolBuilder {
    /// A builder with the defaults: one worker per PU of this machine (as far as the
    /// process's affinity mask allows), the default policy (`cats`,
    /// [`PolicyKind::default`]: on one squad, `ws`), pinned.
    pub fn new() -> ThreadPoolBuilder {
        ThreadPoolBuilder {
            num_threads: None,
            policy: PolicyKind::default(),
            factory: None,
            topology: None,
            pin: None,
            stack_size: DEFAULT_STACK_SIZE,
            counters: None,
            origin_pus: None,
            trace: None,
            trace_cap: crate::trace::DEFAULT_TRACE_CAP,
            panic_handler: None,
            thread_name: None,
        }
    }

    /// A builder configured from `LOCUS_NUM_THREADS`, `LOCUS_POLICY`, `LOCUS_TOPOLOGY`
    /// and `LOCUS_PIN` (`pu`, `squad` or `none`; unset or empty variables keep the
    /// defaults).
    pub fn from_env() -> Result<ThreadPoolBuilder, BuildError> {
        let mut builder = ThreadPoolBuilder::new();
        if let Some(value) = env_var("LOCUS_NUM_THREADS") {
            let n = value.trim().parse::<usize>().map_err(|_| {
                BuildError::env(
                    "LOCUS_NUM_THREADS",
                    &value,
                    "expected a positive whole number of threads",
                )
            })?;
            if n == 0 {
                return Err(BuildError::env(
                    "LOCUS_NUM_THREADS",
                    &value,
                    "a pool needs at least one thread",
                ));
            }
            builder = builder.num_threads(n);
        }
        if let Some(value) = env_var("LOCUS_POLICY") {
            let policy = value
                .parse::<PolicyKind>()
                .map_err(|e| BuildError::env("LOCUS_POLICY", &value, e.to_string()))?;
            builder = builder.policy(policy);
        }
        if let Some(value) = env_var("LOCUS_TOPOLOGY") {
            let topology = Topology::parse_spec(&value)
                .map_err(|e| BuildError::env("LOCUS_TOPOLOGY", &value, crate::error_chain(&e)))?;
            builder = builder.topology(topology);
        }
        if let Some(value) = env_var("LOCUS_PIN") {
            let pinning = value
                .parse::<Pinning>()
                .map_err(|e| BuildError::env("LOCUS_PIN", &value, e))?;
            builder = builder.pinning(pinning);
        }
        if let Some(value) = env_var("LOCUS_TRACE_CAP") {
            let cap = value.trim().parse::<usize>().ok().filter(|&c| c > 0);
            let cap = cap.ok_or_else(|| {
                BuildError::env(
                    "LOCUS_TRACE_CAP",
                    &value,
                    "expected a positive whole number of events per worker",
                )
            })?;
            builder = builder.trace_cap(cap);
        }
        if let Some(value) = env_var("LOCUS_TRACE") {
            builder.trace = Some((value.into(), Some("LOCUS_TRACE")));
        }
        Ok(builder)
    }

    /// Number of workers. Default: the topology's PU count.
    pub fn num_threads(mut self, n: usize) -> Self {
        self.num_threads = Some(n);
        self
    }

    /// The scheduling policy. Default: `cats` ([`PolicyKind::default`]).
    pub fn policy(mut self, policy: PolicyKind) -> Self {
        self.policy = policy;
        self.factory = None;
        self
    }

    /// A policy that is not a [`PolicyKind`]'s (a user's own, or one wrapped in a
    /// decorator such as `locus_policy::Logged`), built by `factory` for the pool's
    /// workers. Replaces [`ThreadPoolBuilder::policy`].
    pub fn policy_factory(mut self, factory: PolicyFactory) -> Self {
        self.factory = Some(factory);
        self
    }

    /// Lays the pool over a described machine instead of this one (a *virtual*
    /// topology): squads follow the description, threads run on the real CPUs the
    /// process may use, round robin. More workers than cores is allowed.
    pub fn topology(mut self, topology: Topology) -> Self {
        self.topology = Some(topology);
        self
    }

    /// Pins each worker to its PU's CPU (`true`, [`Pinning::Pu`]) or not at all
    /// (`false`, [`Pinning::None`]); [`ThreadPoolBuilder::pinning`] has the third choice.
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = Some(if pin { Pinning::Pu } else { Pinning::None });
        self
    }

    /// Where the workers may run (see [`Pinning`]). Default: `LOCUS_PIN` through
    /// [`ThreadPoolBuilder::from_env`]; else [`DEFAULT_PINNING`] for the policies that
    /// pin, and none for `ws-unpinned`.
    pub fn pinning(mut self, pinning: Pinning) -> Self {
        self.pin = Some(pinning);
        self
    }

    /// The counter source for policies that measure tasks (`cats`, `cab` learning its
    /// inputs). Default: `LOCUS_COUNTERS` if set, else hardware counters where they can
    /// be opened and declared footprints otherwise. Asking for `perf` where hardware
    /// counters cannot be opened makes `build` fail with the reason.
    pub fn counters(mut self, kind: CounterKind) -> Self {
        self.counters = Some(kind);
        self
    }

    /// Writes a trace of the pool's run to `path` in the Chrome trace-event format that
    /// Perfetto (ui.perfetto.dev) opens: one track per worker grouped by squad, a slice
    /// per task, steals as arrows from victim to thief, the policy's placements, idle
    /// spells (see the `trace` module). The file is written when the pool is dropped
    /// (the global pool: at process exit) and at [`ThreadPool::flush_trace`]. Default:
    /// `LOCUS_TRACE` through [`ThreadPoolBuilder::from_env`], else no trace, and then
    /// the task path costs one test of a flag. A path that cannot be created fails
    /// `build`. With `LOCUS_TRACE=FILE` every pool built from the environment is traced:
    /// the first writes FILE, the k-th FILE with `.k` before its extension (`run.json`,
    /// `run.1.json`, ...).
    pub fn trace(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.trace = Some((path.into(), None));
        self
    }

    /// Events each worker keeps for the trace (default [`crate::DEFAULT_TRACE_CAP`];
    /// `LOCUS_TRACE_CAP`): past it, events are counted as dropped and the trace's
    /// report says how many. Values below 1 are taken as 1.
    pub fn trace_cap(mut self, events: usize) -> Self {
        self.trace_cap = events.max(1);
        self
    }

    /// The name of each worker thread, from its index (default `locus-INDEX`), as
    /// rayon's `thread_name`.
    pub fn thread_name<F>(mut self, name: F) -> Self
    where
        F: FnMut(usize) -> String + Send + 'static,
    {
        self.thread_name = Some(ThreadNameSlot(Arc::new(std::sync::Mutex::new(name))));
        self
    }

    /// Stack size of each worker thread in bytes (default 64 MiB, reserved lazily).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = bytes;
        self
    }

    /// What the panic of a detached spawn ([`ThreadPool::spawn`], [`crate::spawn`]) is
    /// handed to, on the worker that ran it. Without a handler such a panic aborts the
    /// process, as rayon's does; a panicking handler aborts too. Panics of `join`,
    /// `scope` and `install` reach their caller either way.
    pub fn panic_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(Box<dyn std::any::Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(PanicHandlerSlot(Arc::new(handler)));
        self
    }

    /// Starts the workers.
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let topology = match self.topology {
            Some(t) => t,
            None => Topology::discover().map_err(|source| BuildError {
                kind: BuildErrorKind::Discover { source },
            })?,
        };
        let n = self.num_threads.unwrap_or_else(|| topology.num_pus());
        if n == 0 || n > MAX_THREADS {
            return Err(BuildError {
                kind: BuildErrorKind::Threads { requested: n },
            });
        }
        let trace_path = self.trace.as_ref().map(|(path, var)| match var {
            Some(_) => numbered(path, TRACED_FROM_ENV.fetch_add(1, Ordering::Relaxed)),
            None => path.clone(),
        });
        if let (Some((_, var)), Some(path)) = (&self.trace, &trace_path) {
            crate::trace::check_path(path).map_err(|source| match var {
                Some(var) => BuildError::env(
                    var,
                    &path.display().to_string(),
                    format!("cannot create the trace file: {source}"),
                ),
                None => BuildError {
                    kind: BuildErrorKind::Trace {
                        path: path.clone(),
                        source,
                    },
                },
            })?;
        }
        let map = WorkerMap::new(&topology, n);
        let policy = match &self.factory {
            Some(factory) => factory.build(&map),
            None => self.policy.build(&map),
        };
        // Miri has no sched_setaffinity; its runs check memory safety, not placement.
        let pinning = match self.pin {
            // Miri has no sched_setaffinity; its runs check memory safety, not placement.
            _ if cfg!(miri) => Pinning::None,
            Some(pinning) => pinning,
            None if policy.layout().pinned => DEFAULT_PINNING,
            None => Pinning::None,
        };
        let cpus = cpus_for(&topology, &map, pinning, self.origin_pus.as_deref());
        let _span = tracing::info_span!(
            "pool start",
            threads = n,
            policy = policy.name(),
            machine = topology.name()
        )
        .entered();
        let counter_source = if policy.layout().task_events {
            let line = line_size(&topology);
            let source = match self.counters {
                Some(kind) => counters::open(kind, line),
                None => counters::from_env(line),
            };
            Some(source.map_err(|source| BuildError {
                kind: BuildErrorKind::Counters { source },
            })?)
        } else {
            None
        };
        let (mut registry, deques) = Registry::new(policy, map, topology, counter_source);
        if let (Some(handler), Some(r)) = (&self.panic_handler, Arc::get_mut(&mut registry)) {
            // No worker has started yet: the registry has no other reference.
            r.detached.panic_handler = Some(Arc::clone(&handler.0));
        }
        if let Some(path) = trace_path {
            let title = format!(
                "locus {} on {}, {n} workers",
                registry.policy.name(),
                registry.topology.name()
            );
            let trace =
                crate::trace::Trace::new(path.clone(), title, &registry.map, self.trace_cap);
            // No worker has started yet: the registry has no other reference.
            if let Some(r) = Arc::get_mut(&mut registry) {
                r.trace = Some(trace);
            }
            trace_at_exit(&registry);
        }
        let mut threads = Vec::with_capacity(n);
        for (index, (deque, cpu)) in deques.into_iter().zip(cpus.clone()).enumerate() {
            let registry2 = Arc::clone(&registry);
            let name = match &self.thread_name {
                // A panic of the closure, caught once, leaves the lock poisoned; the
                // closure is still there to call.
                Some(ThreadNameSlot(f)) => f.lock().unwrap_or_else(|e| e.into_inner())(index),
                None => format!("locus-{index}"),
            };
            let spawned = std::thread::Builder::new()
                .name(name)
                .stack_size(self.stack_size)
                .spawn(move || registry2.main_loop(index, deque, ThreadSpec { cpus: cpu }));
            match spawned {
                Ok(handle) => threads.push(handle),
                Err(source) => {
                    registry.terminate();
                    threads
                        .into_iter()
                        .for_each(|t: JoinHandle<()>| drop(t.join()));
                    return Err(BuildError {
                        kind: BuildErrorKind::Spawn { source },
                    });
                }
            }
        }
        tracing::debug!(
            squads = registry.map.num_squads(),
            pinning = %pinning,
            "pool started"
        );
        Ok(ThreadPool {
            registry,
            threads: Mutex::new(threads),
            cpus,
        })
    }

    /// The builder, its topology replaced by `topology`, a domain cut out of the
    /// machine whose PUs `origin_pus` are (see the field).
    pub(crate) fn for_domain(mut self, topology: Topology, origin_pus: Vec<usize>) -> Self {
        self.topology = Some(topology);
        self.origin_pus = Some(origin_pus);
        self
    }

    /// The topology set on the builder, if any.
    pub(crate) fn topology_set(&self) -> Option<&Topology> {
        self.topology.as_ref()
    }

    /// Builds the global pool with this configuration. Fails if it was built already
    /// (explicitly, or implicitly by a `join`/`scope` from outside any pool).
    pub fn build_global(self) -> Result<(), BuildError> {
        if GLOBAL.get().is_some() {
            return Err(BuildError {
                kind: BuildErrorKind::GlobalAlreadyBuilt,
            });
        }
        GLOBAL.set(self.build()?).map_err(|_| BuildError {
            kind: BuildErrorKind::GlobalAlreadyBuilt,
        })
    }
}

/// The cache line size of the machine's caches (the first cache that gives one), 64
/// where none does.
fn line_size(topology: &Topology) -> u32 {
    topology
        .caches()
        .iter()
        .map(|c| c.line_size)
        .find(|&l| l > 0)
        .unwrap_or(64)
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The CPUs each worker is pinned to under `pinning` (empty: not pinned). A worker's
/// own CPU is its PU's on a discovered machine; on a virtual topology, the allowed CPUs
/// dealt round robin by PU. Under [`Pinning::Squad`] a worker gets the own CPUs of all
/// its squad's workers. `origin` maps the PUs of a domain cut out of a virtual machine
/// back to that machine's, by which the CPUs are dealt.
fn cpus_for(
    topology: &Topology,
    map: &WorkerMap,
    pinning: Pinning,
    origin: Option<&[usize]>,
) -> Vec<Vec<usize>> {
    let n = map.num_workers();
    if pinning == Pinning::None {
        return vec![Vec::new(); n];
    }
    let allowed = allowed_cpus().unwrap_or_default();
    let own: Vec<Option<usize>> = (0..n)
        .map(|w| {
            let pu = &topology.pus()[map.pu_of(w)];
            match pu.os_index {
                Some(cpu) if !topology.is_virtual() => Some(cpu),
                _ if allowed.is_empty() => None,
                _ => {
                    let index = origin
                        .and_then(|o| o.get(pu.index).copied())
                        .unwrap_or(pu.index);
                    Some(allowed[index % allowed.len()])
                }
            }
        })
        .collect();
    (0..n)
        .map(|w| match pinning {
            Pinning::Squad => {
                let squad = map.squad_of(w);
                let mut cpus: Vec<usize> = (0..n)
                    .filter(|&v| map.squad_of(v) == squad)
                    .filter_map(|v| own[v])
                    .collect();
                cpus.sort_unstable();
                cpus.dedup();
                cpus
            }
            _ => own[w].into_iter().collect(),
        })
        .collect()
}

/// A pool of worker threads running one policy on one topology.
///
/// Dropping the handle stops the workers once they are idle and joins them.
pub struct ThreadPool {
    registry: Arc<Registry>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// Per worker, the CPUs it was pinned to (empty: not pinned).
    cpus: Vec<Vec<usize>>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("threads", &self.num_threads())
            .field("policy", &self.policy_name())
            .field("machine", &self.registry.topology.name())
            .finish()
    }
}

impl ThreadPool {
    /// Runs `op` on a worker of this pool and returns its result; `join`, `scope` and
    /// `for_range` inside it run on this pool. A panic in `op` is resumed here.
    ///
    /// Called from a worker of another pool, that worker runs its own pool's tasks while
    /// it waits (as rayon's does), so `a.install(|| b.install(|| a.install(..)))` works
    /// at any depth. It may thus run other tasks of its pool on top of the caller's
    /// stack before this returns: one that blocks on a lock the caller holds across
    /// this call deadlocks.
    /// Any other thread blocks until `op` is done.
    #[track_caller]
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker(Location::caller(), |_| op())
    }

    /// [`crate::scope`] on this pool. The caller waits as [`ThreadPool::install`]'s
    /// does.
    #[track_caller]
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.registry
            .in_worker(Location::caller(), |worker| scope_in(worker, op))
    }

    /// Number of workers.
    pub fn num_threads(&self) -> usize {
        self.registry.num_workers()
    }

    /// The index of the calling thread's worker if it is a worker of this pool (of this
    /// pool, not merely of some pool: compare [`crate::current_worker_index`]).
    pub fn current_thread_index(&self) -> Option<usize> {
        crate::registry::WorkerThread::current()
            .filter(|w| Arc::ptr_eq(&w.registry, &self.registry))
            .map(|w| w.index)
    }

    /// The CPUs (Linux CPU numbers) worker `worker` was asked to be pinned to, ascending;
    /// empty if it is not pinned or there is no such worker. A worker whose pinning the
    /// kernel refused runs unpinned (with a warning in the log).
    pub fn worker_cpus(&self, worker: usize) -> &[usize] {
        self.cpus.get(worker).map_or(&[], Vec::as_slice)
    }

    /// Number of squads (workers under one last-level cache).
    pub fn num_squads(&self) -> usize {
        self.registry.map.num_squads()
    }

    /// The workers and their squads.
    pub fn workers(&self) -> &WorkerMap {
        &self.registry.map
    }

    /// The policy's name.
    pub fn policy_name(&self) -> &'static str {
        self.registry.policy.name()
    }

    /// The topology the pool runs on.
    pub fn topology(&self) -> &Topology {
        &self.registry.topology
    }

    /// What the policy decided and from what (`locus bench --explain`), and which
    /// counter source measured the tasks, if any.
    pub fn explain(&self) -> String {
        let mut text = self.registry.policy.explain();
        if let Some(source) = &self.registry.counter_source {
            text.push_str(&format!("counters: {}\n", source.describe()));
        }
        text
    }

    /// The scheduling statistics by name, cumulative since the pool started: the
    /// policy's own (for example inter-squad tasks taken per squad, busy refusals,
    /// profile iterations), then, on a pool of two squads or more, the pool's count of
    /// loop chunks that ran on the same squad as the time before (`chunk_same_squad` of
    /// `chunk_compared`, see `locus_policy::ChunkPlacement`).
    pub fn policy_stats(&self) -> Vec<(String, u64)> {
        self.registry.policy_stats()
    }

    /// The pool's shared state, for the runtime's other modules.
    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// A snapshot of the per-worker statistics (see [`PoolStats::since`]).
    pub fn stats(&self) -> PoolStats {
        self.registry.stats()
    }

    /// Writes the trace of the run so far to its file ([`ThreadPoolBuilder::trace`]),
    /// replacing what an earlier flush wrote; `None` if the pool is not traced. The
    /// workers go on recording; dropping the pool writes the whole run.
    ///
    /// # Errors
    /// Any error creating or writing the file.
    pub fn flush_trace(&self) -> std::io::Result<Option<crate::TraceReport>> {
        match &self.registry.trace {
            Some(trace) => {
                let report = trace.write()?;
                if report.dropped > 0 {
                    eprintln!("{report}");
                }
                Ok(Some(report))
            }
            None => Ok(None),
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.registry.terminate();
        let on_own_worker = crate::registry::WorkerThread::current()
            .is_some_and(|w| Arc::ptr_eq(&w.registry, &self.registry));
        // Outstanding detached spawns keep the workers until they are done; the handle
        // waits for none of them (see `crate::spawn`).
        if !on_own_worker && self.registry.detached.none_outstanding() {
            let threads =
                std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
            for t in threads {
                let _ = t.join();
            }
        }
    }
}

static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();

/// The global pool, built from the environment on first use.
///
/// # Panics
/// If the environment's `LOCUS_*` settings are invalid, with a message naming the
/// variable and the problem. Call [`ThreadPoolBuilder::from_env`] and
/// [`ThreadPoolBuilder::build_global`] first to handle that as an error instead.
pub fn global() -> &'static ThreadPool {
    GLOBAL.get_or_init(
        || match ThreadPoolBuilder::from_env().and_then(ThreadPoolBuilder::build) {
            Ok(pool) => pool,
            Err(e) => panic!(
                "locus: cannot build the global pool: {}",
                crate::error_chain(&e)
            ),
        },
    )
}

pub(crate) fn global_registry() -> &'static Registry {
    &global().registry
}

/// Traced pools, written at process exit if still alive then (the global pool is never
/// dropped, nor are pools a program leaks or keeps to its end, as the OpenMP layer's).
static TRACED: Mutex<Vec<Weak<Registry>>> = Mutex::new(Vec::new());

/// Pools built so far with `LOCUS_TRACE` (see [`ThreadPoolBuilder::trace`]).
static TRACED_FROM_ENV: AtomicUsize = AtomicUsize::new(0);

/// The `k`-th pool traced to `path` from `LOCUS_TRACE` writes `path` (k = 0) or `path`
/// with `.k` before its extension (`run.json`, `run.1.json`, ...), so pools do not
/// overwrite each other's traces.
fn numbered(path: &Path, k: usize) -> PathBuf {
    if k == 0 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{k}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{k}"),
    };
    path.with_file_name(name)
}

/// Arranges for `registry`'s trace to be written at exit if the pool lives that long
/// (once dropped, its trace is written by the drop).
fn trace_at_exit(registry: &Arc<Registry>) {
    extern "C" fn write_traces() {
        let traced = std::mem::take(&mut *TRACED.lock().unwrap_or_else(|e| e.into_inner()));
        for registry in traced.iter().filter_map(Weak::upgrade) {
            if let Some(trace) = &registry.trace {
                trace.write_reporting();
            }
        }
    }
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: `atexit` takes a plain function with no arguments, which this is; it
        // does not unwind (`write_reporting` reports errors instead of panicking).
        if unsafe { libc::atexit(write_traces) } != 0 {
            eprintln!("locus: could not arrange for traces to be written at exit");
        }
    });
    let mut traced = TRACED.lock().unwrap_or_else(|e| e.into_inner());
    traced.retain(|r| r.strong_count() > 0);
    traced.push(Arc::downgrade(registry));
}
