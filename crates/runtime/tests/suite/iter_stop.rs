//! Searches that end early through the adapters that go through many items per item they
//! give (`filter`, the folds, `flat_map` over inner iterators of any length), as rayon's
//! `octillion` tests ask; and what must not change: `flat_map`'s items against std's,
//! owned inner items dropped once, terminals called inside closures never cut short.

use crate::counted::Tally;
use crate::iter_pieces::on_pools;
use locus::prelude::*;
use std::ops::Add;

const OCTILLION: u128 = 1_000_000_000_000_000_000_000_000_000;

/// `0..10^27` through two levels of `flat_map` over inner ranges of 10^9 (rayon's
/// `octillion_flat`).
fn octillion_flat() -> impl ParallelIterator<Item = u128> {
    billion(0u32)
        .map(|i| u64::from(i) * 1_000_000_000)
        .flat_map(billion)
        .map(|i| u128::from(i) * 1_000_000_000)
        .flat_map(billion)
}

/// `i..i + 10^9`, in leaves of at most 1000.
fn billion<T>(i: T) -> impl ParallelIterator<Item = T>
where
    T: Add<Output = T> + From<u32> + Copy + Send + Sync,
{
    (0u32..1_000_000_000)
        .into_par_iter()
        .with_max_len(1_000)
        .map(move |j| i + T::from(j))
}

#[test]
fn a_filter_without_matches_in_its_leaf_stops_once_another_leaf_found_one() {
    on_pools(|| {
        let x = (0..OCTILLION)
            .into_par_iter()
            .filter(|x| *x > OCTILLION / 2)
            .find_any(|_| true);
        assert!(x.is_some_and(|x| x > OCTILLION / 2));
    });
}

#[test]
fn flat_map_over_huge_inner_iterators_is_searched_without_gathering_them() {
    assert_eq!(octillion_flat().find_first(|_| true), Some(0));
    on_pools(|| {
        let x = octillion_flat().find_any(|x| *x > OCTILLION / 2);
        assert!(x.is_some_and(|x| x > OCTILLION / 2));
        let x = octillion_flat()
            .filter(|x| *x > OCTILLION / 2)
            .find_any(|_| true);
        assert!(x.is_some_and(|x| x > OCTILLION / 2));
        // A fold gives accumulators as it goes under a search.
        assert!(octillion_flat()
            .fold(|| (), |(), _| ())
            .find_any(|_| true)
            .is_some());
        assert!(octillion_flat().any(|x| x == 12_345));
    });
}

#[test]
fn find_last_searches_inner_iterators_from_their_backs() {
    // One position of `octillion_flat` holds 10^18 items: a search from the back goes
    // into each inner iterator from its end instead of walking it from its front.
    assert_eq!(octillion_flat().find_last(|_| true), Some(OCTILLION - 1));
    assert_eq!(
        octillion_flat()
            .filter(|x| x % 3 == 0)
            .find_map_last(|x| Some(x / 3)),
        Some((OCTILLION - 1) / 3)
    );
    on_pools(|| {
        let tally = Tally::default();
        let found = (0..64usize)
            .into_par_iter()
            .flat_map(|i| tally.items(i * 1000, 1000))
            .find_last(|(x, _)| x % 1000 == 7 && *x < 40_000)
            .map(|(x, _)| x);
        assert_eq!(found, Some(39_007));
        tally.assert_each_dropped_once();
        let v: Vec<i32> = (0..5000).collect();
        assert_eq!(v.par_iter().rev().find_last(|x| **x > 10), Some(&11));
        assert_eq!(
            v.par_iter().position_last(|x| x % 100 == 42),
            v.iter().rposition(|x| x % 100 == 42)
        );
    });
}

#[test]
fn flat_map_gives_std_s_items_for_inner_iterators_of_every_length() {
    // Lengths around the first window, the nested loop and the longest window.
    let lengths = [0usize, 1, 63, 64, 65, 4095, 4096, 70_000, 200_001, 5];
    on_pools(|| {
        let got: Vec<(usize, usize)> = lengths
            .par_iter()
            .flat_map(|&n| (0..n).into_par_iter().map(move |k| (n, k)))
            .collect();
        let want: Vec<(usize, usize)> = lengths
            .iter()
            .flat_map(|&n| (0..n).map(move |k| (n, k)))
            .collect();
        assert_eq!(got, want);
        let got: usize = lengths
            .par_iter()
            .map(|&n| (0..n).into_par_iter().filter(|k| k % 3 == 0))
            .flatten()
            .count();
        assert_eq!(got, lengths.iter().map(|&n| n.div_ceil(3)).sum::<usize>());
        let got = lengths
            .par_iter()
            .flat_map(|&n| (0..n).into_par_iter())
            .find_last(|k| *k == 4095);
        assert_eq!(got, Some(4095));
    });
}

#[test]
fn owned_inner_items_are_dropped_once_when_a_search_stops_early() {
    on_pools(|| {
        let tally = Tally::default();
        let found = (0..64usize)
            .into_par_iter()
            .flat_map(|i| tally.items(i * 100_000, if i % 2 == 0 { 10_000 } else { 3 }))
            .find_any(|(x, _)| *x == 7 * 100_000 + 1)
            .map(|(x, _)| x);
        assert_eq!(found, Some(700_001));
        tally.assert_each_dropped_once();
    });
}

#[test]
fn terminals_inside_closures_are_not_cut_short_by_a_search() {
    let expected: u64 = (0..10_000u64).filter(|y| y % 2 == 0).sum();
    on_pools(|| {
        let inner = || {
            (0..10_000u64)
                .into_par_iter()
                .filter(|y| y % 2 == 0)
                .sum::<u64>()
        };
        let hit = (0..2_000u32).into_par_iter().find_any(|&x| {
            assert_eq!(inner(), expected);
            x == 1_999
        });
        assert_eq!(hit, Some(1_999));
        let hit = (0..200_000u32)
            .into_par_iter()
            .fold(
                || 0u64,
                |acc, x| {
                    if x % 10_000 == 0 {
                        assert_eq!(inner(), expected);
                    }
                    acc + 1
                },
            )
            .find_any(|&n| n > 0);
        assert!(hit.is_some());
    });
}

#[test]
fn folds_under_a_fallible_reduce_give_the_whole_answer() {
    on_pools(|| {
        let n = 1_000_000u64;
        let total: Result<u64, String> = (0..n)
            .into_par_iter()
            .try_fold(|| 0u64, |acc, x| Ok::<u64, String>(acc + x))
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(total, Ok(n * (n - 1) / 2));
        let failed: Result<u64, String> = (0..n)
            .into_par_iter()
            .try_fold(
                || 0u64,
                |acc, x| {
                    if x == 777_777 {
                        Err(format!("failed at {x}"))
                    } else {
                        Ok(acc + x)
                    }
                },
            )
            .try_reduce(|| 0, |a, b| Ok(a + b));
        assert_eq!(failed, Err("failed at 777777".to_string()));
        let sum: u64 = (0..n).into_par_iter().fold(|| 0u64, |a, x| a + x).sum();
        assert_eq!(sum, n * (n - 1) / 2);
    });
}

/// A search whose near chunks end only when the search is over (they find nothing and
/// wait for a hit), with every hit in the loop's upper half: under every policy it ends
/// by a hit, not by the near chunks' patience, in loops of chunks placed one by one and
/// in loops spawned in blocks. A worker that starts a near chunk is held until the end,
/// so the loop's first chunks to start must be spread over it, as rayon's thieves take
/// the far half of what is left first.
#[test]
fn a_search_reaches_the_far_half_when_its_near_chunks_end_only_by_its_stop() {
    use locus::PolicyKind;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    const PATIENCE: Duration = Duration::from_secs(20);
    let names = PolicyKind::NAMES
        .iter()
        .copied()
        .filter(|n| *n != "affinity");
    let mut waited = Vec::new();
    for name in names.chain(["ws:near"]) {
        let policy: PolicyKind = name.parse().expect("a policy");
        let pool = crate::common::pool(policy, 4, "2x2");
        // 1,000 chunks are placed one by one; 200,000 are more than a flat loop spawns
        // up front (`locus_policy::grain::FLAT_LIMIT`), so they go in blocks.
        for n in [1000usize, 200_000] {
            let found = AtomicBool::new(false);
            let start = Instant::now();
            let hit = pool.install(|| {
                (0..n).into_par_iter().with_max_len(1).find_any(|&i| {
                    if i >= n / 2 {
                        found.store(true, Ordering::Relaxed);
                        return true;
                    }
                    while !found.load(Ordering::Relaxed) && start.elapsed() < PATIENCE {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    false
                })
            });
            assert!(hit.is_some_and(|i| i >= n / 2), "{name}, {n}: {hit:?}");
            if start.elapsed() >= PATIENCE {
                waited.push(format!("{name} ({n} chunks)"));
            }
        }
    }
    assert!(
        waited.is_empty(),
        "searches that waited out their near chunks' patience: {}",
        waited.join(", ")
    );
}
