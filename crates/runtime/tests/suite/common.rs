//! Helpers shared by the runtime's integration tests.
#![allow(dead_code)]

use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology};

/// The machines every policy is tried on: this one, two one-core sockets, and the
/// four-socket Opteron laid over this machine's cores.
pub(crate) const MACHINES: [&str; 3] = ["this", "2x1", "opteron-8380"];

pub(crate) fn pool(policy: PolicyKind, threads: usize, machine: &str) -> ThreadPool {
    let mut builder = ThreadPoolBuilder::new().num_threads(threads).policy(policy);
    if machine != "this" {
        builder = builder.topology(Topology::parse_spec(machine).expect("valid machine"));
    }
    builder.build().expect("pool builds")
}

/// Sum of `lo..hi` by fork-join down to single numbers.
pub(crate) fn sum(lo: u64, hi: u64) -> u64 {
    if hi - lo <= 1 {
        return lo;
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = locus::join(|| sum(lo, mid), || sum(mid, hi));
    a + b
}
