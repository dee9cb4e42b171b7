//! Spawn numbering: the ids and levels a running task gives the tasks it spawns.
//!
//! Children are numbered per sync block, as Cilk numbers a procedure's spawns: the two
//! halves of a `join` are children 0 and 1 of the task that joins, and the spawns a
//! task makes into one scope are children [`FIRST_SCOPE_SPAWN`], [`FIRST_SCOPE_SPAWN`] +
//! 1, ... in the order it makes them (a scope starts its count afresh,
//! [`Spawner::new_scope`]). So the same code run again (the next iteration of a loop, in
//! the same task or from a new root at the same call site) spawns tasks with the same
//! ids, which is how a profiling policy recognises the tasks it has seen.
//!
//! A task that joins at two places of the code is not iterating: mergesort's task sorts
//! its halves with one `join` and then merges them with another. So a `join` is known by
//! its call site too: the first site a task joins at gives children 0 and 1, and a join
//! at another site gives children `tag << 20` and `(tag << 20) + 1`, with `tag` in
//! 1..=4095 taken from the site's line, column and file name length (two sites with the
//! same tag in one task share ids, as every site did before). Loops and scopes are
//! numbered per scope without a tag: the chunks of two loops of one task that cover the
//! same range (a loop that first touches an array, then the loop that sweeps it) are
//! the same tasks to a policy, so it places them alike.
//!
//! This is the one implementation of that numbering: the runtime's `join`, `scope` and
//! `for_range` and the kernels' recorder (which writes the task tree the simulator
//! runs) both ask a [`Spawner`], so a task has the same id in both engines.

use std::panic::Location;

use crate::id::{TaskId, TaskInfo, FIRST_SCOPE_SPAWN};

/// A running task as the parent of its spawns: its id, its level, the spawns it has
/// made into the scope it is spawning into now, and the site of its first `join`. Three
/// words, copied at every `join`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spawner {
    /// The running task's id.
    pub id: TaskId,
    /// The running task's level.
    pub level: u32,
    /// Spawns made into the current scope.
    spawned: u32,
    /// The site of the task's first `join` ([`site_of`]), 0 before it has joined.
    first_join: u32,
}

/// Bits of a spawn index below a join's tag.
const TAG_SHIFT: u32 = 20;

/// A join site as a non-zero number: its line, column and file name length mixed.
#[inline]
fn site_of(location: &Location<'_>) -> u32 {
    let h = location
        .line()
        .wrapping_mul(0x9e37_79b1)
        .wrapping_add(location.column().wrapping_mul(0x85eb_ca77))
        .wrapping_add((location.file().len() as u32).wrapping_mul(0xc2b2_ae3d));
    (h ^ (h >> 15)) | 1
}

impl Spawner {
    /// A task about to run, having spawned nothing.
    #[inline]
    pub fn of(info: TaskInfo) -> Spawner {
        Spawner {
            id: info.id,
            level: info.level,
            spawned: 0,
            first_join: 0,
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

    /// The halves of a `join` this task makes at `location` (use `Location::caller()`
    /// under `#[track_caller]`): children 0 and 1 at the task's first join site, and
    /// tagged by the site at another (see the module documentation).
    #[inline]
    pub fn join_children(&mut self, location: &Location<'_>) -> (TaskInfo, TaskInfo) {
        let site = site_of(location);
        if self.first_join == 0 {
            self.first_join = site;
        }
        let first = if site == self.first_join {
            0
        } else {
            (1 + site % 4095) << TAG_SHIFT
        };
        let level = self.level + 1;
        (
            TaskInfo {
                id: self.id.child(first),
                level,
                loop_chunks: 0,
            },
            TaskInfo {
                id: self.id.child(first + 1),
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
        let mut root = Spawner::of(Spawner::root_info(Location::caller()));
        let here = Location::caller();
        let (a, b) = root.join_children(here);
        assert_eq!((a.id, b.id), (root.id.child(0), root.id.child(1)));
        assert_eq!((a.level, b.level), (1, 1));
        // The same site again (an iteration) gives the same children.
        assert_eq!(root.join_children(here), (a, b));
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

    #[test]
    fn a_join_at_another_site_gives_other_children_in_the_same_order() {
        let mut task = Spawner::of(Spawner::root_info(Location::caller()));
        let sort = task.join_children(Location::caller());
        let merge = task.join_children(Location::caller());
        assert_ne!(sort.0.id, merge.0.id);
        assert_ne!(sort.1.id, merge.1.id);
        assert_eq!(merge.0.id.index_in(task.id), Some(0));
        assert_eq!(merge.1.id.index_in(task.id), Some(1));
        assert_eq!(merge.0.level, sort.0.level);
        // The first site stays untagged whatever comes after it, and a child's own
        // first join is untagged again.
        let (a, _) = sort;
        assert_eq!(a.id, task.id.child(0));
        let mut child = Spawner::of(merge.0);
        assert_eq!(
            child.join_children(Location::caller()).0.id,
            merge.0.id.child(0)
        );
        // A loop's chunks are not tagged, wherever the task joined before.
        assert_eq!(task.loop_chunk(0, 4).chunk_index(&task.info()), Some(0));
    }

    #[test]
    fn each_child_knows_its_fork() {
        use crate::Fork;
        let mut task = Spawner::of(Spawner::root_info(Location::caller()));
        let (a, b) = task.join_children(Location::caller());
        let (c, d) = task.join_children(Location::caller());
        let parent = task.id;
        assert_eq!(a.id.fork_in(parent), Some(Fork::Join(0)));
        assert_eq!(b.id.fork_in(parent), Some(Fork::Join(0)));
        let Some(Fork::Join(tag)) = c.id.fork_in(parent) else {
            panic!("a join at a second site is a join")
        };
        assert_ne!(tag, 0, "another site, another fork");
        assert_eq!(d.id.fork_in(parent), Some(Fork::Join(tag)));
        let mut scope = task.new_scope();
        assert_eq!(scope.next_spawn(0).id.fork_in(parent), Some(Fork::Scope));
        assert_eq!(task.loop_chunk(7, 9).id.fork_in(parent), Some(Fork::Scope));
        assert_eq!(task.foreign_spawn(0, 0).id.fork_in(parent), None);
        assert_eq!(a.id.child(0).fork_in(parent), None, "a grandchild");
    }
}
