//! The sleep handshake (`sleep/README.md`): no wake-up is lost, whether the sleeper
//! waits for work or for a latch.

use crate::latch::{CountLatch, Latch, WorkerLatch};
use crate::queue::SharedQueue;
use crate::sleep::Sleep;
use loom::sync::Arc;
use loom::thread;

/// A worker that finds no work goes to sleep while another thread injects a task it does
/// not drain itself: the sleeper must end up with the task. Loom reports a deadlock if
/// the sleeper can sleep forever.
#[test]
fn no_lost_wakeup_for_work() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(1));
        let queue = Arc::new(SharedQueue::new());
        let pusher = {
            let (sleep, queue) = (sleep.clone(), queue.clone());
            thread::spawn(move || {
                queue.push(7u32);
                sleep.new_foreign_work(&[]);
            })
        };
        let got = loop {
            if let Some(x) = queue.pop_newest() {
                break x;
            }
            sleep.sleep(0, || !queue.is_empty(), || {});
        };
        assert_eq!(got, 7);
        pusher.join().unwrap();
    });
}

/// A worker waiting in a join sleeps while another thread sets the join's latch.
#[test]
fn no_lost_wakeup_for_a_latch() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(2));
        let latch = Arc::new(WorkerLatch::new(&sleep, 0));
        let setter = {
            let latch = latch.clone();
            thread::spawn(move || {
                // SAFETY: the latch is kept alive by the Arc for the whole call.
                unsafe { Latch::set(&*latch) };
            })
        };
        while !latch.probe() {
            sleep.sleep(0, || latch.probe(), || {});
        }
        setter.join().unwrap();
    });
}

/// A scope's count latch is set exactly when the last of its tasks finishes, and the
/// owner wakes for it.
#[test]
fn count_latch_releases_the_owner_once_all_are_done() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(1));
        let latch = Arc::new(CountLatch::new(&sleep, 0));
        latch.increment();
        latch.increment();
        let spawned: Vec<_> = (0..2)
            .map(|_| {
                let latch = latch.clone();
                // SAFETY: the Arc keeps the latch alive.
                thread::spawn(move || unsafe { Latch::set(&*latch) })
            })
            .collect();
        assert!(!latch.probe(), "the owner's own share is still held");
        // SAFETY: as above.
        unsafe { Latch::set(&*latch) };
        while !latch.probe() {
            sleep.sleep(0, || latch.probe(), || {});
        }
        for t in spawned {
            t.join().unwrap();
        }
    });
}
