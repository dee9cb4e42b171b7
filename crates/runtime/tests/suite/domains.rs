//! Pools per domain: every task of a domain's pool, and every task it spawns through
//! `join`, `scope`, `for_range` or a parallel iterator, runs on that pool's workers,
//! pinned to that pool's CPUs, and nowhere else.

use locus::counters::CounterKind;
use locus::domains::{self, Domain, DomainPool};
use locus::prelude::*;
use locus::{Pinning, PolicyKind, ThreadPoolBuilder, Topology};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every policy: the plain ones, `ws:near` (which deals the top of every tree to the
/// pool's squads) and the two that measure tasks.
fn policies() -> Vec<PolicyKind> {
    let mut all = PolicyKind::ALL.to_vec();
    all.push(PolicyKind::WsNear);
    all.push("cab".parse().expect("cab"));
    all.push("cats".parse().expect("cats"));
    all
}

/// Asserts that the calling thread is a worker of `pools[me]` and of no other pool,
/// and that its CPU mask is the one its pool pinned it to; counts the call.
fn check_here(pools: &[DomainPool], me: usize, count: &[AtomicUsize]) {
    let d = &pools[me];
    let w = d
        .current_thread_index()
        .unwrap_or_else(|| panic!("a task of pool {me} runs off its workers"));
    assert!(w < d.num_threads());
    assert_eq!(locus::current_worker_index(), Some(w));
    for (i, other) in pools.iter().enumerate() {
        if i != me {
            assert_eq!(
                other.current_thread_index(),
                None,
                "a task of pool {me} runs on pool {i}"
            );
        }
    }
    let pinned = d.worker_cpus(w);
    if !pinned.is_empty() {
        assert!(pinned.iter().all(|c| d.cpus().contains(c)));
        let mask = locus_topo::allowed_cpus().expect("affinity readable");
        assert_eq!(mask, pinned, "worker {w} of pool {me}: its CPU mask");
    }
    count[me].fetch_add(1, Ordering::Relaxed);
}

/// A little of everything a task may spawn, each piece checking where it runs.
fn work(pools: &[DomainPool], me: usize, count: &[AtomicUsize]) -> u64 {
    check_here(pools, me, count);
    let (a, b) = locus::join(
        || {
            check_here(pools, me, count);
            1u64
        },
        || {
            check_here(pools, me, count);
            2u64
        },
    );
    locus::scope(|s| {
        for _ in 0..8 {
            s.spawn(|_| check_here(pools, me, count));
        }
    });
    locus::for_range(0..64, 4, |_| check_here(pools, me, count));
    let v: Vec<u64> = (0..1000).collect();
    let sum: u64 = v
        .par_iter()
        .map(|x| {
            check_here(pools, me, count);
            *x
        })
        .sum();
    a + b + sum
}

fn run_and_check(pools: &[DomainPool], what: &str) {
    let count: Vec<AtomicUsize> = pools.iter().map(|_| AtomicUsize::new(0)).collect();
    for _ in 0..3 {
        let sums = domains::run_each(pools, |d| work(pools, d.index(), &count));
        assert_eq!(sums, vec![3 + 499_500; pools.len()], "{what}");
    }
    for (i, c) in count.iter().enumerate() {
        // Each round: the root, 2 join halves, 8 spawns, 16 chunks, 1000 items.
        assert_eq!(c.load(Ordering::Relaxed), 3 * 1027, "{what}: pool {i}");
    }
}

#[test]
fn every_task_of_a_domains_pool_runs_on_its_workers_under_every_policy() {
    for policy in policies() {
        for (machine, domain, pools_expected) in [
            ("opteron-8380", Domain::Package, 4),
            ("2x2", Domain::Package, 2),
            ("2x2", Domain::Squad, 2),
            ("2x2", Domain::Numa, 1),
        ] {
            let what = format!("{policy} on {machine} per {domain}");
            let pools = ThreadPoolBuilder::new()
                .num_threads(2)
                .policy(policy.clone())
                .counters(CounterKind::Declared)
                .topology(Topology::parse_spec(machine).expect("valid machine"))
                .build_per_domain(domain)
                .unwrap_or_else(|e| panic!("{what}: {}", locus::error_chain(&e)));
            assert_eq!(pools.len(), pools_expected, "{what}");
            for (i, d) in pools.iter().enumerate() {
                assert_eq!(d.index(), i);
                assert_eq!(d.domain(), domain);
                assert_eq!(d.num_threads(), 2);
                assert_eq!(d.policy_name(), policy.to_string());
            }
            run_and_check(&pools, &what);
        }
    }
}

#[test]
fn a_domains_pool_has_one_worker_per_pu_and_the_domains_part_of_the_machine() {
    let machine = Topology::parse_spec("opteron-8380").expect("preset");
    let pools = ThreadPoolBuilder::new()
        .topology(machine.clone())
        .build_per_domain(Domain::Package)
        .expect("pools build");
    assert_eq!(pools.len(), 4);
    for (p, d) in pools.iter().enumerate() {
        assert_eq!(d.pus(), &machine.packages()[p].pus[..]);
        assert_eq!(d.num_threads(), 4);
        assert_eq!(d.topology().num_pus(), 4);
        assert_eq!(d.topology().num_packages(), 1);
        assert_eq!(d.num_squads(), 1);
    }
    run_and_check(&pools, "opteron-8380 per package, one worker per PU");

    // Virtual machine: the workers are dealt over the allowed CPUs by their PU in the
    // whole machine, as one pool over it would deal them.
    let allowed = locus_topo::allowed_cpus().expect("affinity readable");
    for d in &pools {
        for w in 0..d.num_threads() {
            let pu = d.pus()[w];
            assert_eq!(d.worker_cpus(w), &[allowed[pu % allowed.len()]]);
        }
    }
}

#[test]
fn squad_pinning_inside_a_domains_pool_keeps_to_the_domain() {
    let pools = ThreadPoolBuilder::new()
        .pinning(Pinning::Squad)
        .topology(Topology::parse_spec("opteron-8380").expect("preset"))
        .build_per_domain(Domain::Squad)
        .expect("pools build");
    assert_eq!(pools.len(), 4);
    run_and_check(&pools, "opteron-8380 per squad, pinned per squad");
    let pools = ThreadPoolBuilder::new()
        .pinning(Pinning::None)
        .topology(Topology::parse_spec("2x2").expect("shorthand"))
        .build_per_domain(Domain::Package)
        .expect("pools build");
    assert!(pools.iter().all(|d| d.cpus().is_empty()));
    run_and_check(&pools, "2x2 per package, unpinned");
}

#[test]
fn pools_on_this_machine_are_pinned_to_their_domains_cpus() {
    let machine = Topology::discover().expect("this machine");
    for domain in [Domain::Numa, Domain::Package, Domain::Squad] {
        let pools = ThreadPoolBuilder::new()
            .build_per_domain(domain)
            .expect("pools build");
        let expected = match domain {
            Domain::Numa => machine.num_numa_nodes(),
            Domain::Package => machine.num_packages(),
            Domain::Squad => machine.cache_domains().len(),
        };
        assert_eq!(pools.len(), expected);
        let mut all_pus = Vec::new();
        for d in &pools {
            let cpus: Vec<usize> = d
                .pus()
                .iter()
                .filter_map(|&p| machine.pus()[p].os_index)
                .collect();
            let mut sorted = cpus.clone();
            sorted.sort_unstable();
            assert_eq!(d.cpus(), &sorted[..], "pool {} per {domain}", d.index());
            let own: Vec<Option<usize>> = d.topology().pus().iter().map(|p| p.os_index).collect();
            assert_eq!(own, cpus.into_iter().map(Some).collect::<Vec<_>>());
            all_pus.extend_from_slice(d.pus());
        }
        all_pus.sort_unstable();
        assert_eq!(all_pus, (0..machine.num_pus()).collect::<Vec<_>>());
        run_and_check(&pools, &format!("this machine per {domain}"));
    }
}

#[test]
fn run_each_from_a_worker_of_one_of_the_pools_runs_its_share_in_place() {
    let pools = ThreadPoolBuilder::new()
        .num_threads(1)
        .topology(Topology::parse_spec("2x2").expect("shorthand"))
        .build_per_domain(Domain::Package)
        .expect("pools build");
    // One worker per pool: the share of the caller's own pool could not run if it were
    // queued behind the caller.
    let got = pools[1].install(|| {
        domains::run_each(&pools, |d| {
            assert!(d.current_thread_index().is_some());
            d.index() + 100
        })
    });
    assert_eq!(got, [100, 101]);
    // The caller, pool 0's only worker, serves its pool while it waits: a share of
    // pool 1 that sends work to pool 0 gets it done.
    let got = pools[0].install(|| {
        domains::run_each(&pools, |d| {
            let there = pools[0].install(|| pools[0].current_thread_index());
            (d.index(), there)
        })
    });
    assert_eq!(got, [(0, Some(0)), (1, Some(0))]);
    // And one pool's task may send work to another.
    let other = pools[0].install(|| pools[1].install(|| pools[1].current_thread_index()));
    assert_eq!(other, Some(0));
}

#[test]
fn a_panic_in_one_pool_reaches_the_caller_after_all_have_run() {
    let pools = ThreadPoolBuilder::new()
        .num_threads(1)
        .topology(Topology::parse_spec("2x2").expect("shorthand"))
        .build_per_domain(Domain::Package)
        .expect("pools build");
    let ran = AtomicUsize::new(0);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        domains::run_each(&pools, |d| {
            ran.fetch_add(1, Ordering::SeqCst);
            if d.index() == 0 {
                panic!("pool zero fails");
            }
        })
    }));
    let payload = caught.expect_err("the panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"pool zero fails"));
    assert_eq!(ran.load(Ordering::SeqCst), 2);
    // Both pools still work.
    assert_eq!(domains::run_each(&pools, |d| d.index()), [0, 1]);
}

#[test]
fn bad_settings_are_errors_that_name_them() {
    let err = ThreadPoolBuilder::new()
        .num_threads(0)
        .topology(Topology::parse_spec("2x2").expect("shorthand"))
        .build_per_domain(Domain::Package)
        .expect_err("zero threads");
    assert!(err.to_string().contains("at least one thread"), "{err}");
    let err = "socket".parse::<Domain>().expect_err("not a domain");
    assert!(
        err.contains("\"socket\"") && err.contains("numa, package, squad"),
        "{err}"
    );
    for name in Domain::NAMES {
        assert_eq!(
            name.parse::<Domain>().map(|d| d.to_string()),
            Ok(name.into())
        );
    }
}

#[test]
fn run_with_moves_one_input_to_each_pool_as_zip_pairs_them() {
    let pools = ThreadPoolBuilder::new()
        .num_threads(2)
        .topology(Topology::parse_spec("opteron-8380").expect("preset"))
        .build_per_domain(Domain::Package)
        .expect("pools build");
    let count: Vec<AtomicUsize> = pools.iter().map(|_| AtomicUsize::new(0)).collect();
    let mut data: Vec<u64> = vec![0; 4000];
    let got = domains::run_with(&pools, data.chunks_mut(1000), |d, mine| {
        mine.par_iter_mut().for_each(|x| {
            check_here(&pools, d.index(), &count);
            *x = d.index() as u64;
        });
        mine.len()
    });
    assert_eq!(got, [1000; 4]);
    for (p, part) in data.chunks(1000).enumerate() {
        assert!(part.iter().all(|&x| x == p as u64));
        assert_eq!(count[p].load(Ordering::Relaxed), 1000);
    }
    // Fewer inputs than pools: the pools without one run nothing.
    let got = domains::run_with(&pools, ["a", "b"], |d, s| format!("{s}{}", d.index()));
    assert_eq!(got, ["a0", "b1"]);
    // More inputs than pools: the extra ones are not used.
    let got = domains::run_with(&pools, 10..20, |_, i| i);
    assert_eq!(got, [10, 11, 12, 13]);
}
