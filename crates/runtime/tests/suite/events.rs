//! The order of a task's events: the policy hears that a task finished before whoever
//! waits for it (its join, its scope) goes on. CATS's online profile depends on it: a
//! parent's end reported before its child's, or an iteration's root done while one of
//! its tasks is still open in the profile, makes the next iteration's first spawns look
//! like more of this one (each profiled SOID then counts two iterations). Also which
//! starts `Layout::queued_starts` reports, and that task events stop once the policy no
//! longer wants them. The test policies wrap a built-in one ([`Wrapped`]).

use crate::common::sum;
use locus::{join, scope, Policy, PolicyKind, TaskCost, TaskInfo, ThreadPoolBuilder, WorkerMap};
use locus_policy::{Layout, Place, PolicyFactory, Probe, Source};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What a test policy adds to the policy it wraps ([`Wrapped`]): its layout, and what it
/// does with the events it hears of.
trait Hooks: std::fmt::Debug + Send + Sync + 'static {
    const NAME: &'static str;

    /// The layout, from the wrapped policy's.
    fn layout(&self, inner: Layout) -> Layout;

    fn wants_task_events(&self) -> bool {
        true
    }

    fn spawns_stay_local(&self) -> bool {
        false
    }

    /// The wrapped policy is asked to place a task.
    fn placed(&self) {}

    fn started(&self, source: Source);

    fn finished(&self) {}
}

/// A test policy: `inner`'s placements and searches, with `hooks`' layout and events.
#[derive(Debug)]
struct Wrapped<H> {
    inner: Arc<dyn Policy>,
    hooks: H,
}

impl<H: Hooks> Policy for Wrapped<H> {
    fn name(&self) -> &'static str {
        H::NAME
    }

    fn layout(&self) -> Layout {
        self.hooks.layout(self.inner.layout())
    }

    fn place(&self, spawner: usize, parent: &TaskInfo, task: &TaskInfo) -> Place {
        self.hooks.placed();
        self.inner.place(spawner, parent, task)
    }

    fn search(&self, worker: usize, plan: &mut Vec<Probe>) {
        self.inner.search(worker, plan)
    }

    fn wants_task_events(&self) -> bool {
        self.hooks.wants_task_events()
    }

    fn spawns_stay_local(&self) -> bool {
        self.hooks.spawns_stay_local()
    }

    fn task_started(&self, _worker: usize, _task: &TaskInfo, source: Source) {
        self.hooks.started(source);
    }

    fn task_finished(&self, _worker: usize, _task: &TaskInfo, _cost: Option<&TaskCost>) {
        self.hooks.finished();
    }
}

/// A pool of `threads` workers (on `machine` where given, unpinned) under `inner` (a
/// policy name) wrapped with `hooks`.
fn wrapped_pool<H: Hooks + Clone>(
    inner: &str,
    hooks: H,
    threads: usize,
    machine: Option<locus::Topology>,
) -> locus::ThreadPool {
    let kind: PolicyKind = inner.parse().expect("a policy name");
    let factory = PolicyFactory::new(H::NAME, move |map: &WorkerMap| {
        Arc::new(Wrapped {
            inner: kind.build(map),
            hooks: hooks.clone(),
        }) as Arc<dyn Policy>
    });
    let mut builder = ThreadPoolBuilder::new()
        .num_threads(threads)
        .pin(false)
        .policy_factory(factory);
    if let Some(machine) = machine {
        builder = builder.topology(machine);
    }
    builder.build().expect("pool builds")
}

/// `ws` with task events, whose end of a task is slow: it sleeps before it counts the
/// end, so a joiner released before the end is reported sees the count short.
#[derive(Debug, Clone, Default)]
struct SlowEnds {
    ended: Arc<AtomicUsize>,
    /// Tasks started from a queue rather than inline: run through their job, whose
    /// latch releases the waiter (the case the order matters for).
    queued: Arc<AtomicUsize>,
}

impl Hooks for SlowEnds {
    const NAME: &'static str = "slow-ends";

    fn layout(&self, inner: Layout) -> Layout {
        Layout {
            task_events: true,
            ..inner
        }
    }

    fn started(&self, source: Source) {
        if source != Source::Inline {
            self.queued.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn finished(&self) {
        std::thread::sleep(Duration::from_millis(5));
        self.ended.fetch_add(1, Ordering::SeqCst);
    }
}

fn slow_ends_pool() -> (locus::ThreadPool, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let hooks = SlowEnds::default();
    let (ended, queued) = (Arc::clone(&hooks.ended), Arc::clone(&hooks.queued));
    (wrapped_pool("ws", hooks, 2, None), ended, queued)
}

#[test]
fn a_stolen_half_is_reported_finished_before_its_join_returns() {
    if cfg!(miri) {
        return; // sleeps
    }
    let (pool, ended, queued) = slow_ends_pool();
    pool.install(|| {
        // Until the second half has been stolen in a few rounds (a loaded machine may
        // wake the thief too late in some).
        let mut stolen = 0;
        for round in 0..200 {
            let (ended_before, queued_before) =
                (ended.load(Ordering::SeqCst), queued.load(Ordering::Relaxed));
            // The first half sleeps, so that the other worker steals the second, which
            // sleeps longer: the joiner then waits for its latch.
            join(
                || std::thread::sleep(Duration::from_millis(10)),
                || std::thread::sleep(Duration::from_millis(30)),
            );
            let after = ended.load(Ordering::SeqCst);
            assert_eq!(
                after - ended_before,
                2,
                "round {round}: both halves' ends reported"
            );
            stolen += usize::from(queued.load(Ordering::Relaxed) > queued_before);
            if stolen == 3 {
                return;
            }
        }
        panic!("the second half was stolen in {stolen} of 200 rounds: nothing was tested");
    });
}

#[test]
fn a_scopes_spawns_are_reported_finished_before_the_scope_returns() {
    if cfg!(miri) {
        return; // sleeps
    }
    let (pool, ended, queued) = slow_ends_pool();
    pool.install(|| {
        for round in 0..10 {
            let before = ended.load(Ordering::SeqCst);
            scope(|s| {
                for _ in 0..4 {
                    s.spawn(|_| std::thread::sleep(Duration::from_millis(5)));
                }
            });
            let after = ended.load(Ordering::SeqCst);
            assert_eq!(
                after - before,
                4,
                "round {round}: every spawn's end reported"
            );
        }
    });
    assert!(
        queued.load(Ordering::Relaxed) > 0,
        "nothing ran from a queue"
    );
}

/// `mts-paper` with [`Layout::queued_starts`]: counts the starts it hears of, and the
/// inline ones it must not.
#[derive(Debug, Clone, Default)]
struct QueuedStarts {
    queued: Arc<AtomicUsize>,
    inline: Arc<AtomicUsize>,
}

impl Hooks for QueuedStarts {
    const NAME: &'static str = "queued-starts";

    fn layout(&self, inner: Layout) -> Layout {
        Layout {
            queued_starts: true,
            ..inner
        }
    }

    fn started(&self, source: Source) {
        let count = if source == Source::Inline {
            &self.inline
        } else {
            &self.queued
        };
        count.fetch_add(1, Ordering::Relaxed);
    }

    fn finished(&self) {
        panic!("queued starts only: no task's end is reported");
    }
}

/// With `Layout::queued_starts` the runtime reports the start of every job it takes
/// from a queue and nothing else: every task is either reported, taken back by its
/// joiner, a second half run at once without being queued, or a first half run inline.
#[test]
fn queued_starts_report_every_job_taken_from_a_queue_and_nothing_else() {
    let hooks = QueuedStarts::default();
    let (queued, inline) = (Arc::clone(&hooks.queued), Arc::clone(&hooks.inline));
    let machine = locus::Topology::parse_spec("pack:2 l3:1(size=1MiB) core:2 pu:1")
        .expect("a synthetic machine");
    let pool = wrapped_pool("mts-paper", hooks, 4, Some(machine));
    let n: u64 = if cfg!(miri) { 1 << 5 } else { 1 << 12 };
    for _ in 0..3 {
        assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2);
    }
    let total = pool.stats().total();
    assert_eq!(inline.load(Ordering::Relaxed), 0);
    // Per run: the root (injected) and n - 1 joins' halves.
    let joins = 3 * (n - 1);
    assert_eq!(
        queued.load(Ordering::Relaxed) as u64 + total.taken_back + total.run_at_once + joins,
        total.tasks,
        "{total:?}"
    );
}

/// `ws` with task events and queued starts that wants events for its first `LIMIT` task
/// ends only ([`Policy::wants_task_events`]), and then promises that its spawns stay
/// local ([`Policy::spawns_stay_local`]): counts every start and end it hears of, and
/// the placements it is asked for after that.
#[derive(Debug, Clone, Default)]
struct StopsWanting {
    started: Arc<AtomicUsize>,
    ended: Arc<AtomicUsize>,
    queued_after: Arc<AtomicUsize>,
    placed_after: Arc<AtomicUsize>,
}

const LIMIT: usize = 1000;

impl Hooks for StopsWanting {
    const NAME: &'static str = "stops-wanting";

    fn layout(&self, inner: Layout) -> Layout {
        Layout {
            task_events: true,
            queued_starts: true,
            always_local: false,
            ..inner
        }
    }

    fn wants_task_events(&self) -> bool {
        self.ended.load(Ordering::Relaxed) < LIMIT
    }

    fn spawns_stay_local(&self) -> bool {
        !self.wants_task_events()
    }

    fn placed(&self) {
        if self.spawns_stay_local() {
            self.placed_after.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn started(&self, _source: Source) {
        if self.wants_task_events() {
            self.started.fetch_add(1, Ordering::Relaxed);
        } else {
            self.queued_after.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn finished(&self) {
        self.ended.fetch_add(1, Ordering::Relaxed);
    }
}

/// A policy that stops wanting task events stops hearing of them (worker by worker,
/// after the end that tells it; the tasks each worker had started by then still report
/// their ends) and hears of queued starts instead; once it promises that its spawns stay
/// local, the joins no longer ask it to place their halves; every sum stays right.
#[test]
fn task_events_stop_when_the_policy_no_longer_wants_them() {
    let hooks = StopsWanting::default();
    let counts = [
        &hooks.started,
        &hooks.ended,
        &hooks.queued_after,
        &hooks.placed_after,
    ]
    .map(Arc::clone);
    let workers = 4;
    let pool = wrapped_pool("ws", hooks, workers, None);
    let n: u64 = if cfg!(miri) { 1 << 6 } else { 1 << 14 };
    let runs = if cfg!(miri) { 1 } else { 3 };
    for _ in 0..runs {
        assert_eq!(pool.install(|| sum(0, n)), n * (n - 1) / 2);
    }
    let [started, ended, queued_after, placed_after] = counts.map(|c| c.load(Ordering::Relaxed));
    let depth = 64 - n.leading_zeros() as usize;
    // Past the limit, each worker reports the ends of the tasks it has open when it is
    // told (a few a level of the tree: its own descent, and stolen subtrees run on top
    // of a waiting join) and of those it starts before its next end tells it; a bound
    // far below the tasks run.
    let most = LIMIT + workers * 4 * (depth + 2);
    let tasks = pool.stats().total().tasks as usize;
    if tasks > most {
        assert!(
            (LIMIT..=most).contains(&ended),
            "{ended} ends of {tasks} tasks"
        );
        assert!(started <= most, "{started} starts of {tasks} tasks");
        // Asked to place only the halves of the joins each worker meets before its next
        // end tells it (every join's half was placed before: about half the tasks).
        assert!(
            placed_after <= most - LIMIT,
            "{placed_after} placements after the promise, of {tasks} tasks"
        );
    }
    assert!(
        queued_after <= tasks,
        "{queued_after} queued starts of {tasks} tasks"
    );
}
