//! `collect_into_vec` and `par_extend` writing in place into a vector's spare capacity:
//! the answers std gives, the buffer kept when it is large enough, the old items kept
//! and every new item dropped once when a leaf panics.

use crate::common::pool;
use crate::iter::Counted;
use locus::prelude::*;
use locus::PolicyKind;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Lengths around the cut into leaves (`locus::iter::LEAVES`) and past it.
const LENGTHS: [usize; 8] = [0, 1, 2, 255, 256, 257, 1_000, 40_000];

#[test]
fn collect_into_vec_matches_std_and_reuses_a_large_enough_buffer() {
    for (policy, machine) in [(PolicyKind::Ws, "this"), (PolicyKind::Central, "2x1")] {
        let pool = pool(policy, 3, machine);
        for n in LENGTHS {
            for old in [0, 3, n / 2, n + 7] {
                let want: Vec<String> = (0..n).map(|i| format!("{}", i * 3)).collect();
                let mut target: Vec<String> = (0..old).map(|i| format!("old {i}")).collect();
                target.reserve(n);
                let buffer = target.as_ptr();
                let capacity = target.capacity();
                pool.install(|| {
                    (0..n)
                        .into_par_iter()
                        .map(|i| format!("{}", i * 3))
                        .collect_into_vec(&mut target)
                });
                assert_eq!(target, want, "n {n}, old {old}");
                // The buffer held `n` items already: collecting again keeps it.
                assert_eq!((target.as_ptr(), target.capacity()), (buffer, capacity));
            }
        }
    }
}

#[test]
fn par_extend_of_an_indexed_chain_appends_in_order() {
    let pool = pool(PolicyKind::Ws, 3, "this");
    for n in LENGTHS {
        for (old, max) in [(0, usize::MAX), (5, 1), (n, 7), (1_000, usize::MAX)] {
            let mut v: Vec<u64> = (0..old as u64).map(|x| x * 7).collect();
            let mut w = v.clone();
            pool.install(|| {
                v.par_extend(
                    (0..n as u64)
                        .into_par_iter()
                        .map(|x| x ^ 5)
                        .with_max_len(max),
                )
            });
            w.extend((0..n as u64).map(|x| x ^ 5));
            assert_eq!(v, w, "n {n}, old {old}, max {max}");
        }
    }
}

#[test]
fn a_panic_in_an_in_place_collect_keeps_the_old_items_and_drops_the_new_once() {
    let pool = pool(PolicyKind::Ws, 3, "this");
    for panic_at in [0u32, 1, 4_999, 9_999] {
        let old_drops = AtomicUsize::new(0);
        let new_drops = AtomicUsize::new(0);
        let mut v: Vec<Counted> = (0..100u32).map(|i| Counted(i, &old_drops)).collect();
        let made = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                v.par_extend((0..10_000).into_par_iter().map(|i| {
                    assert!(i != panic_at, "cut");
                    made.fetch_add(1, Ordering::Relaxed);
                    Counted(i, &new_drops)
                }))
            })
        }));
        assert!(result.is_err(), "panic at {panic_at}");
        assert_eq!(old_drops.load(Ordering::Relaxed), 0);
        assert!(v.iter().enumerate().all(|(i, c)| c.0 as usize == i) && v.len() == 100);
        assert_eq!(
            new_drops.load(Ordering::Relaxed),
            made.load(Ordering::Relaxed),
            "panic at {panic_at}"
        );
        // collect_into_vec clears first: the old items go, once, and so do the new.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                (0..10_000)
                    .into_par_iter()
                    .map(|i| {
                        assert!(i != panic_at, "cut");
                        Counted(i, &new_drops)
                    })
                    .collect_into_vec(&mut v)
            })
        }));
        assert!(result.is_err());
        assert!(v.is_empty());
        assert_eq!(old_drops.load(Ordering::Relaxed), 100);
        drop(v);
        assert_eq!(old_drops.load(Ordering::Relaxed), 100);
    }
}
