//! `locus::iter::rayon`, rayon's traits: types of "another crate" implementing them with
//! rayon's required methods alone (an unindexed one through `drive_unindexed` and a
//! hand-written `UnindexedProducer`, an indexed one through `drive`, `len` and
//! `with_producer` and a hand-written `Producer`) get every adapter and terminal, and
//! answer as std does; locus's own iterators through the same traits do too, and a
//! collection of that crate's implements `FromParallelIterator` and `ParallelExtend`.

use locus::iter::plumbing::{
    bridge_producer_consumer, bridge_unindexed, Consumer, Folder, Producer, ProducerCallback,
    UnindexedConsumer, UnindexedProducer,
};
use locus::iter::rayon::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    ParallelExtend, ParallelIterator,
};
use locus::{ThreadPool, ThreadPoolBuilder};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::ThreadId;

/// The pool of the tests of rayon's traits.
pub(crate) fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .num_threads(3)
            .pin(false)
            .build()
            .unwrap()
    })
}

/// A bag of numbers that only knows how to halve itself: rayon's unindexed plumbing, as
/// hashbrown's tables implement it.
struct Bag<'a> {
    items: &'a [i64],
    /// How many times `split` was called (to see that the pieces were made).
    splits: &'a AtomicUsize,
}

struct BagProducer<'a> {
    items: &'a [i64],
    splits: &'a AtomicUsize,
}

impl<'a> UnindexedProducer for BagProducer<'a> {
    type Item = &'a i64;

    fn split(self) -> (Self, Option<Self>) {
        self.splits.fetch_add(1, Ordering::Relaxed);
        if self.items.len() < 2 {
            return (self, None);
        }
        let (left, right) = self.items.split_at(self.items.len() / 2);
        let piece = |items| BagProducer {
            items,
            splits: self.splits,
        };
        (piece(left), Some(piece(right)))
    }

    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.items)
    }
}

impl<'a> ParallelIterator for Bag<'a> {
    type Item = &'a i64;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        let producer = BagProducer {
            items: self.items,
            splits: self.splits,
        };
        bridge_unindexed(producer, consumer)
    }
}

/// The numbers `lo..hi`, squared, as an indexed rayon iterator over a hand-written
/// producer (as ndarray's and indexmap's are).
struct Squares {
    lo: u32,
    hi: u32,
}

struct SquaresProducer {
    lo: u32,
    hi: u32,
}

impl Producer for SquaresProducer {
    type Item = u64;
    type IntoIter = std::iter::Map<std::ops::Range<u32>, fn(u32) -> u64>;

    fn into_iter(self) -> Self::IntoIter {
        (self.lo..self.hi).map(|x| u64::from(x) * u64::from(x))
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.lo + u32::try_from(index).expect("an index of the producer");
        assert!(mid <= self.hi, "split inside the producer");
        (
            SquaresProducer {
                lo: self.lo,
                hi: mid,
            },
            SquaresProducer {
                lo: mid,
                hi: self.hi,
            },
        )
    }
}

impl ParallelIterator for Squares {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        self.drive(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Squares {
    fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
        let len = self.len();
        bridge_producer_consumer(
            len,
            SquaresProducer {
                lo: self.lo,
                hi: self.hi,
            },
            consumer,
        )
    }

    fn len(&self) -> usize {
        (self.hi - self.lo) as usize
    }

    fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
        callback.callback(SquaresProducer {
            lo: self.lo,
            hi: self.hi,
        })
    }
}

/// A collection of "another crate", filled in parallel through rayon's traits: it keeps
/// the items in a set, and counts the calls.
#[derive(Default)]
struct Tally {
    seen: BTreeSet<i64>,
    extends: usize,
}

impl ParallelExtend<i64> for Tally {
    fn par_extend<I: IntoParallelIterator<Item = i64>>(&mut self, par_iter: I) {
        let items: Vec<i64> = par_iter.into_par_iter().collect();
        self.seen.extend(items);
        self.extends += 1;
    }
}

impl FromParallelIterator<i64> for Tally {
    fn from_par_iter<I: IntoParallelIterator<Item = i64>>(par_iter: I) -> Self {
        let mut tally = Tally::default();
        tally.par_extend(par_iter);
        tally
    }
}

fn squares(lo: u32, hi: u32) -> Vec<u64> {
    (lo..hi).map(|x| u64::from(x) * u64::from(x)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn an_unindexed_type_of_another_crate_gets_every_adapter(
        items in prop::collection::vec(-1000i64..1000, 0..3000),
        k in 1i64..7,
    ) {
        let splits = AtomicUsize::new(0);
        let bag = || Bag { items: &items, splits: &splits };
        pool().install(|| {
            prop_assert_eq!(bag().count(), items.len());
            prop_assert_eq!(bag().copied().sum::<i64>(), items.iter().sum::<i64>());
            let kept: Vec<i64> = bag().filter(|x| **x % k == 0).copied().collect();
            let want: Vec<i64> = items.iter().filter(|x| **x % k == 0).copied().collect();
            prop_assert_eq!(kept, want);
            prop_assert_eq!(bag().max(), items.iter().max());
            prop_assert_eq!(
                bag().map(|x| x * k).find_first(|x| *x > 500),
                items.iter().map(|x| x * k).find(|x| *x > 500)
            );
            prop_assert_eq!(
                bag().copied().flat_map_iter(|x| [x, -x]).collect::<Vec<_>>(),
                items.iter().flat_map(|&x| [x, -x]).collect::<Vec<_>>()
            );
            let folded: i64 = bag().fold(|| 0i64, |a, x| a + x).sum();
            prop_assert_eq!(folded, items.iter().sum::<i64>());
            prop_assert_eq!(
                bag().copied().chain(bag().copied()).collect::<Vec<_>>(),
                items.iter().chain(&items).copied().collect::<Vec<_>>()
            );
            let (neg, pos): (Vec<i64>, Vec<i64>) = bag().copied().partition(|x| *x < 0);
            prop_assert_eq!(neg.len() + pos.len(), items.len());
            prop_assert!(neg.iter().all(|x| *x < 0) && pos.iter().all(|x| *x >= 0));
            Ok(())
        })?;
        if items.len() > 1 {
            prop_assert!(splits.load(Ordering::Relaxed) > 0, "the producer was split");
        }
    }

    #[test]
    fn an_indexed_type_of_another_crate_gets_every_adapter(
        lo in 0u32..100,
        len in 0u32..3000,
        n in 0usize..50,
        step in 1usize..9,
    ) {
        let hi = lo + len;
        let want = squares(lo, hi);
        let it = || Squares { lo, hi };
        pool().install(|| {
            prop_assert_eq!(it().len(), want.len());
            prop_assert_eq!(it().collect::<Vec<_>>(), want.clone());
            prop_assert_eq!(
                it().enumerate().map(|(i, x)| i as u64 + x).collect::<Vec<_>>(),
                want.iter().enumerate().map(|(i, x)| i as u64 + x).collect::<Vec<_>>()
            );
            prop_assert_eq!(
                it().rev().skip(n).step_by(step).collect::<Vec<_>>(),
                want.iter().rev().skip(n).step_by(step).copied().collect::<Vec<_>>()
            );
            prop_assert_eq!(
                it().zip(want.par_iter()).filter(|(a, b)| a == *b).count(),
                want.len()
            );
            prop_assert_eq!(
                it().chunks(step).map(|c| c.len()).collect::<Vec<_>>(),
                want.chunks(step).map(|c| c.len()).collect::<Vec<_>>()
            );
            prop_assert_eq!(
                it().position_first(|x| x % 7 == 3),
                want.iter().position(|x| x % 7 == 3)
            );
            prop_assert_eq!(
                it().take(n).interleave(it().skip(n)).count(),
                want.len()
            );
            let mut into = vec![1, 2, 3];
            it().collect_into_vec(&mut into);
            prop_assert_eq!(&into, &want);
            prop_assert!(it().eq(want.par_iter().copied()));
            Ok(())
        })?;
    }
}

#[test]
fn an_indexed_type_is_cut_at_locus_leaves_on_the_pool() {
    // Each leaf of a producer's chain is a task of the pool: the items are seen by the
    // pool's workers, and the cut is the same every run.
    let threads = Mutex::new(HashSet::<ThreadId>::new());
    let cut = |n: u32| {
        pool().install(|| {
            Squares { lo: 0, hi: n }
                .map(|x| {
                    threads.lock().unwrap().insert(std::thread::current().id());
                    x
                })
                .fold(Vec::new, |mut v, x| {
                    v.push(x);
                    v
                })
                .map(|leaf| leaf.len())
                .collect::<Vec<_>>()
        })
    };
    let first = cut(100_000);
    assert_eq!(first.iter().sum::<usize>(), 100_000);
    assert!(first.len() > 1, "the producer was cut: {first:?}");
    assert_eq!(cut(100_000), first, "the same leaves every run");
    let outside = std::thread::current().id();
    assert!(
        !threads.lock().unwrap().contains(&outside),
        "run on the pool"
    );
}

#[test]
fn locus_iterators_and_collections_answer_through_rayons_traits() {
    let v: Vec<i64> = (0..10_000).collect();
    pool().install(|| {
        assert_eq!(v.par_iter().sum::<i64>(), v.iter().sum::<i64>());
        assert_eq!(
            (0..100).into_par_iter().map(|x: i64| x * 2).max(),
            Some(198)
        );
        let map: HashMap<i64, usize> = v.par_iter().map(|&x| (x % 10, 1)).collect();
        assert_eq!(map.len(), 10);
        let tally: Tally = v.par_iter().map(|x| x % 100).collect();
        assert_eq!(tally.seen.len(), 100);
        assert_eq!(tally.extends, 1);
        let mut grown = vec![-1i64];
        grown.par_extend(v.par_iter().copied().filter(|x| x % 1000 == 0));
        assert_eq!(
            grown,
            vec![-1, 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]
        );
    });
}

#[test]
fn a_panic_in_an_unindexed_type_s_chain_reaches_the_caller() {
    let items: Vec<i64> = (0..1000).collect();
    let splits = AtomicUsize::new(0);
    let seen = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool().install(|| {
            Bag {
                items: &items,
                splits: &splits,
            }
            .for_each(|x| {
                seen.fetch_add(1, Ordering::Relaxed);
                assert!(*x != 500, "item 500");
            })
        })
    }));
    let message = result.expect_err("the panic reaches the caller");
    let text = message
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| message.downcast_ref::<String>().map(String::as_str));
    assert_eq!(text, Some("item 500"));
    assert!(seen.load(Ordering::Relaxed) <= items.len(), "no item twice");
}

/// An indexed type written as rayon's documentation shows (and as ndarray's parallel
/// iterators are): `drive` and `drive_unindexed` call rayon's `bridge`, which must then
/// go through `with_producer`, not back through `drive`.
struct Bridged(Squares);

impl ParallelIterator for Bridged {
    type Item = u64;

    fn drive_unindexed<C: UnindexedConsumer<u64>>(self, consumer: C) -> C::Result {
        locus::iter::rayon::plumbing::bridge(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl IndexedParallelIterator for Bridged {
    fn drive<C: Consumer<u64>>(self, consumer: C) -> C::Result {
        locus::iter::rayon::plumbing::bridge(self, consumer)
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn with_producer<CB: ProducerCallback<u64>>(self, callback: CB) -> CB::Output {
        self.0.with_producer(callback)
    }
}

#[test]
fn a_type_whose_drive_calls_bridge_runs() {
    pool().install(|| {
        for (lo, hi) in [(0, 0), (3, 4), (0, 1000), (17, 5000)] {
            let it = || Bridged(Squares { lo, hi });
            let want = squares(lo, hi);
            assert_eq!(it().collect::<Vec<_>>(), want);
            assert_eq!(it().sum::<u64>(), want.iter().sum::<u64>());
            let zipped: Vec<(usize, u64)> = it().enumerate().rev().collect();
            let want_zipped: Vec<(usize, u64)> = want.iter().copied().enumerate().rev().collect();
            assert_eq!(zipped, want_zipped);
            assert_eq!(
                it().filter(|x| x % 3 == 0).count(),
                want.iter().filter(|x| *x % 3 == 0).count()
            );
        }
    });
}
