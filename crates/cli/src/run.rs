//! `locus run [--policy P] [--machine M] [--threads N] [--stats] -- PROGRAM ARGS`: runs an
//! OpenMP program built with `gcc -fopenmp` on locus's libgomp (crates/omp).
//!
//! The library is found with `--library` (or `LOCUS_OMP_LIB`: the file, or a folder
//! holding it), else beside this binary (`liblocus_omp.so`, then `deps/`, as cargo
//! leaves it, then `../lib/locus/`). It is linked under the name `libgomp.so.1` in a
//! private folder put first on `LD_LIBRARY_PATH`, with `LD_BIND_NOW=1` so that a missing
//! entry point fails at load, naming the symbol. The flags become `LOCUS_POLICY`,
//! `LOCUS_TOPOLOGY`, `OMP_NUM_THREADS` and `LOCUS_STATS`; each is checked here first,
//! so a bad one is refused before the program starts (exit 2). `locus run` exits with
//! the program's status (128 + the signal if a signal ended it).

use crate::cli::RunArgs;
use crate::failure::Failure;
use anyhow::{anyhow, Context};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The library's file name as cargo builds it.
const LIBRARY: &str = "liblocus_omp.so";

/// Runs the program; returns only on failure to start it (else exits with its status).
pub(crate) fn run(args: &RunArgs) -> Result<(), Failure> {
    let env = settings(args).map_err(Failure::Input)?;
    let library = find_library(args.library.as_deref()).map_err(Failure::Input)?;
    let dir = std::env::temp_dir().join(format!("locus-run-{}", std::process::id()));
    let status = (|| {
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
        let link = dir.join("libgomp.so.1");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&library, &link)
            .with_context(|| format!("cannot link {} to {}", link.display(), library.display()))?;
        let mut path = OsString::from(&dir);
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
            path.push(":");
            path.push(old);
        }
        let (program, rest) = args.command.split_first().expect("clap requires PROGRAM");
        std::process::Command::new(program)
            .args(rest)
            .env("LD_LIBRARY_PATH", path)
            .env("LD_BIND_NOW", "1")
            .envs(env)
            .status()
            .with_context(|| format!("cannot run {}", Path::new(program).display()))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    let status = status.map_err(Failure::Input)?;
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    std::process::exit(code)
}

/// The environment the flags give, each value checked.
fn settings(args: &RunArgs) -> anyhow::Result<Vec<(&'static str, String)>> {
    let mut env = Vec::new();
    if let Some(p) = &args.policy {
        p.parse::<locus::PolicyKind>()
            .map_err(|e| anyhow!("--policy {p:?}: {e}"))?;
        env.push(("LOCUS_POLICY", p.clone()));
    }
    if let Some(m) = &args.machine {
        locus::Topology::parse_spec(m)
            .map_err(|e| anyhow!("--machine {m:?}: {}", locus::error_chain(&e)))?;
        env.push(("LOCUS_TOPOLOGY", m.clone()));
    }
    if let Some(n) = args.threads {
        if n == 0 || n > locus::MAX_THREADS {
            return Err(anyhow!(
                "--threads {n}: expected 1..={} threads",
                locus::MAX_THREADS
            ));
        }
        env.push(("OMP_NUM_THREADS", n.to_string()));
    }
    if args.stats {
        env.push(("LOCUS_STATS", "1".to_string()));
    }
    Ok(env)
}

/// The library to run with (see the module docs).
fn find_library(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        let file = if path.is_dir() {
            path.join(LIBRARY)
        } else {
            path.to_path_buf()
        };
        if !file.is_file() {
            return Err(anyhow!(
                "--library {}: no such library (expected {LIBRARY} or a folder holding it)",
                path.display()
            ));
        }
        return file
            .canonicalize()
            .with_context(|| format!("--library {}", path.display()));
    }
    let exe = std::env::current_exe().context("cannot find the locus binary's folder")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    [
        dir.join(LIBRARY),
        dir.join("deps").join(LIBRARY),
        dir.join("../lib/locus").join(LIBRARY),
    ]
    .into_iter()
    .find(|p| p.is_file())
    .and_then(|p| p.canonicalize().ok())
    .ok_or_else(|| {
        anyhow!(
            "cannot find locus's libgomp ({LIBRARY}) beside {}: build it with \
             `cargo build --release -p locus-omp`, or give --library",
            exe.display()
        )
    })
}
