//! Task identity: the spawn path of a task, hashed to 64 bits, and its DAG level.
//!
//! A task's id is derived from its parent's id and the index of the spawn within the
//! parent, counted per sync block as Cilk counts a procedure's spawns: the halves of a
//! `join` are children 0 and 1, and the spawns a task makes into one scope are children
//! 2, 3, ... A root takes its id from where it was started, usually the call site of
//! `install`/`join`/`scope` outside a pool. The id is therefore the same in every
//! iteration of a program that runs the same code (a loop inside one task, or a new
//! root from the same call site), which is how a profiling policy recognises a task it
//! has seen before (docs/design.md, "task id"). The numbering itself is [`crate::Spawner`]'s.

use std::fmt;
use std::panic::Location;

use crate::rng::mix64;

/// The identity of a task: its spawn path hashed to 64 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TaskId(pub u64);

impl TaskId {
    /// The id of a root task started at `location` (use `Location::caller()` under
    /// `#[track_caller]`).
    pub fn root(location: &Location<'_>) -> TaskId {
        let mut h = 0xcbf2_9ce4_8422_2325u64; // FNV-1a offset basis
        for b in location.file().bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h ^= u64::from(location.line()) << 32 | u64::from(location.column());
        TaskId(mix64(h))
    }

    /// The id of the `index`-th task spawned by this one.
    ///
    /// A polynomial hash of the path, `parent * K + index + 1` with `K` odd: one multiply
    /// per spawn (the two halves of a `join` share it), which matters because every
    /// `join` computes two ids (with a full mixing hash here, `fib` ran 1.2x slower than
    /// rayon). Since `K` is odd, two paths from the same root that differ in one spawn
    /// index never collide; the root ids are fully mixed (see [`TaskId::root`]). Hash the
    /// id again before using its low bits as a table index.
    #[inline]
    pub fn child(self, index: u32) -> TaskId {
        TaskId(
            self.0
                .wrapping_mul(PATH_K)
                .wrapping_add(u64::from(index) + 1),
        )
    }

    /// The spawn index of this task within `parent` if it is one of `parent`'s first
    /// [`MAX_SPAWN_INDEX`] + 1 children, or a half (0 or 1) of one of its tagged joins
    /// (`crate::Spawner::join_children`): the inverse of [`TaskId::child`]. A task of
    /// another parent answers `None` unless its hash happens to land in that window
    /// (about one chance in 2^44); policies use the index for order, never for identity.
    #[inline]
    pub fn index_in(self, parent: TaskId) -> Option<u32> {
        let index = self
            .0
            .wrapping_sub(parent.0.wrapping_mul(PATH_K))
            .wrapping_sub(1);
        let index = u32::try_from(index).ok()?;
        if index <= MAX_SPAWN_INDEX {
            Some(index)
        } else if index & MAX_SPAWN_INDEX < FIRST_SCOPE_SPAWN {
            Some(index & MAX_SPAWN_INDEX)
        } else {
            None
        }
    }
}

impl TaskId {
    /// Which fork of `parent` this task was spawned by, if it is one of `parent`'s
    /// children: [`Fork::Join`] with the site's tag for a half of a `join` (see
    /// `crate::JoinSite`; 0 for a half numbered 0 or 1 without a site), or
    /// [`Fork::Scope`] for a spawn into a scope (a loop's chunk among them: the loops of
    /// one task are one fork to a policy, as their chunks are the same tasks). As
    /// [`TaskId::index_in`], a task of another parent answers `None` but for a chance in
    /// about 2^44.
    #[inline]
    pub fn fork_in(self, parent: TaskId) -> Option<Fork> {
        let index = self
            .0
            .wrapping_sub(parent.0.wrapping_mul(PATH_K))
            .wrapping_sub(1);
        let index = u32::try_from(index).ok()?;
        if index < FIRST_SCOPE_SPAWN {
            Some(Fork::Join(0))
        } else if index <= MAX_SPAWN_INDEX {
            Some(Fork::Scope)
        } else if index & MAX_SPAWN_INDEX < FIRST_SCOPE_SPAWN {
            Some(Fork::Join(index >> (MAX_SPAWN_INDEX.count_ones())))
        } else {
            None
        }
    }
}

/// The fork of a task that spawned a child ([`TaskId::fork_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fork {
    /// A `join` at the site with this tag (0: a join numbered without a site).
    Join(u32),
    /// A scope (or a parallel loop).
    Scope,
}

/// The largest spawn index [`TaskId::index_in`] recognises.
pub const MAX_SPAWN_INDEX: u32 = (1 << 20) - 1;

impl fmt::Debug for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskId({:016x})", self.0)
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// The multiplier of the path hash: odd, with well-spread bits (2^64 / golden ratio).
const PATH_K: u64 = 0x9e37_79b9_7f4a_7c15;

/// What a policy is told about a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskInfo {
    /// The task's id.
    pub id: TaskId,
    /// Its depth in the DAG: a root is level 0, its children level 1.
    pub level: u32,
    /// For a chunk of a parallel loop (`for_range`), the number of chunks of that loop;
    /// 0 for any other task. A chunk's index within its loop is
    /// [`TaskInfo::chunk_index`].
    pub loop_chunks: u32,
}

impl TaskInfo {
    /// Whether the task is a chunk of a parallel loop.
    #[inline]
    pub fn is_loop_chunk(&self) -> bool {
        self.loop_chunks != 0
    }

    /// The index of this loop chunk within its loop (0 for the first), given the task
    /// that ran the loop; `None` for a task that is not a chunk, or past
    /// [`MAX_SPAWN_INDEX`].
    #[inline]
    pub fn chunk_index(&self, parent: &TaskInfo) -> Option<u32> {
        if !self.is_loop_chunk() {
            return None;
        }
        self.id
            .index_in(parent.id)
            .and_then(|i| i.checked_sub(FIRST_SCOPE_SPAWN))
    }
}

/// The spawn index of the first task a task spawns into a scope (0 and 1, and the same
/// above a join site's tag, are the halves of its joins): chunk `i` of a parallel loop
/// is spawn `FIRST_SCOPE_SPAWN + i`.
pub const FIRST_SCOPE_SPAWN: u32 = 2;

/// What a task itself cost, its nested tasks excluded, as a counter source measured it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskCost {
    /// Private last-level cache misses (hardware counters), or cache lines the task
    /// declared (the `declared` source).
    pub misses: u64,
    /// Bytes: misses times the line size, or the bytes the task declared.
    pub bytes: u64,
    /// Instructions retired; 0 where the source cannot count them.
    pub instructions: u64,
    /// Wall time of the task itself, in nanoseconds.
    pub nanos: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_spawn_path() {
        let root = TaskId(42);
        assert_eq!(root.child(0), TaskId(42).child(0), "same path, same id");
        assert_ne!(root.child(0), root.child(1));
        assert_ne!(root.child(0).child(1), root.child(1).child(0));
        // Siblings of many spawns stay distinct.
        let mut seen: Vec<u64> = (0..10_000).map(|i| root.child(i).0).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 10_000);
    }

    #[test]
    fn paths_differing_in_one_index_never_collide() {
        let root = TaskId::root(Location::caller());
        let path = |indices: &[u32]| indices.iter().fold(root, |id, &i| id.child(i));
        let base = [0, 1, 1, 0, 3, 2, 0, 1];
        let mut seen = vec![path(&base)];
        for at in 0..base.len() {
            for other in 0..64 {
                if other != base[at] {
                    let mut p = base;
                    p[at] = other;
                    seen.push(path(&p));
                }
            }
        }
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n);
        // Every node of a complete binary tree of depth 16 has its own id.
        let mut ids = vec![root];
        let mut level = vec![root];
        for _ in 0..16 {
            level = level
                .iter()
                .flat_map(|p| [p.child(0), p.child(1)])
                .collect();
            ids.extend(&level);
        }
        let total = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), total);
    }

    #[test]
    fn the_spawn_index_is_recovered_from_the_parent() {
        let root = TaskId::root(Location::caller());
        for i in [0, 1, 2, 17, MAX_SPAWN_INDEX] {
            assert_eq!(root.child(i).index_in(root), Some(i));
        }
        assert_eq!(root.child(MAX_SPAWN_INDEX + 3).index_in(root), None);
        // The halves of a join tagged by its site (spawn.rs).
        assert_eq!(root.child(MAX_SPAWN_INDEX + 1).index_in(root), Some(0));
        assert_eq!(root.child(7 << 20 | 1).index_in(root), Some(1));
        assert_eq!(root.child(0).child(1).index_in(root), None, "a grandchild");
        assert_eq!(root.child(1).index_in(root.child(0)), None, "a sibling");
    }

    #[test]
    fn a_chunk_knows_its_index_in_the_loop() {
        let parent = TaskInfo {
            id: TaskId(9),
            level: 1,
            loop_chunks: 0,
        };
        let chunk = |i: u32, chunks: u32| TaskInfo {
            id: parent.id.child(FIRST_SCOPE_SPAWN + i),
            level: 2,
            loop_chunks: chunks,
        };
        assert_eq!(chunk(0, 5).chunk_index(&parent), Some(0));
        assert_eq!(chunk(4, 5).chunk_index(&parent), Some(4));
        assert_eq!(chunk(4, 0).chunk_index(&parent), None, "not a chunk");
        let half = TaskInfo {
            id: parent.id.child(1),
            level: 2,
            loop_chunks: 3,
        };
        assert_eq!(half.chunk_index(&parent), None, "a join's half is no chunk");
    }

    #[test]
    fn root_ids_come_from_the_call_site() {
        let a = TaskId::root(Location::caller());
        let b = TaskId::root(Location::caller());
        assert_ne!(a, b, "two call sites, two roots");
        let same = || TaskId::root(Location::caller());
        assert_eq!(same(), same(), "one call site, one root");
    }
}
