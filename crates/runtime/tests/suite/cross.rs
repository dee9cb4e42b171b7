//! Waits across pools: a worker of one pool that calls into another (`install`,
//! `scope`, `broadcast`, `domains::run_each`) keeps running its own pool's tasks until
//! the other pool's job is done, so that a job of its pool which the other pool waits
//! on still runs. Every policy, both directions, nested, from workers and from outside
//! threads; each body runs under a watchdog, so a hang is a failure after [`LIMIT`],
//! not a stuck suite.

use crate::common::sum;
use locus::domains::{self, Domain};
use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How long a body may take before it counts as hung: each takes well under a second
/// when the waits work (Miri runs every access checked, hence its longer limit).
const LIMIT: Duration = Duration::from_secs(if cfg!(miri) { 600 } else { 20 });

/// Depth of the innermost join tree, and rounds per entering thread, smaller under Miri.
const DEPTH: u32 = if cfg!(miri) { 3 } else { 10 };
const ROUNDS: usize = if cfg!(miri) { 2 } else { 200 };

/// Every policy a pool can be built with from its name alone (all of them but
/// `affinity`, which needs a schedule file), and `ws:near`.
fn policies() -> Vec<PolicyKind> {
    if cfg!(miri) {
        return vec![PolicyKind::Ws, PolicyKind::Mts { batch: None }];
    }
    PolicyKind::NAMES
        .iter()
        .filter(|&&name| name != "affinity")
        .chain(&["ws:near"])
        .map(|name| name.parse().unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

/// An unpinned pool of `threads` workers on this machine's topology.
fn pool(policy: &PolicyKind, threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .policy(policy.clone())
        .pin(false)
        .build()
        .unwrap_or_else(|e| panic!("{}: {e}", policy.name()))
}

/// Runs `body` on a thread of its own and returns its result (or resumes its panic);
/// fails, naming `what`, if it has not finished after [`LIMIT`]. A hung body's thread is
/// left blocked: the test fails instead of waiting for it.
fn within<T: Send + 'static>(what: &str, body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("cross: {what}"))
        .spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(body)));
        })
        .expect("the watchdog's thread starts");
    match rx.recv_timeout(LIMIT) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => resume_unwind(panic),
        Err(_) => panic!("{what}: not done after {LIMIT:?}; a wait across pools hangs"),
    }
}

/// A join recursion `depth` levels deep: 2^depth leaves, each counted in `leaves`.
fn deep(depth: u32, leaves: &AtomicUsize) -> usize {
    if depth == 0 {
        leaves.fetch_add(1, Ordering::Relaxed);
        return 1;
    }
    let (a, b) = locus::join(|| deep(depth - 1, leaves), || deep(depth - 1, leaves));
    a + b
}

fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Two pools of one worker each, entered four times in turn: every level but the
/// outermost is a worker of one pool waiting in the other, and the third level needs
/// the worker of the first pool, which waits in the second. Each level checks that it
/// runs on its pool.
#[test]
fn nested_installs_across_two_one_worker_pools_finish_under_every_policy() {
    for policy in policies() {
        let name = policy.name();
        let leaves = within(name, move || {
            let a = pool(&policy, 1);
            let b = pool(&policy, 1);
            let leaves = AtomicUsize::new(0);
            let got = a.install(|| {
                assert!(a.current_thread_index().is_some());
                b.install(|| {
                    assert!(b.current_thread_index().is_some());
                    a.install(|| {
                        assert!(a.current_thread_index().is_some());
                        b.install(|| deep(DEPTH, &leaves))
                    })
                })
            });
            assert_eq!(got, 1 << DEPTH);
            leaves.into_inner()
        });
        assert_eq!(leaves, 1 << DEPTH, "{name}: every leaf runs exactly once");
    }
}

/// Deeper than the reproduction: sixteen alternations between the pools, the innermost
/// a join tree, from one-worker pools.
#[test]
fn sixteen_alternations_between_two_pools_finish() {
    fn alternate(pools: &[ThreadPool; 2], level: usize, leaves: &AtomicUsize) -> usize {
        if level == 16 {
            return deep(6, leaves);
        }
        pools[level % 2].install(|| {
            let (x, y) = locus::join(|| alternate(pools, level + 1, leaves), || deep(2, leaves));
            x + y
        })
    }
    for policy in [PolicyKind::Ws, PolicyKind::Mts { batch: None }] {
        let name = policy.name();
        let (got, leaves) = within(name, move || {
            let pools = [pool(&policy, 1), pool(&policy, 1)];
            let leaves = AtomicUsize::new(0);
            let got = alternate(&pools, 0, &leaves);
            (got, leaves.into_inner())
        });
        assert_eq!(got, 16 * 4 + 64, "{name}");
        assert_eq!(leaves, got, "{name}: every leaf runs exactly once");
    }
}

/// Four outside threads enter two pools of two workers 200 times each, two of them
/// `a` then `b`, two `b` then `a`: with every worker of both pools able to wait in the
/// other pool at once, a waiting worker must keep serving its own. Every leaf of every
/// round is counted.
#[test]
fn crossing_installs_from_four_threads_finish_under_every_policy() {
    for policy in policies() {
        let name = policy.name();
        let leaves = within(name, move || {
            let pools = Arc::new([pool(&policy, 2), pool(&policy, 2)]);
            let leaves = Arc::new(AtomicUsize::new(0));
            let threads: Vec<_> = (0..4)
                .map(|t| {
                    let (pools, leaves) = (Arc::clone(&pools), Arc::clone(&leaves));
                    std::thread::spawn(move || {
                        let (outer, inner) = (&pools[t % 2], &pools[1 - t % 2]);
                        for _ in 0..ROUNDS {
                            let got = outer.install(|| inner.install(|| deep(3, &leaves)));
                            assert_eq!(got, 8);
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().expect("an entering thread");
            }
            leaves.load(Ordering::Relaxed)
        });
        assert_eq!(
            leaves,
            4 * ROUNDS * 8,
            "{name}: every leaf runs exactly once"
        );
    }
}

/// A panic in the inner pool, under a join there, reaches the caller of the outer
/// `install` through the waiting worker; both pools keep working afterwards.
#[test]
fn a_panic_in_the_inner_pool_reaches_the_outer_caller() {
    for policy in [
        PolicyKind::Ws,
        PolicyKind::Mts { batch: None },
        PolicyKind::Central,
    ] {
        let name = policy.name();
        within(name, move || {
            let a = pool(&policy, 2);
            let b = pool(&policy, 2);
            let err = catch_unwind(AssertUnwindSafe(|| {
                a.install(|| {
                    b.install(|| {
                        let (x, _) = locus::join(|| sum(0, 64), || panic!("inner pool"));
                        x
                    })
                })
            }))
            .expect_err("the inner panic propagates");
            assert_eq!(message(&*err), "inner pool");
            // From a worker of `b` back into `a`, two levels down.
            let err = catch_unwind(AssertUnwindSafe(|| {
                b.install(|| a.install(|| b.install(|| -> u64 { panic!("two levels") })))
            }))
            .expect_err("the inner panic propagates");
            assert_eq!(message(&*err), "two levels");
            assert_eq!(a.install(|| b.install(|| sum(0, 100))), 4950);
        });
    }
}

/// A scope of the other pool opened from a worker, whose spawns call back into the
/// caller's pool (one worker each: the caller's worker must serve them), and a leaf
/// bitmap that shows each spawn ran exactly once.
#[test]
fn a_scope_of_another_pool_whose_spawns_call_back_runs_each_once() {
    const SPAWNS: usize = 64;
    for policy in policies() {
        let name = policy.name();
        let marks = within(name, move || {
            let a = pool(&policy, 1);
            let b = pool(&policy, 1);
            let marks: Vec<AtomicU8> = (0..SPAWNS).map(|_| AtomicU8::new(0)).collect();
            a.install(|| {
                b.scope(|s| {
                    for mark in &marks {
                        let a = &a;
                        s.spawn(move |_| {
                            a.install(|| {
                                assert!(a.current_thread_index().is_some());
                                mark.fetch_add(1, Ordering::Relaxed);
                            })
                        });
                    }
                })
            });
            marks
                .into_iter()
                .map(AtomicU8::into_inner)
                .collect::<Vec<_>>()
        });
        assert!(
            marks.iter().all(|&m| m == 1),
            "{name}: every spawn runs exactly once: {marks:?}"
        );
    }
}

/// A broadcast on another pool from a worker, each share calling back into the
/// caller's pool; and from that pool's worker, a broadcast on the caller's.
#[test]
fn a_broadcast_on_another_pool_whose_shares_call_back_finishes() {
    for policy in [
        PolicyKind::Ws,
        PolicyKind::Mts { batch: None },
        PolicyKind::RrFifo,
        PolicyKind::Static,
    ] {
        let name = policy.name();
        let counts = within(name, move || {
            let a = pool(&policy, 1);
            let b = pool(&policy, 2);
            let shares: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
            let leaves = AtomicUsize::new(0);
            a.install(|| {
                b.broadcast(|i| {
                    assert_eq!(b.current_thread_index(), Some(i));
                    shares[i].fetch_add(1, Ordering::Relaxed);
                    let got = a.install(|| {
                        // And back: a broadcast on `b` from `a`'s worker, while `b`'s
                        // workers wait in `a`.
                        b.broadcast(|_| {
                            leaves.fetch_add(1, Ordering::Relaxed);
                        });
                        deep(4, &leaves)
                    });
                    assert_eq!(got, 16);
                });
            });
            let shares: Vec<usize> = shares.into_iter().map(AtomicUsize::into_inner).collect();
            (shares, leaves.into_inner())
        });
        assert_eq!(counts, (vec![1, 1], 2 * (16 + 2)), "{name}");
    }
}

/// A panic in one share of a broadcast on another pool reaches the worker that
/// broadcast, after the other share has run.
#[test]
fn a_panicking_share_of_a_broadcast_on_another_pool_reaches_the_caller() {
    within("ws", || {
        let a = pool(&PolicyKind::Ws, 1);
        let b = pool(&PolicyKind::Ws, 2);
        let ran = AtomicUsize::new(0);
        let err = catch_unwind(AssertUnwindSafe(|| {
            a.install(|| {
                b.broadcast(|i| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if i == 1 {
                        panic!("share 1");
                    }
                })
            })
        }))
        .expect_err("the share's panic propagates");
        assert_eq!(message(&*err), "share 1");
        assert_eq!(ran.load(Ordering::Relaxed), 2);
    });
}

/// `domains::run_each` from a worker of a pool that is not among the domains' pools,
/// each share calling back into the caller's pool: the caller's only worker must serve
/// them while it waits.
#[test]
fn run_each_from_a_worker_of_an_unrelated_pool_serves_its_pool() {
    let got = within("domains", || {
        let pools = ThreadPoolBuilder::new()
            .num_threads(1)
            .pin(false)
            .topology(Topology::parse_spec("2x2").expect("shorthand"))
            .build_per_domain(Domain::Package)
            .expect("pools build");
        let caller = pool(&PolicyKind::Ws, 1);
        caller.install(|| {
            domains::run_each(&pools, |d| {
                let there = caller.install(|| caller.current_thread_index());
                (d.index(), d.current_thread_index(), there)
            })
        })
    });
    assert_eq!(got, [(0, Some(0), Some(0)), (1, Some(0), Some(0))]);
}
