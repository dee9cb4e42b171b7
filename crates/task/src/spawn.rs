//! Spawn numbering: the ids and levels a running task gives the tasks it spawns.
//!
//! Children are numbered per sync block, as Cilk numbers a procedure's spawns: the two
//! halves of a `join` are always children 0 and 1 of the task that joins, and the
//! spawns a task makes into one scope are children [`FIRST_SCOPE_SPAWN`],
//! [`FIRST_SCOPE_SPAWN`] + 1, ... in the order it makes them (a scope starts its count
//! afresh, [`Spawner::new_scope`]). So the same code run again (the next iteration of a
//! loop, in the same task or from a new root at the same call site) spawns tasks with
//! the same ids, which is how a profiling policy recognises the tasks it has seen.
//!
//! This is the one implementation of that numbering: the runtime's `join`, `scope` and
//! `for_range` and the kernels' recorder (which writes the task tree the simulator
//! runs) both ask a [`Spawner`], so a task has the same id in both engines.

use std::panic::Location;

use crate::id::{TaskId, TaskInfo, FIRST_SCOPE_SPAWN};

/// A running task as the parent of its spawns: its id, its level, and the spawns it has
/// made into the scope it is spawning into now. Two words, copied at every `join`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spawner {
    /// The running task's id.
    pub id: TaskId,
    /// The running task's level.
    pub level: u32,
    /// Spawns made into the current scope.
    spawned: u32,
}

impl Spawner {
    /// A task about to run, having spawned nothing.
    #[inline]
    pub fn of(info: TaskInfo) -> Spawner {
        Spawner {
            id: info.id,
            level: info.level,
            spawned: 0,
        }
    }

    /// A root task started at `location` (use `Location::caller()` under
    /// `#[track_caller]`): level 0, its id from the call site.
    pub fn root_info(location: &Location<'_>) -> TaskInfo {
        TaskInfo {
            id: TaskId::root(location),
            level: 0,
            loop_chunks: 0,
        }
    }

    /// The task's id and level; not whether it is a loop chunk, which a spawner does not
    /// carry (it stays two words), so `loop_chunks` is 0. Policies take only the id and
    /// level of a spawn's parent.
    #[inline]
    pub fn info(&self) -> TaskInfo {
        TaskInfo {
            id: self.id,
            level: self.level,
            loop_chunks: 0,
        }
    }

    /// The same task entering a new scope: its spawns are counted from
    /// [`FIRST_SCOPE_SPAWN`] again, so a scope opened in a loop spawns the same ids
    /// every time.
    #[inline]
    pub fn new_scope(self) -> Spawner {
        Spawner { spawned: 0, ..self }
    }

    /// The halves of a `join` made by this task: children 0 and 1.
    #[inline]
    pub fn join_children(&self) -> (TaskInfo, TaskInfo) {
        let level = self.level + 1;
        (
            TaskInfo {
                id: self.id.child(0),
                level,
                loop_chunks: 0,
            },
            TaskInfo {
                id: self.id.child(1),
                level,
                loop_chunks: 0,
            },
        )
    }

    /// The identity of this task's next spawn into the current scope, counting it:
    /// `loop_chunks` is the number of chunks of the loop it is a chunk of, 0 if none.
    #[inline]
    pub fn next_spawn(&mut self, loop_chunks: u32) -> TaskInfo {
        let info = self.scope_spawn(self.spawned, loop_chunks);
        self.spawned += 1;
        info
    }

    /// Chunk `i` of a loop of `chunks` chunks this task opens in a fresh scope: the task
    /// it is when spawned, `FIRST_SCOPE_SPAWN + i`, whoever runs it and however the loop
    /// is dealt.
    #[inline]
    pub fn loop_chunk(&self, i: u32, chunks: u32) -> TaskInfo {
        self.scope_spawn(i, chunks)
    }

    /// The task that runs worker `worker`'s lane of a dealt loop of `chunks` chunks: not
    /// one of the loop's chunks, so an index past them.
    #[inline]
    pub fn lane(&self, worker: usize, chunks: u32) -> TaskInfo {
        let index = chunks.wrapping_add(worker as u32);
        self.scope_spawn(index, 0)
    }

    /// The `index`-th task spawned into this task's scope from outside its pool (a
    /// thread that is no worker): numbered down from the top of the index space, apart
    /// from the task's own spawns.
    #[inline]
    pub fn foreign_spawn(&self, index: u32, loop_chunks: u32) -> TaskInfo {
        TaskInfo {
            id: self.id.child(u32::MAX - index),
            level: self.level + 1,
            loop_chunks,
        }
    }

    /// Spawn `n` of the current scope (child `FIRST_SCOPE_SPAWN + n`).
    #[inline]
    fn scope_spawn(&self, n: u32, loop_chunks: u32) -> TaskInfo {
        TaskInfo {
            id: self.id.child(FIRST_SCOPE_SPAWN.wrapping_add(n)),
            level: self.level + 1,
            loop_chunks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_scopes_number_their_spawns() {
        let root = Spawner::of(Spawner::root_info(Location::caller()));
        let (a, b) = root.join_children();
        assert_eq!((a.id, b.id), (root.id.child(0), root.id.child(1)));
        assert_eq!((a.level, b.level), (1, 1));
        let mut s = root.new_scope();
        let first = s.next_spawn(3);
        let second = s.next_spawn(3);
        assert_eq!(first, root.loop_chunk(0, 3));
        assert_eq!(second, root.loop_chunk(1, 3));
        assert_eq!(second.chunk_index(&root.info()), Some(1));
        // A new scope counts afresh; a lane is none of the chunks.
        assert_eq!(s.new_scope().next_spawn(3), first);
        let lane = root.lane(0, 3);
        assert_eq!(lane.id, root.id.child(FIRST_SCOPE_SPAWN + 3));
        assert!(!lane.is_loop_chunk());
        assert_eq!(root.foreign_spawn(0, 0).id, root.id.child(u32::MAX));
    }
}
