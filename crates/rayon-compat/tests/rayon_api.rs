//! A program written against rayon's API, by rayon's paths alone: it compiles against
//! this crate and gets rayon's answers (pool API, iterators, plumbing, collection
//! iterator types).

use rayon::iter::plumbing::{bridge, producer_iter, Consumer, Folder, Producer, Reducer};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet, LinkedList, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool builds")
}

#[test]
fn the_pool_api_answers_as_rayon_does() {
    let pool = pool(3);
    assert_eq!(pool.current_num_threads(), 3);
    assert_eq!(pool.current_thread_index(), None, "not a worker here");
    assert_eq!(pool.yield_now(), None);
    assert_eq!(
        pool.broadcast(|ctx| (ctx.index(), ctx.num_threads())),
        vec![(0, 3), (1, 3), (2, 3)]
    );
    let (threads, index) =
        pool.install(|| (rayon::current_num_threads(), rayon::current_thread_index()));
    assert_eq!(threads, 3);
    assert!(index.is_some_and(|i| i < 3));
    assert_eq!(
        pool.install(|| (0..1000u64).into_par_iter().sum::<u64>()),
        499_500
    );
    assert_eq!(pool.join(|| 1, || 2), (1, 2));
    let counted = AtomicUsize::new(0);
    pool.scope(|s| {
        for _ in 0..10 {
            s.spawn(|_| {
                counted.fetch_add(1, Ordering::Relaxed);
            });
        }
    });
    let count = || {
        counted.fetch_add(1, Ordering::Relaxed);
    };
    pool.scope_fifo(|s| s.spawn_fifo(|_| count()));
    pool.in_place_scope(|s| s.spawn(|_| count()));
    assert_eq!(counted.load(Ordering::Relaxed), 12);
    assert!(rayon::max_num_threads() >= 3);
}

#[test]
fn spawns_run_once_each_and_their_panics_reach_the_handler() {
    let (panics_tx, panics) = mpsc::channel::<String>();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .panic_handler(move |p| {
            let text = p.downcast_ref::<&str>().map_or("?", |s| s).to_string();
            panics_tx.send(text).expect("the test listens");
        })
        .build()
        .expect("pool builds");
    let (tx, rx) = mpsc::channel();
    for i in 0..100 {
        let tx = tx.clone();
        if i % 2 == 0 {
            pool.spawn(move || tx.send(i).expect("the test listens"));
        } else {
            pool.spawn_fifo(move || tx.send(i).expect("the test listens"));
        }
    }
    drop(tx);
    let mut seen: Vec<i32> = rx.iter().collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..100).collect::<Vec<_>>());
    pool.spawn(|| panic!("spawned"));
    assert_eq!(panics.recv().expect("the handler runs"), "spawned");
}

#[test]
fn join_context_says_which_closure_moved() {
    // From outside any pool, both closures run on the pool's workers: both moved, as
    // under rayon, whose cold join injects the pair.
    let (a, _) = rayon::join_context(|a| a.migrated(), |b| b.migrated());
    assert!(a);
    // On a worker, the first closure runs where join was called.
    let pool = pool(2);
    let (a, _) = pool.install(|| rayon::join_context(|a| a.migrated(), |b| b.migrated()));
    assert!(!a);
}

#[test]
fn locus_settings_are_reached_through_the_builder_and_the_pool() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .locus(|b| b.pin(false))
        .build()
        .expect("pool builds");
    assert_eq!(pool.locus().num_threads(), 2);
    assert!(!pool.locus().policy_name().is_empty());
}

#[test]
fn collections_iterate_with_rayons_type_names() {
    let map: HashMap<u32, u32> = (0..100).map(|i| (i, i * 2)).collect();
    let by_ref: rayon::collections::hash_map::Iter<'_, u32, u32> = map.par_iter();
    assert_eq!(by_ref.map(|(_, v)| *v).sum::<u32>(), 9900);
    let by_value: rayon::collections::hash_map::IntoIter<u32, u32> = map.into_par_iter();
    assert_eq!(by_value.count(), 100);
    let tree: BTreeMap<u32, u32> = (0..10).map(|i| (i, i)).collect();
    let keys: rayon::collections::btree_map::Iter<'_, u32, u32> = tree.par_iter();
    assert_eq!(
        keys.map(|(k, _)| *k).collect::<Vec<_>>(),
        (0..10).collect::<Vec<_>>()
    );
    let set: HashSet<u8> = (0..50).collect();
    let set_iter: rayon::collections::hash_set::Iter<'_, u8> = set.par_iter();
    assert_eq!(set_iter.count(), 50);
    let list: LinkedList<u8> = (0..5).collect();
    let list_iter: rayon::collections::linked_list::IntoIter<u8> = list.into_par_iter();
    assert_eq!(list_iter.collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    let mut deque: VecDeque<u8> = (0..5).collect();
    deque.push_front(9);
    let deque_iter: rayon::collections::vec_deque::Iter<'_, u8> = deque.par_iter();
    assert_eq!(
        deque_iter.copied().collect::<Vec<_>>(),
        vec![9, 0, 1, 2, 3, 4]
    );
    let option: rayon::option::IntoIter<u8> = Some(3).into_par_iter();
    assert_eq!(option.sum::<u8>(), 3);
    let result: rayon::result::Iter<'_, u8> = Ok::<u8, ()>(4).par_iter();
    assert_eq!(result.count(), 1);
    let mut text = String::from("héllo");
    let drained: rayon::string::Drain<'_> = text.par_drain(1..);
    assert_eq!(drained.collect::<String>(), "éllo");
}

/// A rayon producer of the numbers `lo..hi`, as a crate implementing rayon's plumbing
/// writes one.
struct Numbers(usize, usize);

impl Producer for Numbers {
    type Item = usize;
    type IntoIter = std::ops::Range<usize>;

    fn into_iter(self) -> Self::IntoIter {
        self.0..self.1
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        (
            Numbers(self.0, self.0 + index),
            Numbers(self.0 + index, self.1),
        )
    }
}

/// A rayon consumer counting the items it is given.
struct Count(Arc<AtomicUsize>);

impl Consumer<usize> for Count {
    type Folder = Count;
    type Reducer = Count;
    type Result = ();

    fn split_at(self, _index: usize) -> (Self, Self, Self) {
        (Count(Arc::clone(&self.0)), Count(Arc::clone(&self.0)), self)
    }

    fn into_folder(self) -> Self {
        self
    }

    fn full(&self) -> bool {
        false
    }
}

impl Folder<usize> for Count {
    type Result = ();

    fn consume(self, _item: usize) -> Self {
        self.0.fetch_add(1, Ordering::Relaxed);
        self
    }

    fn complete(self) {}

    fn full(&self) -> bool {
        false
    }
}

impl Reducer<()> for Count {
    fn reduce(self, _left: (), _right: ()) {}
}

#[test]
fn plumbing_is_reached_by_rayons_paths() {
    let n = 10_000;
    let evens: Vec<usize> = producer_iter(Numbers(0, n), n)
        .filter(|x| x % 2 == 0)
        .collect();
    assert_eq!(evens, (0..n).step_by(2).collect::<Vec<_>>());
    let count = Arc::new(AtomicUsize::new(0));
    bridge(
        producer_iter(Numbers(0, n), n).skip(10),
        Count(Arc::clone(&count)),
    );
    assert_eq!(count.load(Ordering::Relaxed), n - 10);
}

/// A collection of another crate that drains by rayon's `ParallelDrainRange`, its
/// iterator wrapping `rayon::vec::Drain` as indexmap's `ParDrain` does.
struct Pairs(Vec<(u8, char)>);

struct PairsDrain<'a> {
    entries: rayon::vec::Drain<'a, (u8, char)>,
}

impl<'a> ParallelDrainRange<usize> for &'a mut Pairs {
    type Iter = PairsDrain<'a>;
    type Item = u8;

    fn par_drain<R: std::ops::RangeBounds<usize>>(self, range: R) -> PairsDrain<'a> {
        PairsDrain {
            entries: self.0.par_drain(range),
        }
    }
}

impl ParallelIterator for PairsDrain<'_> {
    type Item = u8;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: rayon::iter::plumbing::UnindexedConsumer<u8>,
    {
        self.entries
            .into_par_iter()
            .map(|(k, _)| k)
            .drive_unindexed(consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[test]
fn the_drains_are_rayon_s_traits_and_types() {
    let mut pairs = Pairs((0..10).map(|k| (k, char::from(b'a' + k))).collect());
    let keys: Vec<u8> = pairs.par_drain(2..5).collect();
    assert_eq!(keys, vec![2, 3, 4]);
    assert_eq!(pairs.0.len(), 7);
    drop(pairs.par_drain(..2));
    assert_eq!(
        pairs.0.iter().map(|p| p.0).collect::<Vec<_>>(),
        [5, 6, 7, 8, 9]
    );

    let mut v: Vec<u8> = (0..10).collect();
    let drain: rayon::vec::Drain<'_, u8> = v.par_drain(8..);
    assert_eq!(drain.len(), 2);
    assert_eq!(drain.collect::<Vec<_>>(), [8, 9]);
    let mut deque: VecDeque<u8> = (0..5).collect();
    deque.push_front(9);
    let drain: rayon::collections::vec_deque::Drain<'_, u8> = deque.par_drain(..2);
    assert_eq!(drain.collect::<Vec<_>>(), [9, 0]);
    assert_eq!(deque, [1, 2, 3, 4]);
    let mut heap: std::collections::BinaryHeap<u8> = v.iter().copied().collect();
    let drain: rayon::collections::binary_heap::Drain<'_, u8> = heap.par_drain();
    assert_eq!(drain.map(u32::from).sum::<u32>(), 28);
    assert!(heap.is_empty());
    let mut set: HashSet<u8> = v.iter().copied().collect();
    let drain: rayon::collections::hash_set::Drain<'_, u8> = set.par_drain();
    assert_eq!(drain.count(), 8);
    let mut map: HashMap<u8, u8> = v.iter().map(|&k| (k, k)).collect();
    let drain: rayon::collections::hash_map::Drain<'_, u8, u8> = map.par_drain();
    assert_eq!(drain.count(), 8);
    assert!(set.is_empty() && map.is_empty());
}
