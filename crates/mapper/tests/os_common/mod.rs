//! A fake [`CpuBinding`] for the actuator and loop tests: a table of threads (tid -> pid,
//! mask) in memory, so no test calls `sched_setaffinity` on a real thread by accident.

#![allow(dead_code)]

use locus_mapper::act::CpuBinding;
use std::collections::{HashMap, HashSet};
use std::io;

/// Threads and their masks, and every `set` made.
#[derive(Debug, Default)]
pub(crate) struct FakeCpuBinding {
    /// tid -> (pid, allowed CPUs).
    pub(crate) threads: HashMap<u32, (u32, Vec<usize>)>,
    /// Processes whose threads may not be changed (`set` gives EPERM).
    pub(crate) protected: HashSet<u32>,
    /// Every successful `set`: (tid, CPUs).
    pub(crate) sets: Vec<(u32, Vec<usize>)>,
    /// tid -> start time; a thread not listed started at 0.
    pub(crate) starts: HashMap<u32, u64>,
}

impl FakeCpuBinding {
    /// Threads `tids` of `pid`, each allowed `mask`.
    pub(crate) fn with(mut self, pid: u32, tids: &[u32], mask: &[usize]) -> FakeCpuBinding {
        for &tid in tids {
            self.threads.insert(tid, (pid, mask.to_vec()));
        }
        self
    }

    /// Thread `tid` exits and the kernel gives its id to a new thread of `pid`, allowed
    /// `mask`, with a later start time.
    pub(crate) fn recycle(&mut self, tid: u32, pid: u32, mask: &[usize]) {
        self.threads.insert(tid, (pid, mask.to_vec()));
        *self.starts.entry(tid).or_insert(0) += 1;
    }

    /// The current mask of `tid`.
    pub(crate) fn mask(&self, tid: u32) -> Option<&[usize]> {
        self.threads.get(&tid).map(|(_, m)| m.as_slice())
    }

    fn lookup(&self, pid: u32, tid: u32) -> io::Result<()> {
        match self.threads.get(&tid) {
            Some((p, _)) if *p == pid => Ok(()),
            _ => Err(io::Error::from_raw_os_error(libc::ESRCH)),
        }
    }
}

impl CpuBinding for FakeCpuBinding {
    fn get(&mut self, pid: u32, tid: u32) -> io::Result<Vec<usize>> {
        self.lookup(pid, tid)?;
        Ok(self.threads[&tid].1.clone())
    }

    fn set(&mut self, pid: u32, tid: u32, cpus: &[usize]) -> io::Result<()> {
        self.lookup(pid, tid)?;
        if self.protected.contains(&pid) {
            return Err(io::Error::from_raw_os_error(libc::EPERM));
        }
        assert!(!cpus.is_empty(), "the actuator asked for an empty mask");
        self.threads.get_mut(&tid).unwrap().1 = cpus.to_vec();
        self.sets.push((tid, cpus.to_vec()));
        Ok(())
    }

    fn start_time(&mut self, pid: u32, tid: u32) -> io::Result<Option<u64>> {
        self.lookup(pid, tid)?;
        Ok(Some(self.starts.get(&tid).copied().unwrap_or(0)))
    }
}
