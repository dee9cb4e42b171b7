//! The doors for foreign task layers: `ThreadPool::broadcast` runs a closure on every
//! worker at once, and raw tasks (`locus::raw`) are spawned, counted and waited for by
//! their maker, under every policy and on virtual machines.

use crate::common::{pool, MACHINES};
use locus::raw::{self, RawTask};
use locus::{PolicyKind, TaskId, TaskInfo};
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn a_broadcast_runs_every_share_at_once_on_its_own_worker() {
    for policy in PolicyKind::ALL {
        for machine in MACHINES {
            let pool = pool(policy.clone(), 3, machine);
            let ran = [0, 1, 2].map(|_| AtomicUsize::new(usize::MAX));
            let arrived = AtomicUsize::new(0);
            for round in 0..3 {
                pool.broadcast(|i| {
                    ran[i].store(locus::current_worker_index().unwrap(), Ordering::SeqCst);
                    // A barrier: returns only if all three shares run at the same time.
                    arrived.fetch_add(1, Ordering::SeqCst);
                    raw::wait_until(|| arrived.load(Ordering::SeqCst) >= 3 * (round + 1));
                    raw::wake_all();
                });
            }
            for (i, r) in ran.iter().enumerate() {
                assert_eq!(r.load(Ordering::SeqCst), i, "{policy} on {machine}");
            }
            // From a worker of the pool too: its own share runs in place.
            let count = AtomicUsize::new(0);
            pool.install(|| {
                pool.broadcast(|_| {
                    count.fetch_add(1, Ordering::SeqCst);
                })
            });
            assert_eq!(count.into_inner(), 3);
        }
    }
}

#[test]
fn a_broadcast_resumes_a_share_panic_after_all_have_run() {
    let pool = pool(PolicyKind::Ws, 2, "this");
    let ran = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.broadcast(|i| {
            ran.fetch_add(1, Ordering::SeqCst);
            assert!(i != 1, "share 1 fails");
        })
    }));
    assert!(result.is_err());
    assert_eq!(ran.into_inner(), 2);
}

/// A raw task of the test: counts itself done in `pending` and spawns `depth` levels
/// of children below it.
#[repr(C)]
struct Counted {
    raw: RawTask,
    depth: u32,
    pending: &'static AtomicUsize,
    ran: &'static AtomicUsize,
}

unsafe fn run_counted(raw: *mut RawTask) {
    // SAFETY: made by `spawn_counted` from a Box, run once.
    let task = unsafe { Box::from_raw(raw.cast::<Counted>()) };
    if task.depth > 0 {
        for _ in 0..2 {
            spawn_counted(task.depth - 1, task.pending, task.ran);
        }
    }
    task.ran.fetch_add(1, Ordering::SeqCst);
    if task.pending.fetch_sub(1, Ordering::SeqCst) == 1 {
        raw::wake_all();
    }
}

fn spawn_counted(depth: u32, pending: &'static AtomicUsize, ran: &'static AtomicUsize) {
    pending.fetch_add(1, Ordering::SeqCst);
    let info = TaskInfo {
        id: TaskId(u64::from(depth)),
        level: 0,
        loop_chunks: 0,
    };
    let task = Box::into_raw(Box::new(Counted {
        raw: RawTask::new(info, run_counted),
        depth,
        pending,
        ran,
    }));
    // SAFETY: live until run (the Box is reclaimed by `run_counted`), spawned once.
    unsafe { raw::spawn(task.cast()) }.expect("spawned from a worker");
}

#[test]
fn raw_tasks_run_once_each_and_their_maker_waits_for_them() {
    for policy in PolicyKind::ALL {
        for machine in MACHINES {
            let pool = pool(policy.clone(), 3, machine);
            let pending: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
            let ran: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
            pool.install(|| {
                spawn_counted(8, pending, ran);
                raw::wait_until(|| pending.load(Ordering::SeqCst) == 0);
            });
            assert_eq!(ran.load(Ordering::SeqCst), 511, "{policy} on {machine}");
        }
    }
    // Off a worker there is nowhere to spawn: refused, and nothing runs.
    let ran: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    let mut task = Counted {
        raw: RawTask::new(
            TaskInfo {
                id: TaskId(0),
                level: 0,
                loop_chunks: 0,
            },
            run_counted,
        ),
        depth: 0,
        pending: ran,
        ran,
    };
    // SAFETY: refused before anything is published.
    assert!(unsafe { raw::spawn(&mut task.raw) }.is_err());
}

/// `spin_until` runs nothing while it waits, on a worker too: the task spawned before
/// the wait is still waiting in the one worker's deque when the condition comes true
/// (set by a thread outside the pool), and runs after. `wait_until` would have run it.
#[test]
fn spin_until_runs_no_task_while_it_waits() {
    let pool = pool(PolicyKind::Ws, 1, "this");
    let ran = AtomicUsize::new(0);
    let released = AtomicUsize::new(0);
    std::thread::scope(|threads| {
        threads.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            released.store(1, Ordering::SeqCst);
        });
        pool.install(|| {
            locus::scope(|s| {
                s.spawn(|_| {
                    ran.fetch_add(1, Ordering::SeqCst);
                });
                raw::spin_until(|| released.load(Ordering::SeqCst) == 1);
                assert_eq!(
                    ran.load(Ordering::SeqCst),
                    0,
                    "the task ran during the wait"
                );
            });
        });
    });
    assert_eq!(ran.into_inner(), 1);
}

/// `offers_enough` counts the tasks waiting in the calling worker's own deque (or its
/// squad's queue), and says no while another worker of the pool looks for work or
/// sleeps; off a worker it says no.
#[test]
fn offers_enough_counts_the_own_deque_while_no_worker_idles() {
    assert!(!raw::offers_enough(0), "off a worker");
    let one = pool(PolicyKind::Ws, 1, "this");
    one.install(|| {
        locus::scope(|s| {
            assert!(raw::offers_enough(0));
            assert!(!raw::offers_enough(1));
            s.spawn(|_| {});
            s.spawn(|_| {});
            assert!(raw::offers_enough(2));
            assert!(!raw::offers_enough(3));
        });
    });
    // Under mts the tasks wait in the squad's queue, where the squad's workers take
    // them: they count the same.
    let mts = pool(PolicyKind::Mts { batch: None }, 1, "this");
    mts.install(|| {
        locus::scope(|s| {
            assert!(!raw::offers_enough(1));
            s.spawn(|_| {});
            s.spawn(|_| {});
            assert!(raw::offers_enough(2));
            assert!(!raw::offers_enough(3));
        });
    });
    // The second worker has nothing to do: once it idles, nothing is enough.
    let two = pool(PolicyKind::Ws, 2, "this");
    two.install(|| {
        let start = std::time::Instant::now();
        while raw::offers_enough(0) {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(10),
                "the idle worker was never counted"
            );
            std::thread::yield_now();
        }
    });
}
