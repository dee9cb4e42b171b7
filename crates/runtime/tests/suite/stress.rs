//! Conservation under load: random fork-join trees of at least a million tasks in all,
//! mixing `join`, `scope` spawns and `for_range`, under every policy on virtual
//! topologies with more workers than cores. Every leaf adds its own value to a sum and
//! marks itself in a bitmap, so a task lost or run twice shows up as a wrong sum or a
//! bit set twice. The seed is printed; set `LOCUS_STRESS_SEED` to replay one.

use crate::common::pool;
use locus::PolicyKind;
use locus_task::rng::SplitMix64;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

struct Tree<'a> {
    sum: &'a AtomicU64,
    marks: &'a [AtomicU8],
}

impl Tree<'_> {
    /// Runs the leaves `lo..hi` through a random mix of join, scope and for_range.
    fn run(&self, lo: usize, hi: usize, seed: u64) {
        let n = hi - lo;
        if n <= 2 {
            for leaf in lo..hi {
                self.leaf(leaf);
            }
            return;
        }
        let mut rng = SplitMix64::new(seed);
        match rng.next_u64() % 8 {
            0 => {
                // A scope with a random number of spawns over random-sized parts.
                let parts = 2 + (rng.next_u64() % 4) as usize;
                let step = n.div_ceil(parts);
                locus::scope(|s| {
                    let mut start = lo;
                    while start < hi {
                        let end = (start + step).min(hi);
                        let child = rng.next_u64();
                        s.spawn(move |_| self.run(start, end, child));
                        start = end;
                    }
                });
            }
            1 if n <= 64 => {
                locus::for_range(lo..hi, 1 + (rng.next_u64() % 4) as usize, |r| {
                    for leaf in r {
                        self.leaf(leaf);
                    }
                });
            }
            _ => {
                // An unbalanced split: anywhere from 1/8 to 7/8.
                let mid = lo + (n * (1 + (rng.next_u64() % 7) as usize) / 8).clamp(1, n - 1);
                let (a, b) = (rng.next_u64(), rng.next_u64());
                locus::join(|| self.run(lo, mid, a), || self.run(mid, hi, b));
            }
        }
    }

    fn leaf(&self, leaf: usize) {
        self.sum.fetch_add(leaf as u64, Ordering::Relaxed);
        let before = self.marks[leaf].fetch_add(1, Ordering::Relaxed);
        assert_eq!(before, 0, "leaf {leaf} ran twice");
    }
}

fn stress(policy: PolicyKind, threads: usize, machine: &str, leaves: usize, seed: u64) -> u64 {
    let pool = pool(policy.clone(), threads, machine);
    let sum = AtomicU64::new(0);
    let marks: Vec<AtomicU8> = (0..leaves).map(|_| AtomicU8::new(0)).collect();
    let tree = Tree {
        sum: &sum,
        marks: &marks,
    };
    let before = pool.stats();
    pool.install(|| tree.run(0, leaves, seed));
    let tasks = pool.stats().since(&before).total().tasks;
    let expected = (leaves as u64) * (leaves as u64 - 1) / 2;
    assert_eq!(
        sum.load(Ordering::Relaxed),
        expected,
        "{policy} on {machine}, seed {seed:#x}: wrong sum"
    );
    let missing = marks.iter().position(|m| m.load(Ordering::Relaxed) != 1);
    assert_eq!(
        missing, None,
        "{policy} on {machine}, seed {seed:#x}: a leaf never ran"
    );
    tasks
}

/// The fixed seed, unless `LOCUS_STRESS_SEED` (hex) replays another.
fn seed() -> u64 {
    let seed = std::env::var("LOCUS_STRESS_SEED")
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or(0x10c5_5eed);
    eprintln!("stress seed: {seed:#x} (replay with LOCUS_STRESS_SEED={seed:x})");
    seed
}

/// A million leaves under `ws` on the four-socket preset with 8 workers on this
/// machine's cores: more than a million tasks in one run.
#[test]
fn a_million_tasks_under_ws() {
    // Under Miri the tree shrinks; the million is for native runs.
    let (leaves, at_least) = if cfg!(miri) {
        (1 << 8, 200)
    } else {
        (1 << 20, 1_000_000)
    };
    let tasks = stress(PolicyKind::Ws, 8, "opteron-8380", leaves, seed());
    assert!(tasks >= at_least, "only {tasks} tasks ran");
}

/// Every policy, on the machines of the test matrix, at 2 and 8 workers (`ws:near`
/// with them: it deals the top of every tree to squads).
#[test]
fn every_policy_conserves_tasks() {
    let base = seed();
    for (i, policy) in PolicyKind::ALL
        .into_iter()
        .chain([PolicyKind::Mts { batch: Some(1) }, PolicyKind::WsNear])
        .enumerate()
    {
        for machine in ["2x1", "opteron-8380"] {
            for threads in [2, 8] {
                let leaves = if cfg!(miri) { 1 << 6 } else { 1 << 16 };
                stress(
                    policy.clone(),
                    threads,
                    machine,
                    leaves,
                    base ^ (i as u64) << 32 ^ threads as u64,
                );
            }
        }
    }
}
