//! The terminals of this crate's traits: each a callback that runs locus's terminal of
//! the same name on the locus iterator it is handed.

use super::{IndexedLocusCallback, LocusCallback};
use crate::iter as li;
use crate::iter::{Either, Try};
use std::cmp::Ordering;
use std::collections::LinkedList;
use std::iter::{Product, Sum};
use std::marker::PhantomData;

/// Declares terminal callbacks: the struct, its `new`, and the callback impl (unindexed
/// or indexed) whose body runs locus's terminal on `$iter`.
macro_rules! terminals {
    ($($kind:ident $name:ident<$($g:ident),*> { $($field:ident: $ty:ty),* }
        impl[$($ig:tt)*] $t:ty => $out:ty where [$($w:tt)*] |$iter:ident| $body:expr;)*) => {$(
        pub(super) struct $name<$($g),*> {
            $($field: $ty,)*
            _marker: PhantomData<fn() -> ($($g,)*)>,
        }

        impl<$($g),*> $name<$($g),*> {
            pub(super) fn new($($field: $ty),*) -> Self {
                $name { $($field,)* _marker: PhantomData }
            }
        }

        terminals!(@impl $kind $name<$($g),*> { $($field),* } impl[$($ig)*] $t => $out
            where [$($w)*] |$iter| $body);
    )*};
    (@impl unindexed $name:ident<$($g:ident),*> { $($field:ident),* }
        impl[$($ig:tt)*] $t:ty => $out:ty where [$($w:tt)*] |$iter:ident| $body:expr) => {
        impl<$($ig)*> LocusCallback<$t> for $name<$($g),*> where $($w)* {
            type Output = $out;

            #[track_caller]
            fn call<L: li::ParallelIterator<Item = $t>>(self, $iter: L) -> $out {
                let $name { $($field,)* .. } = self;
                $body
            }
        }
    };
    (@impl indexed $name:ident<$($g:ident),*> { $($field:ident),* }
        impl[$($ig:tt)*] $t:ty => $out:ty where [$($w:tt)*] |$iter:ident| $body:expr) => {
        impl<$($ig)*> IndexedLocusCallback<$t> for $name<$($g),*> where $($w)* {
            type Output = $out;

            #[track_caller]
            fn call<L: li::IndexedParallelIterator<Item = $t>>(self, $iter: L) -> $out {
                let $name { $($field,)* .. } = self;
                $body
            }
        }
    };
}

terminals! {
    unindexed ForEach<OP> { op: OP } impl[T: Send, OP: Fn(T) + Sync + Send] T => ()
        where [] |iter| iter.for_each(op);
    unindexed ForEachWith<U, OP> { init: U, op: OP }
        impl[T: Send, U: Send + Sync + Clone, OP: Fn(&mut U, T) + Sync + Send] T => ()
        where [] |iter| iter.for_each_with(init, op);
    unindexed ForEachInit<INIT, OP> { init: INIT, op: OP }
        impl[T: Send, U, INIT: Fn() -> U + Sync + Send, OP: Fn(&mut U, T) + Sync + Send]
        T => () where [] |iter| iter.for_each_init(init, op);
    unindexed TryForEach<OP> { op: OP }
        impl[T: Send, R: Try<Output = ()> + Send, OP: Fn(T) -> R + Sync + Send] T => R
        where [] |iter| iter.try_for_each(op);
    unindexed TryForEachWith<U, OP> { init: U, op: OP }
        impl[T: Send, U: Send + Sync + Clone, R: Try<Output = ()> + Send,
            OP: Fn(&mut U, T) -> R + Sync + Send] T => R
        where [] |iter| iter.try_for_each_with(init, op);
    unindexed TryForEachInit<INIT, OP> { init: INIT, op: OP }
        impl[T: Send, U, INIT: Fn() -> U + Sync + Send, R: Try<Output = ()> + Send,
            OP: Fn(&mut U, T) -> R + Sync + Send] T => R
        where [] |iter| iter.try_for_each_init(init, op);
    unindexed Count<> {} impl[T: Send] T => usize where [] |iter| iter.count();
    unindexed Reduce<ID, OP> { identity: ID, op: OP }
        impl[T: Send, ID: Fn() -> T + Sync + Send, OP: Fn(T, T) -> T + Sync + Send] T => T
        where [] |iter| iter.reduce(identity, op);
    unindexed ReduceWith<OP> { op: OP }
        impl[T: Send, OP: Fn(T, T) -> T + Sync + Send] T => Option<T>
        where [] |iter| iter.reduce_with(op);
    unindexed TryReduce<ID, OP> { identity: ID, op: OP }
        impl[T: Send + Try<Output = U>, U, ID: Fn() -> U + Sync + Send,
            OP: Fn(U, U) -> T + Sync + Send] T => T
        where [] |iter| iter.try_reduce(identity, op);
    unindexed TryReduceWith<OP> { op: OP }
        impl[T: Send + Try<Output = U>, U: Send, OP: Fn(U, U) -> T + Sync + Send] T => Option<T>
        where [] |iter| iter.try_reduce_with(op);
    unindexed SumOf<S> {} impl[T: Send, S: Send + Sum<T> + Sum<S>] T => S
        where [] |iter| iter.sum();
    unindexed ProductOf<P> {} impl[T: Send, P: Send + Product<T> + Product<P>] T => P
        where [] |iter| iter.product();
    unindexed Min<> {} impl[T: Send + Ord] T => Option<T> where [] |iter| iter.min();
    unindexed Max<> {} impl[T: Send + Ord] T => Option<T> where [] |iter| iter.max();
    unindexed MinBy<F> { f: F }
        impl[T: Send, F: Fn(&T, &T) -> Ordering + Sync + Send] T => Option<T>
        where [] |iter| iter.min_by(f);
    unindexed MaxBy<F> { f: F }
        impl[T: Send, F: Fn(&T, &T) -> Ordering + Sync + Send] T => Option<T>
        where [] |iter| iter.max_by(f);
    unindexed MinByKey<F> { f: F }
        impl[T: Send, K: Ord + Send, F: Fn(&T) -> K + Sync + Send] T => Option<T>
        where [] |iter| iter.min_by_key(f);
    unindexed MaxByKey<F> { f: F }
        impl[T: Send, K: Ord + Send, F: Fn(&T) -> K + Sync + Send] T => Option<T>
        where [] |iter| iter.max_by_key(f);
    unindexed FindAny<P> { p: P } impl[T: Send, P: Fn(&T) -> bool + Sync + Send] T => Option<T>
        where [] |iter| iter.find_any(p);
    unindexed FindFirst<P> { p: P } impl[T: Send, P: Fn(&T) -> bool + Sync + Send] T => Option<T>
        where [] |iter| iter.find_first(p);
    unindexed FindLast<P> { p: P } impl[T: Send, P: Fn(&T) -> bool + Sync + Send] T => Option<T>
        where [] |iter| iter.find_last(p);
    unindexed AnyOf<P> { p: P } impl[T: Send, P: Fn(T) -> bool + Sync + Send] T => bool
        where [] |iter| iter.any(p);
    unindexed AllOf<P> { p: P } impl[T: Send, P: Fn(T) -> bool + Sync + Send] T => bool
        where [] |iter| iter.all(p);
    unindexed Unzip<FromA, FromB> {}
        impl[A: Send, B: Send, FromA: Default + Send + li::ParallelExtend<A>,
            FromB: Default + Send + li::ParallelExtend<B>] (A, B) => (FromA, FromB)
        where [] |iter| iter.unzip();
    unindexed Partition<A, B, P> { p: P }
        impl[T: Send, A: Default + Send + li::ParallelExtend<T>,
            B: Default + Send + li::ParallelExtend<T>, P: Fn(&T) -> bool + Sync + Send]
        T => (A, B) where [] |iter| iter.partition(p);
    unindexed PartitionMap<A, B, P> { p: P }
        impl[T: Send, Left: Send, Right: Send, A: Default + Send + li::ParallelExtend<Left>,
            B: Default + Send + li::ParallelExtend<Right>,
            P: Fn(T) -> Either<Left, Right> + Sync + Send]
        T => (A, B) where [] |iter| iter.partition_map(p);
    unindexed VecList<> {} impl[T: Send] T => LinkedList<Vec<T>>
        where [] |iter| iter.collect_vec_list();
    unindexed Collect<C> {} impl[T: Send, C: li::FromParallelIterator<T>] T => C
        where [] |iter| <C as li::FromParallelIterator<T>>::from_par_iter(iter);
    indexed PositionAny<P> { p: P } impl[T: Send, P: Fn(T) -> bool + Sync + Send]
        T => Option<usize> where [] |iter| iter.position_any(p);
    indexed PositionFirst<P> { p: P } impl[T: Send, P: Fn(T) -> bool + Sync + Send]
        T => Option<usize> where [] |iter| iter.position_first(p);
    indexed PositionLast<P> { p: P } impl[T: Send, P: Fn(T) -> bool + Sync + Send]
        T => Option<usize> where [] |iter| iter.position_last(p);
}

/// `par_extend`'s callback.
pub(super) struct Extend<'a, C: ?Sized> {
    target: &'a mut C,
}

impl<'a, C: ?Sized> Extend<'a, C> {
    pub(super) fn new(target: &'a mut C) -> Self {
        Extend { target }
    }
}

impl<T: Send, C: li::ParallelExtend<T> + ?Sized> LocusCallback<T> for Extend<'_, C> {
    type Output = ();

    #[track_caller]
    fn call<L: li::ParallelIterator<Item = T>>(self, iter: L) {
        self.target.par_extend(iter);
    }
}

/// `collect_into_vec`'s callback.
pub(super) struct IntoVec<'a, T> {
    target: &'a mut Vec<T>,
}

impl<'a, T> IntoVec<'a, T> {
    pub(super) fn new(target: &'a mut Vec<T>) -> Self {
        IntoVec { target }
    }
}

impl<T: Send> IndexedLocusCallback<T> for IntoVec<'_, T> {
    type Output = ();

    #[track_caller]
    fn call<L: li::IndexedParallelIterator<Item = T>>(self, iter: L) {
        iter.collect_into_vec(self.target);
    }
}

/// `unzip_into_vecs`' callback.
pub(super) struct UnzipIntoVecs<'a, A, B> {
    left: &'a mut Vec<A>,
    right: &'a mut Vec<B>,
}

impl<'a, A, B> UnzipIntoVecs<'a, A, B> {
    pub(super) fn new(left: &'a mut Vec<A>, right: &'a mut Vec<B>) -> Self {
        UnzipIntoVecs { left, right }
    }
}

impl<A: Send, B: Send> IndexedLocusCallback<(A, B)> for UnzipIntoVecs<'_, A, B> {
    type Output = ();

    #[track_caller]
    fn call<L: li::IndexedParallelIterator<Item = (A, B)>>(self, iter: L) {
        iter.unzip_into_vecs(self.left, self.right);
    }
}

/// A terminal of two indexed locus iterators (the comparisons).
pub(super) trait PairTerminal<T: Send, U: Send> {
    /// What the terminal returns.
    type Output;

    /// Runs the terminal on `a` and `b`.
    fn run<A, B>(self, a: A, b: B) -> Self::Output
    where
        A: li::IndexedParallelIterator<Item = T>,
        B: li::IndexedParallelIterator<Item = U>;
}

/// The callback of a [`PairTerminal`]: handed the first locus iterator, it asks the
/// second for its own.
pub(super) struct Pair<J, P> {
    second: J,
    terminal: P,
}

impl<J, P> Pair<J, P> {
    pub(super) fn new(second: J, terminal: P) -> Self {
        Pair { second, terminal }
    }
}

impl<T: Send, J, P> IndexedLocusCallback<T> for Pair<J, P>
where
    J: super::IndexedParallelIterator,
    P: PairTerminal<T, J::Item>,
{
    type Output = P::Output;

    #[track_caller]
    fn call<L: li::IndexedParallelIterator<Item = T>>(self, first: L) -> P::Output {
        let then = Then {
            first,
            terminal: self.terminal,
        };
        super::IndexedParallelIterator::with_locus_indexed(self.second, then)
    }
}

/// [`Pair`]'s second half: both locus iterators in hand.
struct Then<L, P> {
    first: L,
    terminal: P,
}

impl<T: Send, U: Send, L, P> IndexedLocusCallback<U> for Then<L, P>
where
    L: li::IndexedParallelIterator<Item = T>,
    P: PairTerminal<T, U>,
{
    type Output = P::Output;

    #[track_caller]
    fn call<B: li::IndexedParallelIterator<Item = U>>(self, second: B) -> P::Output {
        self.terminal.run(self.first, second)
    }
}

/// `cmp`.
pub(super) struct Cmp;

impl<T: Send + Ord> PairTerminal<T, T> for Cmp {
    type Output = Ordering;

    #[track_caller]
    fn run<A, B>(self, a: A, b: B) -> Ordering
    where
        A: li::IndexedParallelIterator<Item = T>,
        B: li::IndexedParallelIterator<Item = T>,
    {
        a.cmp(b)
    }
}

/// The comparisons by `PartialEq` and `PartialOrd`, each locus's method of its name.
macro_rules! comparisons {
    ($($name:ident [$($bound:tt)*] -> $out:ty = $method:ident;)*) => {$(
        #[doc = concat!("`", stringify!($method), "`.")]
        pub(super) struct $name;

        impl<T: Send + $($bound)*<U>, U: Send> PairTerminal<T, U> for $name {
            type Output = $out;

            #[track_caller]
            fn run<A, B>(self, a: A, b: B) -> $out
            where
                A: li::IndexedParallelIterator<Item = T>,
                B: li::IndexedParallelIterator<Item = U>,
            {
                a.$method(b)
            }
        }
    )*};
}

comparisons! {
    PartialCmp [PartialOrd] -> Option<Ordering> = partial_cmp;
    Eq [PartialEq] -> bool = eq;
    Ne [PartialEq] -> bool = ne;
    Lt [PartialOrd] -> bool = lt;
    Le [PartialOrd] -> bool = le;
    Gt [PartialOrd] -> bool = gt;
    Ge [PartialOrd] -> bool = ge;
}
