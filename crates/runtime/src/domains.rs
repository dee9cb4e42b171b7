//! Pools per domain: one pool per NUMA node, package or squad of the machine, each
//! pinned there, for programs that say where their work runs (oneTBB's NUMA arenas,
//! rayon#319's node-restricted pools).
//!
//! [`ThreadPoolBuilder::build_per_domain`] cuts the machine (the builder's topology, or
//! this one as far as the process's affinity mask allows) into its domains of one kind
//! and builds one [`ThreadPool`] over each, with the builder's other settings: policy,
//! pinning, counters, stack size, and a thread count that applies to each pool (default:
//! one worker per PU of the domain). Each pool's topology is its domain's part of the
//! machine ([`Topology::restrict`]), so its squads are the squads of that domain.
//!
//! # What holds
//! - The pools are separate: no task moves from one to another. Everything a task of a
//!   pool spawns (`join`, `scope`, `for_range`, the parallel iterators) runs on that
//!   pool's workers, and on no other thread.
//! - On this machine (a discovered topology) each worker is pinned to CPUs of its
//!   domain: under [`Pinning::Pu`](crate::Pinning::Pu) its own PU's, under
//!   [`Pinning::Squad`](crate::Pinning::Squad) its squad's, which lie in the domain
//!   too. On a virtual topology the workers are dealt over the allowed CPUs round robin
//!   by their PU in the whole described machine, as one pool over it would be; the
//!   domains are then only a grouping of the workers.
//! - Memory lands where it is first touched: Linux's default policy places a page on
//!   the NUMA node of the CPU that first writes it. Data allocated and first written by
//!   tasks of a pinned NUMA node's pool is therefore on that node, with no NUMA
//!   library; data initialised by the caller's thread is wherever that thread ran. A
//!   large `vec![0; n]` or `Vec::with_capacity(n)` touches nothing yet (the kernel maps
//!   a zeroed page at its first write). A `numactl --membind` or `set_mempolicy` in
//!   force overrides this.
//!
//! # Who may call
//! [`run_each`] and [`run_with`] may be called from any thread. Called from a worker of
//! one of the pools, they run that pool's share in place, and the worker runs its own
//! pool's tasks while it waits for the others (so a share that sends work back to the
//! caller's pool, with [`ThreadPool::install`], finds it served). A worker of a pool
//! not among them runs its own pool's tasks while it waits, as
//! [`ThreadPool::install`] from another pool does. Any other thread blocks until every
//! share is done.

use crate::job::StackJob;
use crate::latch::{CrossLatch, Latch, LockLatch};
use crate::pool::{BuildError, ThreadPool, ThreadPoolBuilder};
use crate::registry::Registry;
use crate::registry::WorkerThread;
use crate::unwind;
use locus_policy::TaskInfo;
use locus_task::Spawner;
use locus_topo::{allowed_cpus, Topology};
use std::fmt;
use std::panic::Location;
use std::str::FromStr;

/// A kind of domain of the machine, one pool per instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Domain {
    /// A NUMA node: the PUs closest to one memory.
    Numa,
    /// A package (socket).
    Package,
    /// A squad: the PUs under one last-level cache.
    Squad,
}

impl Domain {
    /// The names [`Domain`] parses, in order.
    pub const NAMES: [&'static str; 3] = ["numa", "package", "squad"];

    /// What one instance is called in messages: "NUMA node", "package", "squad".
    pub fn noun(self) -> &'static str {
        match self {
            Domain::Numa => "NUMA node",
            Domain::Package => "package",
            Domain::Squad => "squad",
        }
    }

    /// The logical PU indices of each instance of this kind on `topology`, in order.
    fn pus_of(self, topology: &Topology) -> Vec<Vec<usize>> {
        match self {
            Domain::Numa => topology
                .numa_nodes()
                .iter()
                .map(|n| n.pus.clone())
                .collect(),
            Domain::Package => topology.packages().iter().map(|p| p.pus.clone()).collect(),
            Domain::Squad => topology
                .cache_domains()
                .iter()
                .map(|d| d.pus.clone())
                .collect(),
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Domain::Numa => "numa",
            Domain::Package => "package",
            Domain::Squad => "squad",
        })
    }
}

impl FromStr for Domain {
    type Err = String;

    fn from_str(s: &str) -> Result<Domain, String> {
        match s.trim() {
            "numa" => Ok(Domain::Numa),
            "package" => Ok(Domain::Package),
            "squad" => Ok(Domain::Squad),
            other => Err(format!(
                "unknown domain {other:?}: expected one of {}",
                Domain::NAMES.join(", ")
            )),
        }
    }
}

/// One domain's pool: a [`ThreadPool`] (it derefs to one) and which domain it serves.
#[derive(Debug)]
pub struct DomainPool {
    pool: ThreadPool,
    domain: Domain,
    index: usize,
    pus: Vec<usize>,
    cpus: Vec<usize>,
}

impl DomainPool {
    /// The kind of domain.
    pub fn domain(&self) -> Domain {
        self.domain
    }

    /// The domain's logical index on the machine the pools were cut from (the NUMA
    /// node's, package's or squad's index in its [`Topology`]); also this pool's position
    /// in the vector [`ThreadPoolBuilder::build_per_domain`] returns.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The domain's PUs, as logical indices on the machine the pools were cut from.
    /// PU `i` of the pool's own topology is `pus()[i]`.
    pub fn pus(&self) -> &[usize] {
        &self.pus
    }

    /// The CPUs (Linux CPU numbers) this pool's workers are pinned to, ascending; empty
    /// if they are not pinned. On a discovered machine these are the domain's CPUs that
    /// the process may use (all of them when each PU has a worker).
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// The pool.
    pub fn pool(&self) -> &ThreadPool {
        &self.pool
    }

    /// The pool, taken out.
    pub fn into_pool(self) -> ThreadPool {
        self.pool
    }
}

impl std::ops::Deref for DomainPool {
    type Target = ThreadPool;

    fn deref(&self) -> &ThreadPool {
        &self.pool
    }
}

impl ThreadPoolBuilder {
    /// One pool per instance of `domain` (NUMA node, package or squad) of the machine,
    /// in the order of the machine's [`Topology`]; see the [module](crate::domains) for
    /// what each pool gets and what holds.
    ///
    /// The machine is the builder's topology, or else this one as far as the process's
    /// affinity mask allows. A discovered machine is cut to the CPUs the process may use
    /// now, so a domain none of whose CPUs is allowed gets no pool.
    ///
    /// ```
    /// use locus::domains::Domain;
    /// use locus::{ThreadPoolBuilder, Topology};
    /// let pools = ThreadPoolBuilder::new()
    ///     .topology(Topology::parse_spec("2x2").unwrap()) // two packages of two cores
    ///     .build_per_domain(Domain::Package)
    ///     .unwrap();
    /// assert_eq!(pools.len(), 2);
    /// assert_eq!(pools[1].pus(), &[2, 3]);
    /// let sums = locus::domains::run_each(&pools, |d| {
    ///     assert!(d.current_thread_index().is_some()); // on one of d's workers
    ///     d.index() * 10
    /// });
    /// assert_eq!(sums, [0, 10]);
    /// ```
    ///
    /// # Errors
    ///
    /// When the machine cannot be discovered; when it reports no instance of `domain`;
    /// when none of a discovered machine's CPUs is allowed to the process; when a domain
    /// cannot be cut out (an empty set of PUs); and as [`ThreadPoolBuilder::build`] for
    /// each pool (the pools built before are stopped then).
    pub fn build_per_domain(self, domain: Domain) -> Result<Vec<DomainPool>, BuildError> {
        let machine = match self.topology_set() {
            Some(t) => t.clone(),
            None => Topology::discover().map_err(BuildError::discover)?,
        };
        let machine = if machine.is_virtual() || cfg!(miri) {
            machine
        } else {
            allowed_part(&machine)?
        };
        let parts = domain.pus_of(&machine);
        if parts.is_empty() {
            return Err(BuildError::no_domain(domain, machine.name()));
        }
        let _span = tracing::info_span!(
            "pools per domain",
            domain = %domain,
            pools = parts.len(),
            machine = machine.name()
        )
        .entered();
        let mut pools = Vec::with_capacity(parts.len());
        for (index, pus) in parts.into_iter().enumerate() {
            let topology = machine
                .restrict(&pus)
                .map_err(|e| BuildError::domain_cut(domain, index, e))?;
            let pool = self.clone().for_domain(topology, pus.clone()).build()?;
            let mut cpus: Vec<usize> = (0..pool.num_threads())
                .flat_map(|w| pool.worker_cpus(w).iter().copied())
                .collect();
            cpus.sort_unstable();
            cpus.dedup();
            pools.push(DomainPool {
                pool,
                domain,
                index,
                pus,
                cpus,
            });
        }
        Ok(pools)
    }
}

/// The part of a discovered machine whose CPUs the process may use now.
fn allowed_part(machine: &Topology) -> Result<Topology, BuildError> {
    match allowed_cpus() {
        Ok(allowed) => allowed_part_of(machine, &allowed),
        // No affinity mask to honour (off Linux): the machine as described.
        Err(_) => Ok(machine.clone()),
    }
}

/// The part of `machine` whose CPUs are in `allowed` (sorted); PUs without a CPU
/// number are kept.
fn allowed_part_of(machine: &Topology, allowed: &[usize]) -> Result<Topology, BuildError> {
    let keep: Vec<usize> = machine
        .pus()
        .iter()
        .filter(|pu| {
            pu.os_index
                .is_none_or(|cpu| allowed.binary_search(&cpu).is_ok())
        })
        .map(|pu| pu.index)
        .collect();
    if keep.is_empty() {
        let cpus: Vec<usize> = machine.pus().iter().filter_map(|p| p.os_index).collect();
        return Err(BuildError::no_allowed_cpu(machine.name(), &cpus, allowed));
    }
    if keep.len() == machine.num_pus() {
        return Ok(machine.clone());
    }
    machine.restrict(&keep).map_err(BuildError::discover)
}

/// Runs `op(pool)` on a worker of each pool, all at the same time, and returns the
/// results in the pools' order. `op` may borrow from the caller; inside it, `join`,
/// `scope`, `for_range` and the parallel iterators run on that pool. A panic of any
/// call is resumed here after all have finished (the first pool's if several panic).
///
/// Each call is a root task named after the call site, so its ids are the same every
/// time the same line runs. See the [module](crate::domains) for who may call.
#[track_caller]
pub fn run_each<F, R>(pools: &[DomainPool], op: F) -> Vec<R>
where
    F: Fn(&DomainPool) -> R + Sync,
    R: Send,
{
    run_with(pools, std::iter::repeat(()), |d, ()| op(d))
}

/// [`run_each`] with one input per pool, moved to it: `op(&pools[i], input i)`. What a
/// pool owns goes in this way, for instance its part of an array (`chunks_mut`), as
/// the [module](crate::domains)'s example does. Pools and inputs are paired as `zip`
/// pairs them: one call per pair, the results in order; extra inputs are dropped unused
/// and extra pools run nothing.
///
/// ```
/// use locus::domains::{self, Domain};
/// use locus::prelude::*;
/// use locus::{ThreadPoolBuilder, Topology};
/// let pools = ThreadPoolBuilder::new()
///     .topology(Topology::parse_spec("2x2").unwrap())
///     .build_per_domain(Domain::Package)
///     .unwrap();
/// let mut data = vec![0u64; 1000];
/// let halves = data.chunks_mut(500);
/// let sums = domains::run_with(&pools, halves, |d, half| {
///     half.par_iter_mut().for_each(|x| *x = d.index() as u64 + 1);
///     half.par_iter().sum::<u64>()
/// });
/// assert_eq!(sums, [500, 1000]);
/// ```
#[track_caller]
pub fn run_with<I, F, R>(pools: &[DomainPool], inputs: I, op: F) -> Vec<R>
where
    I: IntoIterator,
    I::Item: Send,
    F: Fn(&DomainPool, I::Item) -> R + Sync,
    R: Send,
{
    let location: &Location<'_> = Location::caller();
    let info = Spawner::root_info(location);
    let own = pools
        .iter()
        .position(|d| d.current_thread_index().is_some());
    match WorkerThread::current() {
        // A worker of any pool keeps working for its pool while it waits; the shares
        // run in other pools, hence latches that hold its pool alive.
        Some(worker) => run_jobs(pools, inputs, &op, info, own, || {
            CrossLatch::new(&worker.registry, worker.index)
        }),
        None => run_jobs(pools, inputs, &op, info, None, LockLatch::new),
    }
}

/// Waiting for the jobs of [`run_with`] that run in other pools.
trait WaitAll: Latch + Sized {
    /// Returns once every latch of `latches` is set.
    fn wait_all(latches: &[&Self]);
}

impl WaitAll for LockLatch {
    fn wait_all(latches: &[&Self]) {
        latches.iter().for_each(|l| l.wait());
    }
}

impl WaitAll for CrossLatch<Registry> {
    /// On the latches' owner, a worker, which runs its own pool's tasks meanwhile (a
    /// share that sends work to the owner's pool finds it served).
    fn wait_all(latches: &[&Self]) {
        let done = || latches.iter().all(|l| l.probe());
        if !done() {
            if let Some(worker) = WorkerThread::current() {
                worker.wait_until_cold(done);
            }
        }
    }
}

/// The body of [`run_with`]: `own`, the caller's pool if it is a worker of one, runs its
/// share in place; the other shares are injected into their pools with latches made by
/// `latch`, and waited for.
fn run_jobs<I, F, R, L>(
    pools: &[DomainPool],
    inputs: I,
    op: &F,
    info: TaskInfo,
    own: Option<usize>,
    latch: impl Fn() -> L,
) -> Vec<R>
where
    I: IntoIterator,
    I::Item: Send,
    F: Fn(&DomainPool, I::Item) -> R + Sync,
    R: Send,
    L: WaitAll,
{
    let jobs: Vec<_> = pools
        .iter()
        .zip(inputs)
        .map(|(d, input)| StackJob::new(info, move || op(d, input), latch()))
        .collect();
    let own = own.filter(|&i| i < jobs.len());
    for (i, (job, d)) in jobs.iter().zip(pools).enumerate() {
        if Some(i) != own {
            // SAFETY: `jobs` is not moved or dropped until every job pushed here has set
            // its latch (the wait below); each ref is pushed once.
            d.registry().inject(unsafe { job.as_job_ref() });
        }
    }
    // The caller's own pool's share, in place, as the root task the others run as.
    let mut own_result = own.map(|i| {
        let worker = WorkerThread::current();
        let saved = worker.map(|w| w.ctx.replace(Spawner::of(info)));
        let result = unwind::halt_unwinding(|| jobs[i].run_inline());
        if let (Some(w), Some(saved)) = (worker, saved) {
            w.ctx.set(saved);
        }
        result
    });
    let others: Vec<&L> = jobs
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != own)
        .map(|(_, job)| &job.latch)
        .collect();
    L::wait_all(&others);
    drop(others);
    let mut results = Vec::with_capacity(jobs.len());
    let mut first_panic = None;
    for (i, job) in jobs.into_iter().enumerate() {
        let result = match own_result.take_if(|_| Some(i) == own) {
            Some(r) => r,
            None => unwind::halt_unwinding(|| job.into_result()),
        };
        match result {
            Ok(r) => results.push(r),
            Err(p) => {
                first_panic.get_or_insert(p);
            }
        }
    }
    if let Some(p) = first_panic {
        unwind::resume_unwinding(p);
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A fake sysfs tree of one package with CPUs 60-63, one NUMA node.
    fn fake_machine() -> Topology {
        let root = std::env::temp_dir().join(format!("locus-domains-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let write = |rel: &str, content: &str| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().expect("has a parent")).expect("temp dir");
            fs::write(path, content).expect("temp file");
        };
        write("cpu/online", "60-63\n");
        for cpu in 60..64 {
            let t = format!("cpu/cpu{cpu}/topology");
            write(&format!("{t}/physical_package_id"), "0\n");
            write(&format!("{t}/core_id"), &format!("{cpu}\n"));
            write(&format!("{t}/thread_siblings_list"), &format!("{cpu}\n"));
            write(&format!("{t}/core_cpus_list"), &format!("{cpu}\n"));
        }
        let machine = Topology::from_sysfs(&root, None).expect("fake tree");
        let _ = fs::remove_dir_all(&root);
        machine
    }

    #[test]
    fn a_machine_none_of_whose_cpus_is_allowed_is_an_error_naming_both_sets() {
        let machine = fake_machine();
        let err = allowed_part_of(&machine, &[0, 1]).expect_err("no CPU allowed");
        let text = err.to_string();
        assert!(text.contains("(60-63)") && text.contains("(0-1)"), "{text}");
        let part = allowed_part_of(&machine, &[1, 61, 62]).expect("two allowed");
        let cpus: Vec<_> = part.pus().iter().map(|p| p.os_index).collect();
        assert_eq!(cpus, [Some(61), Some(62)]);
    }

    #[test]
    fn domain_errors_name_the_domain_and_the_machine() {
        let text = BuildError::no_domain(Domain::Numa, "my box").to_string();
        assert_eq!(
            text,
            "machine \"my box\" reports no NUMA node with PUs to build a pool on"
        );
        let machine = fake_machine();
        let cut = machine.restrict(&[]).expect_err("nothing to keep");
        let err = BuildError::domain_cut(Domain::Package, 3, cut);
        let text = crate::error_chain(&err);
        assert!(
            text.starts_with("cannot cut package 3 out for its pool: "),
            "{text}"
        );
        assert!(text.contains("empty"), "{text}");
    }
}
