//! rayon's pool API on locus (`src/spawn.rs`): detached spawns run exactly once, from
//! outside the pool and from inside, under `ws` and a two-squad policy, also when the
//! handle is dropped first; their panics go to the handler (or abort); FIFO spawns keep
//! their order; `in_place_scope`, `yield_now`, the thread index and pool size,
//! `ThreadPool::join` and rayon's `broadcast`.

use crate::common::pool;
use locus::{PolicyKind, ThreadPool, ThreadPoolBuilder, Topology, Yield};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `ws` on this machine and `cats` on two squads of two.
fn pools() -> Vec<ThreadPool> {
    vec![
        pool(PolicyKind::Ws, 3, "this"),
        pool(PolicyKind::default(), 4, "2x2"),
    ]
}

/// Waits for `n` indices on `rx` and checks that each of `0..n` came exactly once.
fn each_once(rx: &std::sync::mpsc::Receiver<usize>, n: usize) {
    let mut seen = vec![0u32; n];
    for _ in 0..n {
        let i = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("every spawn runs");
        seen[i] += 1;
    }
    assert!(seen.iter().all(|&c| c == 1), "runs per spawn: {seen:?}");
    assert!(
        rx.recv_timeout(Duration::from_millis(20)).is_err(),
        "no spawn runs twice"
    );
}

#[test]
fn spawns_from_outside_run_exactly_once() {
    for pool in pools() {
        let (tx, rx) = channel();
        for i in 0..2000 {
            let tx = tx.clone();
            pool.spawn(move || tx.send(i).unwrap());
        }
        each_once(&rx, 2000);
    }
}

/// Each spawn spawns two more down to a depth, from inside the pool.
fn tree(i: usize, n: usize, tx: std::sync::mpsc::Sender<usize>) {
    tx.send(i).unwrap();
    for child in [2 * i + 1, 2 * i + 2] {
        if child < n {
            let tx = tx.clone();
            locus::spawn(move || tree(child, n, tx));
        }
    }
}

#[test]
fn spawns_from_inside_run_exactly_once_on_their_pool() {
    for pool in pools() {
        let (tx, rx) = channel();
        let n = 4095;
        let threads = pool.num_threads();
        let (wtx, wrx) = channel();
        pool.install(|| {
            locus::spawn(move || {
                wtx.send(locus::current_num_threads()).unwrap();
                tree(0, n, tx);
            })
        });
        assert_eq!(
            wrx.recv().unwrap(),
            threads,
            "spawned onto the current pool"
        );
        each_once(&rx, n);
    }
}

#[test]
fn fifo_spawns_run_exactly_once() {
    for pool in pools() {
        let (tx, rx) = channel();
        let tx2 = tx.clone();
        pool.install(move || {
            for i in 0..500 {
                let tx = tx.clone();
                locus::spawn_fifo(move || tx.send(i).unwrap());
            }
        });
        for i in 500..1000 {
            let tx = tx2.clone();
            pool.spawn_fifo(move || tx.send(i).unwrap());
        }
        each_once(&rx, 1000);
    }
}

#[test]
fn dropping_the_pool_loses_no_spawn() {
    for pool in pools() {
        let (tx, rx) = channel();
        for i in 0..64 {
            let tx = tx.clone();
            pool.spawn(move || {
                std::thread::sleep(Duration::from_millis(1));
                tx.send(i).unwrap();
            });
        }
        drop(pool);
        each_once(&rx, 64);
    }
}

#[test]
fn a_spawn_from_another_pool_runs_on_the_pool_named() {
    let a = pool(PolicyKind::Ws, 2, "this");
    let b = Arc::new(pool(PolicyKind::default(), 4, "2x2"));
    let (tx, rx) = channel();
    a.install(|| {
        let b2 = Arc::clone(&b);
        b.spawn(move || tx.send(b2.current_thread_index()).unwrap());
    });
    let index = rx.recv().unwrap();
    assert!(matches!(index, Some(i) if i < 4), "ran on b: {index:?}");
}

#[test]
fn a_spawns_panic_goes_to_the_handler_and_the_pool_goes_on() {
    let (tx, rx) = channel::<String>();
    let tx = Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .topology(Topology::parse_spec("2x1").unwrap())
        .panic_handler(move |payload| {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .unwrap_or_default();
            tx.lock().unwrap().send(text).unwrap();
        })
        .build()
        .unwrap();
    pool.spawn(|| panic!("spawned boom"));
    assert_eq!(rx.recv().unwrap(), "spawned boom");
    let (tx, rx) = channel();
    pool.spawn(move || tx.send(7).unwrap());
    assert_eq!(rx.recv().unwrap(), 7);
    assert_eq!(pool.install(|| 1 + 1), 2);
}

/// The child half of `a_spawns_panic_without_a_handler_aborts`: run only when the
/// parent sets the variable.
#[test]
fn abort_child() {
    if std::env::var_os("LOCUS_TEST_SPAWN_ABORT").is_none() {
        return;
    }
    let pool = pool(PolicyKind::Ws, 1, "this");
    pool.spawn(|| panic!("nobody handles this"));
    std::thread::sleep(Duration::from_secs(30));
    unreachable!("the panic aborted the process");
}

#[test]
fn a_spawns_panic_without_a_handler_aborts() {
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["spawn::abort_child", "--exact", "--nocapture"])
        .env("LOCUS_TEST_SPAWN_ABORT", "1")
        .output()
        .expect("the test binary runs");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        status.status.signal(),
        Some(SIGABRT),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(String::from_utf8_lossy(&status.stderr).contains("no panic handler"));
}

/// Linux's SIGABRT.
const SIGABRT: i32 = 6;

/// What a one-worker pool's spawns, all made before it runs any, run in.
fn order(fifo: bool) -> Vec<usize> {
    let pool = pool(PolicyKind::Ws, 1, "this");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = channel();
    pool.install(|| {
        for i in 0..10 {
            let (seen, tx) = (Arc::clone(&seen), tx.clone());
            let body = move || {
                seen.lock().unwrap().push(i);
                tx.send(()).unwrap();
            };
            if fifo {
                locus::spawn_fifo(body);
            } else {
                locus::spawn(body);
            }
        }
    });
    for _ in 0..10 {
        rx.recv().unwrap();
    }
    let order = seen.lock().unwrap().clone();
    order
}

#[test]
fn spawn_is_lifo_and_spawn_fifo_fifo_on_one_worker() {
    assert_eq!(order(false), (0..10).rev().collect::<Vec<_>>());
    assert_eq!(order(true), (0..10).collect::<Vec<_>>());
}

#[test]
fn scope_fifo_runs_one_threads_spawns_in_order_and_waits_for_them() {
    let one = pool(PolicyKind::Ws, 1, "this");
    let seen = Mutex::new(Vec::new());
    one.scope_fifo(|s| {
        for i in 0..10 {
            let seen = &seen;
            s.spawn_fifo(move |s| {
                seen.lock().unwrap().push(i);
                if i == 0 {
                    // Nested spawns come after the ones already made.
                    s.spawn_fifo(move |_| seen.lock().unwrap().push(10));
                }
            });
        }
    });
    assert_eq!(seen.into_inner().unwrap(), (0..11).collect::<Vec<_>>());
    for pool in pools() {
        let count = AtomicUsize::new(0);
        pool.scope_fifo(|s| {
            for _ in 0..1000 {
                s.spawn_fifo(|_| {
                    count.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(count.into_inner(), 1000);
    }
}

#[test]
fn a_panic_in_a_fifo_spawn_reaches_the_scope() {
    let pool = pool(PolicyKind::default(), 4, "2x2");
    let ran = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.scope_fifo(|s| {
            for i in 0..100 {
                let ran = &ran;
                s.spawn_fifo(move |_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if i == 50 {
                        panic!("fifo boom");
                    }
                });
            }
        })
    }));
    let payload = result.expect_err("the spawn's panic is resumed");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"fifo boom"));
    assert_eq!(ran.into_inner(), 100, "the other spawns still ran");
}

#[test]
fn in_place_scope_runs_here_and_waits_for_its_spawns() {
    for pool in pools() {
        // Not `Send`: it stays on this thread.
        let here = std::rc::Rc::new(std::thread::current().id());
        let mut parts = vec![0u64; 64];
        let sum = pool.in_place_scope(|s| {
            assert_eq!(*here, std::thread::current().id());
            for (i, part) in parts.iter_mut().enumerate() {
                s.spawn(move |_| *part = (i as u64) * 10);
            }
            5
        });
        assert_eq!(sum, 5);
        assert_eq!(parts.iter().sum::<u64>(), 10 * 63 * 64 / 2);
        // From inside the pool: a scope of the worker itself.
        let total = AtomicUsize::new(0);
        pool.install(|| {
            locus::in_place_scope(|s| {
                for _ in 0..100 {
                    s.spawn(|_| {
                        total.fetch_add(1, Ordering::Relaxed);
                    });
                }
            })
        });
        assert_eq!(total.into_inner(), 100);
        let order = Mutex::new(Vec::new());
        pool.in_place_scope_fifo(|s| {
            for i in 0..20 {
                let order = &order;
                s.spawn_fifo(move |_| order.lock().unwrap().push(i));
            }
        });
        let mut order = order.into_inner().unwrap();
        order.sort_unstable();
        assert_eq!(order, (0..20).collect::<Vec<_>>());
    }
}

#[test]
fn a_panic_in_an_in_place_scope_reaches_the_caller_after_every_spawn() {
    let pool = pool(PolicyKind::Ws, 2, "this");
    let ran = AtomicUsize::new(0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.in_place_scope(|s| {
            for _ in 0..50 {
                s.spawn(|_| {
                    std::thread::sleep(Duration::from_micros(100));
                    ran.fetch_add(1, Ordering::Relaxed);
                });
            }
            panic!("body boom");
        })
    }));
    assert_eq!(
        result.unwrap_err().downcast_ref::<&str>(),
        Some(&"body boom")
    );
    assert_eq!(ran.into_inner(), 50);
}

#[test]
fn yield_now_runs_a_pending_job_or_says_idle() {
    assert_eq!(locus::yield_now(), None, "no pool here");
    assert_eq!(locus::yield_local(), None);
    let pool = pool(PolicyKind::Ws, 1, "this");
    assert_eq!(pool.yield_now(), None, "not a worker of the pool");
    pool.install(|| {
        let ran = Arc::new(AtomicUsize::new(0));
        let yields: [fn() -> Option<Yield>; 2] = [locus::yield_local, locus::yield_now];
        for (n, yield_once) in yields.into_iter().enumerate() {
            let r = Arc::clone(&ran);
            locus::spawn(move || {
                r.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(yield_once(), Some(Yield::Executed));
            assert_eq!(ran.load(Ordering::Relaxed), n + 1);
            assert_eq!(yield_once(), Some(Yield::Idle));
        }
    });
}

#[test]
fn thread_index_pool_size_join_and_broadcast() {
    assert_eq!(locus::current_thread_index(), None);
    assert_eq!(
        locus::current_num_threads(),
        locus::global().num_threads(),
        "outside a pool: the global pool's"
    );
    for pool in pools() {
        let n = pool.num_threads();
        assert_eq!(pool.current_num_threads(), n);
        let (index, size) =
            pool.install(|| (locus::current_thread_index(), locus::current_num_threads()));
        assert!(index.is_some_and(|i| i < n));
        assert_eq!(size, n);
        let (a, b) = pool.join(|| common_sum(0, 1000), || common_sum(1000, 2000));
        assert_eq!(a + b, 1999 * 2000 / 2);
        let shares = pool.broadcast_each(|ctx| (ctx.index(), ctx.num_threads()));
        assert_eq!(shares, (0..n).map(|i| (i, n)).collect::<Vec<_>>());
        let shares = pool.install(|| locus::broadcast(|ctx| ctx.index() * 2));
        assert_eq!(shares, (0..n).map(|i| i * 2).collect::<Vec<_>>());
    }
}

fn common_sum(lo: u64, hi: u64) -> u64 {
    crate::common::sum(lo, hi)
}
