//! `locus run [--policy P] [--machine M] [--threads N] [--stats] [--library PATH] --
//! PROGRAM ARGS`: runs an OpenMP program built with `gcc -fopenmp` on locus's libgomp
//! (crates/omp).
//!
//! What it guarantees, in the order it does it:
//! 1. Every input is checked before anything is made, and a bad one is named (exit 2):
//!    an unknown flag (clap refuses it rather than take it for the program), `--policy`
//!    (or `LOCUS_POLICY`; `affinity` is refused, the OpenMP library following no
//!    schedule file), `--machine` (or `LOCUS_TOPOLOGY`), `--threads`, and the library
//!    given with `--library` (or `LOCUS_OMP_LIB`: the file, or a folder holding it),
//!    which must be locus's (`library`: an ELF shared object for this machine that
//!    defines `locus_footprint_read`). Without one, the library is found beside this
//!    binary (`liblocus_omp.so`, then `deps/`, as cargo leaves it, then
//!    `../lib/locus/`) and checked the same way; missing or wrong there, the run cannot
//!    be made (exit 3).
//! 2. The library is linked as `libgomp.so.1` in a private folder made for this run
//!    (`folder`: a fresh name, mode 0700, in an existing `$TMPDIR`), put first on
//!    `LD_LIBRARY_PATH`, with `LD_BIND_NOW=1` so that a missing entry point fails at
//!    load, naming the symbol. The flags become `LOCUS_POLICY`, `LOCUS_TOPOLOGY`,
//!    `OMP_NUM_THREADS` and `LOCUS_STATS`. A folder that cannot be made is a run not
//!    made (exit 3), as is a program that cannot start for a reason other than its
//!    path (not found or not executable: exit 2).
//! 3. SIGTERM, SIGINT and SIGHUP sent to `locus run` are passed to the program, which
//!    is waited for (`child`).
//! 4. Under `--stats`, a program that never loaded the library (the library marks its
//!    loading in the file `LOCUS_RUN_LOADED` names) is said to have done so.
//! 5. Only what locus made is removed; then `locus run` exits with the program's
//!    status, or 128 + N if signal N ended it, which it says on stderr.

mod child;
mod folder;
mod library;

use crate::cli::RunArgs;
use crate::failure::Failure;
use crate::given::{flag_or_env, Origin};
use anyhow::{anyhow, Context};
use folder::Folder;
use std::ffi::{OsStr, OsString};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

/// The name of the load mark in the private folder (see the module docs, 4).
const LOADED: &str = "loaded";

/// Runs the program; returns only on failure to start it (else exits with its status).
pub(crate) fn run(args: &RunArgs) -> Result<(), Failure> {
    let env = settings(args).map_err(Failure::Input)?;
    let library = find_library(args.library.as_deref())?;
    let Some((program, rest)) = args.command.split_first() else {
        return Err(Failure::Input(anyhow!("no PROGRAM after --")));
    };
    let mut folder = Folder::new().map_err(Failure::Run)?;
    let ran = launch(&mut folder, &library, program, rest, env, args.stats);
    drop(folder);
    let (status, loaded) = ran?;
    let shown = Path::new(program).display();
    if args.stats && !loaded {
        eprintln!(
            "locus: {shown} never loaded locus's libgomp (statically linked, or not an \
             OpenMP program?), so there are no statistics"
        );
    }
    let code = match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => {
            let name = child::signal_name(signal)
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            let core = if status.core_dumped() {
                ", core dumped"
            } else {
                ""
            };
            eprintln!("locus: {shown} was killed by signal {signal}{name}{core}");
            128 + signal
        }
        (None, None) => 1,
    };
    std::process::exit(code)
}

/// Links the library in `folder`, runs the program and waits for it; returns its status
/// and whether it loaded the library (known only under `stats`).
fn launch(
    folder: &mut Folder,
    library: &Path,
    program: &OsStr,
    rest: &[OsString],
    env: Vec<(&'static str, String)>,
    stats: bool,
) -> Result<(ExitStatus, bool), Failure> {
    folder.link("libgomp.so.1", library).map_err(Failure::Run)?;
    let mut path = OsString::from(folder.path());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let mut command = std::process::Command::new(program);
    command
        .args(rest)
        .env("LD_LIBRARY_PATH", path)
        .env("LD_BIND_NOW", "1")
        .envs(env);
    let mark = folder.entry(LOADED);
    if stats {
        command.env("LOCUS_RUN_LOADED", &mark);
    }
    let status = child::run(&mut command).map_err(|e| {
        let bad_path = matches!(
            e.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
        );
        let e = anyhow!(e).context(format!("cannot run {}", Path::new(program).display()));
        if bad_path {
            Failure::Input(e)
        } else {
            Failure::Run(e)
        }
    })?;
    Ok((status, !stats || mark.exists()))
}

/// The environment the flags give (or, where a flag is absent, that its variable
/// already gives), each value checked.
fn settings(args: &RunArgs) -> anyhow::Result<Vec<(&'static str, String)>> {
    let mut env = Vec::new();
    let as_is = |v: &str| Ok(v.to_owned());
    if let Some(p) = flag_or_env(args.policy.clone(), "--policy", "LOCUS_POLICY", as_is)? {
        check_policy(&p.value).map_err(|e| anyhow!("{}: {e}", p.origin.with(&p.value)))?;
        env.push(("LOCUS_POLICY", p.value));
    }
    if let Some(m) = flag_or_env(args.machine.clone(), "--machine", "LOCUS_TOPOLOGY", as_is)? {
        locus::Topology::parse_spec(&m.value)
            .map_err(|e| anyhow!("{}: {}", m.origin.with(&m.value), locus::error_chain(&e)))?;
        env.push(("LOCUS_TOPOLOGY", m.value));
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
    if let Some(path) = &args.trace {
        // Absolute: the program may change its working folder before its first team.
        let path =
            std::path::absolute(path).map_err(|e| anyhow!("--trace {}: {e}", path.display()))?;
        env.push(("LOCUS_TRACE", path.display().to_string()));
    }
    Ok(env)
}

/// A policy the OpenMP library can run: any the runtime parses but `affinity`.
fn check_policy(p: &str) -> Result<(), String> {
    if p.split(':').next().map(str::trim) == Some("affinity") {
        let names: Vec<&str> = locus_policy::POLICIES
            .iter()
            .filter(|row| row.plain().is_some())
            .map(|row| row.name)
            .collect();
        return Err(format!(
            "affinity follows a schedule file, and locus run's OpenMP library reads none; \
             choose one of {}",
            names.join(", ")
        ));
    }
    p.parse::<locus::PolicyKind>()
        .map(drop)
        .map_err(|e| e.to_string())
}

/// The library to run with, checked to be locus's (see the module docs, 1).
fn find_library(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    let given = match flag {
        Some(path) => Some((path.to_path_buf(), Origin::Flag("--library"))),
        None => std::env::var_os("LOCUS_OMP_LIB")
            .filter(|v| !v.is_empty())
            .map(|v| (PathBuf::from(v), Origin::Env("LOCUS_OMP_LIB"))),
    };
    if let Some((path, origin)) = given {
        let named = origin.with(&path.display().to_string());
        let file = library::given_file(&path);
        if !file.exists() {
            return Err(Failure::Input(anyhow!(
                "{named}: no such library (expected {} or a folder holding it)",
                library::LIBRARY
            )));
        }
        let file = file
            .canonicalize()
            .with_context(|| named.clone())
            .map_err(Failure::Input)?;
        library::check(&file)
            .map_err(|why| Failure::Input(anyhow!("{named}: {}: {why}", file.display())))?;
        return Ok(file);
    }
    let exe = std::env::current_exe()
        .context("cannot find the locus binary's folder")
        .map_err(Failure::Run)?;
    let Some(file) = library::beside(&exe).and_then(|p| p.canonicalize().ok()) else {
        return Err(Failure::Run(anyhow!(
            "cannot find locus's libgomp ({}) beside {}: build it with \
             `cargo build --release -p locus-omp`, or give --library",
            library::LIBRARY,
            exe.display()
        )));
    };
    library::check(&file).map_err(|why| {
        Failure::Run(anyhow!(
            "{}, found beside {}: {why}; give --library",
            file.display(),
            exe.display()
        ))
    })?;
    Ok(file)
}
