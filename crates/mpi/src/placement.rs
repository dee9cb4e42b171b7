//! Where a rank's pool runs: the rank's binding, the pool built from it, and what each
//! worker thread may run on, read on that thread.
//!
//! `mpirun` binds a rank by setting its affinity mask before the program starts.
//! `ThreadPoolBuilder`'s discovery (`Topology::discover`) keeps only the CPUs the mask
//! allows, so a pool built with no topology of its own has one worker per allowed PU,
//! grouped into the squads (last-level caches) those PUs belong to, and pins each
//! worker inside the mask. Nothing here sets an affinity: this module reads the mask
//! before the pool starts ([`binding`]) and each worker's mask after
//! ([`Placement::probe`]), so a report says what the kernel actually enforces.
//!
//! # Who may call
//! [`binding`] on the main thread before any pool is built (later, it still reads the
//! main thread's mask, which the pool does not change). [`Placement::probe`] from
//! outside the pool: it broadcasts one share to every worker and blocks until all ran.

use std::sync::Mutex;

use anyhow::{anyhow, Context, Result};
use locus::ThreadPool;

/// The CPUs the calling thread may run on (`sched_getaffinity`), ascending.
///
/// # Errors
///
/// When the mask cannot be read (off Linux).
pub fn binding() -> Result<Vec<usize>> {
    locus_topo::allowed_cpus().context("reading this rank's affinity mask")
}

/// A worker's affinity mask as it read it, or why it could not.
type Mask = Result<Vec<usize>, String>;

/// Where one rank's pool runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The rank's affinity mask (its binding), ascending CPU numbers.
    pub binding: Vec<usize>,
    /// The CPUs of each squad of the pool, in the pool's squad order.
    pub squads: Vec<Vec<usize>>,
    /// For each worker, the CPUs its thread may run on, read by that thread.
    pub workers: Vec<Vec<usize>>,
}

impl Placement {
    /// Reads where `pool`'s workers may run: every worker reads its own thread's
    /// affinity mask at once (a broadcast), and the pool's squads are listed by CPU.
    /// `binding` is the rank's mask, read before the pool started.
    ///
    /// # Errors
    ///
    /// When a worker cannot read its mask.
    pub fn probe(pool: &ThreadPool, binding: Vec<usize>) -> Result<Placement> {
        let masks: Vec<Mutex<Option<Mask>>> =
            (0..pool.num_threads()).map(|_| Mutex::new(None)).collect();
        pool.broadcast(|i| {
            let mask = locus_topo::allowed_cpus().map_err(|e| e.to_string());
            *masks[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(mask);
        });
        let workers = masks
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                m.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_else(|| Err("its share did not run".to_owned()))
                    .map_err(|e| anyhow!("worker {i} cannot read its affinity mask: {e}"))
            })
            .collect::<Result<Vec<_>>>()?;
        let topology = pool.topology();
        let squads = topology
            .cache_domains()
            .iter()
            .map(|d| {
                d.pus
                    .iter()
                    .filter_map(|&pu| topology.pus()[pu].os_index)
                    .collect()
            })
            .collect();
        Ok(Placement {
            binding,
            squads,
            workers,
        })
    }

    /// The workers whose threads may run on a CPU outside the binding (or on none), by
    /// index; empty when every worker stays inside it.
    pub fn outside(&self) -> Vec<usize> {
        outside(&self.binding, &self.workers)
    }
}

/// The workers among `workers` (each a list of CPUs) whose CPUs are not all in
/// `binding`, or that have none.
pub fn outside(binding: &[usize], workers: &[Vec<usize>]) -> Vec<usize> {
    workers
        .iter()
        .enumerate()
        .filter(|(_, cpus)| cpus.is_empty() || cpus.iter().any(|c| !binding.contains(c)))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_names_the_workers_that_leave() {
        let binding = [2, 3];
        let workers = [vec![2], vec![3], vec![1, 2], vec![]];
        assert_eq!(outside(&binding, &workers), [2, 3]);
    }

    #[test]
    fn a_pool_here_stays_inside_this_process_mask() {
        let binding = binding().unwrap();
        let pool = locus::ThreadPoolBuilder::new().build().unwrap();
        let placement = Placement::probe(&pool, binding).unwrap();
        assert_eq!(placement.workers.len(), pool.num_threads());
        assert_eq!(placement.squads.len(), pool.num_squads());
        assert!(placement.outside().is_empty(), "{placement:?}");
    }
}
