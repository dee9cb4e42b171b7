//! rayon's plumbing on locus (`src/iter/plumbing.rs`): producers written for rayon run
//! through every kind of adapter and terminal with deterministic leaves; locus iterators
//! drive consumers written for rayon and hand out producers that split anywhere; the
//! bridges; owned items dropped exactly once.

use crate::common::pool;
use crate::counted::Counted;
use locus::iter::plumbing::{
    bridge, bridge_producer_consumer, bridge_unindexed, producer_iter, unindexed_iter, Consumer,
    Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer, UnindexedProducer,
};
use locus::prelude::*;
use locus::PolicyKind;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Where a producer's pieces were iterated: (first, end) each.
type Pieces = Arc<Mutex<Vec<(usize, usize)>>>;

/// The numbers `lo..hi` as a rayon producer, recording the pieces it is iterated in.
#[derive(Debug)]
struct Numbers {
    lo: usize,
    hi: usize,
    pieces: Option<Pieces>,
}

impl Numbers {
    fn new(lo: usize, hi: usize) -> Numbers {
        Numbers {
            lo,
            hi,
            pieces: None,
        }
    }
}

impl Producer for Numbers {
    type Item = usize;
    type IntoIter = std::ops::Range<usize>;

    fn into_iter(self) -> Self::IntoIter {
        if let Some(p) = &self.pieces {
            p.lock().unwrap().push((self.lo, self.hi));
        }
        self.lo..self.hi
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.lo + index;
        assert!(mid <= self.hi, "split within the producer");
        let piece = |lo, hi| Numbers {
            lo,
            hi,
            pieces: self.pieces.clone(),
        };
        (piece(self.lo, mid), piece(mid, self.hi))
    }
}

fn numbers(n: usize) -> impl IndexedParallelIterator<Item = usize> {
    producer_iter(Numbers::new(0, n), n)
}

#[test]
fn a_producer_runs_through_adapters_and_terminals() {
    let pools = [
        pool(PolicyKind::Ws, 2, "this"),
        pool(PolicyKind::default(), 4, "2x2"),
    ];
    for pool in &pools {
        pool.install(|| {
            let n = 10_000usize;
            let all: Vec<usize> = (0..n).collect();
            assert_eq!(numbers(n).sum::<usize>(), all.iter().sum::<usize>());
            assert_eq!(numbers(n).collect::<Vec<_>>(), all);
            assert_eq!(
                numbers(n).map(|x| x * 3).filter(|x| x % 2 == 0).count(),
                all.iter().filter(|x| (*x * 3) % 2 == 0).count()
            );
            assert_eq!(
                numbers(n).rev().skip(10).take(5).collect::<Vec<_>>(),
                vec![n - 11, n - 12, n - 13, n - 14, n - 15]
            );
            let zipped: Vec<(usize, usize)> = numbers(n).zip(numbers(n).rev()).collect();
            assert!(zipped.iter().all(|(a, b)| a + b == n - 1));
            assert_eq!(
                numbers(n)
                    .enumerate()
                    .find_last(|(i, x)| *i == *x && x % 7 == 0),
                Some((9996, 9996))
            );
            assert_eq!(numbers(n).chain(numbers(3)).len(), n + 3);
            assert_eq!(
                numbers(n).step_by(1000).collect::<Vec<_>>(),
                (0..n).step_by(1000).collect::<Vec<_>>()
            );
            assert_eq!(
                numbers(n)
                    .with_min_len(5000)
                    .map(|x| x as u128)
                    .sum::<u128>(),
                (n * (n - 1) / 2) as u128
            );
            assert_eq!(numbers(n).position_first(|x| x == 4321), Some(4321));
            assert_eq!(numbers(0).max(), None);
        });
    }
}

#[test]
fn a_producer_is_cut_at_the_same_places_every_time() {
    let pieces = || {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let producer = Numbers {
            lo: 0,
            hi: 100_000,
            pieces: Some(Arc::clone(&seen)),
        };
        let sum: usize = producer_iter(producer, 100_000).sum();
        assert_eq!(sum, 99_999 * 100_000 / 2);
        let mut seen: Vec<(usize, usize)> = seen.lock().unwrap().clone();
        seen.sort_unstable();
        seen
    };
    let first = pieces();
    assert_eq!(first.len(), locus::iter::LEAVES, "one piece per leaf");
    assert!(
        first.windows(2).all(|w| w[0].1 == w[1].0),
        "pieces tile the range"
    );
    for _ in 0..5 {
        assert_eq!(pieces(), first);
    }
}

/// `lo..hi` as a rayon unindexed producer that halves until pieces are short.
struct Halves(u64, u64);

impl UnindexedProducer for Halves {
    type Item = u64;

    fn split(self) -> (Self, Option<Self>) {
        if self.1 - self.0 < 10 {
            return (self, None);
        }
        let mid = self.0 + (self.1 - self.0) / 2;
        (Halves(self.0, mid), Some(Halves(mid, self.1)))
    }

    fn fold_with<F: Folder<u64>>(self, folder: F) -> F {
        folder.consume_iter(self.0..self.1)
    }
}

#[test]
fn an_unindexed_producer_runs_through_adapters_and_terminals() {
    let n = 5_000u64;
    assert_eq!(unindexed_iter(Halves(0, n)).sum::<u64>(), n * (n - 1) / 2);
    assert_eq!(
        unindexed_iter(Halves(0, n))
            .map(|x| x + 1)
            .collect::<Vec<_>>(),
        (1..=n).collect::<Vec<_>>()
    );
    assert_eq!(
        unindexed_iter(Halves(0, 7)).count(),
        7,
        "a producer that will not split"
    );
    assert_eq!(
        unindexed_iter(Halves(0, n)).filter(|x| x % 2 == 1).min(),
        Some(1)
    );
}

/// A rayon consumer that keeps the items in order.
struct Gather;
struct GatherFolder<T>(Vec<T>);
struct Append;

impl<T: Send> Consumer<T> for Gather {
    type Folder = GatherFolder<T>;
    type Reducer = Append;
    type Result = Vec<T>;

    fn split_at(self, _index: usize) -> (Self, Self, Append) {
        (Gather, Gather, Append)
    }

    fn into_folder(self) -> GatherFolder<T> {
        GatherFolder(Vec::new())
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for Gather {
    fn split_off_left(&self) -> Self {
        Gather
    }

    fn to_reducer(&self) -> Append {
        Append
    }
}

impl<T> Folder<T> for GatherFolder<T> {
    type Result = Vec<T>;

    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }

    fn complete(self) -> Vec<T> {
        self.0
    }

    fn full(&self) -> bool {
        false
    }
}

impl<T> Reducer<Vec<T>> for Append {
    fn reduce(self, mut left: Vec<T>, right: Vec<T>) -> Vec<T> {
        left.extend(right);
        left
    }
}

#[test]
fn locus_iterators_drive_rayon_consumers_and_the_bridges_do() {
    let v: Vec<u32> = (0..3000).collect();
    assert_eq!(v.par_iter().copied().drive_unindexed(Gather), v);
    assert_eq!(
        v.par_iter()
            .copied()
            .filter(|x| x % 3 == 0)
            .drive_unindexed(Gather),
        v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>()
    );
    assert_eq!(
        v.par_iter().rev().copied().drive(Gather),
        v.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(
        bridge(v.par_iter().map(|x| x * 2), Gather),
        v.iter().map(|x| x * 2).collect::<Vec<_>>()
    );
    assert_eq!(
        bridge_producer_consumer(100, Numbers::new(0, 100), Gather),
        (0..100).collect::<Vec<_>>()
    );
    assert_eq!(
        bridge_unindexed(Halves(0, 1000), Gather),
        (0..1000).collect::<Vec<_>>()
    );
    assert!(Vec::<u32>::new().into_par_iter().drive(Gather).is_empty());
}

/// A callback that splits at `i` and `j` and iterates the three pieces both ways (as
/// rayon's `tests/producer_split_at.rs` does).
struct SplitTwice(usize, usize);

impl<T> ProducerCallback<T> for SplitTwice {
    type Output = (Vec<T>, usize);

    fn callback<P: Producer<Item = T>>(self, producer: P) -> (Vec<T>, usize) {
        let (a, rest) = producer.split_at(self.0);
        let (b, c) = rest.split_at(self.1 - self.0);
        let (a, b, c) = (a.into_iter(), b.into_iter(), c.into_iter());
        assert_eq!(b.len(), self.1 - self.0);
        let middle = b.len();
        (
            a.chain(b)
                .chain(c.rev().collect::<Vec<_>>().into_iter().rev())
                .collect(),
            middle,
        )
    }
}

#[test]
fn locus_iterators_give_producers_that_split_anywhere() {
    let v: Vec<u32> = (0..20).collect();
    for i in 0..=20 {
        for j in i..=20 {
            let (items, middle) = v.par_iter().copied().with_producer(SplitTwice(i, j));
            assert_eq!(items, v);
            assert_eq!(middle, j - i);
            let (items, _) = (0..20u32)
                .into_par_iter()
                .rev()
                .with_producer(SplitTwice(i, j));
            assert_eq!(items, v.iter().rev().copied().collect::<Vec<_>>());
        }
    }
}

/// Iterates only the first piece of a split at the middle; the rest is dropped unrun.
struct FirstHalf;

impl<T> ProducerCallback<T> for FirstHalf {
    type Output = usize;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> usize {
        let (a, _dropped) = producer.split_at(5);
        a.into_iter().count()
    }
}

#[test]
fn owned_items_are_dropped_once_whatever_the_producer_does() {
    let drops = Arc::new(AtomicUsize::new(0));
    let items: Vec<Counted> = (0..10).map(|_| Counted(Arc::clone(&drops))).collect();
    assert_eq!(items.into_par_iter().with_producer(FirstHalf), 5);
    assert_eq!(drops.load(Ordering::Relaxed), 10);
}
