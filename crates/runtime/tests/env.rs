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
    ] {
        let err = with_env(&[(var, value)], || {
            ThreadPoolBuilder::from_env().unwrap_err()
        });
        let text = err.to_string();
        assert!(text.starts_with(&format!("{var}=")), "{text}");
        assert!(text.contains(needle), "{var}={value}: {text}");
    }
}
