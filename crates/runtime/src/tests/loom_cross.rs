//! Waits across pools (`Registry::in_worker_cross`): a worker of pool A waits on a
//! [`CrossLatch`] set by a worker of pool B, and keeps serving A meanwhile. Each pool is
//! modelled by its sleep state and one queue; a `Sleep` stands in for the registry that
//! owns it.

use crate::latch::{CrossLatch, HasSleep, Latch};
use crate::queue::SharedQueue;
use crate::sleep::Sleep;

impl HasSleep for Sleep {
    fn sleep(&self) -> &Sleep {
        self
    }
}

/// A latch pointer handed to the thread that sets it, as a job's ref is.
struct Ptr(*const CrossLatch<Sleep>);
// SAFETY: the latch is `Sync`; the pointer is only used while the latch is live (see
// each model).
unsafe impl Send for Ptr {}

/// Worker 0 of A sleeps in A while a thread of B sets its latch, then frees the latch
/// and drops its own hold on A's sleep state at once: the setter's wake-up must reach it
/// (loom reports a deadlock otherwise) and must go through the setter's own reference.
#[test]
fn a_latch_set_from_another_pool_wakes_the_waiter() {
    loom::model(|| {
        let a = std::sync::Arc::new(Sleep::new(1));
        let latch = Box::new(CrossLatch::new(&a, 0));
        let ptr = Ptr(&*latch);
        let setter = loom::thread::spawn(move || {
            let ptr = ptr;
            // SAFETY: the waiter frees the latch only after seeing it set, and `set`
            // touches nothing of it after the store.
            unsafe { Latch::set(ptr.0) };
        });
        while !latch.probe() {
            a.sleep(0, || latch.probe(), || {});
        }
        drop(latch);
        drop(a);
        setter.join().unwrap();
    });
}

/// The reproduction in small: A's only worker injects a job into B and waits for it;
/// B's only worker runs that job, which injects a job into A and waits for it before
/// setting the first latch. A's worker must run the second job while it waits (and be
/// woken for it), and both waits must end: each side sleeps in its own pool and is woken
/// by the other.
#[test]
fn waits_across_two_pools_serve_each_other() {
    loom::model(|| {
        let a = std::sync::Arc::new(Sleep::new(1));
        let b = std::sync::Arc::new(Sleep::new(1));
        let a_queue = loom::sync::Arc::new(SharedQueue::<usize>::new());
        let b_queue = loom::sync::Arc::new(SharedQueue::<usize>::new());
        // The job A's worker injects into B, waited on in A.
        let outer = Box::new(CrossLatch::new(&a, 0));
        let b_worker = {
            let (a, b) = (std::sync::Arc::clone(&a), std::sync::Arc::clone(&b));
            let (a_queue, b_queue) = (a_queue.clone(), b_queue.clone());
            loom::thread::spawn(move || {
                // B's worker: idle until its injector has the job.
                let job = loop {
                    if let Some(job) = b_queue.pop_newest() {
                        break job;
                    }
                    b.sleep(0, || !b_queue.is_empty(), || {});
                };
                // The job calls back into A and waits there, serving B meanwhile (B has
                // nothing else).
                let inner = Box::new(CrossLatch::new(&b, 0));
                a_queue.push(&*inner as *const CrossLatch<Sleep> as usize);
                a.new_foreign_work(&[]);
                while !inner.probe() {
                    b.sleep(0, || inner.probe() || !b_queue.is_empty(), || {});
                }
                drop(inner);
                // SAFETY: `job` is the outer latch's address; its waiter frees it only
                // after seeing it set.
                unsafe { Latch::set(job as *const CrossLatch<Sleep>) };
            })
        };
        b_queue.push(&*outer as *const CrossLatch<Sleep> as usize);
        b.new_foreign_work(&[]);
        // A's worker waits for the outer job, running A's work meanwhile.
        let mut served = 0;
        while !outer.probe() {
            if let Some(job) = a_queue.pop_newest() {
                served += 1;
                // SAFETY: the inner latch's address; its waiter frees it only after
                // seeing it set.
                unsafe { Latch::set(job as *const CrossLatch<Sleep>) };
                continue;
            }
            a.sleep(0, || outer.probe() || !a_queue.is_empty(), || {});
        }
        assert_eq!(served, 1, "A's worker ran the job B waited on");
        drop(outer);
        b_worker.join().unwrap();
    });
}
