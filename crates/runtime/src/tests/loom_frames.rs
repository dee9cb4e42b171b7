//! The fenceless join hand-off (`frames.rs`): every pending half is taken exactly once,
//! by its owner after the first half or by a thief, and a slot is never read while the
//! owner writes it again. Both fences are modelled as `SeqCst` fences, which is what
//! the owner's compiler fence and the thief's `membarrier` together stand for.

use crate::frames::Frames;
use loom::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use loom::sync::Arc;
use loom::thread;

#[test]
fn two_thieves_and_the_owner_take_each_half_once() {
    loom::model(|| {
        let frames = Arc::new(Frames::new(false));
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let frames = frames.clone();
                thread::spawn(move || frames.steal())
            })
            .collect();
        let outer = frames.push(1u32).unwrap();
        let inner = frames.push(2u32).unwrap();
        let mut taken = Vec::new();
        let mut stolen = Vec::new();
        for (slot, item) in [(inner, 2), (outer, 1)] {
            if frames.pop(slot) {
                taken.push(item);
            } else {
                stolen.push(slot);
            }
        }
        for thief in thieves {
            taken.extend(thief.join().unwrap());
        }
        for slot in stolen {
            frames.release(slot);
        }
        taken.sort_unstable();
        assert_eq!(taken, vec![1, 2], "each half exactly once");
        assert!(frames.is_empty());
    });
}

#[test]
fn a_slot_taken_back_or_released_is_filled_again_without_a_race() {
    loom::model(|| {
        let frames = Arc::new(Frames::new(false));
        // What the thief took, as a bit per item, once it has "run" it.
        let ran = Arc::new(AtomicUsize::new(0));
        let thief = {
            let (frames, ran) = (frames.clone(), ran.clone());
            thread::spawn(move || {
                for _ in 0..2 {
                    if let Some(item) = frames.steal() {
                        ran.fetch_or(1usize << item, SeqCst);
                    }
                }
            })
        };
        let mut mine = 0;
        for item in [1u32, 2] {
            let slot = frames.push(item).unwrap();
            assert_eq!(slot, 0, "the same slot each time");
            if frames.pop(slot) {
                mine |= 1usize << item;
            } else {
                // A join whose half was stolen waits for it to run, then releases.
                while ran.load(SeqCst) & (1usize << item) == 0 {
                    thread::yield_now();
                }
                frames.release(slot);
            }
        }
        thief.join().unwrap();
        let theirs = ran.load(SeqCst);
        assert_eq!(mine & theirs, 0, "no half taken twice");
        assert_eq!(mine | theirs, 0b110, "no half lost");
    });
}
