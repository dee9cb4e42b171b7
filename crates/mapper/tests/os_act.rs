//! The actuator: moves reach only observed threads of the selected processes, never
//! leave a thread's original allowed set, survive threads that vanish or may not be
//! changed, and `restore` puts the original masks back. All on a fake affinity backend,
//! except the last test, which pins a thread of this test process within its own allowed
//! set and restores it. Its own test binary, so that no other test's threads take the
//! ids that test watches.

mod os_common;

use locus_mapper::act::{Actuator, Outcome, Restored, SystemCpuBinding};
use locus_mapper::procs::allowed_cpus;
use locus_mapper::Move;
use os_common::FakeCpuBinding;
use std::sync::mpsc;

fn mv(pid: u32, tid: u32, cpus: &[usize]) -> Move {
    Move {
        pid,
        tid,
        cpus: cpus.to_vec(),
        reason: "test".into(),
    }
}

fn outcomes(act: &mut Actuator<FakeCpuBinding>, moves: &[Move]) -> Vec<Outcome> {
    act.apply(moves).into_iter().map(|a| a.outcome).collect()
}

fn moved(cpus: &[usize]) -> Outcome {
    Outcome::Moved {
        cpus: cpus.to_vec(),
    }
}

/// Process 10 with threads 10, 11 allowed 0-3; process 20 with thread 20 allowed 4-7.
fn machine() -> FakeCpuBinding {
    FakeCpuBinding::default()
        .with(10, &[10, 11], &[0, 1, 2, 3])
        .with(20, &[20], &[4, 5, 6, 7])
}

#[test]
fn moves_reach_only_observed_threads_of_their_process() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 10), (10, 11)]);
    let got = outcomes(
        &mut act,
        &[
            mv(10, 11, &[2]),
            mv(20, 20, &[4]), // process 20 is not selected
            mv(20, 11, &[1]), // thread 11 does not belong to process 20
            mv(10, 99, &[0]), // no such thread observed
        ],
    );
    assert_eq!(got[0], moved(&[2]));
    for o in &got[1..] {
        assert!(
            matches!(o, Outcome::Skipped { why } if why.contains("not a thread of a selected process")),
            "{o:?}"
        );
    }
    assert_eq!(act.affinity().sets, [(11, vec![2])]);
    assert_eq!(act.affinity().mask(20), Some(&[4, 5, 6, 7][..]));
}

#[test]
fn moves_never_leave_the_original_allowed_set() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 10), (10, 11), (20, 20)]);
    let got = outcomes(
        &mut act,
        &[
            mv(10, 10, &[3, 2, 4, 5, 2]), // partly outside: intersected, sorted, deduplicated
            mv(20, 20, &[0, 1]),          // wholly outside: skipped
        ],
    );
    assert_eq!(got[0], moved(&[2, 3]));
    assert!(
        matches!(&got[1], Outcome::Skipped { why } if why.contains("none of CPUs 0-1") && why.contains("4-7")),
        "{:?}",
        got[1]
    );
    assert_eq!(act.affinity().sets, [(10, vec![2, 3])]);
    // After a move, the allowed set is still the original one, not the narrowed mask.
    let got = outcomes(&mut act, &[mv(10, 10, &[0, 1])]);
    assert_eq!(got[0], moved(&[0, 1]));
    assert_eq!(act.original(10), Some(&[0, 1, 2, 3][..]));
}

#[test]
fn restore_puts_the_original_masks_back() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 10), (10, 11), (20, 20)]);
    act.apply(&[mv(10, 10, &[0]), mv(10, 11, &[1]), mv(20, 20, &[7])]);
    assert_eq!(act.affinity().mask(10), Some(&[0][..]));
    let done = act.restore();
    assert_eq!(
        done,
        Restored {
            restored: 3,
            gone: 0,
            failed: 0
        }
    );
    assert_eq!(act.affinity().mask(10), Some(&[0, 1, 2, 3][..]));
    assert_eq!(act.affinity().mask(11), Some(&[0, 1, 2, 3][..]));
    assert_eq!(act.affinity().mask(20), Some(&[4, 5, 6, 7][..]));
    // Nothing left to restore the second time; unchanged threads are never touched.
    let sets = act.affinity().sets.len();
    assert_eq!(act.restore(), Restored::default());
    assert_eq!(act.affinity().sets.len(), sets);
}

#[test]
fn restore_reaches_changed_threads_that_left_the_selection() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 10), (10, 11)]);
    act.apply(&[mv(10, 11, &[3])]);
    // Thread 11 no longer listed (its process changed its name, say), but alive.
    act.observe([(10, 10)]);
    let got = outcomes(&mut act, &[mv(10, 11, &[2])]);
    assert!(matches!(got[0], Outcome::Skipped { .. }), "{got:?}");
    assert_eq!(act.restore().restored, 1);
    assert_eq!(act.affinity().mask(11), Some(&[0, 1, 2, 3][..]));
}

#[test]
fn threads_that_vanish_are_dropped_silently() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 10), (10, 11)]);
    act.apply(&[mv(10, 10, &[1]), mv(10, 11, &[1])]);
    // Thread 11 exits; then a move for thread 10 finds it gone too.
    act.affinity_mut().threads.remove(&11);
    act.affinity_mut().threads.remove(&10);
    let got = outcomes(&mut act, &[mv(10, 10, &[2])]);
    assert_eq!(got, [Outcome::Gone]);
    let done = act.restore();
    assert_eq!(
        done,
        Restored {
            restored: 0,
            gone: 1,
            failed: 0
        }
    );
}

#[test]
fn a_recycled_thread_id_is_a_new_thread() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 11)]);
    act.apply(&[mv(10, 11, &[0])]);
    // Thread 11 exits and its id is reused by a thread of process 20.
    act.affinity_mut().threads.insert(11, (20, vec![4, 5]));
    act.observe([(20, 11)]);
    assert_eq!(act.original(11), Some(&[4, 5][..]));
    let got = outcomes(&mut act, &[mv(10, 11, &[0]), mv(20, 11, &[5, 0])]);
    assert!(matches!(got[0], Outcome::Skipped { .. }), "{got:?}");
    assert_eq!(got[1], moved(&[5]));
    // The old thread 11 of process 10 is gone: nothing of it to restore; the new one is
    // restored to its own original mask.
    assert_eq!(act.restore().restored, 1);
    assert_eq!(act.affinity().mask(11), Some(&[4, 5][..]));
}

#[test]
fn a_thread_id_recycled_within_its_process_is_a_new_thread() {
    let mut act = Actuator::new(machine());
    act.observe([(10, 11)]);
    assert_eq!(outcomes(&mut act, &[mv(10, 11, &[0])]), [moved(&[0])]);
    // Thread 11 exits and a new thread of process 10 gets its id, allowed 2-3.
    act.affinity_mut().recycle(11, 10, &[2, 3]);
    // Before the next observation, a move meant for the old thread finds it gone and
    // leaves the new one alone.
    assert_eq!(outcomes(&mut act, &[mv(10, 11, &[0])]), [Outcome::Gone]);
    assert_eq!(act.affinity().mask(11), Some(&[2, 3][..]));
    // Observed, the new thread is a thread of its own: its original mask is its own.
    act.observe([(10, 11)]);
    assert_eq!(act.original(11), Some(&[2, 3][..]));
    assert_eq!(outcomes(&mut act, &[mv(10, 11, &[0, 3])]), [moved(&[3])]);
    assert_eq!(act.restore().restored, 1);
    assert_eq!(act.affinity().mask(11), Some(&[2, 3][..]));

    // Recycled after a move and before `restore`: the old thread's mask is not handed
    // to the new one.
    let mut act = Actuator::new(machine());
    act.observe([(10, 10)]);
    assert_eq!(outcomes(&mut act, &[mv(10, 10, &[1])]), [moved(&[1])]);
    act.affinity_mut().recycle(10, 10, &[3]);
    assert_eq!(
        act.restore(),
        Restored {
            restored: 0,
            gone: 1,
            failed: 0
        }
    );
    assert_eq!(act.affinity().mask(10), Some(&[3][..]));
    // And an observation that finds the id's start changed forgets the old thread.
    let mut act = Actuator::new(machine());
    act.observe([(10, 10)]);
    assert_eq!(outcomes(&mut act, &[mv(10, 10, &[1])]), [moved(&[1])]);
    act.affinity_mut().recycle(10, 10, &[0, 2]);
    act.observe([(10, 10)]);
    assert_eq!(act.original(10), Some(&[0, 2][..]));
    assert_eq!(
        act.restore().restored,
        0,
        "the new thread was never changed"
    );
}

#[test]
fn threads_that_may_not_be_changed_are_errors_and_the_rest_carry_on() {
    let mut fake = machine();
    fake.protected.insert(20);
    let mut act = Actuator::new(fake);
    act.observe([(10, 10), (20, 20)]);
    let got = outcomes(&mut act, &[mv(20, 20, &[4]), mv(10, 10, &[0])]);
    assert!(
        matches!(&got[0], Outcome::Failed { error } if error.contains("not permitted")),
        "{got:?}"
    );
    assert_eq!(got[1], moved(&[0]));
}

/// The real system calls, on a thread of this test process: pin it to one CPU of its own
/// allowed set, check, restore, check.
#[test]
fn a_thread_of_this_process_is_pinned_and_restored() {
    let (tid_tx, tid_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
        let link = std::fs::read_link("/proc/thread-self").unwrap();
        let tid: u32 = link.file_name().unwrap().to_str().unwrap().parse().unwrap();
        tid_tx.send(tid).unwrap();
        done_rx.recv().unwrap();
    });
    let tid = tid_rx.recv().unwrap();
    let pid = std::process::id();
    let original = allowed_cpus(tid).unwrap();
    let target = *original.last().unwrap();

    let mut act = Actuator::new(SystemCpuBinding::new());
    act.observe([(pid, tid)]);
    assert_eq!(act.original(tid), Some(original.as_slice()));
    let got: Vec<Outcome> = act
        .apply(&[mv(pid, tid, &[target, usize::MAX / 2])])
        .into_iter()
        .map(|a| a.outcome)
        .collect();
    assert_eq!(got, [moved(&[target])]);
    assert_eq!(allowed_cpus(tid).unwrap(), [target]);
    assert_eq!(act.restore().restored, 1);
    assert_eq!(allowed_cpus(tid).unwrap(), original);

    // Moved again, then the thread exits: a move for its id finds it gone. (The test
    // harness starts threads for other tests, and the kernel may give the id to one of
    // them at once: a start time in the same clock tick cannot be told from the old
    // thread's, so then the move reaches that thread of this process, within the same
    // allowed set, and `restore` gives it that set back.)
    assert_eq!(
        act.apply(&[mv(pid, tid, &[target])])[0].outcome,
        Outcome::Moved { cpus: vec![target] }
    );
    done_tx.send(()).unwrap();
    worker.join().unwrap();
    let got: Vec<Outcome> = act
        .apply(&[mv(pid, tid, &[target])])
        .into_iter()
        .map(|a| a.outcome)
        .collect();
    let reused = std::path::Path::new(&format!("/proc/self/task/{tid}")).exists();
    if got == [Outcome::Gone] {
        assert_eq!(
            act.restore(),
            Restored::default(),
            "forgotten when found gone"
        );
    } else {
        assert!(reused, "moved a thread id nobody holds: {got:?}");
        assert_eq!(act.restore().restored, 1);
        assert_eq!(allowed_cpus(tid).unwrap(), original);
    }
}
