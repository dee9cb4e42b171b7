//! std's collections, arrays, `Option` and `Result` as parallel iterators, by value, by
//! reference and (where rayon has it) by mutable reference.
//!
//! Arrays and `VecDeque` go through slices (a deque is its two slices chained). The
//! other collections cannot be cut at a position without walking them, so their items
//! (or references to them) are first gathered into a vector in the collection's order on
//! the calling thread, as rayon does; the vector is then the source, and its length the
//! positions. `Option` and `Result` give zero or one item.

use super::reshape::Chain;
use super::source::{IntoIter, Iter, IterMut};
use super::{IntoParallelIterator, ParallelIterator};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ops::RangeBounds;

/// An `IntoParallelIterator` impl that gathers the collection's items, or references to
/// them, into a vector.
macro_rules! through_vec {
    ($([$($g:tt)*] $coll:ty => $item:ty;)*) => {$(
        impl<$($g)*> IntoParallelIterator for $coll {
            type Iter = IntoIter<$item>;
            type Item = $item;

            fn into_par_iter(self) -> IntoIter<$item> {
                self.into_iter().collect::<Vec<_>>().into_par_iter()
            }
        }
    )*};
}

through_vec! {
    [T: Send] Option<T> => T;
    ['a, T: Sync + 'a] &'a Option<T> => &'a T;
    ['a, T: Send + 'a] &'a mut Option<T> => &'a mut T;
    [T: Send, E] Result<T, E> => T;
    ['a, T: Sync + 'a, E] &'a Result<T, E> => &'a T;
    ['a, T: Send + 'a, E] &'a mut Result<T, E> => &'a mut T;
    [T: Send] LinkedList<T> => T;
    ['a, T: Sync + 'a] &'a LinkedList<T> => &'a T;
    ['a, T: Send + 'a] &'a mut LinkedList<T> => &'a mut T;
    [T: Send] BinaryHeap<T> => T;
    [T: Send] BTreeSet<T> => T;
    ['a, T: Sync + 'a] &'a BTreeSet<T> => &'a T;
    [K: Send, V: Send] BTreeMap<K, V> => (K, V);
    ['a, K: Sync + 'a, V: Sync + 'a] &'a BTreeMap<K, V> => (&'a K, &'a V);
    ['a, K: Sync + 'a, V: Send + 'a] &'a mut BTreeMap<K, V> => (&'a K, &'a mut V);
    [T: Send, S] HashSet<T, S> => T;
    ['a, T: Sync + 'a, S] &'a HashSet<T, S> => &'a T;
    [K: Send, V: Send, S] HashMap<K, V, S> => (K, V);
    ['a, K: Sync + 'a, V: Sync + 'a, S] &'a HashMap<K, V, S> => (&'a K, &'a V);
    ['a, K: Sync + 'a, V: Send + 'a, S] &'a mut HashMap<K, V, S> => (&'a K, &'a mut V);
}

impl<'a, T: Sync + 'a> IntoParallelIterator for &'a BinaryHeap<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Iter<'a, T> {
        self.as_slice().into_par_iter()
    }
}

impl<T: Send> IntoParallelIterator for VecDeque<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        Vec::from(self).into_par_iter()
    }
}

impl<'a, T: Sync + 'a> IntoParallelIterator for &'a VecDeque<T> {
    type Iter = Chain<Iter<'a, T>, Iter<'a, T>>;
    type Item = &'a T;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_slices();
        Chain::new(front.into_par_iter(), back.into_par_iter())
    }
}

impl<'a, T: Send + 'a> IntoParallelIterator for &'a mut VecDeque<T> {
    type Iter = Chain<IterMut<'a, T>, IterMut<'a, T>>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> Self::Iter {
        let (front, back) = self.as_mut_slices();
        Chain::new(front.into_par_iter(), back.into_par_iter())
    }
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        Vec::from(self).into_par_iter()
    }
}

impl<'a, T: Sync + 'a, const N: usize> IntoParallelIterator for &'a [T; N] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;

    fn into_par_iter(self) -> Iter<'a, T> {
        self.as_slice().into_par_iter()
    }
}

impl<'a, T: Send + 'a, const N: usize> IntoParallelIterator for &'a mut [T; N] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;

    fn into_par_iter(self) -> IterMut<'a, T> {
        self.as_mut_slice().into_par_iter()
    }
}

impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        self.into_vec().into_par_iter()
    }
}

/// `par_drain(range)`: the elements of a range of a `Vec`, `VecDeque` or `String`
/// (chars), removed from it, as rayon's `ParallelDrainRange`.
///
/// The elements are moved out of the collection at the call, in order, and the rest
/// closes up, as std's `drain` does; the iterator owns them from then on.
pub trait ParallelDrainRange<Idx = usize> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// The elements of `range`, removed.
    ///
    /// # Panics
    /// If `range` is out of bounds (or, for a `String`, not on char boundaries), as
    /// std's `drain` does.
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<T: Send> ParallelDrainRange<usize> for &mut Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> IntoIter<T> {
        self.drain(range).collect::<Vec<_>>().into_par_iter()
    }
}

impl<T: Send> ParallelDrainRange<usize> for &mut VecDeque<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> IntoIter<T> {
        self.drain(range).collect::<Vec<_>>().into_par_iter()
    }
}

impl ParallelDrainRange<usize> for &mut String {
    type Iter = IntoIter<char>;
    type Item = char;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> IntoIter<char> {
        self.drain(range).collect::<Vec<_>>().into_par_iter()
    }
}

/// `par_drain()`: every element of a `BinaryHeap`, `HashMap` or `HashSet`, removed from
/// it, as rayon's `ParallelDrainFull` (a `Vec` or `VecDeque` drains by range:
/// [`ParallelDrainRange`]).
pub trait ParallelDrainFull {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Every element, removed; the collection is left empty.
    fn par_drain(self) -> Self::Iter;
}

/// `ParallelDrainFull` through the collection's own `drain()`.
macro_rules! drain_full {
    ($([$($g:tt)*] $coll:ty => $item:ty;)*) => {$(
        impl<$($g)*> ParallelDrainFull for $coll {
            type Iter = IntoIter<$item>;
            type Item = $item;

            fn par_drain(self) -> IntoIter<$item> {
                self.drain().collect::<Vec<_>>().into_par_iter()
            }
        }
    )*};
}

drain_full! {
    [T: Send] &mut BinaryHeap<T> => T;
    [T: Send, S] &mut HashSet<T, S> => T;
    [K: Send, V: Send, S] &mut HashMap<K, V, S> => (K, V);
}
