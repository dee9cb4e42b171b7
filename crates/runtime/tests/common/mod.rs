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

/// A small deterministic generator (splitmix64), seeded per test and printed.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}
