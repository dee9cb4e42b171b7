//! Tree walks (`walk_tree_prefix`, `walk_tree_postfix`) against a sequential recursion
//! on random trees: irregular, wide at the root, and deeper than a leaf's recursion goes
//! (so its walk falls back to the stack), through the terminals that fold (`sum`,
//! `collect`, `fold`) and those that step (`find_first`).

use crate::common::pool;
use locus::iter as piter;
use locus::prelude::*;
use locus::PolicyKind;
use proptest::prelude::*;

/// A node: its depth, the depth at which its branch left the spine, and an id.
type Node = (u32, u32, u64);

/// A random tree: each node has up to `width` children (by a hash of its id and `seed`),
/// none `depth` levels below where its branch left the spine (a third of that off the
/// spine's own nodes); the spine (id 0) goes `spine` levels deep.
#[derive(Debug, Clone, Copy)]
struct Tree {
    seed: u64,
    width: u64,
    depth: u32,
    spine: u32,
}

impl Tree {
    fn children(&self, &(d, born, id): &Node) -> impl Iterator<Item = Node> {
        let h = (id ^ self.seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        // Branches off the spine are shallower, to keep the trees small.
        let limit = if born == 0 {
            self.depth
        } else {
            self.depth / 3
        };
        let n = if d - born < limit {
            h % (self.width + 1)
        } else {
            0
        };
        let spine = id == 0 && d < self.spine;
        let extra = u64::from(spine && n == 0);
        (0..n + extra).map(move |k| {
            if spine && k == 0 {
                (d + 1, d + 1, 0)
            } else {
                (d + 1, born, id.wrapping_mul(31).wrapping_add(k + 1) | 1)
            }
        })
    }

    fn walk(&self, node: Node, postfix: bool, out: &mut Vec<Node>) {
        // An explicit stack: the spine is deeper than a test thread's stack allows.
        let mut stack = vec![(node, false)];
        while let Some((n, done)) = stack.pop() {
            if done || !postfix {
                out.push(n);
            }
            if done {
                continue;
            }
            if postfix {
                stack.push((n, true));
            }
            let kids: Vec<Node> = self.children(&n).collect();
            stack.extend(kids.into_iter().rev().map(|k| (k, false)));
        }
    }
}

fn tree() -> impl Strategy<Value = Tree> {
    (
        any::<u64>(),
        0u64..5,
        0u32..12,
        prop_oneof![Just(0u32), 130u32..300],
    )
        .prop_map(|(seed, width, depth, spine)| Tree {
            seed,
            width,
            depth,
            spine,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn walks_match_a_sequential_recursion(t in tree()) {
        let pool = pool(PolicyKind::Ws, 3, "this");
        for postfix in [false, true] {
            let mut want = Vec::new();
            t.walk((0, 0, 0), postfix, &mut want);
            let walk = || {
                let children = move |n: &Node| t.children(n);
                if postfix {
                    piter::walk_tree_postfix((0, 0, 0), children)
                } else {
                    piter::walk_tree_prefix((0, 0, 0), children)
                }
            };
            let got: Vec<Node> = pool.install(|| walk().collect());
            prop_assert_eq!(&got, &want);
            let sum: u64 = pool.install(|| walk().map(|n| n.2 ^ u64::from(n.0)).sum());
            prop_assert_eq!(sum, want.iter().map(|n| n.2 ^ u64::from(n.0)).sum::<u64>());
            let count = pool.install(|| walk().fold(|| 0usize, |c, _| c + 1).sum::<usize>());
            prop_assert_eq!(count, want.len());
            let deepest = want.iter().map(|n| n.0).max();
            let first_deepest = pool.install(|| walk().find_first(|n| Some(n.0) == deepest));
            prop_assert_eq!(first_deepest, want.iter().find(|n| Some(n.0) == deepest).copied());
        }
    }
}

#[test]
fn a_root_with_more_children_than_leaves_and_a_childless_root() {
    let pool = pool(PolicyKind::Ws, 3, "this");
    let wide = |&n: &u32| {
        if n == 0 {
            (1..=1_000).collect()
        } else {
            Vec::new()
        }
    };
    let got: Vec<u32> = pool.install(|| piter::walk_tree_prefix(0u32, wide).collect());
    assert_eq!(got, (0..=1_000).collect::<Vec<_>>());
    let got: Vec<u32> = pool.install(|| piter::walk_tree_postfix(0u32, wide).collect());
    assert_eq!(got, (1..=1_000).chain([0]).collect::<Vec<_>>());
    let alone: Vec<u32> = pool.install(|| piter::walk_tree_postfix(7u32, |_| Vec::new()).collect());
    assert_eq!(alone, [7]);
}
