//! The sources that make their items: `empty`, `once`, `repeat`, `repeat_n`, `split`,
//! `walk_tree_prefix`, `walk_tree_postfix`.
//!
//! `split` and the tree walks have no length until they run. To keep the positions
//! model (the same input gives the same leaves), they do their top-level splitting once,
//! on the calling thread, when they are made: `split` splits breadth first until it has
//! [`LEAVES`] pieces or no piece splits further, and a tree walk expands the tree breadth
//! first until its frontier has [`LEAVES`] subtrees (or [`EXPAND_LIMIT`] is reached). The pieces, or the expanded nodes and frontier subtrees in walk order, are
//! then the positions; a leaf walks its subtrees sequentially. rayon splits these as
//! workers ask, so its pieces differ from run to run; the items and their order (where
//! rayon has one) are the same.

use super::source::{Drain, IntoIter};
use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator, LEAVES};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;

/// A tree walk expands at most this many nodes, and this many levels, on the calling
/// thread before it hands the frontier to the leaves (a deep, narrow tree would never
/// reach [`LEAVES`] subtrees; the levels bound the recursion over the expanded top).
pub const EXPAND_LIMIT: (usize, usize) = (16 * LEAVES, 64);

/// A leaf's fold walks a subtree by recursion this many levels deep, then with a stack on
/// the heap (guess: a level's frame is some hundred bytes, so this takes tens of KiB of a
/// worker's stack).
const FOLD_DEPTH: usize = 128;

/// [`empty`]: no items.
#[derive(Debug)]
pub struct Empty<T> {
    marker: PhantomData<fn() -> T>,
}

impl<T> Clone for Empty<T> {
    fn clone(&self) -> Self {
        Empty {
            marker: PhantomData,
        }
    }
}

/// A parallel iterator of no items.
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        marker: PhantomData,
    }
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;
    type Seq<'a>
        = std::iter::Empty<T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        0
    }

    fn exact_len(&self) -> Option<usize> {
        Some(0)
    }

    unsafe fn seq(&self, _: Range<usize>) -> Self::Seq<'_> {
        std::iter::empty()
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {}

/// [`once`]: one item.
pub type Once<T> = IntoIter<T>;

/// A parallel iterator of the one item `item`.
pub fn once<T: Send>(item: T) -> Once<T> {
    vec![item].into_par_iter()
}

/// [`repeat`]: clones of one item, without end.
#[derive(Debug, Clone)]
pub struct Repeat<T> {
    item: T,
}

/// Clones of `item`, without end (bound it with [`Repeat::take`] or [`Repeat::zip`]).
pub fn repeat<T: Clone + Send + Sync>(item: T) -> Repeat<T> {
    Repeat { item }
}

impl<T: Clone + Send + Sync> Repeat<T> {
    /// The first `n` clones.
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeat_n(self.item, n)
    }

    /// Pairs of clones and `other`'s items, as many as `other` has.
    pub fn zip<Z>(self, other: Z) -> super::Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

impl<T: Clone + Send + Sync> ParallelIterator for Repeat<T> {
    type Item = T;
    type Seq<'a>
        = std::iter::RepeatN<T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        usize::MAX
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        std::iter::repeat_n(self.item.clone(), range.len())
    }
}

/// [`repeat_n`]: `n` clones of one item.
#[derive(Debug, Clone)]
pub struct RepeatN<T> {
    item: T,
    n: usize,
}

/// `n` clones of `item`.
pub fn repeat_n<T: Clone + Send + Sync>(item: T, n: usize) -> RepeatN<T> {
    RepeatN { item, n }
}

/// rayon's older name of [`repeat_n`].
pub fn repeatn<T: Clone + Send + Sync>(item: T, n: usize) -> RepeatN<T> {
    repeat_n(item, n)
}

impl<T: Clone + Send + Sync> ParallelIterator for RepeatN<T> {
    type Item = T;
    type Seq<'a>
        = std::iter::RepeatN<T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.n
    }

    fn exact_len(&self) -> Option<usize> {
        Some(self.n)
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        std::iter::repeat_n(self.item.clone(), range.len())
    }
}

impl<T: Clone + Send + Sync> IndexedParallelIterator for RepeatN<T> {}

/// [`split`]: the pieces `splitter` cuts `data` into.
pub struct Split<D, S> {
    pieces: IntoIter<D>,
    marker: PhantomData<fn() -> S>,
}

impl<D: Clone + Send, S> Clone for Split<D, S> {
    fn clone(&self) -> Self {
        Split {
            pieces: self.pieces.clone(),
            marker: PhantomData,
        }
    }
}

/// The pieces of `data`: `splitter` cuts a piece in two (`(left, Some(right))`) or
/// leaves it whole (`(piece, None)`); the items are the pieces, in order. The cutting
/// is done here, breadth first, to at most [`LEAVES`] pieces (see the module
/// documentation).
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    // Each piece with whether it may still split.
    let mut pieces = vec![(data, true)];
    while pieces.len() < LEAVES && pieces.iter().any(|p| p.1) {
        let mut next = Vec::with_capacity(2 * pieces.len());
        for (piece, open) in pieces {
            if !open || next.len() + 1 >= LEAVES {
                next.push((piece, open));
                continue;
            }
            match splitter(piece) {
                (left, Some(right)) => {
                    next.push((left, true));
                    next.push((right, true));
                }
                (whole, None) => next.push((whole, false)),
            }
        }
        pieces = next;
    }
    Split {
        pieces: pieces
            .into_iter()
            .map(|(p, _)| p)
            .collect::<Vec<_>>()
            .into_par_iter(),
        marker: PhantomData,
    }
}

impl<D: Send, S> ParallelIterator for Split<D, S> {
    type Item = D;
    type Seq<'a>
        = Drain<'a, D>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.pieces.position_count()
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    fn driven(&mut self, positions: usize) {
        self.pieces.driven(positions);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        // SAFETY: forwarded from the caller.
        unsafe { self.pieces.seq(range) }
    }
}

/// A position of a tree walk: an expanded node alone, or a subtree a leaf walks.
#[derive(Debug)]
enum Entry<S> {
    Node(S),
    Subtree(S),
}

/// [`walk_tree_prefix`], [`walk_tree_postfix`] and [`walk_tree`]: the nodes of a tree.
pub struct WalkTree<S, B> {
    entries: IntoIter<Entry<S>>,
    children_of: B,
    postfix: bool,
}

/// [`walk_tree_prefix`].
pub type WalkTreePrefix<S, B> = WalkTree<S, B>;
/// [`walk_tree_postfix`].
pub type WalkTreePostfix<S, B> = WalkTree<S, B>;

fn walk<S, B, I>(root: S, children_of: B, postfix: bool) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    // The positions in walk order, expanded a level at a time: each round replaces
    // every frontier subtree by its root's node and its children's subtrees, in one pass
    // that moves the entries into a new vector (no allocation per node).
    let mut entries = vec![Entry::Subtree(root)];
    let (mut expanded, mut frontier, mut levels) = (0, 1, 0);
    while frontier > 0 && frontier < LEAVES && expanded < EXPAND_LIMIT.0 && levels < EXPAND_LIMIT.1
    {
        let mut next = Vec::with_capacity(entries.len() + 2 * frontier);
        frontier = 0;
        for entry in entries {
            match entry {
                Entry::Node(node) => next.push(Entry::Node(node)),
                Entry::Subtree(node) => {
                    expanded += 1;
                    let before = next.len();
                    next.extend(children_of(&node).into_iter().map(Entry::Subtree));
                    frontier += next.len() - before;
                    // The node goes before its children's subtrees or after them.
                    let at = if postfix { next.len() } else { before };
                    next.insert(at, Entry::Node(node));
                }
            }
        }
        entries = next;
        levels += 1;
    }
    WalkTree {
        entries: entries.into_par_iter(),
        children_of,
        postfix,
    }
}

/// The nodes of the tree under `root`, each before its children (depth first, children
/// in the order `children_of` gives them), as std's recursion would visit them.
pub fn walk_tree_prefix<S, B, I>(root: S, children_of: B) -> WalkTreePrefix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    walk(root, children_of, false)
}

/// The nodes of the tree under `root`, each after its children (depth first, children
/// in the order `children_of` gives them).
pub fn walk_tree_postfix<S, B, I>(root: S, children_of: B) -> WalkTreePostfix<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    walk(root, children_of, true)
}

/// The nodes of the tree under `root` (rayon leaves their order open; here it is the
/// prefix order).
pub fn walk_tree<S, B, I>(root: S, children_of: B) -> WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    walk(root, children_of, false)
}

impl<S, B, I> ParallelIterator for WalkTree<S, B>
where
    S: Send,
    B: Fn(&S) -> I + Send + Sync,
    I: IntoIterator<Item = S>,
{
    type Item = S;
    type Seq<'a>
        = WalkSeq<'a, S, B, I::IntoIter>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        self.entries.position_count()
    }

    fn exact_len(&self) -> Option<usize> {
        None
    }

    fn driven(&mut self, positions: usize) {
        self.entries.driven(positions);
    }

    unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
        WalkSeq {
            // SAFETY: forwarded from the caller.
            entries: unsafe { self.entries.seq(range) },
            children_of: &self.children_of,
            postfix: self.postfix,
            prefix_stack: Vec::new(),
            postfix_stack: Vec::new(),
        }
    }
}

/// A leaf of a [`WalkTree`]: its entries, each subtree walked depth first. Each node's
/// children are walked through the iterator `children_of` gives (`K`), kept on a stack
/// as deep as the path: nothing is collected per node (a vector of each node's
/// children made rayon-demo's `tree_postfix_sum` 6.7x rayon's time).
pub struct WalkSeq<'a, S, B, K> {
    entries: Drain<'a, Entry<S>>,
    children_of: &'a B,
    postfix: bool,
    /// Prefix walk: for each node on the path, its children not yet visited.
    prefix_stack: Vec<K>,
    /// Postfix walk: the path from the subtree's root, with each node's children left.
    postfix_stack: Vec<(S, K)>,
}

impl<S, B, K> std::fmt::Debug for WalkSeq<'_, S, B, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkSeq")
            .field("postfix", &self.postfix)
            .finish_non_exhaustive()
    }
}

impl<S, B, I, K> WalkSeq<'_, S, B, K>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S, IntoIter = K>,
    K: Iterator<Item = S>,
{
    fn children(&self, node: &S) -> K {
        (self.children_of)(node).into_iter()
    }

    /// Folds the subtree under `node`, `depth` levels below a leaf's subtree root, in the
    /// walk's order: by recursion above [`FOLD_DEPTH`], with the stack of `step` below
    /// it (empty whenever this is called: `fold` emptied it first, and each use here
    /// empties it again).
    fn fold_subtree<A, F>(&mut self, node: S, depth: usize, acc: A, f: &mut F) -> A
    where
        F: FnMut(A, S) -> A,
    {
        let kids = self.children(&node);
        if depth >= FOLD_DEPTH {
            let mut acc = acc;
            if self.postfix {
                self.postfix_stack.push((node, kids));
            } else {
                acc = f(acc, node);
                self.prefix_stack.push(kids);
            }
            while let Some(next) = self.step() {
                acc = f(acc, next);
            }
            return acc;
        }
        if self.postfix {
            let acc = kids.fold(acc, |acc, kid| self.fold_subtree(kid, depth + 1, acc, f));
            f(acc, node)
        } else {
            let acc = f(acc, node);
            kids.fold(acc, |acc, kid| self.fold_subtree(kid, depth + 1, acc, f))
        }
    }

    /// The next node of the subtree being walked, if any is left.
    fn step(&mut self) -> Option<S> {
        if self.postfix {
            loop {
                let next = self.postfix_stack.last_mut()?.1.next();
                match next {
                    Some(kid) => {
                        let kids = self.children(&kid);
                        self.postfix_stack.push((kid, kids));
                    }
                    None => return self.postfix_stack.pop().map(|(node, _)| node),
                }
            }
        } else {
            loop {
                let next = self.prefix_stack.last_mut()?.next();
                match next {
                    Some(node) => {
                        let kids = self.children(&node);
                        self.prefix_stack.push(kids);
                        return Some(node);
                    }
                    None => {
                        self.prefix_stack.pop();
                    }
                }
            }
        }
    }
}

impl<S, B, I, K> Iterator for WalkSeq<'_, S, B, K>
where
    B: Fn(&S) -> I,
    I: IntoIterator<Item = S, IntoIter = K>,
    K: Iterator<Item = S>,
{
    type Item = S;

    /// The walk as recursion, as rayon's walks are: a node's children are folded through
    /// the iterator `children_of` gives, with nothing pushed or popped per node (the
    /// stack walk of `next` cost rayon-demo's `tree_postfix_sum` 2.6 times rayon's
    /// instructions, measured with callgrind). Below [`FOLD_DEPTH`] levels of a subtree
    /// the rest of it is walked with the stack, so a deep tree does not overflow the
    /// thread's stack.
    fn fold<A, F>(mut self, init: A, mut f: F) -> A
    where
        F: FnMut(A, S) -> A,
    {
        // A walk begun by `next` first finishes the subtree it is in.
        let mut acc = init;
        while let Some(node) = self.step() {
            acc = f(acc, node);
        }
        while let Some(entry) = self.entries.next() {
            acc = match entry {
                Entry::Node(node) => f(acc, node),
                Entry::Subtree(root) => self.fold_subtree(root, 0, acc, &mut f),
            };
        }
        acc
    }

    fn next(&mut self) -> Option<S> {
        loop {
            if let Some(node) = self.step() {
                return Some(node);
            }
            match self.entries.next()? {
                Entry::Node(node) => return Some(node),
                Entry::Subtree(root) if self.postfix => {
                    let kids = self.children(&root);
                    self.postfix_stack.push((root, kids));
                }
                Entry::Subtree(root) => {
                    let kids = self.children(&root);
                    self.prefix_stack.push(kids);
                    return Some(root);
                }
            }
        }
    }
}

debug_fields! {
    [D: fmt::Debug, S] Split<D, S> { pieces };
    [S: fmt::Debug, B] WalkTree<S, B> { entries, postfix };
}
