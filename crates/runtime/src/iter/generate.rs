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

/// A node of the expanded top of a tree; `kids` is `None` on the frontier.
struct Top<S> {
    node: S,
    kids: Option<Vec<Top<S>>>,
}

impl<S> Top<S> {
    /// Expands the frontier below `self` by one level; returns the nodes expanded and
    /// the frontier's new size below `self`.
    fn grow<I: IntoIterator<Item = S>>(
        &mut self,
        children_of: &impl Fn(&S) -> I,
    ) -> (usize, usize) {
        match &mut self.kids {
            None => {
                let kids: Vec<Top<S>> = children_of(&self.node)
                    .into_iter()
                    .map(|node| Top { node, kids: None })
                    .collect();
                let n = kids.len();
                self.kids = Some(kids);
                (1, n)
            }
            Some(kids) => kids.iter_mut().fold((0, 0), |(e, f), k| {
                let (e2, f2) = k.grow(children_of);
                (e + e2, f + f2)
            }),
        }
    }

    /// The walk's positions below `self`, in prefix or postfix order.
    fn flatten(self, postfix: bool, out: &mut Vec<Entry<S>>) {
        match self.kids {
            None => out.push(Entry::Subtree(self.node)),
            Some(kids) if postfix => {
                for k in kids {
                    k.flatten(postfix, out);
                }
                out.push(Entry::Node(self.node));
            }
            Some(kids) => {
                out.push(Entry::Node(self.node));
                for k in kids {
                    k.flatten(postfix, out);
                }
            }
        }
    }
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
    let mut top = Top {
        node: root,
        kids: None,
    };
    let (mut expanded, mut frontier, mut levels) = (0, 1, 0);
    while frontier > 0 && frontier < LEAVES && expanded < EXPAND_LIMIT.0 && levels < EXPAND_LIMIT.1
    {
        let (e, f) = top.grow(&children_of);
        expanded += e;
        frontier = f;
        levels += 1;
    }
    let mut entries = Vec::new();
    top.flatten(postfix, &mut entries);
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
