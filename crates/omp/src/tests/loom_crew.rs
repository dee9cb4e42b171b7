//! The hand-off between a team and its crew (`crew.rs`'s `Posts`): the team posts a
//! job, every worker runs it once and counts itself out, the team waits for all of
//! them before it posts the next, and finally retires the crew. A post wakes the workers
//! only if some counted themselves as blocked (a worker checks once under loom, then
//! blocks). Loom reports a deadlock if a worker can miss a post or the retirement (a post
//! that skips the wake-up of a worker about to block, say), and a data race if the team
//! can read a job's result before the worker's write.

use crate::crew::Posts;
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

/// Per worker, the sum of the jobs it ran (a job is a number here).
struct Ran([UnsafeCell<usize>; 2]);

// SAFETY: loom checks every access to the cells for races; that is the point.
unsafe impl Sync for Ran {}

impl Ran {
    fn add(&self, worker: usize, job: usize) {
        // SAFETY: loom tracks the access; each cell is written by one worker.
        self.0[worker].with_mut(|p| unsafe { *p += job });
    }

    fn read(&self, worker: usize) -> usize {
        // SAFETY: as above; loom reports a read not ordered after the writes.
        self.0[worker].with(|p| unsafe { *p })
    }
}

#[test]
fn loom_every_worker_runs_every_post_once_and_the_team_sees_it() {
    loom::model(|| {
        let posts = Arc::new(Posts::<usize>::new());
        let ran = Arc::new(Ran([UnsafeCell::new(0), UnsafeCell::new(0)]));
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let (posts, ran) = (posts.clone(), ran.clone());
                thread::spawn(move || {
                    let mut seen = 0;
                    while let Some(job) = posts.next(&mut seen) {
                        ran.add(w, job);
                        posts.done();
                    }
                })
            })
            .collect();
        for (round, job) in [1, 10].into_iter().enumerate() {
            posts.post(job);
            // The team's wait: it runs nothing, and nobody wakes it.
            while !posts.all_left(2) {
                thread::yield_now();
            }
            let want = if round == 0 { 1 } else { 11 };
            assert_eq!((ran.read(0), ran.read(1)), (want, want));
        }
        posts.retire();
        for w in workers {
            w.join().unwrap();
        }
    });
}
