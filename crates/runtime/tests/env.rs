//! `LOCUS_*` environment variables: read by `ThreadPoolBuilder::from_env`, and bad
//! values are errors that name the variable and the problem. This file is its own test
//! binary because it changes the process environment.

use locus::ThreadPoolBuilder;
use std::sync::Mutex;

static ENV: Mutex<()> = Mutex::new(());

fn with_env<R>(vars: &[(&str, &str)], f: impl FnOnce() -> R) -> R {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    for (k, v) in vars {
        std::env::set_var(k, v);
    }
    let r = f();
    for (k, _) in vars {
        std::env::remove_var(k);
    }
    r
}

#[test]
fn good_settings_configure_the_pool() {
    let pool = with_env(
        &[
            ("LOCUS_NUM_THREADS", "5"),
            ("LOCUS_POLICY", "mts:2"),
            ("LOCUS_TOPOLOGY", "2x2"),
        ],
        || ThreadPoolBuilder::from_env().unwrap().build().unwrap(),
    );
    assert_eq!(pool.num_threads(), 5);
    assert_eq!(pool.num_squads(), 2);
    assert_eq!(pool.policy_name(), "mts");
}

#[test]
fn bad_settings_name_the_variable() {
    for (var, value, needle) in [
        ("LOCUS_NUM_THREADS", "zero", "positive whole number"),
        ("LOCUS_NUM_THREADS", "0", "at least one"),
        ("LOCUS_NUM_THREADS", "-3", "positive whole number"),
        (
            "LOCUS_POLICY",
            "fifo",
            "policy 'fifo': no policy has this name",
        ),
        ("LOCUS_POLICY", "mts:0", "at least 1"),
        ("LOCUS_TOPOLOGY", "pack:0 pu:1", "pack:0 pu:1"),
        ("LOCUS_TOPOLOGY", "no-such-machine", "no-such-machine"),
        (
            "LOCUS_PIN",
            "core",
            "unknown pinning \"core\": expected one of pu, squad, none",
        ),
    ] {
        let err = with_env(&[(var, value)], || {
            ThreadPoolBuilder::from_env().unwrap_err()
        });
        let text = err.to_string();
        assert!(text.starts_with(&format!("{var}=")), "{text}");
        assert!(text.contains(needle), "{var}={value}: {text}");
    }
}

/// The CPUs each worker of `pool` may run on, as `sched_getaffinity` says inside it.
fn allowed_inside(pool: &locus::ThreadPool) -> Vec<usize> {
    let counts: Vec<std::sync::atomic::AtomicUsize> = (0..pool.num_threads())
        .map(|_| std::sync::atomic::AtomicUsize::new(0))
        .collect();
    pool.broadcast(|i| {
        let n = std::thread::available_parallelism().map_or(0, usize::from);
        counts[i].store(n, std::sync::atomic::Ordering::Relaxed);
    });
    counts.into_iter().map(|c| c.into_inner()).collect()
}

#[test]
fn pinning_per_pu_per_squad_or_none() {
    // Needs two CPUs to tell the three apart.
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if cpus < 2 {
        eprintln!("pinning_per_pu_per_squad_or_none: one CPU here, nothing to compare");
        return;
    }
    let build = |pin: Option<&str>| {
        let vars: Vec<(&str, &str)> = pin.map(|p| ("LOCUS_PIN", p)).into_iter().collect();
        with_env(&vars, || {
            ThreadPoolBuilder::from_env()
                .unwrap()
                .num_threads(2)
                .topology(locus::Topology::parse_spec("1x2").unwrap())
                .build()
                .unwrap()
        })
    };
    // One squad of two workers over two CPUs: per PU each sees one CPU, per squad both.
    assert_eq!(allowed_inside(&build(Some("pu"))), vec![1, 1]);
    assert_eq!(allowed_inside(&build(Some("squad"))), vec![2, 2]);
    assert_eq!(allowed_inside(&build(Some("none"))), vec![cpus, cpus]);
    let default = if locus::DEFAULT_PINNING == locus::Pinning::Squad {
        2
    } else {
        1
    };
    assert_eq!(allowed_inside(&build(None)), vec![default, default]);
    // Two squads of one worker: per squad is per PU.
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .topology(locus::Topology::parse_spec("2x1").unwrap())
        .pinning(locus::Pinning::Squad)
        .build()
        .unwrap();
    assert_eq!(allowed_inside(&pool), vec![1, 1]);
}
