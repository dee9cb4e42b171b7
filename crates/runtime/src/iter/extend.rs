//! `par_extend` and `collect` into std's collections, and the two-sided collects
//! (`unzip`, `partition`, `partition_map`).
//!
//! A collection other than `Vec` is built as rayon builds it: the items are gathered in
//! order into vectors (one per leaf, or one straight vector for an indexed chain, see
//! `collect.rs`) and then moved in with the collection's own `Extend`, on the calling
//! thread. The order is the chain's, so ordered collections (`String`, `VecDeque`,
//! `LinkedList`) get the sequential answer, and maps keep the last of equal keys as
//! std's `collect` does.
//!
//! `collect` into `Option<C>` and `Result<C, E>` stops at the first `None` or `Err` in
//! any leaf (every leaf stops taking items once one has met one); when several leaves
//! meet an error, the one kept is the first recorded, not necessarily the first in order.

use super::collect::{collect_exact_into, vec_list};
use super::{FromParallelIterator, IntoParallelIterator, ParallelIterator};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A collection that a parallel iterator can extend: rayon's `ParallelExtend`.
pub trait ParallelExtend<T: Send> {
    /// Adds the items of `par_iter`, in order.
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    #[track_caller]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>,
    {
        let par_iter = par_iter.into_par_iter();
        if par_iter.exact_len().is_some() {
            // An indexed chain writes straight into the spare capacity.
            return collect_exact_into(par_iter, self);
        }
        let mut items: Vec<T> = par_iter.collect();
        if self.is_empty() {
            *self = items;
        } else {
            self.append(&mut items);
        }
    }
}

impl<'a, T: Copy + Send + Sync + 'a> ParallelExtend<&'a T> for Vec<T> {
    #[track_caller]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = &'a T>,
    {
        self.par_extend(par_iter.into_par_iter().copied());
    }
}

/// `ParallelExtend` and `FromParallelIterator` through the collection's `Extend` (and
/// `Default`), from the items gathered in order.
macro_rules! through_extend {
    ($([$($g:tt)*] $coll:ty => $item:ty;)*) => {$(
        impl<$($g)*> ParallelExtend<$item> for $coll {
            #[track_caller]
            fn par_extend<I>(&mut self, par_iter: I)
            where
                I: IntoParallelIterator<Item = $item>,
            {
                for part in vec_list(par_iter.into_par_iter()) {
                    self.extend(part);
                }
            }
        }

        impl<$($g)*> FromParallelIterator<$item> for $coll {
            #[track_caller]
            fn from_par_iter<I>(iter: I) -> Self
            where
                I: ParallelIterator<Item = $item>,
            {
                let mut out = <$coll>::default();
                out.par_extend(iter);
                out
            }
        }
    )*};
}

through_extend! {
    [T: Send] VecDeque<T> => T;
    ['a, T: Copy + Send + Sync + 'a] VecDeque<T> => &'a T;
    [T: Send] LinkedList<T> => T;
    ['a, T: Copy + Send + Sync + 'a] LinkedList<T> => &'a T;
    [T: Ord + Send] BinaryHeap<T> => T;
    ['a, T: Ord + Copy + Send + Sync + 'a] BinaryHeap<T> => &'a T;
    [T: Ord + Send] BTreeSet<T> => T;
    ['a, T: Ord + Copy + Send + Sync + 'a] BTreeSet<T> => &'a T;
    [K: Ord + Send, V: Send] BTreeMap<K, V> => (K, V);
    ['a, K: Ord + Copy + Send + Sync + 'a, V: Copy + Send + Sync + 'a] BTreeMap<K, V> => (&'a K, &'a V);
    [T: Eq + Hash + Send, S: BuildHasher + Default + Send] HashSet<T, S> => T;
    ['a, T: Eq + Hash + Copy + Send + Sync + 'a, S: BuildHasher + Default + Send] HashSet<T, S> => &'a T;
    [K: Eq + Hash + Send, V: Send, S: BuildHasher + Default + Send] HashMap<K, V, S> => (K, V);
    ['a, K: Eq + Hash + Copy + Send + Sync + 'a, V: Copy + Send + Sync + 'a, S: BuildHasher + Default + Send] HashMap<K, V, S> => (&'a K, &'a V);
    [] String => char;
    ['a] String => &'a char;
    ['a] String => &'a str;
    [] String => String;
    [] String => Box<str>;
    ['a] String => Cow<'a, str>;
}

impl ParallelExtend<()> for () {
    #[track_caller]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = ()>,
    {
        par_iter.into_par_iter().for_each(|()| ());
    }
}

impl FromParallelIterator<()> for () {
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = ()>,
    {
        iter.for_each(|()| ());
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = T>,
    {
        Vec::from_par_iter(iter).into_boxed_slice()
    }
}

impl<T: Send> FromParallelIterator<T> for std::rc::Rc<[T]> {
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = T>,
    {
        Vec::from_par_iter(iter).into()
    }
}

impl<T: Send> FromParallelIterator<T> for std::sync::Arc<[T]> {
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = T>,
    {
        Vec::from_par_iter(iter).into()
    }
}

impl<'a, C, T> FromParallelIterator<T> for Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = T>,
    {
        Cow::Owned(C::Owned::from_par_iter(iter))
    }
}

impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = Option<T>>,
    {
        let none = AtomicBool::new(false);
        let found = |x: Option<T>| {
            if x.is_none() {
                none.store(true, Ordering::Relaxed);
            }
            x
        };
        let c = C::from_par_iter(iter.map(found).while_some());
        // The loop's end orders the stores before this load.
        (!none.load(Ordering::Relaxed)).then_some(c)
    }
}

impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = Result<T, E>>,
    {
        let error: Mutex<Option<E>> = Mutex::new(None);
        let ok = |x: Result<T, E>| match x {
            Ok(x) => Some(x),
            Err(e) => {
                let mut first = error.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert(e);
                None
            }
        };
        let c = C::from_par_iter(iter.map(ok).while_some());
        match error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }
}

impl<C, T> ParallelExtend<Option<T>> for Option<C>
where
    C: ParallelExtend<T> + Default,
    T: Send,
{
    #[track_caller]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = Option<T>>,
    {
        // As std's `Extend` for `Option` has no meaning, rayon's neither: extend the
        // held collection with the `Some` values.
        if let Some(c) = self {
            c.par_extend(par_iter.into_par_iter().flatten_iter());
        }
    }
}

/// The value `partition_map`'s function returns: which side an item goes to (rayon
/// re-exports the `either` crate's type of this name and shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Either<L, R> {
    /// To the first collection.
    Left(L),
    /// To the second collection.
    Right(R),
}

/// Both halves of an `unzip`'s pair.
pub(super) struct Both<L, R>(pub(super) L, pub(super) R);

/// What a two-sided collect puts on each side: [`Either`]'s one side, or both.
pub(super) trait Sides<L, R>: Send {
    /// The value's left and right parts.
    fn sides(self) -> (Option<L>, Option<R>);
}

impl<L: Send, R: Send> Sides<L, R> for Either<L, R> {
    fn sides(self) -> (Option<L>, Option<R>) {
        match self {
            Either::Left(l) => (Some(l), None),
            Either::Right(r) => (None, Some(r)),
        }
    }
}

impl<L: Send, R: Send> Sides<L, R> for Both<L, R> {
    fn sides(self) -> (Option<L>, Option<R>) {
        (Some(self.0), Some(self.1))
    }
}

/// Collects the left parts of `iter`'s items into one collection and the right parts
/// into another, each in order.
#[track_caller]
pub(super) fn split_sides<I, E, L, R, A, B>(iter: I) -> (A, B)
where
    I: ParallelIterator<Item = E>,
    E: Sides<L, R>,
    L: Send,
    R: Send,
    A: Default + Send + ParallelExtend<L>,
    B: Default + Send + ParallelExtend<R>,
{
    let parts = super::drive(
        iter,
        |_, items| {
            let (mut left, mut right) = (Vec::new(), Vec::new());
            for item in items {
                let (l, r) = item.sides();
                left.extend(l);
                right.extend(r);
            }
            let mut list = LinkedList::new();
            list.push_back((left, right));
            list
        },
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
    )
    .unwrap_or_default();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for (l, r) in parts {
        left.push(l);
        right.push(r);
    }
    let mut a = A::default();
    a.par_extend(left.into_par_iter().flatten_iter());
    let mut b = B::default();
    b.par_extend(right.into_par_iter().flatten_iter());
    (a, b)
}

impl<A, B, FromA, FromB> ParallelExtend<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    #[track_caller]
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = (A, B)>,
    {
        let (a, b): (Vec<A>, Vec<B>) =
            split_sides(par_iter.into_par_iter().map(|(a, b)| Both(a, b)));
        self.0.par_extend(a);
        self.1.par_extend(b);
    }
}

impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + ParallelExtend<A>,
    FromB: Default + Send + ParallelExtend<B>,
{
    #[track_caller]
    fn from_par_iter<I>(iter: I) -> Self
    where
        I: ParallelIterator<Item = (A, B)>,
    {
        split_sides(iter.map(|(a, b)| Both(a, b)))
    }
}
