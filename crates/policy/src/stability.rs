//! Placement stability of parallel-loop chunks, kept by the engines for every policy
//! (docs/design.md, "Locality across iterations").
//!
//! A chunk of a `for_range` loop has the same task id each time the loop runs (see
//! [`crate::TaskInfo::loop_chunks`]), so the squad that ran it last time is known: a
//! chunk that starts on the same squad again finds its data in that squad's cache. The
//! engines (the runtime and the simulator) count this for every policy, plain work
//! stealing included, because which squad runs a chunk is decided by the engine's
//! queues as much as by the policy; the bi-tier policies count their leaf inter-squad
//! tasks themselves ([`crate::placement_stability`] adds the two).
//!
//! One lock per chunk start, of one of [`SHARDS`] shards picked by the chunk's id, and a
//! multiplicative hash instead of SipHash (the crate's one `IdMap`): a single lock with
//! SipHash took 85% of the time of a loop of one-edge chunks (`irreg medium,grain=1` on
//! four workers). Engines
//! keep a tracker only where there are at least two squads, so a machine with one cache
//! domain pays nothing.

use crate::id_map::IdMap;
use crate::{SquadId, TaskId};
use crossbeam_utils::CachePadded;
use std::sync::Mutex;

/// Shards of the tracker: enough that workers starting chunks at once rarely meet.
const SHARDS: usize = 64;
/// The most chunks a shard remembers: [`TRACKED`] in all, some 30 MB. A chunk first
/// seen when its shard is full is not tracked (its starts are not compared), so a loop
/// of 10^8 chunks at grain 1 costs the tracker no more than a loop of a million.
const SHARD_CAPACITY: usize = TRACKED / SHARDS;
/// See [`SHARD_CAPACITY`].
pub(crate) const TRACKED: usize = 1 << 20;
/// Fibonacci hashing's multiplier (2^64 over the golden ratio, odd): picks the shard by
/// the top bits of the product, which the map inside the shard (`IdMap`, another odd
/// multiplier) does not read alike.
const FIBONACCI: u64 = 0x9e37_79b9_7f4a_7c15;

/// The statistic names [`ChunkPlacement::stats`] writes.
pub const CHUNK_SAME_SQUAD: &str = "chunk_same_squad";
/// See [`CHUNK_SAME_SQUAD`].
pub const CHUNK_COMPARED: &str = "chunk_compared";

/// Where each loop chunk (by id) ran last, and how often it ran on the same squad again.
#[derive(Debug)]
pub struct ChunkPlacement {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
}

/// The chunks whose ids hash to one shard.
#[derive(Debug, Default)]
struct Shard {
    last: IdMap<SquadId>,
    same: u64,
    compared: u64,
}

impl Default for ChunkPlacement {
    fn default() -> ChunkPlacement {
        ChunkPlacement {
            shards: (0..SHARDS).map(|_| CachePadded::default()).collect(),
        }
    }
}

impl ChunkPlacement {
    /// An empty tracker.
    pub fn new() -> ChunkPlacement {
        ChunkPlacement::default()
    }

    /// Chunk `id` starts on `squad`: compares with where it ran last, and remembers
    /// (up to `TRACKED` chunks).
    pub fn started(&self, id: TaskId, squad: SquadId) {
        let shard = (id.0.wrapping_mul(FIBONACCI) >> (64 - SHARDS.trailing_zeros())) as usize;
        let mut s = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        if s.last.len() >= SHARD_CAPACITY && !s.last.contains_key(&id) {
            return;
        }
        if let Some(before) = s.last.insert(id, squad) {
            s.compared += 1;
            if before == squad {
                s.same += 1;
            }
        }
    }

    /// Appends `chunk_same_squad` and `chunk_compared` to `out`.
    pub fn stats(&self, out: &mut Vec<(String, u64)>) {
        let (mut same, mut compared) = (0, 0);
        for shard in self.shards.iter() {
            let s = shard.lock().unwrap_or_else(|e| e.into_inner());
            same += s.same;
            compared += s.compared;
        }
        out.push((CHUNK_SAME_SQUAD.to_string(), same));
        out.push((CHUNK_COMPARED.to_string(), compared));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(stats: &[(String, u64)], name: &str) -> u64 {
        stats.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn a_chunk_is_compared_from_its_second_run_on() {
        let p = ChunkPlacement::new();
        p.started(TaskId(1), 0);
        p.started(TaskId(2), 1);
        p.started(TaskId(1), 0);
        p.started(TaskId(2), 0);
        p.started(TaskId(2), 0);
        let mut out = Vec::new();
        p.stats(&mut out);
        assert_eq!(stat(&out, CHUNK_COMPARED), 3);
        assert_eq!(stat(&out, CHUNK_SAME_SQUAD), 2);
    }

    #[test]
    fn counts_from_every_shard_and_thread_add_up() {
        // Four threads, each a loop of 1,000 chunks (consecutive ids, as a loop's are)
        // run three times: on squad 0, on squad 0 again, then on squad 1.
        let p = ChunkPlacement::new();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let p = &p;
                s.spawn(move || {
                    let parent = TaskId(t.wrapping_mul(0x1234_5678_9abc_def1));
                    for squad in [0, 0, 1] {
                        for i in 0..1000 {
                            p.started(parent.child(i), squad);
                        }
                    }
                });
            }
        });
        let mut out = Vec::new();
        p.stats(&mut out);
        assert_eq!(stat(&out, CHUNK_COMPARED), 4 * 2000);
        assert_eq!(stat(&out, CHUNK_SAME_SQUAD), 4 * 1000);
        let used = p
            .shards
            .iter()
            .filter(|s| !s.lock().unwrap().last.is_empty());
        assert!(
            used.count() > SHARDS / 2,
            "a loop's chunks spread over the shards"
        );
    }

    #[test]
    fn a_loop_of_millions_of_chunks_is_tracked_up_to_the_bound() {
        let p = ChunkPlacement::new();
        let parent = TaskId(0x5eed);
        let n = 3 * TRACKED as u32;
        for squad in [0, 0] {
            for i in 0..n {
                p.started(parent.child(i), squad);
            }
        }
        let stored: usize = p.shards.iter().map(|s| s.lock().unwrap().last.len()).sum();
        assert!(stored <= TRACKED, "{stored} chunks kept");
        assert!(
            stored > TRACKED / 2,
            "the shards fill evenly: {stored} kept"
        );
        let mut out = Vec::new();
        p.stats(&mut out);
        // The second run compares exactly the chunks the first one kept.
        assert_eq!(stat(&out, CHUNK_COMPARED), stored as u64);
        assert_eq!(stat(&out, CHUNK_SAME_SQUAD), stored as u64);
    }
}
