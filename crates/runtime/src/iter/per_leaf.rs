//! The adapters that keep their base's positions and change what a leaf does with its
//! items: `inspect`, `update`, `map_with`, `map_init`, `fold_with`, `try_fold`,
//! `panic_fuse`, `while_some`, and the flattening ones (`flat_map`, `flat_map_iter`,
//! `flatten`, `flatten_iter`).
//!
//! Per-leaf state (`map_with`'s clone, `map_init`'s value, a fold's accumulator) is made
//! once per leaf, where rayon makes it once per split piece: the same contract ("at
//! least once, not once per item"), with a deterministic count. Under a terminal that
//! stops early (`find_any`, `any`, `all`, `try_reduce`), a fold gives an accumulator every
//! [`super::STOPPING_RUN`] items instead (`stop.rs`).
//!
//! The flattening adapters are unindexed: their positions are the base's, and a leaf
//! gives the inner items of its positions' items, in order. An inner *parallel*
//! iterator of `flat_map`/`flatten` is taken in windows of its positions that double in
//! length, each window's items gathered into a vector (a leaf's iterator cannot borrow
//! from an inner iterator it owns): a nested parallel loop for a window of at least
//! [`NESTED_LOOP`] positions, sequentially inside the leaf for a shorter one. So an
//! inner iterator of 10^18 items costs a search that stops at its first item one short
//! window, not all of them.

use super::adapt::PlainFold;
use super::reshape::{CloneOf, Init};
use super::stop::{FoldRun, FoldSeq, Stop};
use super::try_op::{try_fold_items, Try};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Inner parallel iterators of at least this many positions run as a nested loop. Guess:
/// below it, a loop's tasks cost more than the items they would spread.
pub const NESTED_LOOP: usize = 4096;

/// The position plumbing of an adapter over `base` that keeps its positions.
macro_rules! same_positions {
    (exact) => {
        same_positions!(unindexed);

        fn exact_len(&self) -> Option<usize> {
            self.base.exact_len()
        }
    };
    (unindexed) => {
        fn position_count(&self) -> usize {
            self.base.position_count()
        }

        fn leaf_bounds(&self) -> (usize, usize) {
            self.base.leaf_bounds()
        }

        fn driven(&mut self, positions: usize) {
            self.base.driven(positions)
        }
    };
}

/// [`ParallelIterator::inspect`].
#[derive(Clone)]
pub struct Inspect<I, F> {
    base: I,
    f: F,
}

impl<I, F> Inspect<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        Inspect { base, f }
    }
}

impl<I, F> ParallelIterator for Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Send + Sync,
{
    type Item = I::Item;
    type Seq<'a>
        = std::iter::Inspect<I::Seq<'a>, &'a F>
    where
        Self: 'a;

    same_positions!(exact);

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.seq(range) }.inspect(&self.f)
    }
}

impl<I, F> IndexedParallelIterator for Inspect<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&I::Item) + Send + Sync,
{
}

/// [`ParallelIterator::update`].
#[derive(Clone)]
pub struct Update<I, F> {
    base: I,
    f: F,
}

impl<I, F> Update<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        Update { base, f }
    }
}

impl<I, F> ParallelIterator for Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Send + Sync,
{
    type Item = I::Item;
    type Seq<'a>
        = UpdateSeq<'a, I::Seq<'a>, F>
    where
        Self: 'a;

    same_positions!(exact);

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        UpdateSeq {
            // SAFETY: forwarded from the caller.
            inner: unsafe { self.base.seq(range) },
            f: &self.f,
        }
    }
}

impl<I, F> IndexedParallelIterator for Update<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&mut I::Item) + Send + Sync,
{
}

/// A leaf of [`Update`].
#[derive(Debug)]
pub struct UpdateSeq<'a, S, F> {
    inner: S,
    f: &'a F,
}

impl<S: Iterator, F: Fn(&mut S::Item)> Iterator for UpdateSeq<'_, S, F> {
    type Item = S::Item;

    #[inline]
    fn next(&mut self) -> Option<S::Item> {
        let mut x = self.inner.next()?;
        (self.f)(&mut x);
        Some(x)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// [`ParallelIterator::map_with`]: each leaf maps with its own clone of `init`.
#[derive(Clone)]
pub struct MapWith<I, T, F> {
    base: I,
    init: T,
    f: F,
}

impl<I, T, F> MapWith<I, T, F> {
    pub(super) fn new(base: I, init: T, f: F) -> Self {
        MapWith { base, init, f }
    }
}

/// [`ParallelIterator::map_init`]: each leaf maps with its own `init()`.
#[derive(Clone)]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    f: F,
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(super) fn new(base: I, init: INIT, f: F) -> Self {
        MapInit { base, init, f }
    }
}

/// A leaf of [`MapWith`] and [`MapInit`]: `f(&mut state, item)`.
#[derive(Debug)]
pub struct MapStateSeq<'a, S, T, F> {
    inner: S,
    state: T,
    f: &'a F,
}

impl<S, T, F, R> Iterator for MapStateSeq<'_, S, T, F>
where
    S: Iterator,
    F: Fn(&mut T, S::Item) -> R,
{
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        let x = self.inner.next()?;
        Some((self.f)(&mut self.state, x))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Clone + Send + Sync,
    F: Fn(&mut T, I::Item) -> R + Send + Sync,
    R: Send,
{
    type Item = R;
    type Seq<'a>
        = MapStateSeq<'a, I::Seq<'a>, T, F>
    where
        Self: 'a;

    same_positions!(exact);

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        MapStateSeq {
            // SAFETY: forwarded from the caller.
            inner: unsafe { self.base.seq(range) },
            state: self.init.clone(),
            f: &self.f,
        }
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Clone + Send + Sync,
    F: Fn(&mut T, I::Item) -> R + Send + Sync,
    R: Send,
{
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Send + Sync,
    F: Fn(&mut T, I::Item) -> R + Send + Sync,
    R: Send,
{
    type Item = R;
    type Seq<'a>
        = MapStateSeq<'a, I::Seq<'a>, T, F>
    where
        Self: 'a;

    same_positions!(exact);

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        MapStateSeq {
            // SAFETY: forwarded from the caller.
            inner: unsafe { self.base.seq(range) },
            state: (self.init)(),
            f: &self.f,
        }
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Send + Sync,
    F: Fn(&mut T, I::Item) -> R + Send + Sync,
    R: Send,
{
}

/// [`ParallelIterator::fold_with`]: one accumulator per leaf, from a clone of `init`.
#[derive(Clone)]
pub struct FoldWith<I, T, F> {
    base: I,
    init: T,
    fold_op: F,
}

impl<I, T, F> FoldWith<I, T, F> {
    pub(super) fn new(base: I, init: T, fold_op: F) -> Self {
        FoldWith {
            base,
            init,
            fold_op,
        }
    }
}

impl<I, T, F> ParallelIterator for FoldWith<I, T, F>
where
    I: ParallelIterator,
    T: Clone + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
{
    type Item = T;
    type Seq<'a>
        = FoldSeq<I::Seq<'a>, PlainFold<'a, CloneOf<'a, T>, F>>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let run = PlainFold(CloneOf(&self.init), &self.fold_op);
        // SAFETY: forwarded from the caller.
        FoldSeq::new(unsafe { self.base.seq(range) }, run)
    }
}

/// [`ParallelIterator::try_fold`] and [`ParallelIterator::try_fold_with`]: one result
/// per leaf, the leaf's items folded until a step fails.
#[derive(Clone)]
pub struct TryFold<I, N, F, R> {
    base: I,
    init: N,
    fold_op: F,
    marker: PhantomData<fn() -> R>,
}

/// [`ParallelIterator::try_fold_with`].
pub type TryFoldWith<I, T, F, R> = TryFold<I, WithClone<T>, F, R>;

/// The `init` of `try_fold_with`: a value cloned for each leaf.
#[derive(Debug, Clone)]
pub struct WithClone<T>(pub(super) T);

impl<T: Clone> Init for WithClone<T> {
    type Value = T;

    fn init(&self) -> T {
        CloneOf(&self.0).init()
    }
}

impl<I, N, F, R> TryFold<I, N, F, R> {
    pub(super) fn new(base: I, init: N, fold_op: F) -> Self {
        TryFold {
            base,
            init,
            fold_op,
            marker: PhantomData,
        }
    }
}

impl<I, N, F, R, T> ParallelIterator for TryFold<I, N, F, R>
where
    I: ParallelIterator,
    N: Init<Value = T> + Send + Sync,
    F: Fn(T, I::Item) -> R + Send + Sync,
    R: Try<Output = T> + Send,
{
    type Item = R;
    type Seq<'a>
        = FoldSeq<I::Seq<'a>, TryFoldRun<'a, N, F, R>>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        let run = TryFoldRun(&self.init, &self.fold_op, PhantomData);
        // SAFETY: forwarded from the caller.
        FoldSeq::new(unsafe { self.base.seq(range) }, run)
    }
}

/// A fallible fold's run: from `init`'s value, by `fold_op`, until a step fails
/// (`try_fold`, `try_fold_with`).
#[derive(Debug)]
pub struct TryFoldRun<'a, N, F, R>(&'a N, &'a F, PhantomData<fn() -> R>);

impl<X, N, F, R> FoldRun<X> for TryFoldRun<'_, N, F, R>
where
    N: Init,
    F: Fn(N::Value, X) -> R,
    R: Try<Output = N::Value>,
{
    type Acc = R;

    fn fold_run(&self, items: impl Iterator<Item = X>) -> R {
        try_fold_items(self.0.init(), items, self.1)
    }
}

/// [`ParallelIterator::panic_fuse`]: once a leaf panics, the others stop taking items.
#[derive(Debug)]
pub struct PanicFuse<I> {
    base: I,
    panicked: AtomicBool,
}

impl<I: Clone> Clone for PanicFuse<I> {
    fn clone(&self) -> Self {
        PanicFuse {
            base: self.base.clone(),
            panicked: super::flag_copy(&self.panicked),
        }
    }
}

impl<I> PanicFuse<I> {
    pub(super) fn new(base: I) -> Self {
        PanicFuse {
            base,
            panicked: AtomicBool::new(false),
        }
    }
}

impl<I: ParallelIterator> ParallelIterator for PanicFuse<I> {
    type Item = I::Item;
    type Seq<'a>
        = FuseSeq<'a, I::Seq<'a>>
    where
        Self: 'a;

    same_positions!(exact);

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        FuseSeq {
            // SAFETY: forwarded from the caller.
            inner: unsafe { self.base.seq(range) },
            panicked: &self.panicked,
        }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for PanicFuse<I> {}

/// A leaf of [`PanicFuse`]: ends when any leaf has panicked, and tells the others when
/// it is dropped by a panic.
#[derive(Debug)]
pub struct FuseSeq<'a, S> {
    inner: S,
    panicked: &'a AtomicBool,
}

impl<S: Iterator> Iterator for FuseSeq<'_, S> {
    type Item = S::Item;

    #[inline]
    fn next(&mut self) -> Option<S::Item> {
        // Relaxed: a hint to stop early; the panic itself reaches the caller through the
        // loop's join, which orders everything.
        if self.panicked.load(Ordering::Relaxed) {
            return None;
        }
        self.inner.next()
    }
}

impl<S> Drop for FuseSeq<'_, S> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.panicked.store(true, Ordering::Relaxed);
        }
    }
}

/// [`ParallelIterator::while_some`]: the `Some` values until the first `None`; every
/// leaf stops once one has met a `None`.
#[derive(Debug)]
pub struct WhileSome<I> {
    base: I,
    stopped: AtomicBool,
}

impl<I: Clone> Clone for WhileSome<I> {
    fn clone(&self) -> Self {
        WhileSome {
            base: self.base.clone(),
            stopped: super::flag_copy(&self.stopped),
        }
    }
}

impl<I> WhileSome<I> {
    pub(super) fn new(base: I) -> Self {
        WhileSome {
            base,
            stopped: AtomicBool::new(false),
        }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;
    type Seq<'a>
        = WhileSomeSeq<'a, I::Seq<'a>>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        WhileSomeSeq {
            // SAFETY: forwarded from the caller.
            inner: unsafe { self.base.seq(range) },
            stopped: &self.stopped,
        }
    }
}

/// A leaf of [`WhileSome`].
#[derive(Debug)]
pub struct WhileSomeSeq<'a, S> {
    inner: S,
    stopped: &'a AtomicBool,
}

impl<S, T> Iterator for WhileSomeSeq<'_, S>
where
    S: Iterator<Item = Option<T>>,
{
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        // Relaxed: a hint for the other leaves; each leaf stops at its own `None` alone.
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        match self.inner.next()? {
            Some(x) => Some(x),
            None => {
                self.stopped.store(true, Ordering::Relaxed);
                None
            }
        }
    }
}

/// [`ParallelIterator::flat_map`]: each item mapped to a parallel iterator, whose items
/// follow in order.
#[derive(Clone)]
pub struct FlatMap<I, F> {
    base: I,
    f: F,
}

impl<I, F> FlatMap<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        FlatMap { base, f }
    }
}

impl<I, F, P> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> P + Send + Sync,
    P: IntoParallelIterator,
{
    type Item = P::Item;
    type Seq<'a>
        = FlattenSeq<I::Seq<'a>, &'a F, P::Iter>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        FlattenSeq::new(unsafe { self.base.seq(range) }, &self.f)
    }
    unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
    where
        H: Send,
        K: Fn(Self::Item) -> Option<H> + Sync,
        S: Fn() -> bool + Sync,
    {
        // SAFETY: forwarded from the caller.
        unsafe { last_in_inner(&self.base, range, stop, keep, &self.f) }
    }
}

/// [`ParallelIterator::flatten`]: the items of each item, itself a parallel iterator.
#[derive(Debug, Clone)]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(super) fn new(base: I) -> Self {
        Flatten { base }
    }
}

/// The identity, as a nameable function for [`Flatten`]'s leaves.
fn identity<T>(x: T) -> T {
    x
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator,
    I::Item: IntoParallelIterator,
{
    type Item = <I::Item as IntoParallelIterator>::Item;
    type Seq<'a>
        = FlattenSeq<I::Seq<'a>, fn(I::Item) -> I::Item, <I::Item as IntoParallelIterator>::Iter>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        FlattenSeq::new(unsafe { self.base.seq(range) }, identity)
    }
    unsafe fn last_in<H, K, S>(&self, range: Range<usize>, stop: &S, keep: &K) -> Option<H>
    where
        H: Send,
        K: Fn(Self::Item) -> Option<H> + Sync,
        S: Fn() -> bool + Sync,
    {
        // SAFETY: forwarded from the caller.
        unsafe { last_in_inner(&self.base, range, stop, keep, &identity) }
    }
}

/// `last_in` of a flattening adapter over `base` whose items `inner` makes parallel
/// iterators of: each inner iterator is searched from its back, as a loop of its own
/// (`find_map_last`), and the outer items from the back by the base.
///
/// # Safety
/// As for [`ParallelIterator::last_in`].
unsafe fn last_in_inner<I, F, P, H, K, S>(
    base: &I,
    range: Range<usize>,
    stop: &S,
    keep: &K,
    inner: &F,
) -> Option<H>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> P + Sync,
    P: IntoParallelIterator,
    H: Send,
    K: Fn(P::Item) -> Option<H> + Sync,
    S: Fn() -> bool + Sync,
{
    let search = |x: I::Item| {
        if stop() {
            return None;
        }
        inner(x).into_par_iter().find_map_last(keep)
    };
    // SAFETY: forwarded from the caller.
    unsafe { base.last_in(range, stop, &search) }
}

/// The first window of an inner parallel iterator that a flattening leaf takes: at most
/// this many positions. Guess: small enough that a leaf that needs one item (a search)
/// makes few, large enough that short inner iterators are taken at once.
const FIRST_WINDOW: usize = 64;

/// The longest window: at most this many of an inner iterator's items are gathered at
/// a time. Guess: 16 nested loops' worth.
const LAST_WINDOW: usize = 16 * NESTED_LOOP;

/// A leaf of [`FlatMap`] and [`Flatten`]: each outer item's inner parallel iterator,
/// taken in windows of its positions that double in length (from 64 to 65536, the
/// `FIRST_WINDOW` and `LAST_WINDOW` of `per_leaf.rs`), each window's items gathered (a nested loop from [`NESTED_LOOP`]
/// positions on) and given one by one. So an inner iterator of any length is gone
/// through with bounded memory, and a leaf that stops early (a search that found its
/// item, a terminal's [`Stop`]) leaves the rest untaken.
pub struct FlattenSeq<S, F, P: ParallelIterator> {
    outer: S,
    f: F,
    inner: Option<Streaming<P>>,
    items: std::vec::IntoIter<P::Item>,
    stop: Stop,
}

impl<S, F, P: ParallelIterator> FlattenSeq<S, F, P> {
    fn new(outer: S, f: F) -> Self {
        FlattenSeq {
            outer,
            f,
            inner: None,
            items: Vec::new().into_iter(),
            stop: Stop::current(),
        }
    }
}

impl<S: fmt::Debug, F, P: ParallelIterator> fmt::Debug for FlattenSeq<S, F, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlattenSeq")
            .field("outer", &self.outer)
            .finish_non_exhaustive()
    }
}

/// An inner parallel iterator being taken window by window: positions `next..end` are
/// left.
struct Streaming<P: ParallelIterator> {
    iter: P,
    next: usize,
    end: usize,
    window: usize,
    stop: Stop,
}

impl<P: ParallelIterator> Streaming<P> {
    fn new(mut iter: P, stop: Stop) -> Self {
        let end = iter.position_count();
        iter.driven(end);
        Streaming {
            iter,
            next: 0,
            end,
            window: FIRST_WINDOW,
            stop,
        }
    }

    /// The items of the next window, or `None` when no positions are left.
    fn take_window(&mut self) -> Option<Vec<P::Item>> {
        if self.next == self.end {
            return None;
        }
        let len = self.window.min(self.end - self.next);
        let start = self.next;
        self.next += len;
        self.window = (self.window * 2).min(LAST_WINDOW);
        let window = Window {
            iter: &self.iter,
            start,
            len,
        };
        Some(if len >= NESTED_LOOP {
            // The nested loop's leaves keep this leaf's stop.
            self.stop.install(|| window.collect())
        } else {
            // SAFETY: positions `start..start + len` are asked for once: `next` moved
            // past them.
            self.stop
                .install(|| unsafe { window.seq(0..len) })
                .collect()
        })
    }
}

impl<P: ParallelIterator> Drop for Streaming<P> {
    fn drop(&mut self) {
        if self.next < self.end {
            // The positions not taken are taken and dropped (an owning source drops their
            // items).
            // SAFETY: positions `next..end` were never asked for.
            let rest = self
                .stop
                .install(|| unsafe { self.iter.seq(self.next..self.end) });
            drop(rest);
        }
    }
}

/// Positions `start..start + len` of an inner iterator, as a parallel iterator of their
/// own (a window of a [`Streaming`]).
struct Window<'a, P> {
    iter: &'a P,
    start: usize,
    len: usize,
}

impl<'a, P: ParallelIterator> ParallelIterator for Window<'a, P> {
    type Item = P::Item;
    type Seq<'b>
        = P::Seq<'a>
    where
        Self: 'b;

    unsafe fn seq(&self, range: Range<usize>) -> P::Seq<'a> {
        let (start, end) = (self.start + range.start, self.start + range.end);
        // SAFETY: the window's positions are the inner iterator's, driven, each asked
        // for once (forwarded from the caller).
        unsafe { self.iter.seq(start..end) }
    }

    fn leaf_bounds(&self) -> (usize, usize) {
        self.iter.leaf_bounds()
    }

    fn exact_len(&self) -> Option<usize> {
        self.iter.exact_len().map(|_| self.len)
    }

    fn position_count(&self) -> usize {
        self.len
    }
}

impl<S, F, Q> Iterator for FlattenSeq<S, F, Q::Iter>
where
    S: Iterator,
    F: Fn(S::Item) -> Q,
    Q: IntoParallelIterator,
{
    type Item = Q::Item;

    fn next(&mut self) -> Option<Q::Item> {
        loop {
            if let Some(x) = self.items.next() {
                return Some(x);
            }
            if self.stop.now() {
                return None;
            }
            match self.inner.as_mut().map(Streaming::take_window) {
                Some(Some(items)) => self.items = items.into_iter(),
                Some(None) => self.inner = None,
                None => {
                    let outer = self.outer.next()?;
                    let inner = (self.f)(outer).into_par_iter();
                    self.inner = Some(Streaming::new(inner, self.stop.clone()));
                }
            }
        }
    }
}

/// [`ParallelIterator::flat_map_iter`]: each item mapped to a sequential iterator,
/// whose items follow in order.
#[derive(Clone)]
pub struct FlatMapIter<I, F> {
    base: I,
    f: F,
}

impl<I, F> FlatMapIter<I, F> {
    pub(super) fn new(base: I, f: F) -> Self {
        FlatMapIter { base, f }
    }
}

impl<I, F, U> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> U + Send + Sync,
    U: IntoIterator,
    U::Item: Send,
{
    type Item = U::Item;
    type Seq<'a>
        = std::iter::FlatMap<I::Seq<'a>, U, &'a F>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.seq(range) }.flat_map(&self.f)
    }
}

/// [`ParallelIterator::flatten_iter`]: the items of each item, itself iterable.
#[derive(Debug, Clone)]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(super) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator,
    I::Item: IntoIterator,
    <I::Item as IntoIterator>::Item: Send,
{
    type Item = <I::Item as IntoIterator>::Item;
    type Seq<'a>
        = std::iter::Flatten<I::Seq<'a>>
    where
        Self: 'a;

    same_positions!(unindexed);

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.base.seq(range) }.flatten()
    }
}

debug_fields! {
    [I: fmt::Debug, F] Inspect<I, F> { base };
    [I: fmt::Debug, F] Update<I, F> { base };
    [I: fmt::Debug, T: fmt::Debug, F] MapWith<I, T, F> { base, init };
    [I: fmt::Debug, INIT, F] MapInit<I, INIT, F> { base };
    [I: fmt::Debug, T: fmt::Debug, F] FoldWith<I, T, F> { base, init };
    [I: fmt::Debug, N, F, R] TryFold<I, N, F, R> { base };
    [I: fmt::Debug, F] FlatMap<I, F> { base };
    [I: fmt::Debug, F] FlatMapIter<I, F> { base };
}
