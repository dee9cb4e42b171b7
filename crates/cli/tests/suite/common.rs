//! Helpers shared by the `locus` binary's end-to-end tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `locus` with `args`, with the `LOCUS_*` variables (which flags fall back to)
/// removed so that the caller's environment cannot change the outcome.
pub(crate) fn locus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_locus"))
        .args(args)
        .env_remove("LOCUS_NUM_THREADS")
        .env_remove("LOCUS_POLICY")
        .env_remove("LOCUS_TOPOLOGY")
        .env_remove("RUST_LOG")
        .output()
        .expect("cannot start the locus binary")
}

/// Output bytes as text.
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder for one test's files.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locus-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create a scratch folder");
    dir
}

/// Bad input: exit status 2, an error (no panic) naming each of `names`, and nothing on
/// stdout.
pub(crate) fn refused(args: &[&str], names: &[&str]) {
    let out = locus(args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    for n in names {
        assert!(stderr.contains(n), "{args:?}: {n:?} not named in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed: {}",
        text(&out.stdout)
    );
}
