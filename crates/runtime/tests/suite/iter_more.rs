//! The rest of rayon's iterator API on `locus::iter` against std's sequential answers:
//! ranges of every kind (untyped literals, 128-bit, inclusive, `char`), the reshaping and
//! per-leaf adapters, the terminals, `collect` and `par_extend` into std's collections,
//! the collection, string, slice and generated sources; panics and drops through them.
//! Each check runs on a work-stealing pool and on a policy that places loop chunks.

use crate::iter::Counted;
use locus::iter::{self as piter, Either};
use locus::prelude::*;
use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Work stealing on 3 workers, and `mts` on two virtual squads (loops placed chunk by
/// chunk).
fn pools() -> &'static [(String, ThreadPool)] {
    static POOLS: OnceLock<Vec<(String, ThreadPool)>> = OnceLock::new();
    POOLS.get_or_init(|| {
        [("ws", 3, None), ("mts", 4, Some("2x2"))]
            .into_iter()
            .map(|(policy, threads, machine)| {
                let mut builder = ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .policy(policy.parse::<PolicyKind>().unwrap())
                    .pin(false);
                if let Some(m) = machine {
                    builder = builder.topology(Topology::parse_spec(m).unwrap());
                }
                (policy.to_string(), builder.build().unwrap())
            })
            .collect()
    })
}

/// Runs `f` on every pool and checks it gives `expected` there.
fn on_pools<R: PartialEq + std::fmt::Debug + Send>(expected: R, f: impl Fn() -> R + Sync) {
    for (name, pool) in pools() {
        assert_eq!(pool.install(&f), expected, "{name}");
    }
}

#[test]
fn untyped_integer_ranges_infer_as_std_does() {
    // `(0..10)` with untyped literals: the element type falls back to `i32`.
    let v: Vec<_> = (0..10).into_par_iter().collect();
    let w: Vec<i32> = (0..10).collect();
    assert_eq!(v, w);
    let s = (0..=100).into_par_iter().map(|x| x * 2).sum::<i32>();
    assert_eq!(s, 10_100);
    let n = (0..1000).into_par_iter().filter(|x| x % 7 == 0).count();
    assert_eq!(n, (0..1000).filter(|x| x % 7 == 0).count());
}

#[test]
fn ranges_of_every_kind_match_std() {
    on_pools((), || {
        let v: Vec<u128> = (u128::MAX - 1000..u128::MAX).into_par_iter().collect();
        assert_eq!(v, (u128::MAX - 1000..u128::MAX).collect::<Vec<_>>());
        let v: Vec<i128> = (i128::MIN..=i128::MIN + 77).into_par_iter().collect();
        assert_eq!(v, (i128::MIN..=i128::MIN + 77).collect::<Vec<_>>());
        let v: Vec<i8> = (i8::MIN..=i8::MAX).into_par_iter().collect();
        assert_eq!(v, (i8::MIN..=i8::MAX).collect::<Vec<_>>());
        let v: Vec<u64> = (u64::MAX - 300..=u64::MAX).into_par_iter().collect();
        assert_eq!(v, (u64::MAX - 300..=u64::MAX).collect::<Vec<_>>());
        let v: Vec<isize> = (isize::MAX - 5..isize::MAX).into_par_iter().rev().collect();
        assert_eq!(v, (isize::MAX - 5..isize::MAX).rev().collect::<Vec<_>>());
        let (hi, lo) = (5, 4);
        assert_eq!((hi..=lo).into_par_iter().count(), 0);
        assert_eq!((hi..lo).into_par_iter().count(), 0);
        assert_eq!((0u8..=255).into_par_iter().len(), 256);
        // Across the surrogate gap, and at the ends of `char`.
        let v: Vec<char> = ('\u{D000}'..'\u{E100}').into_par_iter().collect();
        assert_eq!(v, ('\u{D000}'..'\u{E100}').collect::<Vec<_>>());
        let v: Vec<char> = ('\u{10FF00}'..=char::MAX).into_par_iter().collect();
        assert_eq!(v, ('\u{10FF00}'..=char::MAX).collect::<Vec<_>>());
        assert_eq!(
            ('\0'..=char::MAX).into_par_iter().count(),
            ('\0'..=char::MAX).count()
        );
    });
    // More values than a `usize` holds: unindexed, several values per position.
    let hits = (0..=u128::MAX)
        .into_par_iter()
        .find_any(|&x| x == 7 || x == u128::MAX);
    assert!(hits.is_some());
    let first = (i128::MIN..=i128::MAX).into_par_iter().find_first(|_| true);
    assert_eq!(first, Some(i128::MIN));
    assert_eq!((0..=u128::MAX).into_par_iter().opt_len(), None);
    assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None);
    assert_eq!((0..u64::MAX).into_par_iter().opt_len(), Some(usize::MAX));
}

fn input() -> impl Strategy<Value = (Vec<i32>, Vec<i32>, usize)> {
    (
        prop::collection::vec(-500i32..500, 0..2500),
        prop::collection::vec(-500i32..500, 0..700),
        1usize..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn reshaping_adapters_match_std((a, b, k) in input()) {
        let (a, b) = (&a, &b);
        on_pools((), || {
            let got: Vec<i32> = a.par_iter().chain(b).copied().collect();
            assert_eq!(got, a.iter().chain(b).copied().collect::<Vec<_>>());
            let got: Vec<i32> = a.par_iter().copied().skip(k * 7).collect();
            assert_eq!(got, a.iter().copied().skip(k * 7).collect::<Vec<_>>());
            let got: Vec<i32> = a.par_iter().copied().take(k * 13).collect();
            assert_eq!(got, a.iter().copied().take(k * 13).collect::<Vec<_>>());
            let got: Vec<i32> = a.par_iter().copied().step_by(k).collect();
            assert_eq!(got, a.iter().copied().step_by(k).collect::<Vec<_>>());
            let got: Vec<i32> = a.par_iter().copied().rev().collect();
            assert_eq!(got, a.iter().copied().rev().collect::<Vec<_>>());
            let got: Vec<(usize, i32)> = a.par_iter().copied().rev().enumerate().skip(k).collect();
            assert_eq!(got, a.iter().copied().rev().enumerate().skip(k).collect::<Vec<_>>());
            let got: Vec<i32> = a.par_iter().interleave(b).copied().collect();
            let mut want = Vec::new();
            let (mut x, mut y) = (a.iter(), b.iter());
            loop {
                match (x.next(), y.next()) {
                    (None, None) => break,
                    (p, q) => want.extend(p.into_iter().chain(q).copied()),
                }
            }
            assert_eq!(got, want);
            let got: Vec<i32> = a.par_iter().interleave_shortest(b).copied().collect();
            let mut want = Vec::new();
            let (x, mut y) = (a.iter(), b.iter());
            for p in x {
                want.push(*p);
                match y.next() {
                    Some(q) => want.push(*q),
                    None => break,
                }
            }
            assert_eq!(got, want);
            let got: Vec<i32> = a.par_iter().copied().intersperse(-9).collect();
            let want: Vec<i32> = a.iter().flat_map(|&x| [-9, x]).skip(1).collect();
            assert_eq!(got, want);
            let got: Vec<Vec<i32>> = a.par_iter().copied().chunks(k).collect();
            assert_eq!(got, a.chunks(k).map(<[i32]>::to_vec).collect::<Vec<_>>());
            let got: Vec<i64> = a.par_iter().fold_chunks(k, || 0i64, |s, &x| s + i64::from(x)).collect();
            assert_eq!(got, a.chunks(k).map(|c| c.iter().map(|&x| i64::from(x)).sum()).collect::<Vec<i64>>());
            let got: Vec<i32> = a.par_iter().fold_chunks_with(k, 1i32, |s, &x| s.wrapping_mul(x | 1)).collect();
            assert_eq!(got, a.chunks(k).map(|c| c.iter().fold(1i32, |s, &x| s.wrapping_mul(x | 1))).collect::<Vec<_>>());
            let got: Vec<(i32, i32)> = a.par_iter().copied().zip(b.par_iter().copied().rev()).skip(1).collect();
            assert_eq!(got, a.iter().copied().zip(b.iter().copied().rev()).skip(1).collect::<Vec<_>>());
        });
    }

    #[test]
    fn terminals_match_std((a, _b, k) in input()) {
        let a = &a;
        let k = k as i32;
        on_pools((), || {
            let hit = |x: &i32| x % k == 0;
            assert_eq!(a.par_iter().find_first(|x| hit(x)), a.iter().find(|x| hit(x)));
            assert_eq!(a.par_iter().find_last(|x| hit(x)), a.iter().rev().find(|x| hit(x)));
            assert_eq!(a.par_iter().position_first(hit), a.iter().position(hit));
            assert_eq!(a.par_iter().position_last(hit), a.iter().rposition(hit));
            let any = a.par_iter().position_any(hit);
            assert_eq!(any.is_some(), a.iter().any(hit));
            assert!(any.is_none_or(|i| hit(&a[i])));
            let got: Vec<usize> = a.par_iter().positions(hit).collect();
            assert_eq!(got, a.iter().enumerate().filter(|(_, x)| hit(x)).map(|(i, _)| i).collect::<Vec<_>>());
            assert_eq!(
                a.par_iter().find_map_first(|&x| (x > 100).then_some(x * 2)),
                a.iter().find_map(|&x| (x > 100).then_some(x * 2))
            );
            assert_eq!(
                a.par_iter().find_map_last(|&x| (x > 100).then_some(x * 2)),
                a.iter().rev().find_map(|&x| (x > 100).then_some(x * 2))
            );
            let key = |x: &&i32| (**x % 10).abs();
            assert_eq!(a.par_iter().min_by(|x, y| key(x).cmp(&key(y))), a.iter().min_by(|x, y| key(x).cmp(&key(y))));
            assert_eq!(a.par_iter().max_by(|x, y| key(x).cmp(&key(y))), a.iter().max_by(|x, y| key(x).cmp(&key(y))));
            assert_eq!(a.par_iter().copied().reduce_with(i32::wrapping_add), a.iter().copied().reduce(i32::wrapping_add));
            // try_*: a failure when some item is over 400, else the sum.
            let want: Option<i64> = a.iter().try_fold(0i64, |s, &x| (x <= 400).then_some(s + i64::from(x)));
            let got: Option<i64> = a.par_iter().map(|&x| (x <= 400).then_some(i64::from(x))).try_reduce(|| 0, |p, q| Some(p + q));
            assert_eq!(got, want);
            let got: Option<i64> = a.par_iter().try_fold(|| 0i64, |s, &x| (x <= 400).then_some(s + i64::from(x))).try_reduce(|| 0, |p, q| Some(p + q));
            assert_eq!(got, want);
            let got: Result<(), i32> = a.par_iter().try_for_each(|&x| if x > 400 { Err(x) } else { Ok(()) });
            assert_eq!(got.is_err(), want.is_none());
            assert!(got.err().is_none_or(|e| e > 400));
            let got = a.par_iter().try_for_each_with(5, |five, &x| if x > 400 + *five { ControlFlow::Break(x) } else { ControlFlow::Continue(()) });
            assert_eq!(got.is_break(), a.iter().any(|&x| x > 405));
            let got: Option<Option<i32>> = a.par_iter().map(|&x| (x <= 400).then_some(x)).try_reduce_with(|p, q| Some(p.max(q)));
            let want: Option<Option<i32>> = if a.is_empty() { None } else { Some(a.iter().try_fold(i32::MIN, |m, &x| (x <= 400).then_some(m.max(x)))) };
            assert_eq!(got, want);
            // while_some: only `Some` values, and all of them when there is no `None`.
            let got: Vec<i32> = a.par_iter().map(|&x| (x <= 450).then_some(x)).while_some().collect();
            if a.iter().all(|&x| x <= 450) {
                assert_eq!(&got, a);
            } else {
                assert!(got.len() < a.len() && got.iter().all(|&x| x <= 450));
            }
            // Comparisons.
            assert_eq!(a.par_iter().cmp(a.par_iter().take(a.len() / 2)), a.iter().cmp(a.iter().take(a.len() / 2)));
            assert_eq!(a.par_iter().partial_cmp(a.par_iter().rev()), a.iter().partial_cmp(a.iter().rev()));
            assert!(a.par_iter().eq(a));
            assert_eq!(a.par_iter().lt(a.par_iter().skip(1)), a.iter().lt(a.iter().skip(1)));
        });
    }

    #[test]
    fn per_leaf_adapters_match_std((a, _b, k) in input()) {
        let a = &a;
        on_pools((), || {
            let seen = AtomicUsize::new(0);
            let got: Vec<i32> = a.par_iter().copied().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).collect();
            assert_eq!((got.as_slice(), seen.load(Ordering::Relaxed)), (a.as_slice(), a.len()));
            let got: Vec<i32> = a.par_iter().copied().update(|x| *x *= 3).collect();
            assert_eq!(got, a.iter().map(|x| x * 3).collect::<Vec<_>>());
            let got: Vec<i32> = a.par_iter().map_with(k as i32, |k, &x| x + *k).collect();
            assert_eq!(got, a.iter().map(|x| x + k as i32).collect::<Vec<_>>());
            let got: Vec<usize> = a.par_iter().map_init(Vec::new, |buf: &mut Vec<i32>, &x| { buf.push(x); buf.len() }).collect();
            assert_eq!(got.len(), a.len());
            let sum = Mutex::new(0i64);
            a.par_iter().for_each_with(2i64, |two, &x| *sum.lock().unwrap() += *two * i64::from(x));
            assert_eq!(*sum.lock().unwrap(), 2 * a.iter().map(|&x| i64::from(x)).sum::<i64>());
            a.par_iter().for_each_init(|| 1i64, |one, &x| *sum.lock().unwrap() -= *one * i64::from(x));
            assert_eq!(*sum.lock().unwrap(), a.iter().map(|&x| i64::from(x)).sum::<i64>());
            let got: i64 = a.par_iter().fold_with(0i64, |s, &x| s + i64::from(x)).sum();
            assert_eq!(got, a.iter().map(|&x| i64::from(x)).sum::<i64>());
            // Flattening.
            let got: Vec<i32> = a.par_iter().flat_map(|&x| (0..x.rem_euclid(5)).into_par_iter()).collect();
            let want: Vec<i32> = a.iter().flat_map(|&x| 0..x.rem_euclid(5)).collect();
            assert_eq!(got, want);
            let got: Vec<i32> = a.par_iter().flat_map_iter(|&x| 0..x.rem_euclid(5)).collect();
            assert_eq!(got, want);
            let nested: Vec<Vec<i32>> = a.iter().map(|&x| (0..x.rem_euclid(5)).collect()).collect();
            let got: Vec<i32> = nested.clone().into_par_iter().flatten().collect();
            assert_eq!(got, want);
            let got: Vec<i32> = nested.into_par_iter().flatten_iter().collect();
            assert_eq!(got, want);
            // A long inner iterator runs as a nested loop.
            let got: usize = (0..3).into_par_iter().flat_map(|_| a.par_iter().chain(a)).count();
            assert_eq!(got, 6 * a.len());
        });
    }

    #[test]
    fn collects_and_extends_match_std((a, b, _k) in input()) {
        let (a, b) = (&a, &b);
        on_pools((), || {
            macro_rules! same {
                ($t:ty, $par:expr, $seq:expr) => {{
                    let got: $t = $par.collect();
                    let want: $t = $seq.collect();
                    assert_eq!(got, want, stringify!($t));
                }};
            }
            same!(VecDeque<i32>, a.par_iter().copied(), a.iter().copied());
            same!(LinkedList<i32>, a.par_iter().copied(), a.iter().copied());
            same!(BTreeSet<i32>, a.par_iter().copied(), a.iter().copied());
            same!(HashSet<i32>, a.par_iter().copied(), a.iter().copied());
            same!(BTreeMap<i32, usize>, a.par_iter().copied().enumerate().map(|(i, x)| (x, i)), a.iter().copied().enumerate().map(|(i, x)| (x, i)));
            same!(HashMap<i32, usize>, a.par_iter().copied().enumerate().map(|(i, x)| (x, i)), a.iter().copied().enumerate().map(|(i, x)| (x, i)));
            same!(String, a.par_iter().map(|x| char::from(b'a' + x.rem_euclid(26) as u8)), a.iter().map(|x| char::from(b'a' + x.rem_euclid(26) as u8)));
            same!(String, a.par_iter().map(|x| x.to_string()), a.iter().map(|x| x.to_string()));
            same!(Box<[i32]>, a.par_iter().copied(), a.iter().copied());
            let heap: BinaryHeap<i32> = a.par_iter().copied().collect();
            assert_eq!(heap.into_sorted_vec(), { let mut s = a.clone(); s.sort(); s });
            same!(Option<Vec<i32>>, a.par_iter().map(|&x| (x < 450).then_some(x)), a.iter().map(|&x| (x < 450).then_some(x)));
            let got: Result<Vec<i32>, i32> = a.par_iter().map(|&x| if x < 450 { Ok(x) } else { Err(x) }).collect();
            let want: Result<Vec<i32>, i32> = a.iter().map(|&x| if x < 450 { Ok(x) } else { Err(x) }).collect();
            assert_eq!(got.is_ok(), want.is_ok());
            assert!(got.as_ref().err().is_none_or(|&e| e >= 450));
            if let Ok(v) = got { assert_eq!(v, want.unwrap()); }
            a.par_iter().map(|_| ()).collect::<()>();
            // Two-sided collects.
            let (l, r): (Vec<i32>, Vec<i32>) = a.par_iter().partition(|&&x| x < 0);
            let (wl, wr): (Vec<&i32>, Vec<&i32>) = a.iter().partition(|&&x| x < 0);
            assert_eq!((l, r), (wl.into_iter().copied().collect(), wr.into_iter().copied().collect()));
            let (l, r): (Vec<i32>, BTreeSet<String>) = a.par_iter().partition_map(|&x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x.to_string()) });
            assert_eq!(l, a.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
            assert_eq!(r, a.iter().filter(|x| *x % 2 != 0).map(|x| x.to_string()).collect());
            let (x, y): (Vec<i32>, VecDeque<usize>) = a.par_iter().copied().zip(0..a.len()).unzip();
            assert_eq!((x.as_slice(), y.len()), (a.as_slice(), a.len()));
            assert!(y.iter().copied().eq(0..a.len()));
            let (mut x, mut y) = (vec![1], vec![2]);
            a.par_iter().copied().zip(b.par_iter().copied()).unzip_into_vecs(&mut x, &mut y);
            assert_eq!((x, y), a.iter().copied().zip(b.iter().copied()).unzip());
            // par_extend appends in order.
            let mut v = b.clone();
            v.par_extend(a.par_iter().copied().filter(|x| x % 3 == 0));
            let mut w = b.clone();
            w.extend(a.iter().copied().filter(|x| x % 3 == 0));
            assert_eq!(v, w);
            let mut s = String::from("x");
            s.par_extend(a.par_iter().map(|x| x.to_string()));
            assert_eq!(s, std::iter::once("x".to_string()).chain(a.iter().map(|x| x.to_string())).collect::<String>());
            let list = a.par_iter().copied().filter(|x| x % 2 == 0).collect_vec_list();
            assert_eq!(list.into_iter().flatten().collect::<Vec<_>>(), a.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
        });
    }

    #[test]
    fn string_sources_match_std(s in "[a-c,é\u{1F600} \n\r\t]{0,400}") {
        let s = s.as_str();
        on_pools((), || {
            assert_eq!(s.par_chars().collect::<Vec<_>>(), s.chars().collect::<Vec<_>>());
            assert_eq!(s.par_char_indices().collect::<Vec<_>>(), s.char_indices().collect::<Vec<_>>());
            assert_eq!(s.par_bytes().collect::<Vec<_>>(), s.bytes().collect::<Vec<_>>());
            assert_eq!(s.par_encode_utf16().collect::<Vec<_>>(), s.encode_utf16().collect::<Vec<_>>());
            assert_eq!("".par_split(',').collect::<Vec<_>>(), [""]);
            assert_eq!(s.par_split(',').collect::<Vec<_>>(), s.split(',').collect::<Vec<_>>());
            assert_eq!(s.par_split(['é', 'a']).collect::<Vec<_>>(), s.split(['é', 'a']).collect::<Vec<_>>());
            assert_eq!(s.par_split(|c: char| c == '\u{1F600}').collect::<Vec<_>>(), s.split('\u{1F600}').collect::<Vec<_>>());
            assert_eq!(s.par_split_terminator(',').collect::<Vec<_>>(), s.split_terminator(',').collect::<Vec<_>>());
            assert_eq!(s.par_split_inclusive('b').collect::<Vec<_>>(), s.split_inclusive('b').collect::<Vec<_>>());
            assert_eq!(s.par_lines().collect::<Vec<_>>(), s.lines().collect::<Vec<_>>());
            assert_eq!(s.par_split_whitespace().collect::<Vec<_>>(), s.split_whitespace().collect::<Vec<_>>());
            assert_eq!(s.par_split_ascii_whitespace().collect::<Vec<_>>(), s.split_ascii_whitespace().collect::<Vec<_>>());
            assert_eq!(s.par_matches('c').collect::<Vec<_>>(), s.matches('c').collect::<Vec<_>>());
            assert_eq!(s.par_match_indices(['é', ',']).collect::<Vec<_>>(), s.match_indices(['é', ',']).collect::<Vec<_>>());
        });
    }

    #[test]
    fn slice_sources_match_std((a, _b, k) in input()) {
        let a = &a;
        on_pools((), || {
            assert_eq!(a.par_windows(k).collect::<Vec<_>>(), a.windows(k).collect::<Vec<_>>());
            assert_eq!(a.par_rchunks(k).collect::<Vec<_>>(), a.rchunks(k).collect::<Vec<_>>());
            assert_eq!(a.par_rchunks_exact(k).collect::<Vec<_>>(), a.rchunks_exact(k).collect::<Vec<_>>());
            assert_eq!(a.par_rchunks_exact(k).remainder(), a.rchunks_exact(k).remainder());
            assert_eq!(a.par_split(|x| x % 7 == 0).collect::<Vec<_>>(), a.split(|x| x % 7 == 0).collect::<Vec<_>>());
            let mut v = a.clone();
            v.par_rchunks_mut(k).enumerate().for_each(|(i, c)| c.iter_mut().for_each(|x| *x = i as i32));
            let mut w = a.clone();
            w.rchunks_mut(k).enumerate().for_each(|(i, c)| c.iter_mut().for_each(|x| *x = i as i32));
            assert_eq!(v, w);
            let mut v = a.clone();
            let mut chunks = v.par_chunks_exact_mut(k);
            let rem = chunks.take_remainder().len();
            chunks.for_each(|c| c.reverse());
            let mut w = a.clone();
            w.chunks_exact_mut(k).for_each(|c| c.reverse());
            assert_eq!((v, rem), (w, a.len() % k));
            let mut v = a.clone();
            v.par_rchunks_exact_mut(k).for_each(|c| c.sort());
            let mut w = a.clone();
            w.rchunks_exact_mut(k).for_each(|c| c.sort());
            assert_eq!(v, w);
            let mut v = a.clone();
            v.par_sort_by_cached_key(|x| (x % 10).abs());
            let mut w = a.clone();
            w.sort_by_cached_key(|x| (x % 10).abs());
            assert_eq!(v, w);
        });
    }
}

#[test]
fn collection_sources_match_std() {
    let v: Vec<i32> = (0..3000).map(|x| (x * 7919) % 1013).collect();
    on_pools((), || {
        let sorted = |mut x: Vec<i32>| {
            x.sort();
            x
        };
        let deque: VecDeque<i32> = v.iter().copied().collect();
        let mut rotated = deque.clone();
        rotated.rotate_left(1234); // two slices
        assert!(rotated.par_iter().eq(rotated.iter().collect::<Vec<_>>()));
        rotated.par_iter_mut().for_each(|x| *x += 1);
        assert!(rotated.iter().copied().eq(v
            .iter()
            .map(|x| x + 1)
            .cycle()
            .skip(1234)
            .take(v.len())));
        assert_eq!(deque.clone().into_par_iter().collect::<Vec<_>>(), v);
        let list: LinkedList<i32> = v.iter().copied().collect();
        assert_eq!(list.par_iter().copied().collect::<Vec<_>>(), v);
        assert_eq!(list.into_par_iter().collect::<Vec<_>>(), v);
        let set: BTreeSet<i32> = v.iter().copied().collect();
        assert_eq!(
            set.par_iter().copied().collect::<Vec<_>>(),
            set.iter().copied().collect::<Vec<_>>()
        );
        let hash: HashSet<i32> = v.iter().copied().collect();
        assert_eq!(
            sorted(hash.par_iter().copied().collect()),
            set.iter().copied().collect::<Vec<_>>()
        );
        assert_eq!(
            sorted(hash.into_par_iter().collect()),
            set.iter().copied().collect::<Vec<_>>()
        );
        let mut map: HashMap<i32, i32> = v.iter().map(|&x| (x, x)).collect();
        map.par_iter_mut().for_each(|(k, v)| *v += k);
        assert!(map.par_iter().all(|(k, v)| *v == 2 * k));
        let mut bmap: BTreeMap<i32, i32> = v.iter().map(|&x| (x, x)).collect();
        bmap.par_iter_mut().for_each(|(_, v)| *v = -*v);
        assert_eq!(
            bmap.par_iter().map(|(_, v)| *v).sum::<i32>(),
            -set.iter().sum::<i32>()
        );
        let heap: BinaryHeap<i32> = v.iter().copied().collect();
        assert_eq!(heap.par_iter().sum::<i32>(), v.iter().sum::<i32>());
        assert_eq!(sorted(heap.into_par_iter().collect()), sorted(v.clone()));
        assert_eq!(Some(3).into_par_iter().collect::<Vec<_>>(), vec![3]);
        assert_eq!(None::<i32>.par_iter().count(), 0);
        assert_eq!(Ok::<i32, ()>(4).par_iter().copied().sum::<i32>(), 4);
        assert_eq!(Err::<i32, ()>(()).into_par_iter().count(), 0);
        assert_eq!([1, 2, 3].into_par_iter().sum::<i32>(), 6);
        assert_eq!(
            [1, 2, 3].par_iter().rev().copied().collect::<Vec<_>>(),
            [3, 2, 1]
        );
        // Drains.
        let mut w = v.clone();
        let mid: Vec<i32> = w.par_drain(100..2000).collect();
        assert_eq!((mid.as_slice(), w.len()), (&v[100..2000], v.len() - 1900));
        let mut s = String::from("héllo wörld");
        let chars: String = s.par_drain(..6).collect();
        assert_eq!((chars.as_str(), s.as_str()), ("héllo", " wörld"));
        let mut h: HashSet<i32> = v.iter().copied().collect();
        assert_eq!(h.par_drain().count(), set.len());
        assert!(h.is_empty());
    });
}

#[test]
fn generated_sources_match_std() {
    on_pools((), || {
        assert_eq!(piter::empty::<i32>().count(), 0);
        assert_eq!(piter::once(5).collect::<Vec<_>>(), vec![5]);
        assert_eq!(
            piter::repeat_n("x", 1000).collect::<String>(),
            "x".repeat(1000)
        );
        assert_eq!(
            piter::repeat(2u8).take(77).map(usize::from).sum::<usize>(),
            154
        );
        let zipped: Vec<(char, i32)> = piter::repeat('z').zip(0..5).collect();
        assert_eq!(zipped, (0..5).map(|i| ('z', i)).collect::<Vec<_>>());
        assert_eq!(piter::repeat(1).find_any(|&x| x == 1), Some(1));
        // split: halves of a range until they are short.
        let pieces: Vec<std::ops::Range<u64>> = piter::split(0u64..100_000, |r| {
            if r.end - r.start < 1000 {
                (r, None)
            } else {
                let mid = r.start + (r.end - r.start) / 2;
                (r.start..mid, Some(mid..r.end))
            }
        })
        .collect();
        assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!((pieces[0].start, pieces.last().unwrap().end), (0, 100_000));
        let sum: u64 = piter::split(0u64..100_000, |r| {
            let mid = r.start + (r.end - r.start) / 2;
            if mid == r.start {
                (r, None)
            } else {
                (r.start..mid, Some(mid..r.end))
            }
        })
        .map(|r| r.sum::<u64>())
        .sum();
        assert_eq!(sum, (0..100_000).sum::<u64>());
        // Tree walks against a sequential recursion, on a tree of 3^7 leaves.
        let children = |&(depth, id): &(u32, u64)| {
            let kids = if depth < 7 { 0..3 } else { 0..0 };
            kids.map(move |k| (depth + 1, id * 3 + k))
        };
        fn pre(n: (u32, u64), out: &mut Vec<u64>) {
            out.push(n.1);
            if n.0 < 7 {
                (0..3).for_each(|k| pre((n.0 + 1, n.1 * 3 + k), out));
            }
        }
        fn post(n: (u32, u64), out: &mut Vec<u64>) {
            if n.0 < 7 {
                (0..3).for_each(|k| post((n.0 + 1, n.1 * 3 + k), out));
            }
            out.push(n.1);
        }
        let (mut want_pre, mut want_post) = (Vec::new(), Vec::new());
        pre((0, 0), &mut want_pre);
        post((0, 0), &mut want_post);
        let got: Vec<u64> = piter::walk_tree_prefix((0, 0), children)
            .map(|n| n.1)
            .collect();
        assert_eq!(got, want_pre);
        let got: Vec<u64> = piter::walk_tree_postfix((0, 0), children)
            .map(|n| n.1)
            .collect();
        assert_eq!(got, want_post);
        // A path (one child each): deeper than the expansion goes.
        let path: Vec<u32> =
            piter::walk_tree_postfix(0u32, |&n| (n < 10_000).then_some(n + 1)).collect();
        assert_eq!(path, (0..=10_000).rev().collect::<Vec<_>>());
        // par_bridge: every item once.
        let mut got: Vec<u32> = (0..5000u32)
            .filter(|x| x % 3 != 0)
            .par_bridge()
            .map(|x| x * 2)
            .collect();
        got.sort_unstable();
        assert_eq!(
            got,
            (0..5000u32)
                .filter(|x| x % 3 != 0)
                .map(|x| x * 2)
                .collect::<Vec<_>>()
        );
    });
}

/// A named run of a chain over counted values, giving how many items it saw.
type Case<'a> = (&'static str, Box<dyn Fn() -> usize + Sync + 'a>);

#[test]
fn owned_items_drop_once_through_reshaping() {
    for (name, pool) in pools() {
        pool.install(|| {
            let drops = AtomicUsize::new(0);
            let make = |n: u32| (0..n).map(|i| Counted(i, &drops)).collect::<Vec<_>>();
            let cases: [Case<'_>; 8] = [
                (
                    "skip",
                    Box::new(|| make(1000).into_par_iter().skip(300).count()),
                ),
                (
                    "take",
                    Box::new(|| make(1000).into_par_iter().take(300).count()),
                ),
                (
                    "rev zip",
                    Box::new(|| make(1000).into_par_iter().rev().zip(0..10).count()),
                ),
                (
                    "chain zip",
                    Box::new(|| {
                        make(500)
                            .into_par_iter()
                            .chain(make(500))
                            .zip(0..700)
                            .count()
                    }),
                ),
                (
                    "step",
                    Box::new(|| make(1000).into_par_iter().step_by(7).count()),
                ),
                (
                    "interleave",
                    Box::new(|| {
                        make(300)
                            .into_par_iter()
                            .interleave(make(900))
                            .take(1000)
                            .count()
                    }),
                ),
                (
                    "chunks",
                    Box::new(|| make(1000).into_par_iter().chunks(33).count()),
                ),
                (
                    "find_last",
                    Box::new(|| {
                        let hit = make(1000).into_par_iter().find_last(|c| c.0 % 100 == 5);
                        hit.map_or(0, |c| c.0 as usize)
                    }),
                ),
            ];
            for (case, run) in &cases {
                drops.store(0, Ordering::Relaxed);
                let n = run();
                let made = match *case {
                    "interleave" => 1200,
                    _ => 1000,
                };
                assert!(n <= made, "{name} {case}");
                assert_eq!(drops.load(Ordering::Relaxed), made, "{name} {case}");
            }
            // A panic halfway: still every item dropped once, and the panic reaches us.
            drops.store(0, Ordering::Relaxed);
            let result = catch_unwind(AssertUnwindSafe(|| {
                make(1000)
                    .into_par_iter()
                    .rev()
                    .skip(10)
                    .for_each(|c| assert!(c.0 != 500, "item 500"))
            }));
            assert!(result.is_err(), "{name}");
            assert_eq!(drops.load(Ordering::Relaxed), 1000, "{name}");
        });
    }
}

#[test]
fn panics_reach_the_caller_and_fuse_stops_the_rest() {
    for (name, pool) in pools() {
        pool.install(|| {
            let r = catch_unwind(|| {
                (0..1000)
                    .into_par_iter()
                    .flat_map(|x| (0..x).into_par_iter())
                    .for_each(|y| assert!(y != 900, "nine hundred"))
            });
            assert!(r.is_err(), "{name}");
            let r = catch_unwind(|| {
                "a,b,c"
                    .par_split(',')
                    .map(|s| s.parse::<u8>().unwrap())
                    .count()
            });
            assert!(r.is_err(), "{name}");
            // After the panic, the fused leaves take far fewer than all items.
            let taken = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                (0..100_000)
                    .into_par_iter()
                    .with_max_len(100)
                    .panic_fuse()
                    .for_each(|x| {
                        taken.fetch_add(1, Ordering::Relaxed);
                        assert!(x != 0, "first item");
                    })
            }));
            assert!(r.is_err(), "{name}");
            assert!(taken.load(Ordering::Relaxed) < 100_000, "{name}");
        });
    }
}

/// Splitting something empty gives one empty piece, as std does; the random inputs
/// above seldom draw an empty one.
#[test]
fn splitting_empty_input_gives_one_empty_piece() {
    on_pools((), || {
        let empty: &[i32] = &[];
        assert_eq!(
            empty.par_split(|x| x % 7 == 0).collect::<Vec<_>>(),
            vec![empty]
        );
        assert_eq!(
            [7].par_split(|x| x % 7 == 0).collect::<Vec<_>>(),
            vec![empty, empty]
        );
        assert_eq!("".par_split(',').collect::<Vec<_>>(), vec![""]);
    });
}
