//! The MTS bulk-steal hand-off: one worker of a squad steals at a time, and every task
//! ends up run exactly once, by the thief, by its squad, or left with the victim.

use crate::queue::{bulk_steal, BulkSteal, SharedQueue};
use crate::sync::AtomicBool;
use loom::sync::Arc;
use loom::thread;

#[test]
fn bulk_steal_conserves_tasks_and_excludes_a_second_thief() {
    loom::model(|| {
        let victim = Arc::new(SharedQueue::new());
        victim.push_all([1u32, 2, 3]);
        let own = Arc::new(SharedQueue::new());
        let flag = Arc::new(AtomicBool::new(false));
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let (victim, own, flag) = (victim.clone(), own.clone(), flag.clone());
                thread::spawn(move || {
                    let mut scratch = Vec::new();
                    match bulk_steal(&flag, &victim, &own, 2, &mut scratch) {
                        BulkSteal::Took { first, moved } => {
                            assert!((1..=2).contains(&moved));
                            vec![first]
                        }
                        BulkSteal::Busy | BulkSteal::Empty | BulkSteal::Failed => Vec::new(),
                    }
                })
            })
            .collect();
        // The victim's owner keeps popping its own newest task meanwhile.
        let mut seen: Vec<u32> = victim.pop_newest().into_iter().collect();
        for t in thieves {
            seen.extend(t.join().unwrap());
        }
        while let Some(x) = own.pop_newest() {
            seen.push(x);
        }
        while let Some(x) = victim.pop_oldest() {
            seen.push(x);
        }
        seen.sort_unstable();
        assert_eq!(seen, vec![1, 2, 3], "each task exactly once");
    });
}

#[test]
fn a_picked_pop_and_a_newest_pop_take_each_item_once() {
    loom::model(|| {
        let queue = Arc::new(SharedQueue::new());
        queue.push_all([1u32, 2, 3]);
        let picker = {
            let queue = queue.clone();
            // The oldest, as `mts` takes a shallower task.
            thread::spawn(move || queue.pop_picked(|_| Some(0)))
        };
        let mut seen: Vec<u32> = queue.pop_newest().into_iter().collect();
        seen.extend(picker.join().unwrap());
        assert_eq!(seen.len(), 2, "both pops found an item");
        while let Some(x) = queue.pop_oldest() {
            seen.push(x);
        }
        seen.sort_unstable();
        assert_eq!(seen, vec![1, 2, 3], "each item exactly once");
        assert!(queue.is_empty());
        assert_eq!(
            queue.pop_picked(|_| Some(0)),
            None,
            "an empty queue gives nothing"
        );
    });
}
