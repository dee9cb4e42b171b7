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
}
