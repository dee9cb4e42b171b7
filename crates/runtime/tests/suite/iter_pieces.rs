//! A slice cut at its elements (`par_split`, `par_split_inclusive`, `par_chunk_by` and
//! their `_mut` forms) against std's sequential answers, empty and one-element slices
//! included; `intersperse` on unindexed chains; the builder's `thread_name`; `Clone` and
//! `Debug` where rayon has them. Each check runs on a work-stealing pool and on a policy
//! that places loop chunks.

use crate::common::pool;
use locus::prelude::*;
use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder};
use proptest::prelude::*;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Work stealing on 3 workers, and `mts` on two virtual squads (loops placed chunk by
/// chunk).
fn pools() -> &'static [ThreadPool] {
    static POOLS: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        vec![
            pool(PolicyKind::Ws, 3, "this"),
            pool("mts".parse().expect("a policy"), 4, "2x2"),
        ]
    })
}

/// Runs `f` on every pool.
pub(crate) fn on_pools(f: impl Fn() + Sync) {
    for pool in pools() {
        pool.install(&f);
    }
}

/// Each piece reversed in place and its length, by `pieces` (parallel), against the
/// same by `std_pieces` (std's).
fn same_mut_pieces(
    a: &[i32],
    pieces: impl Fn(&mut [i32]) -> Vec<usize>,
    std_pieces: impl Fn(&mut [i32]) -> Vec<usize>,
) {
    let (mut v, mut w) = (a.to_vec(), a.to_vec());
    assert_eq!(pieces(&mut v), std_pieces(&mut w));
    assert_eq!(v, w);
}

fn reversed(piece: &mut [i32]) -> usize {
    piece.reverse();
    piece.len()
}

/// Slices with runs of equal neighbours and many separators, and a modulus.
fn input() -> impl Strategy<Value = (Vec<i32>, i32)> {
    (prop::collection::vec(-6i32..6, 0..3000), 1i32..8)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn pieces_match_std((a, m) in input()) {
        let a = &a[..];
        let sep = |x: &i32| x % m == 0;
        let joined = |x: &i32, y: &i32| x <= y;
        on_pools(|| {
            assert_eq!(a.par_split(sep).collect::<Vec<_>>(), a.split(sep).collect::<Vec<_>>());
            assert_eq!(
                a.par_split_inclusive(sep).collect::<Vec<_>>(),
                a.split_inclusive(sep).collect::<Vec<_>>()
            );
            assert_eq!(
                a.par_chunk_by(joined).collect::<Vec<_>>(),
                a.chunk_by(joined).collect::<Vec<_>>()
            );
            same_mut_pieces(
                a,
                |v| v.par_split_mut(sep).map(reversed).collect(),
                |v| v.split_mut(sep).map(reversed).collect(),
            );
            same_mut_pieces(
                a,
                |v| v.par_split_inclusive_mut(sep).map(reversed).collect(),
                |v| v.split_inclusive_mut(sep).map(reversed).collect(),
            );
            same_mut_pieces(
                a,
                |v| v.par_chunk_by_mut(joined).map(reversed).collect(),
                |v| v.chunk_by_mut(joined).map(reversed).collect(),
            );
            // A search stops early but still gives std's answers.
            assert_eq!(
                a.par_split(sep).find_first(|p| p.len() > 2),
                a.split(sep).find(|p| p.len() > 2)
            );
            assert_eq!(a.par_chunk_by(joined).find_last(|_| true), a.chunk_by(joined).last());
        });
    }

    #[test]
    fn intersperse_of_unindexed_chains_matches_std((a, m) in input()) {
        let a = &a[..];
        on_pools(|| {
            // Leaves before the first item give nothing: no separator may lead.
            let got: Vec<i32> = a.par_iter().copied().filter(|x| x % m == 1).intersperse(99).collect();
            let kept: Vec<i32> = a.iter().copied().filter(|x| x % m == 1).collect();
            let want: Vec<i32> = kept.iter().flat_map(|&x| [99, x]).skip(1).collect();
            assert_eq!(got, want);
            let got: Vec<&[i32]> = a.par_split(|x| x % m == 0).intersperse(&[]).collect();
            let want: Vec<&[i32]> = a.split(|x| x % m == 0).flat_map(|p| [&[][..], p]).skip(1).collect();
            assert_eq!(got, want);
        });
    }
}

#[test]
fn pieces_of_empty_and_tiny_slices_are_std_s() {
    on_pools(|| {
        let empty: &[i32] = &[];
        let is7 = |x: &i32| *x == 7;
        assert_eq!(empty.par_split(is7).collect::<Vec<_>>(), [empty]);
        assert_eq!(empty.par_split_inclusive(is7).count(), 0);
        assert_eq!(empty.par_chunk_by(|a, b| a == b).count(), 0);
        assert_eq!([7].par_split(is7).collect::<Vec<_>>(), [empty, empty]);
        assert_eq!([7].par_split_inclusive(is7).collect::<Vec<_>>(), [&[7][..]]);
        assert_eq!(
            [1, 7].par_split_inclusive(is7).collect::<Vec<_>>(),
            [&[1, 7][..]]
        );
        assert_eq!(
            [7, 1].par_split_inclusive(is7).collect::<Vec<_>>(),
            [&[7][..], &[1]]
        );
        assert_eq!(
            [3].par_chunk_by(|a, b| a == b).collect::<Vec<_>>(),
            [&[3][..]]
        );
        let mut none: Vec<i32> = Vec::new();
        assert_eq!(none.par_split_mut(is7).count(), 1);
        assert_eq!(none.par_split_inclusive_mut(is7).count(), 0);
        assert_eq!(none.par_chunk_by_mut(|a, b| a == b).count(), 0);
        "a,b,,c"
            .par_split(',')
            .intersperse("|")
            .collect::<String>()
            .eq("a|b||c")
            .then_some(())
            .expect("a string's pieces interspersed");
        let nothing: Vec<i32> = (0..100)
            .into_par_iter()
            .filter(|_| false)
            .intersperse(1)
            .collect();
        assert!(nothing.is_empty());
    });
}

#[test]
fn the_predicate_sees_each_element_once() {
    let a: Vec<i32> = (0..100_000).map(|i| i % 13).collect();
    on_pools(|| {
        let calls = AtomicUsize::new(0);
        let pieces = a
            .par_split(|x| {
                calls.fetch_add(1, Ordering::Relaxed);
                *x == 0
            })
            .count();
        assert_eq!(pieces, a.split(|x| *x == 0).count());
        assert_eq!(calls.load(Ordering::Relaxed), a.len());
        let calls = AtomicUsize::new(0);
        let mut b = a.clone();
        b.par_chunk_by_mut(|x, y| {
            calls.fetch_add(1, Ordering::Relaxed);
            x < y
        })
        .for_each(|c| c.fill(0));
        assert_eq!(calls.load(Ordering::Relaxed), a.len() - 1);
        assert!(b.iter().all(|&x| x == 0));
    });
}

#[test]
fn mutable_pieces_need_only_send_elements() {
    // `Cell` is `Send` but not `Sync`: each element is looked at by one task only.
    let mut v: Vec<Cell<i32>> = (0..10_000).map(|i| Cell::new(i % 10)).collect();
    let lens: Vec<usize> = v
        .par_split_mut(|c| c.get() == 0)
        .map(|piece| {
            piece.iter().for_each(|c| c.set(-c.get()));
            piece.len()
        })
        .collect();
    assert_eq!(lens.len(), 1001);
    assert!(lens[1..].iter().all(|&n| n == 9));
    assert_eq!(v.iter().map(Cell::get).sum::<i32>(), -45 * 1000);
    let runs = v.par_chunk_by_mut(|x, y| x.get() > y.get()).count();
    assert_eq!(runs, v.chunk_by(|x, y| x.get() > y.get()).count());
}

#[test]
fn workers_are_named_by_the_builder() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(3)
        .thread_name(|i| format!("pieces-test-{i}"))
        .build()
        .unwrap();
    let names =
        pool.broadcast_each(|c| (c.index(), std::thread::current().name().map(str::to_owned)));
    for (i, name) in names {
        assert_eq!(name, Some(format!("pieces-test-{i}")));
    }
    let default = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let name = default.install(|| std::thread::current().name().map(str::to_owned));
    assert_eq!(name.as_deref(), Some("locus-0"));
}

#[test]
fn new_adapters_clone_and_show_as_rayon_s() {
    let v: Vec<i32> = (0..1000).collect();
    let split = v.par_split_inclusive(|x| x % 7 == 0);
    assert_eq!(split.clone().collect::<Vec<_>>(), split.collect::<Vec<_>>());
    let runs = v.par_chunk_by(|a, b| a / 10 == b / 10);
    assert_eq!(runs.clone().count(), 100);
    let fused = v.par_iter().panic_fuse();
    assert_eq!(fused.clone().sum::<i32>(), fused.sum::<i32>());
    let skipped = v.par_iter().skip_any_while(|x| **x < 10);
    assert!(format!("{skipped:?}").contains("skipping"));
    assert_eq!(skipped.clone().count(), skipped.count());
    let taken = v.par_iter().take_any(42);
    assert_eq!(taken.clone().count(), 42);
    let pieces = locus::iter::split(0..1000, |r| {
        let mid = r.start + (r.end - r.start) / 2;
        if r.len() > 10 {
            (r.start..mid, Some(mid..r.end))
        } else {
            (r, None)
        }
    });
    let sizes: Vec<usize> = pieces.clone().map(|r| r.len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 1000);
    assert_eq!(sizes, pieces.map(|r| r.len()).collect::<Vec<_>>());
    let interspersed = v.par_iter().filter(|x| **x > 990).intersperse(&0);
    assert_eq!(interspersed.clone().count(), 17);
    assert!(!format!("{interspersed:?}").is_empty());
}
