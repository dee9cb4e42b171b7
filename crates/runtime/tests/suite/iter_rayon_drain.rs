//! `locus::iter::rayon`'s drains, rayon's `ParallelDrainRange` and `ParallelDrainFull`:
//! each collection's drain against std's serial `drain`, through locus's terminals and
//! through a type of "another crate" that wraps the drain and is driven by rayon's
//! plumbing (as indexmap's `ParDrain` is); drains dropped unconsumed, cut short by a
//! shorter `zip`, whose consumer panics or one of whose items panics when dropped: each
//! item is dropped exactly once and the collection keeps the rest, in order.

use crate::counted::{Counted, Tally};
use crate::iter_rayon::pool;
use locus::iter::plumbing::{Consumer, ProducerCallback, UnindexedConsumer};
use locus::iter::rayon::{
    IndexedParallelIterator, IntoParallelIterator, ParallelDrainFull, ParallelDrainRange,
    ParallelIterator, RangeDrain,
};
use proptest::prelude::*;
use std::cell::Cell;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A deque of `items` whose elements wrap around the end of its buffer (pushed at the
/// front and at the back), so that its drain has elements to move to the front first.
fn wrapped_deque(items: &[i64]) -> VecDeque<i64> {
    let mut deque = VecDeque::with_capacity(items.len() + 8);
    let mid = items.len() / 2;
    for &x in items[..mid].iter().rev() {
        deque.push_front(x);
    }
    deque.extend(&items[mid..]);
    deque
}

/// The keys of `items`, in order.
fn keys(items: &[(usize, Counted)]) -> Vec<usize> {
    items.iter().map(|(k, _)| *k).collect()
}

/// A draining iterator of "another crate": the keys of a drained range of counted
/// pairs, implementing rayon's traits with rayon's required methods by forwarding to
/// the drain, as indexmap's `ParDrain` forwards to rayon's `vec::Drain`.
struct KeyDrain<'a> {
    entries: RangeDrain<'a, Vec<(usize, Counted)>, (usize, Counted)>,
}

fn key((k, _): (usize, Counted)) -> usize {
    k
}

impl ParallelIterator for KeyDrain<'_> {
    type Item = usize;

    fn drive_unindexed<C: UnindexedConsumer<usize>>(self, consumer: C) -> C::Result {
        self.entries
            .into_par_iter()
            .map(key)
            .drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

impl IndexedParallelIterator for KeyDrain<'_> {
    fn drive<C: Consumer<usize>>(self, consumer: C) -> C::Result {
        self.entries.into_par_iter().map(key).drive(consumer)
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn with_producer<CB: ProducerCallback<usize>>(self, callback: CB) -> CB::Output {
        self.entries
            .into_par_iter()
            .map(key)
            .with_producer(callback)
    }
}

/// The range `lo..hi` of a collection of `len` items, from two fractions.
fn range_of(len: usize, a: f64, b: f64) -> (usize, usize) {
    let at = |f: f64| ((len as f64) * f) as usize;
    (at(a.min(b)), at(a.max(b)))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn a_vec_s_drain_answers_as_std_s(
        items in prop::collection::vec(-1000i64..1000, 0..2000),
        a in 0.0f64..=1.0,
        b in 0.0f64..=1.0,
        step in 1usize..5,
    ) {
        let (lo, hi) = range_of(items.len(), a, b);
        let mut want = items.clone();
        let drained: Vec<i64> = want.drain(lo..hi).collect();
        pool().install(|| {
            let mut v = items.clone();
            let capacity = v.capacity();
            let got: Vec<i64> = v.par_drain(lo..hi).collect();
            prop_assert_eq!(&got, &drained);
            prop_assert_eq!(&v, &want);
            prop_assert_eq!(v.capacity(), capacity, "the vector keeps its capacity");

            let mut v = items.clone();
            let drain = v.par_drain(lo..hi);
            prop_assert_eq!(drain.len(), hi - lo);
            prop_assert_eq!(drain.opt_len(), Some(hi - lo));
            prop_assert_eq!(
                drain.rev().step_by(step).collect::<Vec<_>>(),
                drained.iter().rev().step_by(step).copied().collect::<Vec<_>>()
            );
            prop_assert_eq!(&v, &want);

            let mut v = items.clone();
            let sum: i64 = v.par_drain(lo..).map(|x| x * 3).sum();
            prop_assert_eq!(sum, items[lo..].iter().map(|x| x * 3).sum::<i64>());
            prop_assert_eq!(&v[..], &items[..lo]);

            if hi > 0 {
                let mut v = items.clone();
                let got: Vec<i64> = v.par_drain(..=hi - 1).collect();
                prop_assert_eq!(&got[..], &items[..hi]);
                prop_assert_eq!(&v[..], &items[hi..]);
            }

            let mut v = items.clone();
            let pairs: Vec<(usize, i64)> = v.par_drain(..).enumerate().collect();
            prop_assert_eq!(pairs, items.iter().copied().enumerate().collect::<Vec<_>>());
            prop_assert!(v.is_empty());
            Ok(())
        })?;
    }

    #[test]
    fn a_deque_s_drain_answers_as_std_s(
        items in prop::collection::vec(-1000i64..1000, 0..2000),
        a in 0.0f64..=1.0,
        b in 0.0f64..=1.0,
    ) {
        let (lo, hi) = range_of(items.len(), a, b);
        let mut want = wrapped_deque(&items);
        let drained: Vec<i64> = want.drain(lo..hi).collect();
        pool().install(|| {
            let mut deque = wrapped_deque(&items);
            let capacity = deque.capacity();
            let got: Vec<i64> = deque.par_drain(lo..hi).collect();
            prop_assert_eq!(&got, &drained);
            prop_assert_eq!(&deque, &want);
            prop_assert_eq!(deque.capacity(), capacity, "the deque keeps its capacity");

            let mut deque = wrapped_deque(&items);
            drop(deque.par_drain(lo..hi));
            prop_assert_eq!(&deque, &want, "an unconsumed drain removes its range");
            Ok(())
        })?;
    }

    #[test]
    fn a_string_s_drain_answers_as_std_s(
        text in "[a-zé中\u{1F600} ]{0,200}",
        a in 0.0f64..=1.0,
        b in 0.0f64..=1.0,
    ) {
        let (lo, hi) = range_of(text.len(), a, b);
        let on_char = |mut i: usize| {
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let (lo, hi) = (on_char(lo), on_char(hi));
        let mut want = text.clone();
        let drained: String = want.drain(lo..hi).collect();
        pool().install(|| {
            let mut s = text.clone();
            let got: String = s.par_drain(lo..hi).collect();
            prop_assert_eq!(&got, &drained);
            prop_assert_eq!(&s, &want);
            Ok(())
        })?;
    }

    #[test]
    fn the_full_drains_answer_as_std_s(
        items in prop::collection::vec(-1000i64..1000, 0..2000),
    ) {
        let mut sorted = items.clone();
        sorted.sort_unstable();
        pool().install(|| {
            let mut heap: BinaryHeap<i64> = items.iter().copied().collect();
            let capacity = heap.capacity();
            let mut got: Vec<i64> = heap.par_drain().collect();
            got.sort_unstable();
            prop_assert_eq!(&got, &sorted);
            prop_assert!(heap.is_empty());
            prop_assert_eq!(heap.capacity(), capacity, "the heap keeps its capacity");

            let mut set: HashSet<i64> = items.iter().copied().collect();
            let mut got: Vec<i64> = set.par_drain().collect();
            got.sort_unstable();
            let mut unique = sorted.clone();
            unique.dedup();
            prop_assert_eq!(&got, &unique);
            prop_assert!(set.is_empty());

            let mut map: HashMap<i64, usize> = items.iter().map(|&x| (x, 1)).collect();
            let mut got: Vec<i64> = map.par_drain().map(|(k, _)| k).collect();
            got.sort_unstable();
            prop_assert_eq!(&got, &unique);
            prop_assert!(map.is_empty());
            Ok(())
        })?;
    }

    #[test]
    fn another_crate_s_drain_runs_through_rayon_s_plumbing(
        len in 0usize..2000,
        a in 0.0f64..=1.0,
        b in 0.0f64..=1.0,
        step in 1usize..5,
    ) {
        let (lo, hi) = range_of(len, a, b);
        let tally = Tally::default();
        let rest: Vec<usize> = (0..lo).chain(hi..len).collect();
        pool().install(|| {
            let mut v = tally.items(0, len);
            let got: Vec<usize> = KeyDrain { entries: v.par_drain(lo..hi) }.collect();
            prop_assert_eq!(got, (lo..hi).collect::<Vec<_>>());
            prop_assert_eq!(keys(&v), rest.clone());

            let mut v = tally.items(0, len);
            let got: Vec<usize> = KeyDrain { entries: v.par_drain(lo..hi) }
                .rev()
                .step_by(step)
                .collect();
            prop_assert_eq!(got, (lo..hi).rev().step_by(step).collect::<Vec<_>>());
            prop_assert_eq!(keys(&v), rest.clone());

            let mut v = tally.items(0, len);
            let mut w = tally.items(0, len);
            let same = KeyDrain { entries: v.par_drain(lo..hi) }
                .zip(KeyDrain { entries: w.par_drain(lo..hi) })
                .all(|(x, y)| x == y);
            prop_assert!(same);
            prop_assert_eq!(keys(&v), rest.clone());
            prop_assert_eq!(keys(&w), rest.clone());

            let mut v = tally.items(0, len);
            let sum: usize = KeyDrain { entries: v.par_drain(lo..hi) }.sum();
            prop_assert_eq!(sum, (lo..hi).sum::<usize>());
            prop_assert_eq!(keys(&v), rest);
            Ok(())
        })?;
        tally.assert_each_dropped_once();
    }
}

#[test]
fn a_drain_dropped_unconsumed_removes_its_range() {
    let tally = Tally::default();
    let mut v = tally.items(0, 100);
    let capacity = v.capacity();
    drop(v.par_drain(10..40));
    assert_eq!(keys(&v), (0..10).chain(40..100).collect::<Vec<_>>());
    assert_eq!(v.capacity(), capacity);
    drop(KeyDrain {
        entries: v.par_drain(60..),
    });
    assert_eq!(keys(&v), (0..10).chain(40..90).collect::<Vec<_>>());
    let mut deque: VecDeque<_> = tally.items(0, 50).into();
    drop(deque.par_drain(..20));
    assert_eq!(
        deque.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        (20..50).collect::<Vec<_>>()
    );
    drop((v, deque));
    tally.assert_each_dropped_once();
}

#[test]
fn a_drain_cut_short_by_a_shorter_zip_drops_the_rest() {
    let tally = Tally::default();
    let mut v = tally.items(0, 100);
    let seen = pool().install(|| v.par_drain(20..70).zip(0..10).count());
    assert_eq!(seen, 10);
    assert_eq!(keys(&v), (0..20).chain(70..100).collect::<Vec<_>>());
    let taken: Vec<usize> = pool().install(|| {
        KeyDrain {
            entries: v.par_drain(..),
        }
        .take(7)
        .collect()
    });
    assert_eq!(taken, (0..7).collect::<Vec<_>>());
    assert!(v.is_empty());
    drop(v);
    tally.assert_each_dropped_once();
}

#[test]
fn a_drain_whose_consumer_panics_drops_each_item_once() {
    let tally = Tally::default();
    let mut v = tally.items(0, 1000);
    let seen = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool().install(|| {
            v.par_drain(100..900).for_each(|(k, _)| {
                seen.fetch_add(1, Ordering::Relaxed);
                assert!(k != 500, "item 500");
            })
        })
    }));
    let message = result.expect_err("the panic reaches the caller");
    assert_eq!(message.downcast_ref::<&str>(), Some(&"item 500"));
    assert!(seen.load(Ordering::Relaxed) <= 800, "no item twice");
    assert_eq!(keys(&v), (0..100).chain(900..1000).collect::<Vec<_>>());

    // Through another crate's type: rayon's `drive` and `with_producer` paths.
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool().install(|| {
            KeyDrain {
                entries: v.par_drain(50..150),
            }
            .map(|k| {
                assert!(k != 920, "key 920");
                k
            })
            .collect::<Vec<usize>>()
        })
    }));
    assert!(result.is_err(), "the panic reaches the caller");
    assert_eq!(keys(&v), (0..50).chain(950..1000).collect::<Vec<_>>());
    drop(v);
    tally.assert_each_dropped_once();
}

/// An item that panics when dropped, if armed.
struct Bomb {
    armed: bool,
    drops: &'static AtomicUsize,
}

impl Drop for Bomb {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::Relaxed);
        assert!(!self.armed, "an armed item dropped");
    }
}

#[test]
fn an_item_that_panics_when_dropped_leaves_the_vector_whole() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let mut v: Vec<Bomb> = (0..20)
        .map(|i| Bomb {
            armed: i == 7,
            drops: &DROPS,
        })
        .collect();
    let result = catch_unwind(AssertUnwindSafe(|| drop(v.par_drain(5..10))));
    assert!(result.is_err(), "the item's panic reaches the caller");
    assert_eq!(
        DROPS.load(Ordering::Relaxed),
        5,
        "each drained item dropped once"
    );
    assert_eq!(v.len(), 15, "the tail closed the gap");
    assert!(v.iter().all(|b| !b.armed));
    drop(v);
    assert_eq!(DROPS.load(Ordering::Relaxed), 20);
}

#[test]
#[allow(clippy::reversed_empty_ranges)]
fn a_range_out_of_bounds_panics_and_leaves_the_collection_alone() {
    let mut v: Vec<i64> = (0..10).collect();
    for (lo, hi, says) in [
        (3, 11, "past the length 10"),
        (6, 4, "starts at 6 but ends at 4"),
    ] {
        let result = catch_unwind(AssertUnwindSafe(|| drop(v.par_drain(lo..hi))));
        let message = result.expect_err("a bad range panics");
        let text = message
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert!(text.contains(says), "{text}");
        assert_eq!(v, (0..10).collect::<Vec<_>>());
    }
    let mut deque: VecDeque<i64> = (0..10).collect();
    let result = catch_unwind(AssertUnwindSafe(|| drop(deque.par_drain(..=10))));
    assert!(result.is_err());
    assert_eq!(deque, (0..10).collect::<VecDeque<_>>());
}

#[test]
fn items_that_are_send_but_not_sync_drain() {
    let mut v: Vec<Cell<i64>> = (0..1000).map(Cell::new).collect();
    let sum: i64 = pool().install(|| v.par_drain(100..).map(Cell::into_inner).sum());
    assert_eq!(sum, (100..1000).sum::<i64>());
    assert_eq!(v.len(), 100);
}
