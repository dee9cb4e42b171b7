//! Spawn numbering: the ids and levels a running task gives the tasks it spawns.
//!
//! Children are numbered per sync block, as Cilk numbers a procedure's spawns: the two
//! halves of a `join` are known by the join's call site, and the spawns a task makes
//! into one scope are children [`FIRST_SCOPE_SPAWN`], [`FIRST_SCOPE_SPAWN`] + 1, ... in
//! the order it makes them (a scope starts its count afresh, [`Spawner::new_scope`]).
//! So the same code run again (the next iteration of a loop, in the same task or from a
//! new root at the same call site) spawns tasks with the same ids, which is how a
//! profiling policy recognises the tasks it has seen.
//!
//! A task that joins at two places of the code is not iterating: mergesort's task sorts
//! its halves with one `join` and then merges them with another. So the halves of a
//! join at a site with tag `t` ([`JoinSite`]: `t` in 1..=4095, from the site's line,
//! column and file name length) are children `t << 20` and `(t << 20) + 1`; two sites
//! with the same tag in one task share ids. The site is a constant where `join` is
//! inlined into its caller, so knowing it costs a join nothing. Loops and scopes are
//! numbered per scope without a tag: the chunks of two loops of one task that cover the
//! same range (a loop that first touches an array, then the loop that sweeps it) are
//! the same tasks to a policy, so it places them alike.
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

/// A `join`'s call site, as the spawn index of the join's first half: its tag (1 to
/// 4095, from the site's line, column and file name length) above `TAG_SHIFT` bits.
/// Made where the site is known (`JoinSite::of(Location::caller())` in a
/// `#[track_caller]` function the compiler inlines), it is a constant there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JoinSite(u32);

impl JoinSite {
    /// The site of `location`.
    #[inline(always)]
    pub fn of(location: &Location<'_>) -> JoinSite {
        let h = location
            .line()
            .wrapping_mul(0x9e37_79b1)
            .wrapping_add(location.column().wrapping_mul(0x85eb_ca77))
            .wrapping_add((location.file().len() as u32).wrapping_mul(0xc2b2_ae3d));
        let tag = 1 + (h ^ (h >> 15)) % 4095;
        JoinSite(tag << TAG_SHIFT)
    }
}

/// Bits of a spawn index below a join's tag.
const TAG_SHIFT: u32 = 20;

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

    /// The spawner of task `id` at `level` that has made `spawned` spawns into its
    /// current scope: with [`Spawner::spawned`], how a runtime saves and restores a
    /// spawner field by field (a field written on its own and then read as part of the
    /// whole two-word value stalls the load on x86: store forwarding fails).
    #[inline]
    pub fn from_parts(id: TaskId, level: u32, spawned: u32) -> Spawner {
        Spawner { id, level, spawned }
    }

    /// The spawns made into the current scope (see [`Spawner::from_parts`]).
    #[inline]
    pub fn spawned(&self) -> u32 {
        self.spawned
    }

    /// The same task entering a new scope: its spawns are counted from
    /// [`FIRST_SCOPE_SPAWN`] again, so a scope opened in a loop spawns the same ids
    /// every time.
    #[inline]
    pub fn new_scope(self) -> Spawner {
        Spawner { spawned: 0, ..self }
    }

    /// The halves of a `join` this task makes at `site` (see the module documentation).
    #[inline]
    pub fn join_children(&self, site: JoinSite) -> (TaskInfo, TaskInfo) {
        let JoinSite(first) = site;
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
        let root = Spawner::of(Spawner::root_info(Location::caller()));
        let here = Location::caller();
        let (a, b) = root.join_children(JoinSite::of(here));
        assert_eq!(a.id.index_in(root.id), Some(0));
        assert_eq!(b.id.index_in(root.id), Some(1));
        assert_eq!(b.id, root.id.child(JoinSite::of(here).0 + 1));
        assert_eq!((a.level, b.level), (1, 1));
        // The same site again (an iteration) gives the same children.
        assert_eq!(root.join_children(JoinSite::of(here)), (a, b));
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
        let task = Spawner::of(Spawner::root_info(Location::caller()));
        let sort = task.join_children(JoinSite::of(Location::caller()));
        let merge = task.join_children(JoinSite::of(Location::caller()));
        assert_ne!(sort.0.id, merge.0.id);
        assert_ne!(sort.1.id, merge.1.id);
        assert_eq!(merge.0.id.index_in(task.id), Some(0));
        assert_eq!(merge.1.id.index_in(task.id), Some(1));
        assert_eq!(merge.0.level, sort.0.level);
        // A child joining at the same site as its parent numbers its halves alike.
        let here = JoinSite::of(Location::caller());
        let child = Spawner::of(merge.0);
        assert_eq!(child.join_children(here).0.id, merge.0.id.child(here.0));
        assert_eq!(task.join_children(here).0.id, task.id.child(here.0));
        // A loop's chunks are not tagged, wherever the task joined before.
        assert_eq!(task.loop_chunk(0, 4).chunk_index(&task.info()), Some(0));
    }

    #[test]
    fn each_child_knows_its_fork() {
        use crate::Fork;
        let task = Spawner::of(Spawner::root_info(Location::caller()));
        let (a, b) = task.join_children(JoinSite::of(Location::caller()));
        let (c, d) = task.join_children(JoinSite::of(Location::caller()));
        let parent = task.id;
        let Some(Fork::Join(first)) = a.id.fork_in(parent) else {
            panic!("a join's half comes from a join")
        };
        assert_ne!(first, 0, "a join site has a tag");
        assert_eq!(b.id.fork_in(parent), Some(Fork::Join(first)));
        let Some(Fork::Join(tag)) = c.id.fork_in(parent) else {
            panic!("a join at a second site is a join")
        };
        assert_ne!(tag, first, "another site, another fork");
        assert_eq!(d.id.fork_in(parent), Some(Fork::Join(tag)));
        assert_eq!(task.id.child(1).fork_in(parent), Some(Fork::Join(0)));
        let mut scope = task.new_scope();
        assert_eq!(scope.next_spawn(0).id.fork_in(parent), Some(Fork::Scope));
        assert_eq!(task.loop_chunk(7, 9).id.fork_in(parent), Some(Fork::Scope));
        assert_eq!(task.foreign_spawn(0, 0).id.fork_in(parent), None);
        assert_eq!(a.id.child(0).fork_in(parent), None, "a grandchild");
    }
}
