//! Process and thread selection from `/proc`: `stat` and `status` parsing on recorded
//! lines (good ones, command names with spaces and parentheses, truncated and broken
//! ones), selection on a recorded `/proc` tree (`tests/data/proc/`), and the affinity
//! read of a real thread.

use locus_mapper::procs::{
    allowed_cpus, parse_stat, parse_status_uid, Caller, ProcError, Procfs, Selection, Stat,
};
use std::path::PathBuf;

/// A line recorded on this project's machine (`cat /proc/self/stat`).
const CAT: &str = "24186 (cat) R 24184 24184 16007 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 937415 \
    3133440 390 18446744073709551615 94522830209024 94522830228905 140730035338576 0 0 0 0 0 0 0 0 \
    0 17 1 0 0 0 0 0 94522830244912 94522830246528 94523132190720 140730035342021 140730035342041 \
    140730035342041 140730035343339 0\n";
/// kthreadd, recorded on the same machine: flags 0x208040 hold PF_KTHREAD.
const KTHREADD: &str = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 21 0 0 \
    18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0";

fn tree() -> Procfs {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "data", "proc"]
        .iter()
        .collect();
    Procfs::at(root)
}

/// A caller that is none of the recorded processes, running as uid 1000.
const USER_1000: Caller = Caller {
    pid: 99_999,
    uid: 1000,
};

fn stat_error(line: &str) -> String {
    match parse_stat(line) {
        Err(e @ ProcError::Stat { .. }) => e.to_string(),
        other => panic!("{line:?}: expected a stat error, got {other:?}"),
    }
}

#[test]
fn recorded_stat_lines_parse() {
    assert_eq!(
        parse_stat(CAT).unwrap(),
        Stat {
            id: 24186,
            comm: "cat".into(),
            state: 'R',
            flags: 4_194_304,
            start_time: Some(937_415),
            processor: Some(1),
        }
    );
    let k = parse_stat(KTHREADD).unwrap();
    assert_eq!(
        (k.id, k.comm.as_str(), k.state, k.processor),
        (2, "kthreadd", 'S', Some(1))
    );
    assert!(k.is_kernel_thread());
    assert!(!parse_stat(CAT).unwrap().is_kernel_thread());
}

#[test]
fn command_names_with_spaces_and_parentheses() {
    // The kernel prints comm verbatim between parentheses: "(", ")" and spaces included.
    let rest = CAT.split_once(')').unwrap().1;
    for comm in ["my prog", "a) b (c", ") R 1 2 3", "((()))", "x)", " ", ""] {
        let line = format!("77 ({comm}){rest}");
        let stat = parse_stat(&line).unwrap_or_else(|e| panic!("{comm:?}: {e}"));
        assert_eq!(stat.comm, comm);
        assert_eq!((stat.id, stat.state, stat.processor), (77, 'R', Some(1)));
    }
}

#[test]
fn short_lines_lack_only_what_they_lack() {
    let fields: Vec<&str> = CAT.split_whitespace().collect();
    // Up to field 38: no field 39, which is not an error (old kernels, odd tasks).
    let through_38 = fields[..38].join(" ");
    assert_eq!(parse_stat(&through_38).unwrap().processor, None);
    // Up to field 21: no start time either.
    let through_21 = parse_stat(&fields[..21].join(" ")).unwrap();
    assert_eq!((through_21.start_time, through_21.processor), (None, None));
    assert_eq!(
        parse_stat(&fields[..22].join(" ")).unwrap().start_time,
        Some(937_415)
    );
    // Up to field 9: the flags are there.
    assert_eq!(parse_stat(&fields[..9].join(" ")).unwrap().flags, 4_194_304);
    // Before field 9: an error naming the flags.
    let err = stat_error(&fields[..8].join(" "));
    assert!(err.contains("before field 9"), "{err}");
}

#[test]
fn broken_stat_lines_are_errors() {
    for (line, says) in [
        ("", "no '('"),
        ("24186 cat R 1", "no '('"),
        ("24186 (cat R 1 2", "no ')'"),
        ("24186 )cat( R", "before '('"),
        ("x (cat) R 1 2 3 4 5 6", "field 1"),
        ("-1 (cat) R 1 2 3 4 5 6", "field 1"),
        ("24186 (cat)", "ends after the command name"),
        ("24186 (cat)   \n", "ends after the command name"),
        ("24186 (cat) RR 1 2 3 4 5 6", "field 3"),
        ("24186 (cat) 7 1 2 3 4 5 6", "field 3"),
        ("24186 (cat) R 1 2 3 4 5 flags", "field 9"),
    ] {
        let err = stat_error(line);
        assert!(err.contains(says), "{line:?}: {err}");
    }
    // Field 39 present but not a number.
    let mut fields: Vec<String> = CAT.split_whitespace().map(str::to_owned).collect();
    fields[38] = "cpu7".into();
    let err = stat_error(&fields.join(" "));
    assert!(err.contains("field 39"), "{err}");
    // Field 22 present but not a number.
    let mut fields: Vec<String> = CAT.split_whitespace().map(str::to_owned).collect();
    fields[21] = "-5".into();
    let err = stat_error(&fields.join(" "));
    assert!(err.contains("field 22"), "{err}");
    // Every prefix of a real line either parses or fails with a stat error.
    for end in 0..CAT.len() {
        match parse_stat(&CAT[..end]) {
            Ok(_) | Err(ProcError::Stat { .. }) => {}
            Err(other) => panic!("{end}: {other:?}"),
        }
    }
}

#[test]
fn status_uids() {
    let text = "Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1001\t1002\t1003\nGid:\t5\t5\t5\t5\n";
    assert_eq!(parse_status_uid(text).unwrap(), 1000);
    for (bad, says) in [
        ("Name:\tbash\n", "no \"Uid:\" line"),
        ("Uid:\n", "real uid \"\""),
        ("Uid:\tme\t1\t1\t1\n", "\"me\""),
    ] {
        let err = parse_status_uid(bad).unwrap_err().to_string();
        assert!(err.contains(says), "{bad:?}: {err}");
    }
}

fn pids(processes: &[locus_mapper::procs::Process]) -> Vec<u32> {
    processes.iter().map(|p| p.pid).collect()
}

#[test]
fn select_by_pid_lists_threads_and_their_cpus() {
    let sel = Selection {
        pids: vec![100],
        ..Selection::default()
    };
    let got = tree().select(&sel, &USER_1000).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].comm, "hubench");
    let threads: Vec<(u32, Option<usize>)> =
        got[0].threads.iter().map(|t| (t.tid, t.cpu)).collect();
    assert_eq!(threads, [(100, Some(3)), (101, Some(4)), (102, Some(5))]);
    // A pid that does not exist is simply not there (it may have exited).
    let sel = Selection {
        pids: vec![100, 12_345],
        ..Selection::default()
    };
    assert_eq!(pids(&tree().select(&sel, &USER_1000).unwrap()), [100]);
}

#[test]
fn select_by_command_name() {
    let by = |names: &[&str]| {
        let sel = Selection {
            comms: names.iter().map(|s| s.to_string()).collect(),
            ..Selection::default()
        };
        pids(&tree().select(&sel, &USER_1000).unwrap())
    };
    // Every user's processes match by name (600 is uid 1001).
    assert_eq!(by(&["hubench"]), [100, 600]);
    assert_eq!(by(&["my prog (v2) )"]), [200]);
    assert_eq!(by(&["my prog"]), Vec::<u32>::new());
    // Longer than the kernel keeps: compared on the first 15 bytes.
    assert_eq!(by(&["a-very-long-program"]), [400]);
    assert_eq!(by(&["membench", "hubench"]), [100, 300, 600]);
    // Kernel threads are never selected, even by name.
    assert_eq!(by(&["kthreadd"]), Vec::<u32>::new());
    // A process with a malformed stat file is left out, not an error.
    assert_eq!(by(&["broken"]), Vec::<u32>::new());
}

#[test]
fn select_by_user_leaves_out_others_and_the_caller() {
    let sel = Selection {
        user: true,
        ..Selection::default()
    };
    assert_eq!(
        pids(&tree().select(&sel, &USER_1000).unwrap()),
        [100, 200, 400]
    );
    // The caller itself is never selected, by uid, name or pid.
    let me = Caller {
        pid: 100,
        uid: 1000,
    };
    assert_eq!(pids(&tree().select(&sel, &me).unwrap()), [200, 400]);
    let sel = Selection {
        pids: vec![100],
        comms: vec!["hubench".into()],
        user: false,
    };
    assert_eq!(pids(&tree().select(&sel, &me).unwrap()), [600]);
    // Root's processes: membench, and not kthreadd.
    let root = Caller { pid: 1, uid: 0 };
    let sel = Selection {
        user: true,
        ..Selection::default()
    };
    assert_eq!(pids(&tree().select(&sel, &root).unwrap()), [300]);
}

#[test]
fn a_selection_names_something_or_is_empty() {
    assert!(Selection::default().is_empty());
    assert!(!Selection {
        user: true,
        ..Selection::default()
    }
    .is_empty());
}

#[test]
fn pids_are_checked_before_the_mapper_starts() {
    let check = |pids: Vec<u32>, caller: &Caller| {
        let sel = Selection {
            pids,
            ..Selection::default()
        };
        tree().check(&sel, caller)
    };
    assert!(check(vec![100, 300], &USER_1000).is_ok());
    let err = check(vec![100, 12_345], &USER_1000).unwrap_err();
    assert!(
        matches!(err, ProcError::NoSuchProcess { pid: 12_345 }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "--pid 12345: no such process");
    let err = check(
        vec![100],
        &Caller {
            pid: 100,
            uid: 1000,
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("mapper's own process"), "{err}");
    let err = check(vec![2], &USER_1000).unwrap_err();
    assert!(
        err.to_string().contains("kthreadd") && err.to_string().contains("kernel thread"),
        "{err}"
    );
    let err = check(vec![500], &USER_1000).unwrap_err();
    assert!(matches!(err, ProcError::Stat { .. }), "{err:?}");
}

#[test]
fn a_missing_root_is_an_error() {
    let procfs = Procfs::at("/nonexistent/locus-test-proc");
    let sel = Selection {
        user: true,
        ..Selection::default()
    };
    let err = procfs.select(&sel, &USER_1000).unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/locus-test-proc"),
        "{err}"
    );
}

#[test]
fn the_real_proc_lists_this_process_and_this_thread() {
    let procfs = Procfs::system();
    let me = std::process::id();
    let tid = u32::try_from(unsafe_free_gettid()).unwrap();
    assert!(procfs.tids(me).unwrap().contains(&tid));
    let stat = procfs.thread_stat(me, tid).unwrap();
    assert_eq!(stat.id, tid);
    assert!(stat.processor.is_some());
    // This thread's allowed CPUs: not empty, and the CPU it runs on is among them.
    let allowed = allowed_cpus(tid).unwrap();
    assert!(!allowed.is_empty());
    assert!(allowed.windows(2).all(|w| w[0] < w[1]), "{allowed:?}");
    // A thread id that does not exist: ESRCH.
    let err = allowed_cpus(i32::MAX as u32).unwrap_err();
    assert!(locus_mapper::procs::is_gone(&err), "{err}");
}

/// The calling thread's id, from `/proc/thread-self` (no unsafe needed).
fn unsafe_free_gettid() -> i64 {
    let link = std::fs::read_link("/proc/thread-self").unwrap();
    link.file_name().unwrap().to_str().unwrap().parse().unwrap()
}
