//! Guards the cost of the runtime's hot path against the libraries it is measured by:
//! each operation timed in locus and, in the same run, in crossbeam-deque or rayon,
//! so a regression shows as a ratio that grows (compare ratios, not times: machines and
//! their load differ).
//!
//! - `deque/push_pop`: one push on a worker's own deque and its pop, as every `join`
//!   under `ws` does around its first half. locus through the registry's own paths
//!   (`bench_hooks::DequeBench`: the policy's fast-path check and the sleep check
//!   included), crossbeam as a bare `Worker::push` and `Worker::pop` of a 16-byte value
//!   (locus's `JobRef`).
//! - `deque/steal`: one steal from another worker's deque holding 1,024 tasks (filled
//!   outside the timing): locus's `Probe::Steal(Victims::All)` path with one victim,
//!   crossbeam's `Stealer::steal`.
//! - `join/empty`: `join` of two empty closures on a worker of a two-worker pool, against
//!   `rayon::join` in a two-thread rayon pool.
//! - `scope/spawn`: `scope` spawning 1,024 empty closures, per spawn, against
//!   `rayon::scope`.
//! - `loop/chunk`: `for_range` over 1,024 indices at grain 1, per chunk (a loop chunk's
//!   dispatch), against rayon's `par_iter` with `with_max_len(1)` (one index per task).
//!
//! - `policy/...`: what a locality policy adds to the runtime's work, the figures of the
//!   simulator's calibration (`crates/sim/calibration/runtime.toml`, which says how each
//!   of its costs derives from these): `policy/place/P`, a `Policy::place` call of P
//!   for a child of one root, and `policy/events/P` the same call followed by the task's
//!   start and finish reported with its cost measured (two clock reads, as the
//!   runtime's profiler takes), `policy/events_plain/P` without its cost, on a policy
//!   built afresh for every batch of 1,024 children (so it is profiling, as in a
//!   program's first iteration); `policy/tree/P`: `fib(15)` with a `join` at every call
//!   (1,973 tasks) on a pool of P over the virtual machine `2x1` (two squads of one
//!   worker), per task, run again and again in one pool; `policy/first_tree/P`:
//!   `fib(20)` (21,891 tasks) as the first run of a pool built for it, per task (cats
//!   and cab profile its first 256 tasks, `locus_policy::FIRST_LOOK`, and find no data
//!   in them; mts notes every task).
//!
//! Both pools have two unpinned workers, and only one pool exists at a time (each is
//! built for its group and dropped after), so neither's idle threads take CPU from the
//! other's. Quick run: `cargo bench -p locus --bench hot_path -- --warm-up-time 1
//! --measurement-time 3`; medians are in `target/criterion/*/*/new/estimates.json`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use crossbeam_deque::{Steal, Worker};
use locus::bench_hooks::DequeBench;
use locus::{
    Policy, PolicyKind, TaskCost, TaskId, TaskInfo, ThreadPool, ThreadPoolBuilder, Topology,
    WorkerMap,
};
use locus_policy::Source;
use rayon::prelude::*;

/// Workers in each pool.
const THREADS: usize = 2;
/// Tasks per measured batch of steals, spawns and loop chunks.
const BATCH: usize = 1024;

/// What crossbeam's deque carries in the comparison: the size of a locus `JobRef`.
type Payload = (usize, usize);

fn locus_pool() -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .policy(PolicyKind::Ws)
        .pin(false)
        .build()
        .expect("the locus pool builds")
}

fn rayon_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("the rayon pool builds")
}

fn deque(c: &mut Criterion) {
    let mut group = c.benchmark_group("deque");
    group.throughput(Throughput::Elements(1));
    let locus = DequeBench::new();
    group.bench_function("push_pop/locus", |b| {
        b.iter(|| assert!(black_box(&locus).push_pop()))
    });
    let worker: Worker<Payload> = Worker::new_lifo();
    group.bench_function("push_pop/crossbeam", |b| {
        b.iter(|| {
            worker.push(black_box((1, 2)));
            assert!(black_box(worker.pop()).is_some());
        })
    });

    // Steals come in batches of BATCH from a deque filled outside the timing.
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("steal/locus", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                locus.fill(BATCH);
                let start = Instant::now();
                for _ in 0..BATCH {
                    assert!(black_box(&locus).steal());
                }
                spent += start.elapsed();
            }
            spent
        })
    });
    let stealer = worker.stealer();
    group.bench_function("steal/crossbeam", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                for i in 0..BATCH {
                    worker.push((i, i));
                }
                let start = Instant::now();
                for _ in 0..BATCH {
                    assert!(matches!(black_box(stealer.steal()), Steal::Success(_)));
                }
                spent += start.elapsed();
            }
            spent
        })
    });
    group.finish();
}

/// Times `iters` runs of `op` (called on a worker of the pool being measured).
fn timed(iters: u64, op: impl Fn()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        op();
    }
    start.elapsed()
}

fn join(c: &mut Criterion) {
    let mut group = c.benchmark_group("join");
    group.throughput(Throughput::Elements(1));
    let pool = locus_pool();
    group.bench_function("empty/locus", |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                timed(iters, || {
                    black_box(locus::join(|| black_box(1), || black_box(2)));
                })
            })
        })
    });
    drop(pool);
    let pool = rayon_pool();
    group.bench_function("empty/rayon", |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                timed(iters, || {
                    black_box(rayon::join(|| black_box(1), || black_box(2)));
                })
            })
        })
    });
    group.finish();
}

fn scope(c: &mut Criterion) {
    let mut group = c.benchmark_group("scope");
    group.throughput(Throughput::Elements(BATCH as u64));
    let pool = locus_pool();
    group.bench_function("spawn/locus", |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                timed(iters, || {
                    locus::scope(|s| {
                        for i in 0..BATCH {
                            s.spawn(move |_| {
                                black_box(i);
                            });
                        }
                    })
                })
            })
        })
    });
    drop(pool);
    let pool = rayon_pool();
    group.bench_function("spawn/rayon", |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                timed(iters, || {
                    rayon::scope(|s| {
                        for i in 0..BATCH {
                            s.spawn(move |_| {
                                black_box(i);
                            });
                        }
                    })
                })
            })
        })
    });
    group.finish();
}

fn chunks(c: &mut Criterion) {
    let mut group = c.benchmark_group("loop");
    group.throughput(Throughput::Elements(BATCH as u64));
    let pool = locus_pool();
    group.bench_function("chunk/locus", |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                timed(iters, || {
                    locus::for_range(0..BATCH, 1, |r| {
                        black_box(r);
                    })
                })
            })
        })
    });
    drop(pool);
    let pool = rayon_pool();
    group.bench_function("chunk/rayon", |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                timed(iters, || {
                    (0..BATCH).into_par_iter().with_max_len(1).for_each(|i| {
                        black_box(i);
                    })
                })
            })
        })
    });
    group.finish();
}

/// The virtual machine of the `policy` group: two squads of one worker.
const POLICY_MACHINE: &str = "2x1";

/// The policies whose costs the simulator charges, as `--policy` spells them.
const POLICIES: [&str; 4] = ["ws", "cats", "cab", "mts"];

/// `fib(n)` with a `join` at every call.
fn fib(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = locus::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Tasks of `fib(n)`'s tree of joins: the root and both halves of every join.
fn fib_tasks(n: u32) -> u64 {
    if n < 2 {
        1
    } else {
        1 + fib_tasks(n - 1) + fib_tasks(n - 2)
    }
}

/// Times `iters` batches of [`BATCH`] children of one root through `op`, each batch on
/// a policy `kind` built afresh over `map`.
fn policy_calls(
    iters: u64,
    kind: &PolicyKind,
    map: &WorkerMap,
    op: impl Fn(&dyn Policy, &TaskInfo, &TaskInfo),
) -> Duration {
    let root = TaskInfo {
        id: TaskId(1),
        level: 0,
        loop_chunks: 0,
    };
    let mut spent = Duration::ZERO;
    for _ in 0..iters {
        let policy = kind.build(map);
        let start = Instant::now();
        for i in 0..BATCH as u32 {
            let child = TaskInfo {
                id: root.id.child(i),
                level: 1,
                loop_chunks: 0,
            };
            op(&*policy, &root, black_box(&child));
        }
        spent += start.elapsed();
    }
    spent
}

fn policy(c: &mut Criterion) {
    let topology = Topology::parse_spec(POLICY_MACHINE).expect("the virtual machine parses");
    let map = WorkerMap::new(&topology, THREADS);
    let mut group = c.benchmark_group("policy");
    group.throughput(Throughput::Elements(BATCH as u64));
    for name in &POLICIES[1..] {
        let kind: PolicyKind = name.parse().expect("a policy");
        group.bench_function(format!("place/{name}"), |b| {
            b.iter_custom(|iters| {
                policy_calls(iters, &kind, &map, |p, parent, task| {
                    black_box(p.place(0, parent, task));
                })
            })
        });
        group.bench_function(format!("events/{name}"), |b| {
            b.iter_custom(|iters| {
                policy_calls(iters, &kind, &map, |p, parent, task| {
                    black_box(p.place(0, parent, task));
                    p.task_started(0, task, Source::Inline);
                    let begin = Instant::now();
                    let cost = TaskCost {
                        nanos: begin.elapsed().as_nanos() as u64,
                        ..TaskCost::default()
                    };
                    p.task_finished(0, task, Some(&cost));
                })
            })
        });
        group.bench_function(format!("events_plain/{name}"), |b| {
            b.iter_custom(|iters| {
                policy_calls(iters, &kind, &map, |p, parent, task| {
                    black_box(p.place(0, parent, task));
                    p.task_started(0, task, Source::Inline);
                    p.task_finished(0, task, None);
                })
            })
        });
    }
    const N: u32 = 15;
    group.throughput(Throughput::Elements(fib_tasks(N)));
    for name in POLICIES {
        let pool = ThreadPoolBuilder::new()
            .num_threads(THREADS)
            .topology(topology.clone())
            .policy(name.parse().expect("a policy"))
            .pin(false)
            .build()
            .expect("the locus pool builds");
        group.bench_function(format!("tree/{name}"), |b| {
            b.iter_custom(|iters| {
                pool.install(|| timed(iters, || assert_eq!(fib(black_box(N)), 610)))
            })
        });
    }
    // A one-shot tree: the first run of a fresh pool (cats and cab profiling it, mts
    // noting it), the pool built outside the timing.
    const FIRST: u32 = 20;
    group.throughput(Throughput::Elements(fib_tasks(FIRST)));
    group.sample_size(20);
    for name in POLICIES {
        let kind: PolicyKind = name.parse().expect("a policy");
        group.bench_function(format!("first_tree/{name}"), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let pool = ThreadPoolBuilder::new()
                        .num_threads(THREADS)
                        .topology(topology.clone())
                        .policy(kind.clone())
                        .pin(false)
                        .build()
                        .expect("the locus pool builds");
                    spent += pool.install(|| timed(1, || assert_eq!(fib(black_box(FIRST)), 6765)));
                }
                spent
            })
        });
    }
    group.finish();
}

criterion_group!(benches, deque, join, scope, chunks, policy);
criterion_main!(benches);
