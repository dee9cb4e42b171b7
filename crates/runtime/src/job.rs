//! Jobs: type-erased pointers to work, as the queues carry them.
//!
//! A [`JobRef`] is a pointer to some job data plus the function that runs it: two words,
//! as in rayon-core, so the deques move 16 bytes per push. Every job type starts with a
//! [`JobHeader`] (`repr(C)`, first field) holding the task's identity, which whoever
//! runs the job reads through [`JobRef::info`] to set the task context. A
//! [`StackJob`] lives on the stack of the worker that spawned it (the second half of a
//! `join`, an injected root): its owner waits on its latch before the frame goes away. A
//! [`HeapJob`] is boxed and frees itself when run (a scope's spawn).

use crate::latch::{CountLatch, Latch};
use crate::sync::AtomicUsize;
use crate::unwind::{self, AbortIfPanic};
use locus_policy::TaskInfo;
use std::any::Any;
use std::cell::UnsafeCell;
use std::mem::{self, ManuallyDrop, MaybeUninit};
use std::sync::atomic::Ordering::{Acquire, Relaxed, SeqCst};

/// Something a worker can run through a [`JobRef`].
pub(crate) trait Job {
    /// Runs the job, then `end` (if given), then marks it complete (sets its latch).
    /// `end` is how the runtime tells the policy that the task finished: told before the
    /// latch is set, so that the task's end happens before its joiner, or its scope's
    /// owner, goes on (a profile that saw the parent's end before the child's would take
    /// the next iteration's first spawns for this one's). A job that completes itself
    /// ([`crate::raw::RawTask`]) calls `end` after.
    ///
    /// # Safety
    /// `this` must come from the `JobRef` made for this job, and each job is executed
    /// at most once.
    unsafe fn execute(this: *const (), end: Option<&mut dyn FnMut()>);
}

/// The first field of every job: what the runtime needs to know before running it.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct JobHeader {
    info: TaskInfo,
}

impl JobHeader {
    /// The header of a job that runs as task `info`.
    pub(crate) const fn new(info: TaskInfo) -> JobHeader {
        JobHeader { info }
    }
}

/// A job type whose first field is a [`JobHeader`].
///
/// # Safety
/// Implementors must be `#[repr(C)]` with a `JobHeader` as their first field.
pub(crate) unsafe trait HasHeader {}

/// A type-erased job, as the queues hold it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const (), Option<&mut dyn FnMut()>),
}

// SAFETY: a JobRef is only made for jobs whose data is `Send` (the closures carried are
// `Send`), and the protocol hands each JobRef to exactly one executing thread.
unsafe impl Send for JobRef {}
// SAFETY: as above; a shared JobRef is only compared and copied, never run twice.
unsafe impl Sync for JobRef {}

impl JobRef {
    /// # Safety
    /// `data` must stay valid until the job is executed or dropped unexecuted by the
    /// code that made it.
    pub(crate) unsafe fn new<T: Job + HasHeader>(data: *const T) -> JobRef {
        JobRef {
            pointer: data.cast(),
            execute_fn: <T as Job>::execute,
        }
    }

    /// The identity of the job's task.
    ///
    /// # Safety
    /// The job must be live (not yet executed).
    #[inline]
    pub(crate) unsafe fn info(&self) -> TaskInfo {
        // SAFETY: `new` only accepts `HasHeader` types, which start with a JobHeader, and
        // the caller guarantees the job is live.
        unsafe { (*(self.pointer as *const JobHeader)).info }
    }

    /// Whether this ref was made for a job of type `T` (its execute function is `T`'s;
    /// compared as addresses, which is exact for a function that is not generic).
    #[inline]
    pub(crate) fn is<T: Job>(&self) -> bool {
        std::ptr::eq(
            self.execute_fn as *const (),
            <T as Job>::execute as *const (),
        )
    }

    /// Whether two refs denote the same job.
    #[inline]
    pub(crate) fn same(&self, other: &JobRef) -> bool {
        std::ptr::eq(self.pointer, other.pointer)
    }

    /// Runs the job.
    ///
    /// # Safety
    /// The job's data must be live and this job not executed before.
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded from the caller.
        unsafe { (self.execute_fn)(self.pointer, None) }
    }

    /// Runs the job and calls `end` before the job counts as complete (see
    /// [`Job::execute`]).
    ///
    /// # Safety
    /// As [`JobRef::execute`].
    #[inline]
    pub(crate) unsafe fn execute_ending(self, end: &mut dyn FnMut()) {
        // SAFETY: forwarded from the caller.
        unsafe { (self.execute_fn)(self.pointer, Some(end)) }
    }
}

/// The result slot of a job.
pub(crate) enum JobResult<T> {
    None,
    Ok(T),
    Panic(Box<dyn Any + Send>),
}

impl<T> JobResult<T> {
    fn call(f: impl FnOnce() -> T) -> JobResult<T> {
        match unwind::halt_unwinding(f) {
            Ok(x) => JobResult::Ok(x),
            Err(p) => JobResult::Panic(p),
        }
    }

    /// The value, or the job's panic resumed on this thread.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::Ok(x) => x,
            JobResult::Panic(p) => unwind::resume_unwinding(p),
            JobResult::None => unreachable!("a job's result was taken before it ran"),
        }
    }
}

/// A job on the stack of the worker that made it.
#[repr(C)]
pub(crate) struct StackJob<L, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    /// Taken exactly once, by `execute` or `run_inline` (a `join` always runs its second
    /// half, and an injected root always runs). `ManuallyDrop` rather than `Option`: the
    /// take is a plain read, no flag to write and check (callgrind, `fib 22` on one
    /// worker: the `Option` cost 12 instructions per `join`). A job dropped unrun would
    /// leak its closure, not double-drop it.
    func: UnsafeCell<ManuallyDrop<F>>,
    result: UnsafeCell<JobResult<R>>,
}

impl<L: Latch, F: FnOnce() -> R, R> StackJob<L, F, R> {
    pub(crate) fn new(info: TaskInfo, func: F, latch: L) -> StackJob<L, F, R> {
        StackJob {
            header: JobHeader { info },
            latch,
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(JobResult::None),
        }
    }

    /// # Safety
    /// The job must not move or be dropped until it has run or been taken back with
    /// [`StackJob::run_inline`], and the ref must be run at most once.
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: forwarded from the caller.
        unsafe { JobRef::new(self) }
    }

    /// Runs the job's closure here, for a job nobody else has taken. By reference, so
    /// the job is not copied to be consumed (measured: 15 instructions per `join`).
    pub(crate) fn run_inline(&self) -> R {
        // SAFETY: nobody else has the job (it was taken back), so nobody else touches
        // `func`, and this is its one take (see the field).
        let func = unsafe { ManuallyDrop::take(&mut *self.func.get()) };
        func()
    }

    /// The result of a job that was executed through its ref (its latch is set).
    pub(crate) fn into_result(self) -> R {
        self.result.into_inner().into_return_value()
    }
}

// SAFETY: `repr(C)` with the header first.
unsafe impl<L, F, R> HasHeader for StackJob<L, F, R> {}

impl<L: Latch, F: FnOnce() -> R, R> Job for StackJob<L, F, R> {
    unsafe fn execute(this: *const (), end: Option<&mut dyn FnMut()>) {
        // SAFETY: `this` was made from a `&StackJob<L, F, R>` by `as_job_ref`, whose
        // contract keeps it live until the latch is set.
        let this = unsafe { &*(this as *const Self) };
        let abort = AbortIfPanic;
        // SAFETY: executed once (JobRef contract), so nobody else touches `func`, and
        // this is its one take (see the field).
        let func = unsafe { ManuallyDrop::take(&mut *this.func.get()) };
        // SAFETY: the owner reads `result` only after the latch is set below.
        unsafe { *this.result.get() = JobResult::call(func) };
        if let Some(end) = end {
            end();
        }
        // SAFETY: `this.latch` is live; `set` does not touch it after the store.
        unsafe { Latch::set(&this.latch) };
        mem::forget(abort);
    }
}

/// The state word of a [`FrameJob`]: the owner's worker index until a thief has run the
/// job, then [`HalfState::DONE`]. One store when the join starts, and nothing more
/// unless a thief comes: the owner learns of a theft from the frames (`frames.rs`), and
/// only then waits for this word.
#[derive(Debug)]
pub(crate) struct HalfState(AtomicUsize);

impl HalfState {
    /// What the word holds once the thief has written the result.
    const DONE: usize = usize::MAX;

    /// The state of a half that worker `owner` has just made.
    #[inline(always)]
    pub(crate) fn new(owner: usize) -> HalfState {
        HalfState(AtomicUsize::new(owner))
    }

    /// Thief: the worker to wake once the half is complete. The owner wrote it before
    /// it published the half, which the thief's taking of it acquired.
    #[inline]
    pub(crate) fn owner(&self) -> usize {
        self.0.load(Relaxed)
    }

    /// Thief: marks the half complete, its result written. `SeqCst`: the store is the
    /// first half of the sleep handshake (the setter then wakes the owner, fenced, as
    /// [`Latch::set`] does), and its release half publishes the result.
    ///
    /// # Safety
    /// `this` must point to a live state; the owner may free it as soon as the store is
    /// visible, so the caller touches nothing of it afterwards.
    #[inline]
    pub(crate) unsafe fn complete(this: *const Self) {
        // SAFETY: forwarded from the caller.
        unsafe { (*this).0.store(Self::DONE, SeqCst) };
    }

    /// Owner: whether the thief has completed the half; `Acquire`, pairing with
    /// [`HalfState::complete`], so the result is visible once this says so.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.0.load(Acquire) == Self::DONE
    }
}

/// The second half of a `join` that waits in the worker's frames (`frames.rs`): lazy
/// task creation. Making it writes the task's identity (a thief needs it to run the
/// half as its task), the state word and the closure; the result slot and every wake-up
/// are the thief's, so a half the owner takes back costs no more, and runs as a plain
/// call ([`FrameJob::run_inline`]).
#[repr(C)]
pub(crate) struct FrameJob<F, R> {
    header: JobHeader,
    state: HalfState,
    /// Taken exactly once, as in [`StackJob`].
    func: UnsafeCell<ManuallyDrop<F>>,
    /// Written by the thief, only if one took the job, before it completes the state.
    result: UnsafeCell<MaybeUninit<std::thread::Result<R>>>,
}

impl<F: FnOnce() -> R, R> FrameJob<F, R> {
    /// The half `func`, to run as task `info`, of a join on worker `owner`.
    #[inline(always)]
    pub(crate) fn new(info: TaskInfo, owner: usize, func: F) -> FrameJob<F, R> {
        FrameJob {
            header: JobHeader { info },
            state: HalfState::new(owner),
            func: UnsafeCell::new(ManuallyDrop::new(func)),
            result: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// The task this half runs as.
    #[inline]
    pub(crate) fn info(&self) -> TaskInfo {
        self.header.info
    }

    /// # Safety
    /// The job must not move or be dropped until it has been taken back (then run with
    /// [`FrameJob::run_inline`]) or, taken by a thief, completed ([`FrameJob::is_done`]);
    /// the ref must be run at most once.
    #[inline(always)]
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: forwarded from the caller.
        unsafe { JobRef::new(self) }
    }

    /// The closure of a job that was never published (the frames were full).
    #[inline]
    pub(crate) fn into_func(self) -> F {
        ManuallyDrop::into_inner(self.func.into_inner())
    }

    /// Runs the closure here, for a job the owner took back.
    #[inline(always)]
    pub(crate) fn run_inline(&self) -> R {
        // SAFETY: taken back, so nobody else touches `func`; this is its one take.
        let func = unsafe { ManuallyDrop::take(&mut *self.func.get()) };
        func()
    }

    /// Whether a thief that took the job has completed it.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.state.is_done()
    }

    /// The thief's result, once [`FrameJob::is_done`]: the value or the panic.
    ///
    /// # Safety
    /// A thief took the job and completed it, and the result is taken once.
    pub(crate) unsafe fn take_result(&self) -> std::thread::Result<R> {
        // SAFETY: the thief wrote the result before completing the state, which the
        // caller has seen with `Acquire`; nobody touches it again.
        unsafe { (*self.result.get()).assume_init_read() }
    }
}

// SAFETY: `repr(C)` with the header first.
unsafe impl<F, R> HasHeader for FrameJob<F, R> {}

impl<F: FnOnce() -> R, R> Job for FrameJob<F, R> {
    unsafe fn execute(this: *const (), end: Option<&mut dyn FnMut()>) {
        // SAFETY: `this` was made from a `&FrameJob<F, R>` by `as_job_ref`, whose
        // contract keeps it live until the state is complete.
        let this = unsafe { &*(this as *const Self) };
        let abort = AbortIfPanic;
        let owner = this.state.owner();
        // SAFETY: executed once (JobRef contract): nobody else touches `func`.
        let func = unsafe { ManuallyDrop::take(&mut *this.func.get()) };
        let result = unwind::halt_unwinding(func);
        // SAFETY: the owner reads `result` only once the state is complete.
        unsafe { (*this.result.get()).write(result) };
        if let Some(end) = end {
            end();
        }
        // Only a worker of the owner's pool steals from its frames, and its pool is the
        // owner's: the registry it holds outlives the wake-up below.
        let worker = crate::registry::WorkerThread::current()
            .expect("a join's half is stolen by a worker of its pool");
        // SAFETY: `this.state` is live until this store; nothing of `this` is touched after.
        unsafe { HalfState::complete(&this.state) };
        worker.registry.sleep.wake(owner);
        mem::forget(abort);
    }
}

/// A boxed job of a scope: frees itself when run, runs its closure (which must catch its
/// own panics), and only then counts itself done in the scope's latch.
///
/// The latch is set after the closure has returned, through a pointer kept beside the
/// closure rather than captured by it: setting it may let the scope's owner return and
/// free everything the closure borrowed, so no borrow of the closure may still be live
/// (Miri's Tree Borrows run reports exactly that if the closure sets the latch itself).
#[repr(C)]
pub(crate) struct HeapJob<F> {
    header: JobHeader,
    done: *const CountLatch,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// A job that runs `func` and then sets `done`.
    pub(crate) fn new(func: F, done: &CountLatch) -> Box<HeapJob<F>> {
        let info = TaskInfo {
            id: locus_policy::TaskId(0),
            level: 0,
            loop_chunks: 0,
        };
        Box::new(HeapJob {
            header: JobHeader { info },
            done,
            func,
        })
    }

    /// Leaks the box into a ref for task `info`; running the ref frees it.
    ///
    /// # Safety
    /// Everything `func` borrows, and the latch, must outlive the job's execution, and
    /// the ref must be run exactly once.
    pub(crate) unsafe fn into_job_ref(mut self: Box<Self>, info: TaskInfo) -> JobRef {
        self.header.info = info;
        // SAFETY: the box is live until `execute` reclaims it.
        unsafe { JobRef::new(Box::into_raw(self)) }
    }
}

impl<F: FnOnce() + Send> Job for HeapJob<F> {
    unsafe fn execute(this: *const (), end: Option<&mut dyn FnMut()>) {
        // SAFETY: made by `into_job_ref` from `Box::into_raw`, executed once.
        let job = unsafe { Box::from_raw(this as *mut Self) };
        let HeapJob { done, func, .. } = *job;
        func();
        if let Some(end) = end {
            end();
        }
        // SAFETY: the scope waits for this latch, so it is live; `set` touches nothing of
        // it after the store that may release the owner.
        unsafe { Latch::set(done) };
    }
}

// SAFETY: `repr(C)` with the header first.
unsafe impl<F> HasHeader for HeapJob<F> {}
