//! `locus::iter` against std's sequential iterators: every adapter and terminal on random
//! inputs (property tests), under several policies and on virtual topologies; the edge
//! cases (empty and one-element inputs, zero-sized types, ranges at the integer limits,
//! nesting); panics and drops; the deterministic cut into leaves.

use locus::prelude::*;
use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The pools every property runs on: plain work stealing (loops split as a tree), the
/// queue policies (loops flat, placed chunk by chunk) on two squads, the bi-tier `cab`
/// on the four-socket Opteron laid over this machine (more workers than cores), and a
/// static schedule (loops dealt in lanes).
fn pools() -> &'static [(String, ThreadPool)] {
    static POOLS: OnceLock<Vec<(String, ThreadPool)>> = OnceLock::new();
    POOLS.get_or_init(build_pools)
}

/// A fresh set of the pools of [`pools`], for a test that counts what its pools did.
fn build_pools() -> Vec<(String, ThreadPool)> {
    {
        [
            ("ws", 3, "this"),
            ("central", 2, "2x1"),
            ("rr-lifo", 3, "2x1"),
            ("mts", 4, "2x2"),
            ("cab", 6, "opteron-8380"),
            ("static", 3, "this"),
        ]
        .into_iter()
        .map(|(policy, threads, machine)| {
            let policy: PolicyKind = policy.parse().unwrap();
            let mut builder = ThreadPoolBuilder::new()
                .num_threads(threads)
                .policy(policy.clone())
                .pin(false);
            if machine != "this" {
                builder = builder.topology(Topology::parse_spec(machine).unwrap());
            }
            (format!("{policy} on {machine}"), builder.build().unwrap())
        })
        .collect()
    }
}

/// Runs `f` on every pool and checks it gives `expected` there.
fn on_every_pool<R: PartialEq + std::fmt::Debug + Send>(expected: R, f: impl Fn() -> R + Sync) {
    for (name, pool) in pools() {
        assert_eq!(pool.install(&f), expected, "{name}");
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    }
}

fn input() -> impl Strategy<Value = (Vec<i32>, usize, usize)> {
    (
        prop::collection::vec(-1000i32..1000, 0..3000),
        0usize..40,
        0usize..400,
    )
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn adapters_and_collect_match_std((v, min, max) in input()) {
        let seq: Vec<(usize, i64)> = v
            .iter()
            .copied()
            .map(|x| i64::from(x) * 3)
            .enumerate()
            .filter(|(_, x)| x % 2 == 0)
            .collect();
        on_every_pool(seq, || {
            v.par_iter()
                .copied()
                .map(|x| i64::from(x) * 3)
                .enumerate()
                .with_min_len(min)
                .with_max_len(max)
                .filter(|(_, x)| x % 2 == 0)
                .collect::<Vec<_>>()
        });
        let seq: Vec<i32> = v.iter().cloned().filter_map(|x| (x > 0).then_some(x / 2)).collect();
        on_every_pool(seq, || {
            v.par_iter().cloned().filter_map(|x| (x > 0).then_some(x / 2)).collect::<Vec<_>>()
        });
        let w: Vec<i32> = v.iter().rev().copied().collect();
        let seq: Vec<(i32, i32)> = v.iter().copied().zip(w.iter().skip(5).copied()).collect();
        on_every_pool(seq, || {
            v.par_iter()
                .copied()
                .zip(w[5.min(w.len())..].par_iter().copied())
                .with_max_len(max)
                .collect::<Vec<_>>()
        });
        let mut into = Vec::new();
        let seq: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        on_every_pool(seq.clone(), || {
            v.clone().into_par_iter().map(|x| x.to_string()).collect::<Vec<_>>()
        });
        pools()[0].1.install(|| seq.clone().into_par_iter().collect_into_vec(&mut into));
        prop_assert_eq!(into, seq);
    }

    #[test]
    fn terminals_match_std((v, min, max) in input()) {
        let it = || v.par_iter().with_min_len(min).with_max_len(max);
        on_every_pool(v.iter().map(|&x| i64::from(x)).sum::<i64>(), || {
            it().map(|&x| i64::from(x)).sum::<i64>()
        });
        on_every_pool(v.iter().map(|&x| (x % 3) as i64).product::<i64>(), || {
            it().map(|&x| (x % 3) as i64).product::<i64>()
        });
        on_every_pool(v.iter().fold(0i64, |a, &x| a + i64::from(x)), || {
            it().map(|&x| i64::from(x)).reduce(|| 0, |a, b| a + b)
        });
        on_every_pool(v.iter().map(|&x| i64::from(x)).sum::<i64>(), || {
            it().fold(|| 0i64, |a, &x| a + i64::from(x)).sum::<i64>()
        });
        on_every_pool(v.iter().map(|&x| i64::from(x).abs()).max().unwrap_or(0), || {
            it().fold(|| 0i64, |a, &x| a.max(i64::from(x).abs())).reduce(|| 0, i64::max)
        });
        on_every_pool(v.iter().filter(|&&x| x > 10).count(), || it().filter(|&&x| x > 10).count());
        on_every_pool(v.iter().min(), || it().min());
        on_every_pool(v.iter().max(), || it().max());
        // Ties: the key keeps only the last digit, the item says which one was picked.
        let key = |x: &(usize, &i32)| x.1.rem_euclid(10);
        on_every_pool(v.iter().enumerate().min_by_key(key), || it().enumerate().min_by_key(key));
        on_every_pool(v.iter().enumerate().max_by_key(key), || it().enumerate().max_by_key(key));
        on_every_pool(v.contains(&999), || it().any(|&x| x == 999));
        on_every_pool(v.iter().all(|&x| x != 999), || it().all(|&x| x != 999));
        let found = pools()[0].1.install(|| it().find_any(|&&x| x % 7 == 3));
        match found {
            Some(x) => prop_assert!(x % 7 == 3 && v.contains(x)),
            None => prop_assert!(!v.iter().any(|x| x % 7 == 3)),
        }
        let seen = AtomicUsize::new(0);
        for (_, pool) in pools() {
            pool.install(|| it().for_each(|&x| {
                seen.fetch_add(x.unsigned_abs() as usize, Ordering::Relaxed);
            }));
        }
        let total: usize = v.iter().map(|x| x.unsigned_abs() as usize).sum();
        prop_assert_eq!(seen.into_inner(), total * pools().len());
    }

    #[test]
    fn chunks_match_std(v in prop::collection::vec(any::<u16>(), 0..2000), size in 1usize..50) {
        let seq: Vec<u32> = v.chunks(size).map(|c| c.iter().map(|&x| u32::from(x)).sum()).collect();
        on_every_pool(seq, || {
            v.par_chunks(size).map(|c| c.iter().map(|&x| u32::from(x)).sum::<u32>()).collect::<Vec<_>>()
        });
        let exact = v.chunks_exact(size);
        let rem = exact.remainder().to_vec();
        let seq: Vec<Vec<u16>> = exact.map(<[u16]>::to_vec).collect();
        on_every_pool((seq, rem), || {
            let chunks = v.par_chunks_exact(size);
            let rem = chunks.remainder().to_vec();
            (chunks.map(<[u16]>::to_vec).collect::<Vec<_>>(), rem)
        });
        let mut expected = v.clone();
        expected.chunks_mut(size).enumerate().for_each(|(i, c)| c.iter_mut().for_each(|x| *x ^= i as u16));
        for (name, pool) in pools() {
            let mut w = v.clone();
            pool.install(|| {
                w.par_chunks_mut(size)
                    .enumerate()
                    .for_each(|(i, c)| c.iter_mut().for_each(|x| *x ^= i as u16))
            });
            prop_assert_eq!(&w, &expected, "{}", name);
        }
        let mut w = v.clone();
        pools()[0].1.install(|| w.par_iter_mut().for_each(|x| *x = x.wrapping_mul(3)));
        prop_assert_eq!(w, v.iter().map(|x| x.wrapping_mul(3)).collect::<Vec<_>>());
    }

    #[test]
    fn sorts_match_std(v in prop::collection::vec((0u16..64, any::<u32>()), 0..12_000)) {
        // Few distinct keys: stability shows, and runs of equal keys are exercised.
        let mut by_key = v.clone();
        by_key.sort_by_key(|x| x.0);
        let mut sorted = v.clone();
        sorted.sort();
        let mut reversed = v.clone();
        reversed.sort_by(|a, b| b.cmp(a));
        for (name, pool) in pools() {
            let mut w = v.clone();
            pool.install(|| w.par_sort_by_key(|x| x.0));
            prop_assert_eq!(&w, &by_key, "par_sort_by_key, {}", name);
            let mut w = v.clone();
            pool.install(|| w.par_sort());
            prop_assert_eq!(&w, &sorted, "par_sort, {}", name);
            let mut w = v.clone();
            pool.install(|| w.par_sort_by(|a, b| b.cmp(a)));
            prop_assert_eq!(&w, &reversed, "par_sort_by, {}", name);
            let mut w = v.clone();
            pool.install(|| w.par_sort_unstable());
            prop_assert_eq!(&w, &sorted, "par_sort_unstable, {}", name);
            let mut w: Vec<u16> = v.iter().map(|x| x.0).collect();
            pool.install(|| w.par_sort_unstable_by_key(|&k| std::cmp::Reverse(k)));
            prop_assert!(w.windows(2).all(|p| p[0] >= p[1]), "{}", name);
        }
    }
}

/// Inputs already in order, or in descending order, above the sorts' sequential size:
/// the sorts finish them in a pass, and a stable sort keeps equal keys in their order
/// (descending keys with ties are sorted, not reversed).
#[test]
fn presorted_inputs_sort_as_std_sorts_them() {
    let n = 20_000u32;
    let ascending: Vec<(u32, u32)> = (0..n).map(|i| (i, i)).collect();
    let strictly_descending: Vec<(u32, u32)> = (0..n).rev().map(|i| (i, i)).collect();
    // Keys n/4-1 down to 0, each four times, the second field their arrival order.
    let descending_ties: Vec<(u32, u32)> = (0..n).map(|i| ((n - 1 - i) / 4, i)).collect();
    let mut last_out_of_place = ascending.clone();
    last_out_of_place.swap(n as usize - 1, n as usize - 2);
    for input in [
        ascending,
        strictly_descending,
        descending_ties,
        last_out_of_place,
    ] {
        let mut by_key = input.clone();
        by_key.sort_by_key(|x| x.0);
        let mut sorted = input.clone();
        sorted.sort();
        for (name, pool) in pools() {
            let mut w = input.clone();
            pool.install(|| w.par_sort_by_key(|x| x.0));
            assert_eq!(w, by_key, "par_sort_by_key, {name}");
            let mut w = input.clone();
            pool.install(|| w.par_sort_unstable());
            assert_eq!(w, sorted, "par_sort_unstable, {name}");
            let mut w = input.clone();
            pool.install(|| w.par_sort_unstable_by_key(|x| x.0));
            assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "{name}");
        }
    }
}

#[test]
fn empty_and_one_element_inputs() {
    let empty: Vec<u64> = Vec::new();
    on_every_pool(
        (
            0u64,
            1u64,
            0usize,
            None,
            None,
            false,
            true,
            Vec::<u64>::new(),
        ),
        || {
            (
                empty.par_iter().sum::<u64>(),
                empty.par_iter().product::<u64>(),
                empty.par_iter().count(),
                empty.par_iter().min(),
                empty.par_iter().find_any(|_| true),
                empty.par_iter().any(|_| true),
                empty.par_iter().all(|_| false),
                empty.par_iter().copied().collect::<Vec<_>>(),
            )
        },
    );
    let one = vec![7u64];
    on_every_pool((7, 7, Some(&7), vec![(0, 14)]), || {
        (
            one.par_iter().sum::<u64>(),
            one.par_iter().copied().reduce(|| 0, |a, b| a + b),
            one.par_iter().max(),
            one.par_iter()
                .map(|x| x * 2)
                .enumerate()
                .collect::<Vec<_>>(),
        )
    });
    let mut none: [u8; 0] = [];
    pools()[0].1.install(|| {
        none.par_sort_unstable();
        none.par_sort();
        none.par_chunks_mut(3).for_each(|_| unreachable!());
    });
}

#[test]
fn zero_sized_items() {
    let units = vec![(); 10_000];
    on_every_pool((10_000, 10_000), || {
        (
            units.par_iter().count(),
            units
                .clone()
                .into_par_iter()
                .map(|()| ())
                .collect::<Vec<()>>()
                .len(),
        )
    });
    let mut units = units;
    pools()[0].1.install(|| {
        units.par_sort();
        units.par_chunks_mut(7).for_each(|c| assert!(c.len() <= 7));
    });
}

#[test]
fn ranges_at_the_integer_limits() {
    on_every_pool(
        (
            5u128 * u128::from(u64::MAX) - 15,
            255,
            vec![-128i8, -127, 125, 126],
        ),
        || {
            (
                (u64::MAX - 5..u64::MAX)
                    .into_par_iter()
                    .map(u128::from)
                    .sum::<u128>(),
                (i8::MIN..i8::MAX).into_par_iter().count(),
                (i8::MIN..i8::MAX)
                    .into_par_iter()
                    .filter(|x| !(-126..=124).contains(x))
                    .collect::<Vec<i8>>(),
            )
        },
    );
    on_every_pool((usize::MAX, Some(i64::MIN), Some(i64::MAX - 1), 0), || {
        (
            (i64::MIN..i64::MAX).into_par_iter().len(),
            (i64::MIN..i64::MIN + 5).into_par_iter().min(),
            (i64::MAX - 3..i64::MAX).into_par_iter().max(),
            (5u32..5).into_par_iter().count(),
        )
    });
    let seq: Vec<u8> = (0u8..255).collect();
    on_every_pool(seq, || (0u8..255).into_par_iter().collect::<Vec<_>>());
}

#[test]
fn nested_iterators_inside_iterators_and_joins() {
    let rows: Vec<Vec<u32>> = (0..50u32).map(|r| (0..r * 10).collect()).collect();
    let expected: u64 = rows.iter().flatten().map(|&x| u64::from(x)).sum();
    on_every_pool(expected, || {
        rows.par_iter()
            .map(|row| row.par_iter().map(|&x| u64::from(x)).sum::<u64>())
            .sum::<u64>()
    });
    on_every_pool((expected, expected), || {
        locus::join(
            || rows.par_iter().flatten_sum(),
            || {
                (0..rows.len())
                    .into_par_iter()
                    .map(|i| rows[i].par_iter().map(|&x| u64::from(x)).sum::<u64>())
                    .sum::<u64>()
            },
        )
    });
    // From outside any pool: the global pool.
    assert_eq!(rows.par_iter().flatten_sum(), expected);
}

/// A helper trait to keep the nested test short.
trait FlattenSum {
    fn flatten_sum(self) -> u64;
}

impl<'a> FlattenSum for locus::iter::Iter<'a, Vec<u32>> {
    fn flatten_sum(self) -> u64 {
        self.map(|row| row.iter().map(|&x| u64::from(x)).sum::<u64>())
            .sum()
    }
}

/// Counts its drops in a shared counter (also used by `iter_more` and `iter_collect`).
#[derive(Debug)]
pub(crate) struct Counted<'a>(pub(crate) u32, pub(crate) &'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_panic_in_a_chain_reaches_the_caller_and_the_pool_goes_on() {
    for (name, pool) in pools() {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                (0..10_000u32)
                    .into_par_iter()
                    .map(|x| if x == 5_000 { panic!("boom at {x}") } else { x })
                    .sum::<u32>()
            })
        }));
        let panic = result.expect_err(name);
        assert_eq!(
            panic.downcast_ref::<String>().map(String::as_str),
            Some("boom at 5000"),
            "{name}"
        );
        let sum = pool.install(|| (0..1000u64).into_par_iter().sum::<u64>());
        assert_eq!(sum, 499_500, "{name}");
    }
}

#[test]
fn collect_drops_each_item_once_also_when_a_panic_cuts_it_short() {
    for (name, pool) in pools() {
        for panic_at in [None, Some(0), Some(3_333), Some(9_999)] {
            let drops = AtomicUsize::new(0);
            let items: Vec<Counted> = (0..10_000).map(|i| Counted(i, &drops)).collect();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    items
                        .into_par_iter()
                        .map(|c| {
                            assert!(Some(c.0) != panic_at, "cut");
                            c
                        })
                        .collect::<Vec<_>>()
                })
            }));
            assert_eq!(result.is_err(), panic_at.is_some(), "{name}");
            if let Ok(v) = &result {
                assert!(v.iter().enumerate().all(|(i, c)| c.0 == i as u32), "{name}");
                assert_eq!(drops.load(Ordering::Relaxed), 0, "{name}");
            }
            drop(result);
            assert_eq!(
                drops.load(Ordering::Relaxed),
                10_000,
                "{name}, panic at {panic_at:?}"
            );
        }
        // The unindexed collect, cut short too.
        let drops = AtomicUsize::new(0);
        let items: Vec<Counted> = (0..5_000).map(|i| Counted(i, &drops)).collect();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                items
                    .into_par_iter()
                    .filter(|c| {
                        assert!(c.0 != 2_500, "cut");
                        c.0 % 2 == 0
                    })
                    .collect::<Vec<_>>()
            })
        }));
        assert!(result.is_err());
        drop(result);
        assert_eq!(drops.load(Ordering::Relaxed), 5_000, "{name}");
    }
}

#[test]
fn owned_items_not_reached_are_dropped_once() {
    let pool = &pools()[0].1;
    let drops = AtomicUsize::new(0);
    // A shorter zip leaves the longer side's tail to its iterator.
    let long: Vec<Counted> = (0..1_000).map(|i| Counted(i, &drops)).collect();
    let n = pool.install(|| long.into_par_iter().zip(0..10u8).count());
    assert_eq!(n, 10);
    assert_eq!(drops.swap(0, Ordering::Relaxed), 1_000);
    // A short-circuiting terminal drops what it skips.
    let items: Vec<Counted> = (0..1_000).map(|i| Counted(i, &drops)).collect();
    let found = pool.install(|| items.into_par_iter().find_any(|c| c.0 == 10));
    assert_eq!(found.as_ref().map(|c| c.0), Some(10));
    drop(found);
    assert_eq!(drops.swap(0, Ordering::Relaxed), 1_000);
    // An iterator dropped without a terminal drops everything.
    let items: Vec<Counted> = (0..100).map(|i| Counted(i, &drops)).collect();
    drop(items.into_par_iter().map(|c| c.0));
    assert_eq!(drops.into_inner(), 100);
}

/// The loop chunk the running task is, as a spawn of `owner`: its spawn index less the
/// two of a join (`locus_task::FIRST_SCOPE_SPAWN`).
fn chunk_of(owner: &locus::TaskInfo) -> u32 {
    let task = locus::current_task().unwrap();
    assert_eq!(task.level, owner.level + 1);
    task.id.index_in(owner.id).unwrap() - 2
}

#[test]
fn leaves_are_the_same_tasks_every_time() {
    // With no bound, 100_000 positions make 256 leaves of 391; each item sees its leaf's
    // chunk index, the same in every run and under every policy.
    for (name, pool) in pools() {
        let run = || {
            pool.install(|| {
                let owner = locus::current_task().unwrap();
                (0..100_000usize)
                    .into_par_iter()
                    .map(|_| chunk_of(&owner))
                    .collect::<Vec<_>>()
            })
        };
        let first = run();
        assert!(
            first
                .iter()
                .enumerate()
                .all(|(i, &c)| c as usize == i / 391),
            "{name}"
        );
        assert_eq!(run(), first, "{name}");
        // Bounds move the cut: leaves of exactly 10.
        let chunks = pool.install(|| {
            let owner = locus::current_task().unwrap();
            (0..1_000usize)
                .into_par_iter()
                .with_min_len(10)
                .with_max_len(10)
                .map(|i| (i, chunk_of(&owner)))
                .collect::<Vec<_>>()
        });
        assert!(chunks.iter().all(|&(i, c)| c as usize == i / 10), "{name}");
    }
}

#[test]
fn for_range_chunks_keep_their_ids_and_count_once_under_every_policy() {
    for (name, pool) in &build_pools() {
        // 70,000 chunks: more than a flat loop spawns one by one (65,536), so the placing
        // policies get it in blocks of consecutive chunks.
        for (n, grain) in [
            (1000usize, 7usize),
            (1, 1),
            (257, 1),
            (4096, 4096),
            (70_000, 1),
        ] {
            let before = pool.stats();
            let seen = std::sync::Mutex::new(Vec::new());
            pool.install(|| {
                let owner = locus::current_task().unwrap();
                locus::for_range(0..n, grain, |r| {
                    seen.lock()
                        .unwrap()
                        .push((r.start, r.len(), chunk_of(&owner)));
                });
            });
            let tasks = pool.stats().since(&before).total().tasks;
            let mut seen = seen.into_inner().unwrap();
            seen.sort_unstable();
            let k = n.div_ceil(grain);
            assert_eq!(seen.len(), k, "{name}, {n}/{grain}");
            for (i, &(start, len, chunk)) in seen.iter().enumerate() {
                assert_eq!(
                    (start, len),
                    (i * grain, grain.min(n - i * grain)),
                    "{name}"
                );
                assert_eq!(chunk as usize, i, "{name}, {n}/{grain}: chunk {i}'s id");
            }
            // The chunks and the installed root: the split adds no task of its own.
            assert_eq!(tasks, k as u64 + 1, "{name}, {n}/{grain}");
        }
    }
}

#[test]
fn a_panicking_chunk_lets_the_others_run_and_reaches_the_caller() {
    for (name, pool) in pools() {
        let ran = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                locus::for_range(0..100, 1, |r| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    assert!(r.start != 37, "chunk 37");
                })
            })
        }));
        assert!(result.is_err(), "{name}");
        assert_eq!(ran.into_inner(), 100, "{name}");
    }
}
