//! The waiter handshake of `wait.rs`: a task waiting in `taskwait` or at a barrier
//! sleeps until its count reaches its end, and the task that brings it there wakes it.
//! Loom reports a deadlock if a wake-up can be lost, and a data race if the waiter can
//! miss what the tasks it waited for wrote.

use crate::sync::AtomicUsize;
use crate::wait::{Ends, TaskState, WaiterSlot};
use loom::cell::UnsafeCell;
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;
use std::sync::atomic::Ordering::SeqCst;

/// Worker `0`'s sleep: a wake-up token, as `locus::raw::wake` leaves one for a worker
/// about to sleep. It never checks the waiter's condition itself, so a wake-up the
/// handshake loses is a sleep loom sees never end.
struct Sleeper {
    woken: Mutex<bool>,
    cv: Condvar,
}

impl Sleeper {
    fn new() -> Sleeper {
        Sleeper {
            woken: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    /// `locus::raw::wait_until` for the waiter: check, then sleep until woken.
    fn sleep_until(&self, done: &dyn Fn() -> bool) {
        while !done() {
            let mut woken = self.woken.lock().unwrap();
            while !*woken {
                woken = self.cv.wait(woken).unwrap();
            }
            *woken = false;
        }
    }

    fn wake(&self, worker: usize) {
        assert_eq!(worker, 0, "only worker 0 waits");
        *self.woken.lock().unwrap() = true;
        self.cv.notify_one();
    }
}

/// What a task wrote, read by the waiter once the count says it is done.
struct Output(UnsafeCell<usize>);

// SAFETY: loom checks every access to the cell for races; that is the point.
unsafe impl Sync for Output {}

impl Output {
    fn write(&self, v: usize) {
        // SAFETY: loom tracks the access; the models write each cell from one task.
        self.0.with_mut(|p| unsafe { *p = v });
    }

    fn read(&self) -> usize {
        // SAFETY: as above; loom reports a read not ordered after the write.
        self.0.with(|p| unsafe { *p })
    }
}

/// `task.rs`'s `release` of one reference to `task`, an explicit task whose parent is
/// a member's `implicit` task, by worker `me`: the last reference of the explicit task
/// releases its parent's, and the implicit task's waiter (worker 0, sleeping on
/// `sleeper`) wakes when only its own is left.
fn releaser(
    implicit: &Arc<TaskState>,
    task: &Arc<TaskState>,
    sleeper: &Arc<Sleeper>,
) -> impl Fn(usize) + Clone + Send + 'static {
    let (implicit, task, sleeper) = (implicit.clone(), task.clone(), sleeper.clone());
    move |me: usize| {
        if task.release() == 1 && implicit.release() == 2 {
            implicit.waiter.notify(Some(me), |w| sleeper.wake(w));
        }
    }
}

/// `taskwait` with two children completing on workers 1 and 2: the parent (worker 0)
/// wakes once both have completed and sees what they wrote.
#[test]
fn loom_taskwait_wakes_for_the_last_child() {
    loom::model(|| {
        let parent = Arc::new(TaskState::new());
        let sleeper = Arc::new(Sleeper::new());
        let out = Arc::new([Output(UnsafeCell::new(0)), Output(UnsafeCell::new(0))]);
        parent.add_child();
        parent.add_child();
        let children: Vec<_> = (0..2)
            .map(|i| {
                let (parent, sleeper, out) = (parent.clone(), sleeper.clone(), out.clone());
                thread::spawn(move || {
                    out[i].write(i + 1);
                    if parent.child_completed() {
                        parent.waiter.notify(Some(i + 1), |w| sleeper.wake(w));
                    }
                    parent.release();
                })
            })
            .collect();
        parent
            .waiter
            .wait(0, || parent.children() == 0, |d| sleeper.sleep_until(d));
        assert_eq!(out[0].read() + out[1].read(), 3);
        for c in children {
            c.join().unwrap();
        }
    });
}

/// A barrier's wait on descendants: the implicit task (worker 0) made a child, which
/// made a grandchild; the child completes on worker 1, the grandchild on worker 2, and
/// whichever lets the child's last reference go releases the implicit task's. The
/// member wakes when its references are down to its own and sees the grandchild's
/// write.
#[test]
fn loom_barrier_waits_for_grandchildren() {
    loom::model(|| {
        let implicit = Arc::new(TaskState::new());
        let child = Arc::new(TaskState::new());
        let sleeper = Arc::new(Sleeper::new());
        let out = Arc::new(Output(UnsafeCell::new(0)));
        implicit.add_child();
        // The child, running on worker 1, made the grandchild before completing.
        child.add_child();
        let release_child = releaser(&implicit, &child, &sleeper);
        let grandchild = {
            let (child, out, release_child) = (child.clone(), out.clone(), release_child.clone());
            thread::spawn(move || {
                out.write(7);
                if child.child_completed() {
                    child
                        .waiter
                        .notify(Some(2), |_| unreachable!("nobody waits on it"));
                }
                release_child(2);
            })
        };
        let child_thread = {
            let implicit = implicit.clone();
            thread::spawn(move || {
                if implicit.child_completed() {
                    implicit.waiter.notify(Some(1), |_| {});
                }
                release_child(1);
            })
        };
        implicit
            .waiter
            .wait(0, || implicit.refs() == 1, |d| sleeper.sleep_until(d));
        assert_eq!(out.read(), 7);
        grandchild.join().unwrap();
        child_thread.join().unwrap();
    });
}

/// A task run at once (`task.rs`, `run_at_once`) on worker 0, not counted in its
/// parent, made a child that completes on worker 1, perhaps after the task ended: the
/// task hands its parent a reference if the child still holds one on it, and the
/// parent's member, at its barrier, waits for the child either way and sees its write.
#[test]
fn loom_a_task_run_at_once_hands_its_parent_what_outlives_it() {
    loom::model(|| {
        let implicit = Arc::new(TaskState::new());
        let at_once = Arc::new(TaskState::new());
        let sleeper = Arc::new(Sleeper::new());
        let out = Arc::new(Output(UnsafeCell::new(0)));
        at_once.add_child();
        let release_at_once = releaser(&implicit, &at_once, &sleeper);
        let child = {
            let (at_once, out, release_at_once) =
                (at_once.clone(), out.clone(), release_at_once.clone());
            thread::spawn(move || {
                out.write(7);
                if at_once.child_completed() {
                    at_once
                        .waiter
                        .notify(Some(1), |_| unreachable!("nobody waits on it"));
                }
                release_at_once(1);
            })
        };
        // The end of `run_at_once` on worker 0.
        if !at_once.only_own_ref() {
            implicit.add_ref();
            release_at_once(0);
        }
        // The member's barrier.
        implicit
            .waiter
            .wait(0, || implicit.refs() == 1, |d| sleeper.sleep_until(d));
        assert_eq!(out.read(), 7);
        child.join().unwrap();
    });
}

/// A taskgroup's count, as `task.rs` keeps it: the group's owner (worker 0) waits for
/// one task completing on worker 1; a completer on the waiter's own worker skips the
/// wake-up.
#[test]
fn loom_taskgroup_wakes_its_owner() {
    loom::model(|| {
        let count = Arc::new(AtomicUsize::new(1));
        let waiter = Arc::new(WaiterSlot::new());
        let sleeper = Arc::new(Sleeper::new());
        let out = Arc::new(Output(UnsafeCell::new(0)));
        let task = {
            let (count, waiter, sleeper, out) =
                (count.clone(), waiter.clone(), sleeper.clone(), out.clone());
            thread::spawn(move || {
                out.write(5);
                if count.fetch_sub(1, SeqCst) == 1 {
                    waiter.notify(Some(1), |w| sleeper.wake(w));
                }
            })
        };
        waiter.wait(0, || count.load(SeqCst) == 0, |d| sleeper.sleep_until(d));
        assert_eq!(out.read(), 5);
        task.join().unwrap();
    });
}

/// A detached task: its body ends on worker 1 while its event is fulfilled on worker 2.
/// Exactly one of them completes it, and it sees what the other wrote first.
#[test]
fn loom_a_detached_task_completes_once_after_both_ends() {
    loom::model(|| {
        let ends = Arc::new(Ends::new(2));
        let out = Arc::new([Output(UnsafeCell::new(0)), Output(UnsafeCell::new(0))]);
        let sides: Vec<_> = (0..2)
            .map(|i| {
                let (ends, out) = (ends.clone(), out.clone());
                thread::spawn(move || {
                    out[i].write(i + 1);
                    if ends.reach() {
                        assert_eq!(out[0].read() + out[1].read(), 3);
                        return 1;
                    }
                    0
                })
            })
            .collect();
        let completed: usize = sides.into_iter().map(|s| s.join().unwrap()).sum();
        assert_eq!(completed, 1);
        assert!(ends.all_reached());
    });
}

/// An undeferred (`if(0)`) detached task: its spawner (worker 0) waits for the event,
/// fulfilled on worker 1, which wakes it; the spawner then sees what the fulfiller wrote.
#[test]
fn loom_an_undeferred_detached_task_wakes_its_spawner() {
    loom::model(|| {
        let ends = Arc::new(Ends::new(1));
        let slot = Arc::new(WaiterSlot::new());
        let sleeper = Arc::new(Sleeper::new());
        let out = Arc::new(Output(UnsafeCell::new(0)));
        let fulfiller = {
            let (ends, slot, sleeper, out) =
                (ends.clone(), slot.clone(), sleeper.clone(), out.clone());
            thread::spawn(move || {
                out.write(5);
                if ends.reach() {
                    slot.notify(Some(1), |w| sleeper.wake(w));
                }
            })
        };
        slot.wait(0, || ends.all_reached(), |d| sleeper.sleep_until(d));
        assert_eq!(out.read(), 5);
        fulfiller.join().unwrap();
    });
}

/// What `task.rs`'s `predecessor_done` touches of a task record spawned inline (a
/// `taskwait depend`, an `if(0)` task with `depend`): whether it is inline, its count
/// of unmet dependences and its state. Writing `inline` stands for the block's reuse
/// once the record is freed.
struct InlineRecord {
    inline: Output,
    unmet: AtomicUsize,
    state: TaskState,
}

impl InlineRecord {
    /// Gives up one reference; the last frees the record, whose block a new task
    /// then overwrites.
    fn release(&self) {
        if self.state.release() == 1 {
            self.inline.write(0);
        }
    }
}

/// A task run inline waits for one predecessor, which completes on worker 1 while its
/// spawner (worker 0) registers the dependence: the predecessor reads what it needs of
/// the record before the count moves, and the reference the spawner took for the
/// wake-up keeps the record until that wake-up is done, so the block is reused only
/// after the predecessor is done with it (loom reports a race otherwise: the order
/// `task.rs` had before read `inline` after the count, from a block already reused).
#[test]
fn loom_an_inline_task_outlives_its_last_predecessor_s_wake_up() {
    loom::model(|| {
        let record = Arc::new(InlineRecord {
            inline: Output(UnsafeCell::new(1)),
            // `register_deps`: one for the registration itself, one for the predecessor.
            unmet: AtomicUsize::new(2),
            state: TaskState::new(),
        });
        let sleeper = Arc::new(Sleeper::new());
        // `spawn_task`: the reference for the wake-up, before any predecessor sees it.
        record.state.add_ref();
        let predecessor = {
            let (record, sleeper) = (record.clone(), sleeper.clone());
            thread::spawn(move || {
                let inline = record.inline.read() == 1;
                if record.unmet.fetch_sub(1, SeqCst) == 1 {
                    assert!(inline);
                    record.state.waiter.notify(Some(1), |w| sleeper.wake(w));
                    record.release();
                }
            })
        };
        if record.unmet.fetch_sub(1, SeqCst) == 1 {
            // Ready at registration: no predecessor wakes the spawner.
            record.release();
        } else {
            let done = || record.unmet.load(SeqCst) == 0;
            record
                .state
                .waiter
                .wait(0, done, |d| sleeper.sleep_until(d));
        }
        // The task runs and completes: its own reference.
        record.release();
        predecessor.join().unwrap();
    });
}

/// What `task.rs`'s `release` touches of a member's implicit task: its state, whose
/// waiter slot it reads for the wake-up after the count moved. Writing `frame` stands
/// for the memory the node lives in being reused once its owner is done with it.
struct ImplicitRecord {
    frame: Output,
    state: TaskState,
}

/// A member (worker 0) at its region's closing barrier waits for its implicit task's
/// last child, which completes on worker 1; the region's maker (the model's own
/// thread) waits for both to leave (`Lease::wait_left`). The member may pass the
/// barrier as soon as the count moves, before worker 1's wake-up has read the slot, so
/// the node must not go with the member: `freed_by_member` says whether the member's
/// leaving reuses the node's memory (a node in its own frame, as `run_worker` kept it),
/// else the maker's return does (a node in the region, `Region::implicit`).
fn implicit_release_model(freed_by_member: bool) {
    loom::model(move || {
        let node = Arc::new(ImplicitRecord {
            frame: Output(UnsafeCell::new(0)),
            state: TaskState::new(),
        });
        let sleeper = Arc::new(Sleeper::new());
        node.state.add_ref();
        let releaser = {
            let (node, sleeper) = (node.clone(), sleeper.clone());
            thread::spawn(move || {
                if node.state.release() == 2 {
                    node.frame.read();
                    node.state.waiter.notify(Some(1), |w| sleeper.wake(w));
                }
            })
        };
        let member = {
            let node = node.clone();
            thread::spawn(move || {
                node.state
                    .waiter
                    .wait(0, || node.state.refs() == 1, |d| sleeper.sleep_until(d));
                if freed_by_member {
                    node.frame.write(1);
                }
            })
        };
        member.join().unwrap();
        releaser.join().unwrap();
        if !freed_by_member {
            node.frame.write(1);
        }
    });
}

/// The node in the region: the wake-up's read is done before the node goes.
#[test]
fn loom_an_implicit_task_outlives_its_last_child_s_wake_up() {
    implicit_release_model(false);
}

/// The node in the member's frame: loom sees the wake-up read memory the member has
/// already left (the order `run_worker` had before).
#[test]
#[should_panic(expected = "Causality violation")]
fn loom_an_implicit_task_in_its_member_s_frame_is_read_after_it_left() {
    implicit_release_model(true);
}
