//! Placement stability of parallel-loop chunks, kept by the engines for every policy
//! (DESIGN.md, "Locality across iterations").
//!
//! A chunk of a `for_range` loop has the same task id each time the loop runs (see
//! [`crate::TaskInfo::loop_chunks`]), so the squad that ran it last time is known: a
//! chunk that starts on the same squad again finds its data in that squad's cache. The
//! engines (the runtime and the simulator) count this for every policy, plain work
//! stealing included, because which squad runs a chunk is decided by the engine's
//! queues as much as by the policy; the bi-tier policies count their leaf inter-socket
//! tasks themselves ([`crate::placement_stability`] adds the two).
//!
//! One lock per chunk start. Chunks are coarse (a loop's body over `grain` iterations),
//! and engines keep a tracker only where there are at least two squads, so a machine
//! with one cache domain pays nothing.

use crate::{SquadId, TaskId};
use std::collections::HashMap;
use std::sync::Mutex;

/// The statistic names [`ChunkPlacement::stats`] writes.
pub const CHUNK_SAME_SQUAD: &str = "chunk_same_squad";
/// See [`CHUNK_SAME_SQUAD`].
pub const CHUNK_COMPARED: &str = "chunk_compared";

/// Where each loop chunk (by id) ran last, and how often it ran on the same squad again.
#[derive(Debug, Default)]
pub struct ChunkPlacement {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    last: HashMap<TaskId, SquadId>,
    same: u64,
    compared: u64,
}

impl ChunkPlacement {
    /// An empty tracker.
    pub fn new() -> ChunkPlacement {
        ChunkPlacement::default()
    }

    /// Chunk `id` starts on `squad`: compares with where it ran last, and remembers.
    pub fn started(&self, id: TaskId, squad: SquadId) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(before) = s.last.insert(id, squad) {
            s.compared += 1;
            if before == squad {
                s.same += 1;
            }
        }
    }

    /// Appends `chunk_same_squad` and `chunk_compared` to `out`.
    pub fn stats(&self, out: &mut Vec<(String, u64)>) {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        out.push((CHUNK_SAME_SQUAD.to_string(), s.same));
        out.push((CHUNK_COMPARED.to_string(), s.compared));
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
}
