//! The fenceless join hand-off (`frames.rs`): every pending half is taken exactly once,
//! by its owner after the first half or by a thief, a slot is never read while the
//! owner writes it again, and a stolen half's result (`job.rs`'s `FrameJob`: its state
//! word goes from the owner's index to done) is read only after its thief wrote it. Both fences are modelled as `SeqCst` fences, which is what
//! the owner's compiler fence and the thief's `membarrier` together stand for.

use crate::frames::Frames;
use crate::job::HalfState;
use loom::cell::UnsafeCell;
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

/// One join as `join` runs it on the frames path: the owner publishes a half (its
/// state word holding the owner's index), runs its first half, and takes the half back
/// or, stolen, waits for the thief's completion before reading the result the thief
/// wrote; the thief writes the result and completes the state. `frames` decides who
/// runs it. Returns who ran the half: the owner (0) or the thief (1).
fn one_framed_join(frames: Frames<u32>) -> usize {
    let frames = Arc::new(frames);
    let state = Arc::new(HalfState::new(7));
    let result = Arc::new(UnsafeCell::new(0usize));
    let thief = {
        let (frames, state, result) = (frames.clone(), state.clone(), result.clone());
        thread::spawn(move || {
            if frames.steal().is_some() {
                assert_eq!(state.owner(), 7, "the thief finds whom to wake");
                result.with_mut(|r| {
                    // SAFETY: the claim makes this thread the half's only runner; loom
                    // reports the access if it is not.
                    unsafe { *r += 1 }
                });
                // SAFETY: `state` is live (held by the `Arc`).
                unsafe { HalfState::complete(&*state) };
            }
        })
    };
    let slot = frames.push(1).unwrap();
    let ran = if frames.pop(slot) {
        result.with_mut(|r| {
            // SAFETY: the pop makes this thread the half's only runner; loom reports
            // the access if it is not.
            unsafe { *r += 1 }
        });
        0
    } else {
        while !state.is_done() {
            thread::yield_now();
        }
        frames.release(slot);
        1
    };
    thief.join().unwrap();
    assert_eq!(
        // SAFETY: both threads are done with the cell (the thief is joined).
        result.with(|r| unsafe { *r }),
        1,
        "the half ran exactly once"
    );
    assert!(frames.is_empty());
    ran
}

#[test]
fn a_framed_half_runs_once_and_its_owner_sees_the_thiefs_result() {
    loom::model(|| {
        one_framed_join(Frames::new(false));
    });
}

/// The same join without the owner's fence: loom finds the interleaving in which the
/// owner takes the half back while the thief runs it too (both write the result).
#[test]
#[should_panic(expected = "Concurrent write accesses")]
fn without_the_owners_fence_a_half_runs_twice() {
    loom::model(|| {
        one_framed_join(Frames::without_owner_fence());
    });
}
