//! `knapsack`: the best value of a 0-1 knapsack by parallel branch and bound, after the
//! knapsack example of Cilk-5 (the CPU-bound Knapsack benchmark of CATS's Table 1).
//!
//! Items are sorted by decreasing value density `value / weight`. The search decides
//! item by item whether to take it (first, if it fits) and then whether to leave it;
//! a subtree is pruned when the greedy bound `value + capacity * density` of its first
//! remaining item (the densest one left, so the bound is a valid one) cannot beat the
//! best value found so far, which all tasks share through an atomic. In the top `depth`
//! levels the two branches run with `join`; below, serially.
//!
//! Unlike the other kernels the work is not fixed: how much is pruned depends on when
//! each task sees a good value from another, so times vary from run to run and between
//! executors, as in Cilk. The best value itself is deterministic.
//!
//! Integer arithmetic throughout (weights and values are `u64`; the bound is rounded
//! down, which is exact for integer values). Footprint: none; the items are a few
//! hundred bytes read by every task, the search state lives on the stack. Work:
//! [`NODE_WORK`] per search node (a call, pruned or not). While a listener is installed
//! the search counts nodes: each task counts those it visits itself (its joined
//! branches count theirs) and declares them once, when its own search is done; with
//! nobody listening the plain search runs, which counts nothing.
//!
//! The serial reference is a different algorithm, the `O(n * capacity)` dynamic
//! program, so the check does not share the search's code.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use locus::footprint::{is_listening, work};

use crate::exec::Executor;
use crate::rng::SplitMix64;
use crate::size::{self, Opts};
use crate::Outcome;

/// Default seed of the items.
const SEED: u64 = 0x4B4E_4150; // "KNAP"
/// Largest number of items accepted.
pub const MAX_N: usize = 64;
/// Weights are uniform in `1..=MAX_WEIGHT`.
const MAX_WEIGHT: u64 = 1000;
/// Values are the weight plus a uniform `0..=SPREAD` (weakly correlated instances: hard
/// enough for the bound to leave a real search).
const SPREAD: u64 = 100;

/// Instructions per search node, an estimate: guess from the search (the end and
/// capacity tests, the bound's multiply and division, the shared best's load, the fit
/// test, two calls and the max), which callgrind counts at 45.5 per node at the default
/// size under `Serial`.
pub const NODE_WORK: u64 = 45;

/// One item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Item {
    /// Weight (at least 1).
    pub weight: u64,
    /// Value.
    pub value: u64,
}

/// The instance: items sorted by decreasing density, and the capacity.
///
/// The search computes `capacity * value` and `value * weight` in `u64`, and the
/// reference allocates `capacity + 1` words: [`instance`] keeps all of them small
/// (weights up to 1000, values up to 1100, capacity up to 32,000).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The items, densest first.
    pub items: Vec<Item>,
    /// The knapsack's capacity.
    pub capacity: u64,
}

/// Parameters of the knapsack kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KnapsackParams {
    /// Number of items (1..=[`MAX_N`]).
    pub n: usize,
    /// Levels of the search tree whose branches are joined; deeper levels run serially.
    pub depth: u32,
    /// Seed of the items.
    pub seed: u64,
}

impl Default for KnapsackParams {
    fn default() -> Self {
        // About 6 ms a run on one core in release (this machine); the cost grows about
        // twofold per two items and varies a lot with the seed and, in parallel, with
        // the order in which good values are found. Cilk's example has about 30 items,
        // but at 30 these instances take 0.1 ms. depth 12: up to 4096 serial subtrees
        // (guess).
        KnapsackParams {
            n: 48,
            depth: 12,
            seed: SEED,
        }
    }
}

impl std::fmt::Display for KnapsackParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},depth={}", self.n, self.depth)?;
        if self.seed != SEED {
            write!(f, ",seed={}", self.seed)?;
        }
        Ok(())
    }
}

/// The size-string syntax, for help and error messages.
pub(crate) const SYNTAX: &str =
    "N[,depth=D][,seed=S] with N in 1..=64 items, e.g. \"48\" or \"48,depth=12\"";

/// Parses `N[,depth=D][,seed=S]`; the error is the reason.
pub(crate) fn parse(s: &str) -> Result<KnapsackParams, String> {
    let (main, opts) = size::split(s)?;
    let mut p = KnapsackParams {
        n: size::number("N", main)?,
        ..KnapsackParams::default()
    };
    if !(1..=MAX_N).contains(&p.n) {
        return Err(format!("N = {} items is outside 1..={MAX_N}", p.n));
    }
    let mut opts = Opts::new(opts, &["depth", "seed"])?;
    if let Some(v) = opts.take("depth") {
        p.depth = size::number("depth", v)?;
    }
    if let Some(v) = opts.take("seed") {
        p.seed = size::number("seed", v)?;
    }
    Ok(p)
}

/// The seeded instance: `n` items, capacity half their total weight.
pub fn instance(p: &KnapsackParams) -> Instance {
    let mut rng = SplitMix64::new(p.seed);
    let mut items: Vec<Item> = (0..p.n)
        .map(|_| {
            let weight = 1 + rng.next_u64() % MAX_WEIGHT;
            let value = weight + rng.next_u64() % (SPREAD + 1);
            Item { weight, value }
        })
        .collect();
    // Densest first; `sort_by` is stable, so ties keep their generation order.
    items.sort_by(|a, b| (b.value * a.weight).cmp(&(a.value * b.weight)));
    let capacity = items.iter().map(|i| i.weight).sum::<u64>() / 2;
    Instance { items, capacity }
}

/// The best value, by parallel branch and bound on `ex`, joining in the top `depth`
/// levels.
pub fn best<E: Executor>(ex: &E, inst: &Instance, depth: u32) -> u64 {
    let best = AtomicU64::new(0);
    let (items, cap) = (&inst.items[..], inst.capacity);
    let found = if is_listening() {
        counted(|nodes| search::<E, true>(ex, items, cap, 0, depth, &best, nodes))
    } else {
        search::<E, false>(ex, items, cap, 0, depth, &best, &mut 0)
    };
    found.max(best.load(Ordering::Relaxed))
}

/// Raises the shared best to `value`. Relaxed: the best is only a pruning hint; the
/// result is read after the joins, which order everything before them.
#[inline]
fn offer(best: &AtomicU64, value: u64) {
    if value > best.load(Ordering::Relaxed) {
        best.fetch_max(value, Ordering::Relaxed);
    }
}

/// Runs the body `f` of a task that counts its own nodes in the counter it is given
/// (its nested tasks count theirs), then declares their work.
fn counted(f: impl FnOnce(&mut u64) -> u64) -> u64 {
    let mut nodes = 0;
    let found = f(&mut nodes);
    work(nodes.saturating_mul(NODE_WORK));
    found
}

/// The best value reachable from a node: `value` already packed, `cap` left, `items`
/// still to decide. Returns at least `value` (taking nothing more is always possible).
/// If `COUNT`, adds the nodes this task visits (this one included) to `nodes`, and the
/// joined branches run as [`counted`] tasks; otherwise `nodes` is unused.
fn search<E: Executor, const COUNT: bool>(
    ex: &E,
    items: &[Item],
    cap: u64,
    value: u64,
    depth: u32,
    best: &AtomicU64,
    nodes: &mut u64,
) -> u64 {
    if COUNT {
        *nodes += 1;
    }
    let Some((first, rest)) = items.split_first() else {
        offer(best, value);
        return value;
    };
    if cap == 0 {
        offer(best, value);
        return value;
    }
    // Greedy bound with the densest remaining item; prune if it cannot beat the best.
    if value + cap * first.value / first.weight <= best.load(Ordering::Relaxed) {
        return value;
    }
    let fits = first.weight <= cap;
    let with = |nodes: &mut u64| {
        if fits {
            search::<E, COUNT>(
                ex,
                rest,
                cap - first.weight,
                value + first.value,
                depth.saturating_sub(1),
                best,
                nodes,
            )
        } else {
            value
        }
    };
    let without = |nodes: &mut u64| {
        search::<E, COUNT>(ex, rest, cap, value, depth.saturating_sub(1), best, nodes)
    };
    let (a, b) = if depth > 0 && fits {
        if COUNT {
            ex.join(|| counted(with), || counted(without))
        } else {
            ex.join(|| with(&mut 0), || without(&mut 0))
        }
    } else {
        let a = with(nodes);
        (a, without(nodes))
    };
    a.max(b)
}

/// The serial reference: the dynamic program over capacities `0..=capacity`.
pub fn reference(inst: &Instance) -> u64 {
    let cap = usize::try_from(inst.capacity).expect("capacity fits in memory");
    let mut dp = vec![0u64; cap + 1];
    for item in &inst.items {
        let w = usize::try_from(item.weight).unwrap_or(usize::MAX);
        if w > cap {
            continue;
        }
        for c in (w..=cap).rev() {
            dp[c] = dp[c].max(dp[c - w] + item.value);
        }
    }
    dp[cap]
}

/// Compares a best value with the reference.
pub(crate) fn compare(p: &KnapsackParams, inst: &Instance, expected: u64, got: u64) -> Outcome {
    let what = format!("knapsack of {} items, capacity {}", p.n, inst.capacity);
    if got == expected {
        Outcome::pass(format!("{what}: best value {got}, as the dynamic program"))
    } else {
        Outcome::fail(format!(
            "{what}: best value {got}, but the dynamic program finds {expected}"
        ))
    }
}

/// Runs the kernel on `ex` (inside its pool) and checks it against the dynamic program.
pub fn verify<E: Executor>(ex: &E, p: &KnapsackParams) -> Outcome {
    let inst = instance(p);
    let expected = reference(&inst);
    let start = Instant::now();
    let got = ex.install(|| best(ex, &inst, p.depth));
    let elapsed = start.elapsed();
    compare(p, &inst, expected, got).timed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::Serial;

    /// Best value by trying every subset.
    fn brute(inst: &Instance) -> u64 {
        let n = inst.items.len();
        (0u32..1 << n)
            .filter_map(|set| {
                let (w, v) = (0..n)
                    .filter(|i| set >> i & 1 == 1)
                    .fold((0, 0), |(w, v), i| {
                        (w + inst.items[i].weight, v + inst.items[i].value)
                    });
                (w <= inst.capacity).then_some(v)
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn search_and_dp_agree_with_brute_force() {
        for n in 1..=12 {
            for seed in 0..5 {
                let p = KnapsackParams { n, depth: 3, seed };
                let inst = instance(&p);
                let want = brute(&inst);
                assert_eq!(reference(&inst), want, "dp n={n} seed={seed}");
                assert_eq!(best(&Serial, &inst, p.depth), want, "bb n={n} seed={seed}");
            }
        }
    }

    #[test]
    fn items_sorted_by_density() {
        let inst = instance(&KnapsackParams::default());
        for w in inst.items.windows(2) {
            assert!(w[0].value * w[1].weight >= w[1].value * w[0].weight);
        }
    }
}
