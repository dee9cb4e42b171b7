//! The footprint listener's hand-off (`footprint/listener.rs`): a thread that declares
//! after a change of sink returned hears the new sink, whatever copy it kept; one that
//! declares while the sink changes hears the old one or the new one.

use crate::listener::{Listener, Snapshot};
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

/// Waits for `flag`, set with `Release` once the other thread's change has returned.
fn wait_for(flag: &AtomicBool) {
    while !flag.load(Ordering::Acquire) {
        thread::yield_now();
    }
}

#[test]
fn a_declaration_after_a_change_returned_hears_the_new_sink() {
    loom::model(|| {
        let listener = Arc::new(Listener::<u32>::new());
        let changed = Arc::new(AtomicBool::new(false));
        listener.set(1);
        let declarer = {
            let (listener, changed) = (listener.clone(), changed.clone());
            thread::spawn(move || {
                let mut copy: Snapshot<u32> = (0, None);
                // Started after the first sink was set: hears it, or the second if
                // that came first.
                listener.refresh(&mut copy);
                assert!(matches!(copy.1, Some(1 | 2)), "{copy:?}");
                wait_for(&changed);
                // Told that the second sink is in: the copy made before is stale.
                assert!(listener.any());
                listener.refresh(&mut copy);
                assert_eq!(copy.1, Some(2));
            })
        };
        listener.set(2);
        changed.store(true, Ordering::Release);
        declarer.join().unwrap();
    });
}

#[test]
fn a_declaration_after_clear_returned_hears_nobody() {
    loom::model(|| {
        let listener = Arc::new(Listener::<u32>::new());
        let cleared = Arc::new(AtomicBool::new(false));
        listener.set(7);
        let declarer = {
            let (listener, cleared) = (listener.clone(), cleared.clone());
            thread::spawn(move || {
                let mut copy: Snapshot<u32> = (0, None);
                listener.refresh(&mut copy);
                wait_for(&cleared);
                if listener.any() {
                    // Another thread's own listener would keep the count up; here none.
                    panic!("a listener is counted after the only sink was cleared");
                }
                listener.refresh(&mut copy);
                assert_eq!(copy.1, None);
            })
        };
        listener.clear();
        cleared.store(true, Ordering::Release);
        declarer.join().unwrap();
        assert!(!listener.is_listening());
    });
}

#[test]
fn thread_listeners_and_the_slot_keep_one_count() {
    loom::model(|| {
        let listener = Arc::new(Listener::<u32>::new());
        let own = {
            let listener = listener.clone();
            thread::spawn(move || {
                listener.add_thread();
                assert!(listener.any());
                listener.remove_thread();
            })
        };
        listener.set(3);
        listener.set(4);
        listener.clear();
        own.join().unwrap();
        assert!(!listener.any());
        // Two sets and a clear: the slot went empty -> 3 -> 4 -> empty.
        let mut copy: Snapshot<u32> = (0, None);
        listener.refresh(&mut copy);
        assert_eq!(copy, (3, None));
    });
}
