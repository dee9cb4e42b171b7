//! The end of a pool with detached spawns outstanding (`spawn.rs`): a worker leaves only
//! once `terminate` is set and every spawn has ended, and no wake-up for that is lost.

use crate::sleep::Sleep;
use crate::spawn::Detached;
use crate::sync::AtomicBool;
use loom::sync::Arc;
use loom::thread;
use std::sync::atomic::Ordering;

/// A worker waits to leave while one thread drops the pool (sets `terminate`, wakes all)
/// and another ends the last detached spawn. Loom reports a deadlock if the worker can
/// sleep forever, and the assertion a worker that leaves before the spawn has ended.
#[test]
fn the_last_spawn_after_terminate_lets_the_workers_leave() {
    loom::model(|| {
        let sleep = Arc::new(Sleep::new(1));
        let terminate = Arc::new(AtomicBool::new(false));
        let detached = Arc::new(Detached::new(1));
        let ran = Arc::new(AtomicBool::new(false));
        detached.add();
        let spawn = {
            let (sleep, terminate, detached, ran) = (
                sleep.clone(),
                terminate.clone(),
                detached.clone(),
                ran.clone(),
            );
            thread::spawn(move || {
                ran.store(true, Ordering::Relaxed);
                detached.done(&sleep, &terminate);
            })
        };
        let drop = {
            let (sleep, terminate) = (sleep.clone(), terminate.clone());
            thread::spawn(move || {
                terminate.store(true, Ordering::Release);
                sleep.wake_all();
            })
        };
        let leave = || terminate.load(Ordering::Acquire) && detached.none_outstanding();
        while !leave() {
            sleep.sleep(0, leave, || {});
        }
        assert!(
            ran.load(Ordering::Relaxed),
            "a worker left before the spawn ran"
        );
        spawn.join().unwrap();
        drop.join().unwrap();
    });
}
