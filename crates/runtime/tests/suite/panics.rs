//! A panic inside a task reaches the caller of the `join`/`scope` that owns it, every
//! other task still runs exactly once, and the pool stays usable afterwards.

use crate::common::pool;
use locus::PolicyKind;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// Loop length and fib argument, smaller under Miri (which runs every access checked).
const LOOP: usize = if cfg!(miri) { 40 } else { 64 };
const FIB: u64 = if cfg!(miri) { 8 } else { 18 };
const FIB_OF: u64 = if cfg!(miri) { 21 } else { 2584 };
const SPAWNS: usize = if cfg!(miri) { 20 } else { 100 };

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn panics_reach_the_caller_and_the_pool_survives() {
    // `ws:near` too: on 2x2 it deals the top of every tree to the two squads' queues.
    for policy in PolicyKind::ALL.into_iter().chain([PolicyKind::WsNear]) {
        let pool = pool(policy.clone(), 4, "2x2");
        for round in 0..if cfg!(miri) { 1 } else { 3 } {
            // The second half of a join panics deep in a tree; the other leaves all run.
            let ran = AtomicUsize::new(0);
            let err = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    locus::for_range(0..LOOP, 1, |r| {
                        for i in r {
                            let (_, _) = locus::join(
                                || ran.fetch_add(1, Ordering::SeqCst),
                                || {
                                    ran.fetch_add(1, Ordering::SeqCst);
                                    if i == 37 {
                                        panic!("task {i} failed");
                                    }
                                },
                            );
                        }
                    })
                })
            }))
            .expect_err("the panic must reach install's caller");
            assert_eq!(message(err), "task 37 failed", "{policy} round {round}");
            assert_eq!(
                ran.load(Ordering::SeqCst),
                2 * LOOP,
                "{policy}: every half ran exactly once"
            );
            // The pool still computes.
            assert_eq!(pool.install(|| fib(FIB)), FIB_OF, "{policy} after a panic");
        }
    }
}

#[test]
fn both_closures_run_when_the_first_panics() {
    let pool = pool(PolicyKind::Ws, 2, "this");
    let second_ran = AtomicUsize::new(0);
    let err = catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            locus::join(
                || panic!("first"),
                || {
                    second_ran.fetch_add(1, Ordering::SeqCst);
                },
            )
        })
    }))
    .unwrap_err();
    assert_eq!(message(err), "first");
    assert_eq!(second_ran.load(Ordering::SeqCst), 1);

    // Both panic: the first one's payload wins.
    let err = catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| locus::join(|| panic!("a"), || panic!("b")))
    }))
    .unwrap_err();
    assert_eq!(message(err), "a");
}

#[test]
fn a_scope_resumes_the_first_panic_after_all_spawns_finish() {
    for policy in [
        PolicyKind::Ws,
        PolicyKind::Mts { batch: None },
        PolicyKind::RrFifo,
    ] {
        let pool = pool(policy.clone(), 3, "opteron-8380");
        let finished = AtomicUsize::new(0);
        let err = catch_unwind(AssertUnwindSafe(|| {
            pool.scope(|s| {
                for i in 0..SPAWNS {
                    let finished = &finished;
                    s.spawn(move |_| {
                        if i % 10 == 3 {
                            panic!("spawn {i}");
                        }
                        finished.fetch_add(1, Ordering::SeqCst);
                    });
                }
            })
        }))
        .unwrap_err();
        assert!(message(err).starts_with("spawn "), "{policy}");
        // Every tenth spawn panics; the others all finish.
        assert_eq!(
            finished.load(Ordering::SeqCst),
            SPAWNS * 9 / 10,
            "{policy}: the others all ran"
        );
        assert_eq!(pool.install(|| fib(FIB)), FIB_OF);
    }
}

#[test]
fn a_panicking_scope_body_still_waits_for_its_spawns() {
    let pool = pool(PolicyKind::Ws, 2, "this");
    let finished = AtomicUsize::new(0);
    let err = catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            for _ in 0..20 {
                s.spawn(|_| {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    finished.fetch_add(1, Ordering::SeqCst);
                });
            }
            panic!("body");
        })
    }))
    .unwrap_err();
    assert_eq!(message(err), "body");
    assert_eq!(finished.load(Ordering::SeqCst), 20);
}
