//! The adapters: each wraps an iterator, keeps its positions, and gives a leaf std's
//! adapter over the inner leaf's items, so a leaf runs as a sequential chain does.

use super::reshape::Init;
use super::stop::{FoldRun, FoldSeq, Stop, Stoppable};
use super::{IndexedParallelIterator, ParallelIterator};
use std::fmt;
use std::ops::Range;

/// Forwards the position plumbing of an adapter to its inner iterator `$inner` (all
/// but `leaf_bounds` with `but_leaf_bounds`).
macro_rules! forward_positions {
    ($inner:ident) => {
        forward_positions!($inner, but_leaf_bounds);

        fn leaf_bounds(&self) -> (usize, usize) {
            self.$inner.leaf_bounds()
        }
    };
    ($inner:ident, but_leaf_bounds) => {
        fn position_count(&self) -> usize {
            self.$inner.position_count()
        }

        fn driven(&mut self, positions: usize) {
            self.$inner.driven(positions)
        }
    };
}

/// [`ParallelIterator::map`].
#[derive(Clone)]
pub struct Map<I, F> {
    base: I,
    f: F,
}

impl<I, F> Map<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        Map { base, f }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;
    type Seq<'a>
        = std::iter::Map<I::Seq<'a>, &'a F>
    where
        Self: 'a;

    forward_positions!(base);

    fn exact_len(&self) -> Option<usize> {
        self.base.exact_len()
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.seq(range) }.map(&self.f)
    }
    unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
    where
        H: Send,
        K: Fn(Self::Item) -> Option<H> + Sync,
        S: Fn() -> bool + Sync,
    {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.last_in(range, stop, &|x| keep((self.f)(x))) }
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
}

/// [`ParallelIterator::filter`].
#[derive(Clone)]
pub struct Filter<I, P> {
    base: I,
    predicate: P,
}

impl<I, P> Filter<I, P> {
    pub(super) fn new(base: I, predicate: P) -> Self {
        Filter { base, predicate }
    }
}

impl<I, P> ParallelIterator for Filter<I, P>
where
    I: ParallelIterator,
    P: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;
    type Seq<'a>
        = std::iter::Filter<Stoppable<I::Seq<'a>>, &'a P>
    where
        Self: 'a;

    forward_positions!(base);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        let items = unsafe { self.base.seq(range) };
        Stop::current().wrap(items).filter(&self.predicate)
    }
    unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
    where
        H: Send,
        K: Fn(Self::Item) -> Option<H> + Sync,
        S: Fn() -> bool + Sync,
    {
        let keep = |x: I::Item| if (self.predicate)(&x) { keep(x) } else { None };
        // SAFETY: forwarded from the caller.
        unsafe { self.base.last_in(range, stop, &keep) }
    }
}

/// [`ParallelIterator::filter_map`].
#[derive(Clone)]
pub struct FilterMap<I, F> {
    base: I,
    f: F,
}

impl<I, F> FilterMap<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        FilterMap { base, f }
    }
}

impl<I, F, R> ParallelIterator for FilterMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;
    type Seq<'a>
        = std::iter::FilterMap<Stoppable<I::Seq<'a>>, &'a F>
    where
        Self: 'a;

    forward_positions!(base);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        let items = unsafe { self.base.seq(range) };
        Stop::current().wrap(items).filter_map(&self.f)
    }
    unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
    where
        H: Send,
        K: Fn(Self::Item) -> Option<H> + Sync,
        S: Fn() -> bool + Sync,
    {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.base
                .last_in(range, stop, &|x| (self.f)(x).and_then(keep))
        }
    }
}

/// An adapter of a chain of references that gives owned items through std's adapter of
/// the same name: [`Copied`] (`T: Copy`) and [`Cloned`] (`T: Clone`).
macro_rules! by_value {
    ($name:ident, $method:ident, $bound:path, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone)]
        pub struct $name<I> {
            base: I,
        }

        impl<I> $name<I> {
            pub(super) fn new(base: I) -> Self {
                $name { base }
            }
        }

        impl<'b, I, T> ParallelIterator for $name<I>
        where
            I: ParallelIterator<Item = &'b T>,
            T: 'b + $bound + Send + Sync,
        {
            type Item = T;
            type Seq<'a>
                = std::iter::$name<I::Seq<'a>>
            where
                Self: 'a;

            forward_positions!(base);

            fn exact_len(&self) -> Option<usize> {
                self.base.exact_len()
            }

            unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
                // SAFETY: forwarded from the caller.
                unsafe { self.base.seq(range) }.$method()
            }
        }

        impl<'b, I, T> IndexedParallelIterator for $name<I>
        where
            I: IndexedParallelIterator<Item = &'b T>,
            T: 'b + $bound + Send + Sync,
        {
        }
    };
}

by_value!(Copied, copied, Copy, "[`ParallelIterator::copied`].");
by_value!(Cloned, cloned, Clone, "[`ParallelIterator::cloned`].");

/// [`IndexedParallelIterator::enumerate`].
#[derive(Debug, Clone)]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    pub(super) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);
    type Seq<'a>
        = std::iter::Zip<Range<usize>, I::Seq<'a>>
    where
        Self: 'a;

    forward_positions!(base);

    fn exact_len(&self) -> Option<usize> {
        self.base.exact_len()
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // An indexed iterator's item `i` is its position `i`.
        // SAFETY: forwarded from the caller.
        range.clone().zip(unsafe { self.base.seq(range) })
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {}

/// [`IndexedParallelIterator::zip`].
#[derive(Debug, Clone)]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(super) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);
    type Seq<'a>
        = std::iter::Zip<A::Seq<'a>, B::Seq<'a>>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.a.position_count().min(self.b.position_count())
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.position_count())
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        let (amin, amax) = self.a.leaf_bounds();
        let (bmin, bmax) = self.b.leaf_bounds();
        (amin.max(bmin), amax.min(bmax))
    }

    fn driven(&mut self, positions: usize) {
        self.a.driven(positions);
        self.b.driven(positions);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // Both sides are indexed: position `i` is item `i` of each.
        // SAFETY: forwarded from the caller; the range is below both sides' positions.
        unsafe { self.a.seq(range.clone()).zip(self.b.seq(range)) }
    }
}

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
}

/// An adapter that bounds the length of the leaves a terminal cuts: [`MinLen`] raises
/// the least, [`MaxLen`] lowers the most.
macro_rules! leaf_bound {
    ($name:ident, $field:ident, $bounds:expr, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone)]
        pub struct $name<I> {
            base: I,
            $field: usize,
        }

        impl<I> $name<I> {
            pub(super) fn new(base: I, $field: usize) -> Self {
                $name {
                    base,
                    $field: $field.max(1),
                }
            }
        }

        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;
            type Seq<'a>
                = I::Seq<'a>
            where
                Self: 'a;

            forward_positions!(base, but_leaf_bounds);

            fn exact_len(&self) -> Option<usize> {
                self.base.exact_len()
            }

            fn leaf_bounds(&self) -> (usize, usize) {
                let bounds: fn((usize, usize), usize) -> (usize, usize) = $bounds;
                bounds(self.base.leaf_bounds(), self.$field)
            }

            unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
                // SAFETY: forwarded from the caller.
                unsafe { self.base.seq(range) }
            }

            unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
            where
                H: Send,
                K: Fn(Self::Item) -> Option<H> + Sync,
                S: Fn() -> bool + Sync,
            {
                // SAFETY: forwarded from the caller.
                unsafe { self.base.last_in(range, stop, keep) }
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {}
    };
}

leaf_bound!(
    MinLen,
    min,
    |(min, max), n| (min.max(n), max),
    "[`IndexedParallelIterator::with_min_len`]."
);
leaf_bound!(
    MaxLen,
    max,
    |(min, max), n| (min, max.min(n)),
    "[`IndexedParallelIterator::with_max_len`]."
);

/// [`ParallelIterator::fold`]: one accumulator per leaf.
#[derive(Clone)]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(super) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    type Item = T;
    type Seq<'a>
        = FoldSeq<I::Seq<'a>, PlainFold<'a, &'a ID, F>>
    where
        Self: 'a;

    forward_positions!(base);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // The leaf's items folded as the leaf asks for its accumulators (`FoldSeq`).
        // SAFETY: forwarded from the caller.
        FoldSeq::new(
            unsafe { self.base.seq(range) },
            PlainFold(&self.identity, &self.fold_op),
        )
    }
}

/// A plain fold's run: from `init`'s value, by `fold_op` (`fold`, `fold_with`).
#[derive(Debug)]
pub struct PlainFold<'a, N, F>(pub(super) N, pub(super) &'a F);

impl<X, N: Init, F: Fn(N::Value, X) -> N::Value> FoldRun<X> for PlainFold<'_, N, F> {
    type Acc = N::Value;

    fn fold_run(&self, items: impl Iterator<Item = X>) -> N::Value {
        items.fold(self.0.init(), self.1)
    }
}

debug_fields! {
    [I: fmt::Debug, F] Map<I, F> { base };
    [I: fmt::Debug, P] Filter<I, P> { base };
    [I: fmt::Debug, F] FilterMap<I, F> { base };
    [I: fmt::Debug, ID, F] Fold<I, ID, F> { base };
}
