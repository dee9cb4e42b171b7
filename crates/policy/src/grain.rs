//! How finely a flat parallel loop's chunks are placed: one at a time, or in blocks of
//! consecutive chunks, each placed as its first chunk; the same rule in both engines
//! (docs/design.md, "One policy, two engines").
//!
//! A loop is carried out flat where the policy is asked about its chunks (it places
//! spawns, wants task events; [`Layout::splits_loops`] says no) and deals no plan of its
//! own ([`crate::Policy::plan_loop`] gave `None`). Then [`loop_blocks`] says how many
//! blocks its chunks are spawned in, or that each chunk is spawned and placed by itself.
//! A block ([`block_chunks`]) is one task in the queues, the loop's chunk that starts it:
//! placed, started and counted as that chunk. Its worker runs that chunk's body, then the
//! block's other chunks one after the other, each as its own task (with its events, as
//! a task run inline); before each, while some worker of the pool is looking for work,
//! it splits off the upper half of what is left ([`block_split`]) as a block of its own,
//! spawned by the loop's owner and placed as its first chunk (lazy splitting, as Tzannes
//! et al.'s lazy binary splitting, PPoPP 2010, with idle workers as the signal). The
//! runtime does this in `Scope::run_block` (`crates/runtime/src/scope.rs`), the
//! simulator in its engine (`crates/sim/src/engine.rs`), so what the simulator measures
//! is the placement that ships.

use crate::{Layout, Policy, WorkerMap};
use std::ops::Range;

/// Loops of more chunks than this are spawned in [`BLOCKS`] blocks of consecutive
/// chunks when carried out flat, so that no loop allocates more than this many jobs up
/// front (a runtime job takes some 100 bytes: a loop of 10^8 chunks at grain 1 would
/// take gigabytes).
pub const FLAT_LIMIT: usize = 1 << 16;

/// The number of blocks a flat loop of more than [`FLAT_LIMIT`] chunks is spawned in:
/// many per worker, for balance, on any machine locus targets.
pub const BLOCKS: usize = 1 << 12;

/// A flat loop of more chunks than this per worker is spawned in this many blocks per
/// worker where [`loop_blocks`] says so. Several per worker, not one: a worker
/// descheduled while it runs a block (a pool larger than its CPUs) holds up only that
/// block, the others wait in queues (one block per worker made `spmv-crs` fine 2.3x
/// `ws`'s time on the oversubscribed `2x2` of `locus bench matrix`, against 1.7x with
/// every chunk placed). Placing a chunk by itself cost some 1,700 instructions more than
/// a chunk of `ws`'s tree (callgrind, `locus bench heat-loop --size
/// 512x256,leaf=2,iters=5 --policy ws,cats --machine 2x1 --threads 2`: a job allocated,
/// the policy's placement and home, a squad queue's lock, a search, the task's events);
/// up to this many per worker a loop pays at most that many times it per worker,
/// whatever its chunks' size, and blocks of a larger loop take each squad its contiguous
/// share in as many pieces. Guess.
pub const PLACED_PER_WORKER: usize = 8;

impl Layout {
    /// Whether an engine may split parallel loops as a tree (the runtime does,
    /// `crates/runtime/src/split.rs`): the policy is asked nothing about a loop's chunks
    /// (every spawn or every chunk local, no task events, no loop plans), so the split's
    /// jobs are invisible to it. Every other loop is carried out flat ([`loop_blocks`]).
    pub fn splits_loops(&self) -> bool {
        (self.always_local || self.loops_local) && !self.task_events && !self.loop_plans
    }
}

/// How many blocks of consecutive chunks a flat loop of `chunks` chunks is spawned in
/// on the pool `map` under `policy`, or `None` to spawn and place each chunk by itself
/// (see the module documentation).
///
/// - More than [`FLAT_LIMIT`] chunks: [`BLOCKS`] blocks, whatever the policy.
/// - More than [`PLACED_PER_WORKER`] chunks per worker, on two squads or more (where the
///   policies that place chunks by squad, `cab`, `cats` and `mts`, decide), with the
///   policy measuring no costs ([`Policy::wants_cost`]: a profile hears every chunk
///   spawned, placed and measured): [`PLACED_PER_WORKER`] blocks per worker. `cab` and
///   `cats` send each squad its contiguous share of the loop as before, at the blocks'
///   edges, and their homes follow the squads that ran the chunks; a round-robin policy
///   deals blocks instead of chunks.
///   The policy's layout must allow it ([`Layout::loop_blocks`]: the paper-faithful
///   bi-tier forms place every chunk).
/// - Otherwise `None`. `wants_cost` and the layout are asked only in the case above.
pub fn loop_blocks(chunks: usize, map: &WorkerMap, policy: &dyn Policy) -> Option<usize> {
    let workers = map.num_workers();
    if chunks > FLAT_LIMIT {
        Some(BLOCKS)
    } else if chunks > PLACED_PER_WORKER.saturating_mul(workers)
        && map.num_squads() > 1
        && !policy.wants_cost()
        && policy.layout().loop_blocks
    {
        Some(PLACED_PER_WORKER * workers)
    } else {
        None
    }
}

/// The chunks of block `block` of a loop of `chunks` chunks spawned in `blocks` blocks:
/// consecutive, the blocks in order tiling the loop, their lengths differing by one at
/// most (empty where there are more blocks than chunks; an engine spawns no empty block).
pub fn block_chunks(block: usize, blocks: usize, chunks: usize) -> Range<usize> {
    let edge = |b: usize| (b as u128 * chunks as u128 / blocks as u128) as usize;
    edge(block)..edge(block + 1)
}

/// Where a block whose chunks `next..end` are left (`next` about to run) splits, if it
/// splits now: at the middle, the upper part `mid..end` becoming a block of its own, so
/// long as `next` keeps at least one chunk after it; `None` for fewer than two chunks
/// left. The engine asks only while some worker of the pool is looking for work.
pub fn block_split(next: u32, end: u32) -> Option<u32> {
    (end.saturating_sub(next) >= 2).then(|| next + (end - next) / 2)
}

/// The order in which an engine spawns the jobs of a flat loop (its blocks, or its
/// chunks where each is placed by itself). The order changes which jobs start first,
/// never the chunks' identities, placements by chunk or results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnOrder {
    /// First to last: every job runs to its end, so which starts first matters only for
    /// the policies, which see the loop in its order.
    InOrder,
    /// Spread over the loop, for a search (`find_any`, `any`, `all`, a `try_` terminal)
    /// that needs some hit, not every job: the bit-reversal permutation of the next
    /// power of two at or above the number of jobs, without the indices past them (0,
    /// the middle, the quarters, ...). A worker that starts a job holding no hit may be
    /// held until the search is over (a leaf that ends only by its search's stop), so
    /// the first jobs to start, whichever end of a queue the workers take, must lie all
    /// over the loop, as the far halves that rayon's thieves take first do: the first
    /// `2^j` indices, and the last `2^j`, each hold one of every `2^j`-th index of the
    /// power of two, so they meet every part of the loop cut into `2^(j-1)` parts. In
    /// order, four workers taking the four oldest chunks of a round-robin deal, or the
    /// oldest blocks, never reached a second half that held every hit.
    ///
    /// The simulator runs no searches: its loops are spawned [`SpawnOrder::InOrder`].
    Spread,
}

impl SpawnOrder {
    /// Whether the loop's owner runs the first job of this order itself once it has
    /// spawned the others: spread, it does, as a tree's owner runs chunk 0 and rayon's
    /// caller its first leaf, so that a search whose only hit lies there does not find
    /// that job queued behind others that end only by the search's stop.
    pub fn owner_runs_first(self) -> bool {
        self == SpawnOrder::Spread
    }

    /// The indices `0..jobs` in this order, each once.
    pub fn indices(self, jobs: usize) -> Box<dyn Iterator<Item = usize>> {
        match self {
            SpawnOrder::InOrder => Box::new(0..jobs),
            SpawnOrder::Spread => Box::new(Spread::new(jobs)),
        }
    }
}

/// [`SpawnOrder::Spread`]'s indices: `k` reversed in `bits` bits for `k` in
/// `0..2^bits`, those below `jobs`.
struct Spread {
    k: usize,
    bits: u32,
    jobs: usize,
}

impl Spread {
    fn new(jobs: usize) -> Spread {
        Spread {
            k: 0,
            bits: jobs.next_power_of_two().trailing_zeros(),
            jobs,
        }
    }
}

impl Iterator for Spread {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.k >> self.bits == 0 {
            // Reversed in all of its bits, then moved down to the low `bits` (a shift
            // by the whole width, for `bits` 0, gives `None`: index 0).
            let i = self
                .k
                .reverse_bits()
                .checked_shr(usize::BITS - self.bits)
                .unwrap_or(0);
            self.k += 1;
            if i < self.jobs {
                return Some(i);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicyKind;
    use locus_topo::Topology;

    fn map(spec: &str, threads: usize) -> WorkerMap {
        WorkerMap::new(&Topology::parse_spec(spec).unwrap(), threads)
    }

    #[test]
    fn blocks_tile_the_loop_in_order() {
        for (chunks, blocks) in [(127, 64), (128, 64), (5, 8), (1 << 20, BLOCKS), (64, 1)] {
            let mut next = 0;
            for b in 0..blocks {
                let r = block_chunks(b, blocks, chunks);
                assert_eq!(r.start, next, "{chunks} in {blocks}: block {b}");
                assert!(
                    r.len() <= chunks.div_ceil(blocks),
                    "{chunks} in {blocks}: {r:?}"
                );
                next = r.end;
            }
            assert_eq!(next, chunks);
        }
    }

    #[test]
    fn a_block_splits_at_the_middle_of_what_is_left() {
        assert_eq!(block_split(3, 4), None);
        assert_eq!(block_split(4, 4), None);
        assert_eq!(block_split(3, 5), Some(4));
        assert_eq!(block_split(1, 8), Some(4));
        assert_eq!(block_split(1, 9), Some(5));
    }

    #[test]
    fn blocks_pay_beyond_eight_chunks_a_worker_on_two_squads_without_a_profile() {
        let two = map("2x2", 4);
        let one = map("1x4", 4);
        let ws = PolicyKind::Ws.build(&two);
        assert_eq!(loop_blocks(32, &two, &*ws), None);
        assert_eq!(loop_blocks(33, &two, &*ws), Some(32));
        assert_eq!(loop_blocks(33, &one, &*PolicyKind::Ws.build(&one)), None);
        assert_eq!(loop_blocks(FLAT_LIMIT + 1, &one, &*ws), Some(BLOCKS));
        // `cats` measures its first iteration's tasks: each chunk is placed by itself.
        let cats = "cats".parse::<PolicyKind>().unwrap().build(&two);
        assert!(cats.wants_cost());
        assert_eq!(loop_blocks(1000, &two, &*cats), None);
        // The paper-faithful bi-tier form places every chunk, where the other one blocks.
        for (name, blocks) in [("cab:bl=1", Some(32)), ("cab-paper:bl=1", None)] {
            let cab = name.parse::<PolicyKind>().unwrap().build(&two);
            assert!(!cab.wants_cost(), "{name}");
            assert_eq!(loop_blocks(1000, &two, &*cab), blocks, "{name}");
        }
        assert_eq!(loop_blocks(FLAT_LIMIT + 1, &two, &*cats), Some(BLOCKS));
    }

    #[test]
    fn a_spread_order_gives_each_index_once_and_starts_all_over_the_loop() {
        assert_eq!(
            SpawnOrder::InOrder.indices(3).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        let spread = |n: usize| SpawnOrder::Spread.indices(n).collect::<Vec<_>>();
        assert_eq!(spread(0), Vec::<usize>::new());
        assert_eq!(spread(1), [0]);
        assert_eq!(spread(8), [0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(spread(5), [0, 4, 2, 1, 3]);
        for n in (2..600).chain([4096, 65_536, 100_003]) {
            let order = spread(n);
            let mut seen = order.clone();
            seen.sort_unstable();
            assert!(seen.iter().copied().eq(0..n), "{n}: every index once");
            // The first and the last `2 * parts` indices meet every part of the loop
            // cut into `parts` equal parts.
            for parts in (0..).map(|j| 1usize << j).take_while(|p| 2 * p <= n) {
                let few = 2 * parts;
                for (end, some) in [("first", &order[..few]), ("last", &order[n - few..])] {
                    let mut met = vec![false; parts];
                    for &i in some {
                        met[i * parts / n] = true;
                    }
                    assert!(
                        met.iter().all(|m| *m),
                        "{n}: the {end} {few} indices {some:?} miss a part of {parts}"
                    );
                }
            }
        }
    }
}
