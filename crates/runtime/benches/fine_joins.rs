//! What a `join` costs where there is almost nothing to run in parallel: the programs of
//! the heartbeat schedulers' comparisons, each against its serial form and rayon's in
//! the same run, at one worker and at two.
//!
//! - `tree_sum/N`: a complete binary tree of `N` nodes (1,023 and 2^20; 2^27 too when
//!   `LOCUS_BENCH_BIG_TREE` is set: 4 GiB and minutes), summed with a `join` at every
//!   node and no cutoff, the benchmark of chili's and spice's READMEs;
//! - `fib/30`: `fib(30)` with a `join` at every call (1,346,268 joins).
//!
//! Each group times `serial`, `locus/T` (a `ws` pool of T unpinned workers) and
//! `rayon/T`; compare ratios within a group (`locus/1` over `serial` is the overhead of
//! a join no one steals), not times across runs. The pools' samples are taken inside
//! `install`, as chili's and spice's are taken inside their pools: entering a pool from
//! outside is timed on its own (`examples/pool_costs.rs`), and at 1,023 nodes it would
//! be most of what is timed here. Quick run: `cargo bench -p locus
//! --bench fine_joins -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use locus::{PolicyKind, ThreadPoolBuilder};

/// A tree node: its value and its children.
struct Node {
    value: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

/// A complete binary tree of `n` nodes (`n` = 2^k - 1), valued 1..=n in preorder.
fn tree(n: u64, first: u64) -> Option<Box<Node>> {
    if n == 0 {
        return None;
    }
    let half = (n - 1) / 2;
    Some(Box::new(Node {
        value: first,
        left: tree(half, first + 1),
        right: tree(half, first + 1 + half),
    }))
}

fn sum_serial(node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => n.value + sum_serial(&n.left) + sum_serial(&n.right),
    }
}

fn sum_locus(node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => {
            let (l, r) = locus::join(|| sum_locus(&n.left), || sum_locus(&n.right));
            n.value + l + r
        }
    }
}

fn sum_rayon(node: &Option<Box<Node>>) -> u64 {
    match node {
        None => 0,
        Some(n) => {
            let (l, r) = rayon::join(|| sum_rayon(&n.left), || sum_rayon(&n.right));
            n.value + l + r
        }
    }
}

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

fn fib_locus(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib_locus(n - 1), || fib_locus(n - 2));
    a + b
}

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// Times `serial`, and `locus` and `rayon` at one and two workers, on `input` in `group`.
fn compare<I: Sync + ?Sized>(
    c: &mut Criterion,
    group: &str,
    input: &I,
    expected: u64,
    serial: fn(&I) -> u64,
    on_locus: fn(&I) -> u64,
    on_rayon: fn(&I) -> u64,
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.bench_function("serial", |b| {
        b.iter(|| assert_eq!(serial(black_box(input)), expected))
    });
    for threads in [1, 2] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .policy(PolicyKind::Ws)
            .pin(false)
            .build()
            .expect("the locus pool builds");
        g.bench_function(BenchmarkId::new("locus", threads), |b| {
            pool.install(|| b.iter(|| assert_eq!(on_locus(black_box(input)), expected)))
        });
        drop(pool);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("the rayon pool builds");
        g.bench_function(BenchmarkId::new("rayon", threads), |b| {
            pool.install(|| b.iter(|| assert_eq!(on_rayon(black_box(input)), expected)))
        });
    }
    g.finish();
}

fn tree_sum(c: &mut Criterion) {
    let mut sizes = vec![1023u64, (1 << 20) - 1];
    if std::env::var_os("LOCUS_BENCH_BIG_TREE").is_some() {
        sizes.push((1 << 27) - 1);
    }
    for n in sizes {
        let root = tree(n, 1);
        let expected = n * (n + 1) / 2;
        compare(
            c,
            &format!("tree_sum/{n}"),
            &root,
            expected,
            sum_serial,
            sum_locus,
            sum_rayon,
        );
    }
}

fn fib(c: &mut Criterion) {
    compare(
        c,
        "fib/30",
        &30u64,
        832_040,
        |n| fib_serial(*n),
        |n| fib_locus(*n),
        |n| fib_rayon(*n),
    );
}

criterion_group!(benches, tree_sum, fib);
criterion_main!(benches);
