//! Declared footprints: the address ranges a task reads and writes.
//!
//! Code that knows what memory it touches (a stencil knows its rows, a merge knows its
//! halves) declares it here. One description serves three listeners (docs/design.md, "The
//! words"): the `declared` counter source where hardware counters are missing, the
//! simulator's memory trace, and the affinity-graph profiler.
//!
//! Besides memory, a task can declare its work ([`work`]): about how many instructions
//! it executes. The simulator turns that into compute time and the `declared` counter
//! source into instructions, so CPU-bound code is recognised as such without hardware
//! counters.
//!
//! Declaring is free unless something listens: every call first reads one global
//! counter with `Relaxed` ordering and returns when it is zero. A listener is installed
//! for the whole process with [`set_sink`] and removed with [`clear_sink`], or for one
//! thread while a closure runs with [`with_thread_sink`] (the kernels' recorder, so
//! that several recordings and a process-wide listener can coexist without a lock). A
//! thread's own listener takes its declarations alone; other threads go on reporting to
//! the process-wide one. Sinks are called on the thread that runs the declaring task, so
//! they can attribute the access to that task through thread-local state of their own.
//!
//! The runtime re-exports this module as `locus::footprint`, where kernels and users
//! find it.
//!
//! ```
//! let rows = vec![0.0f64; 1024];
//! locus_task::footprint::read_slice(&rows[..512]);
//! locus_task::footprint::write_slice(&rows[512..]);
//! ```

mod listener;

use listener::{Listener, Snapshot};
use std::cell::RefCell;
use std::sync::Arc;

/// Whether an access reads or writes memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// The task reads the range.
    Read,
    /// The task writes the range (and may read it).
    Write,
}

/// A listener for declared footprints.
pub trait FootprintSink: Send + Sync {
    /// Called on the declaring thread, once per declared range, in declaration order.
    fn record(&self, access: Access, addr: usize, len: usize);

    /// Called on the declaring thread for each [`work`] declaration. Ignored by default.
    fn work(&self, instructions: u64) {
        let _ = instructions;
    }
}

/// The process-wide listener, with the count of listeners that every declaration reads
/// first (the protocol: `footprint/listener.rs`).
static PROCESS: Listener<Arc<dyn FootprintSink>> = Listener::new();

thread_local! {
    /// This thread's own listener, while [`with_thread_sink`] runs.
    static THREAD_SINK: RefCell<Option<Arc<dyn FootprintSink>>> = const { RefCell::new(None) };
    /// This thread's copy of the process-wide listener and the generation it was read
    /// at. Every thread of every pool declares through it: reading the slot itself
    /// (its lock, the `Arc`'s count) on each declaration made the threads pass those
    /// lines to each other, and fib without a cutoff under `cats` with the `declared`
    /// source took 7x `ws`'s time on two threads (`locus bench fib --policy ws,cats
    /// --machine 2x1 --threads 2`; `ws` in the same run as slow).
    static CACHED: RefCell<Snapshot<Arc<dyn FootprintSink>>> =
        const { RefCell::new((0, None)) };
}

/// Installs `sink` as the process-wide listener, replacing any earlier one.
pub fn set_sink(sink: Arc<dyn FootprintSink>) {
    PROCESS.set(sink);
}

/// Removes the process-wide listener; later declarations are no-ops again (except on
/// threads with a listener of their own).
pub fn clear_sink() {
    PROCESS.clear();
}

/// Runs `f` with `sink` listening to every declaration made on this thread (and only
/// to those: the process-wide listener does not see them meanwhile). Nests: the inner
/// sink wins until its closure returns, also when it unwinds.
pub fn with_thread_sink<R>(sink: Arc<dyn FootprintSink>, f: impl FnOnce() -> R) -> R {
    /// Puts the outer sink back when dropped.
    struct Restore(Option<Arc<dyn FootprintSink>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            THREAD_SINK.with(|s| *s.borrow_mut() = outer);
            PROCESS.remove_thread();
        }
    }
    PROCESS.add_thread();
    let outer = THREAD_SINK.with(|s| s.borrow_mut().replace(sink));
    let _restore = Restore(outer);
    f()
}

/// Whether a listener is installed (on any thread).
#[inline]
pub fn is_listening() -> bool {
    PROCESS.is_listening()
}

/// Declares that the running task reads `len` bytes starting at `addr`.
#[inline]
pub fn read(addr: usize, len: usize) {
    if is_listening() {
        record_slow(Access::Read, addr, len);
    }
}

/// Declares that the running task writes `len` bytes starting at `addr`.
#[inline]
pub fn write(addr: usize, len: usize) {
    if is_listening() {
        record_slow(Access::Write, addr, len);
    }
}

/// Declares that the running task executes about `instructions` instructions of its
/// own (its nested tasks declare theirs). Kernels declare it in their leaves, where the
/// work is; a task that declares none is taken to do no work besides its accesses.
#[inline]
pub fn work(instructions: u64) {
    if is_listening() {
        work_slow(instructions);
    }
}

/// Declares that the running task reads all of `data`.
#[inline]
pub fn read_slice<T>(data: &[T]) {
    read(data.as_ptr() as usize, std::mem::size_of_val(data));
}

/// Declares that the running task writes all of `data`.
#[inline]
pub fn write_slice<T>(data: &[T]) {
    write(data.as_ptr() as usize, std::mem::size_of_val(data));
}

#[cold]
#[inline(never)]
fn record_slow(access: Access, addr: usize, len: usize) {
    if len != 0 {
        with_listener(|sink| sink.record(access, addr, len));
    }
}

#[cold]
#[inline(never)]
fn work_slow(instructions: u64) {
    if instructions != 0 {
        with_listener(|sink| sink.work(instructions));
    }
}

/// Calls `f` with this thread's listener, or else the process-wide one, if any.
fn with_listener(f: impl FnOnce(&dyn FootprintSink)) {
    if !PROCESS.any() {
        return;
    }
    // `try_with`: declarations from thread-local destructors at thread exit fall
    // through to the process-wide listener. The thread's sink is cloned out of the cell
    // so that a sink may itself declare (it would see its own cell free).
    let local = THREAD_SINK.try_with(|s| s.borrow().clone()).ok().flatten();
    if let Some(sink) = local {
        f(&*sink);
        return;
    }
    let mut f = Some(f);
    let _ = CACHED.try_with(|cached| {
        if !PROCESS.is_current(&cached.borrow()) {
            match cached.try_borrow_mut() {
                Ok(mut copy) => PROCESS.refresh(&mut copy),
                // A sink declaring while the listener changes: read it without the copy.
                Err(_) => {
                    if let (Some(sink), Some(f)) = (PROCESS.read(), f.take()) {
                        f(&*sink);
                    }
                    return;
                }
            }
        }
        // Borrowed, not cloned: a sink that declares borrows it again, which is fine.
        if let (Some(sink), Some(f)) = (&cached.borrow().1, f.take()) {
            f(&**sink);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Held by the tests that install a process-wide sink, which would hear each other.
    static PROCESS_WIDE: Mutex<()> = Mutex::new(());

    fn process_wide() -> std::sync::MutexGuard<'static, ()> {
        PROCESS_WIDE.lock().unwrap_or_else(|e| e.into_inner())
    }

    struct Log(Mutex<Vec<(Access, usize, usize)>>);
    impl FootprintSink for Log {
        fn record(&self, access: Access, addr: usize, len: usize) {
            self.0.lock().unwrap().push((access, addr, len));
        }
    }

    #[test]
    fn sink_sees_declarations_only_while_installed() {
        let _alone = process_wide();
        let data = [1u32; 8];
        read_slice(&data); // nobody listens: nothing recorded anywhere
        let log = Arc::new(Log(Mutex::new(Vec::new())));
        set_sink(log.clone());
        read_slice(&data[..2]);
        write_slice(&data[4..]);
        write(0x1000, 0); // empty ranges are dropped
        clear_sink();
        read_slice(&data);
        let got = log.0.lock().unwrap().clone();
        let base = data.as_ptr() as usize;
        assert_eq!(
            got,
            vec![(Access::Read, base, 8), (Access::Write, base + 16, 16)]
        );
    }

    /// A thread keeps its own copy of the process-wide sink; a change of sink reaches
    /// it at its next declaration, and a declaration made after `clear_sink` returned
    /// (here: after the thread heard of it) reaches nobody.
    #[test]
    fn a_thread_that_declared_before_hears_of_a_new_sink() {
        use std::sync::mpsc;
        let _alone = process_wide();
        let first = Arc::new(Counted(Mutex::new((0, 0))));
        let second = Arc::new(Counted(Mutex::new((0, 0))));
        let (go, steps) = mpsc::channel::<u64>();
        let (done, finished) = mpsc::channel::<()>();
        let declarer = std::thread::spawn(move || {
            for instructions in steps {
                work(instructions);
                done.send(()).unwrap();
            }
        });
        let step = |instructions: u64| {
            go.send(instructions).unwrap();
            finished.recv().unwrap();
        };
        set_sink(first.clone());
        step(1);
        set_sink(second.clone());
        step(10);
        step(100);
        clear_sink();
        step(1000);
        set_sink(first.clone());
        step(10_000);
        clear_sink();
        drop(go);
        declarer.join().unwrap();
        assert_eq!(first.0.lock().unwrap().1, 10_001);
        assert_eq!(second.0.lock().unwrap().1, 110);
    }

    /// A process-wide sink that declares while it listens (here: half the work it
    /// hears of, down to 1) hears those declarations too.
    #[test]
    fn a_sink_may_declare() {
        struct Echo(Mutex<Vec<u64>>);
        impl FootprintSink for Echo {
            fn record(&self, _access: Access, _addr: usize, _len: usize) {}
            fn work(&self, instructions: u64) {
                self.0.lock().unwrap().push(instructions);
                if instructions > 1 {
                    work(instructions / 2);
                }
            }
        }
        let _alone = process_wide();
        let echo = Arc::new(Echo(Mutex::new(Vec::new())));
        set_sink(echo.clone());
        work(8);
        clear_sink();
        assert_eq!(*echo.0.lock().unwrap(), vec![8, 4, 2, 1]);
    }

    struct Counted(Mutex<(u64, u64)>);
    impl FootprintSink for Counted {
        fn record(&self, _access: Access, _addr: usize, len: usize) {
            self.0.lock().unwrap().0 += len as u64;
        }
        fn work(&self, instructions: u64) {
            self.0.lock().unwrap().1 += instructions;
        }
    }

    #[test]
    fn a_thread_sink_hears_its_thread_alone_and_nests() {
        let outer = Arc::new(Counted(Mutex::new((0, 0))));
        let inner = Arc::new(Counted(Mutex::new((0, 0))));
        let other_thread = Arc::new(Counted(Mutex::new((0, 0))));
        with_thread_sink(outer.clone(), || {
            read(0x10, 4);
            work(7);
            with_thread_sink(inner.clone(), || {
                write(0x20, 8);
                work(3);
                let other = other_thread.clone();
                // Another thread with a sink of its own is not heard here.
                std::thread::spawn(move || with_thread_sink(other, || work(100)))
                    .join()
                    .unwrap();
            });
            work(0); // nothing declared
            read(0x30, 2);
        });
        assert_eq!(*outer.0.lock().unwrap(), (6, 7));
        assert_eq!(*inner.0.lock().unwrap(), (8, 3));
        assert_eq!(*other_thread.0.lock().unwrap(), (0, 100));
        // A panic inside restores the outer sink.
        let again = Arc::new(Counted(Mutex::new((0, 0))));
        with_thread_sink(outer.clone(), || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                with_thread_sink(again.clone(), || panic!("inside"))
            }));
            assert!(r.is_err());
            work(1);
        });
        assert_eq!(*outer.0.lock().unwrap(), (6, 8));
        assert_eq!(*again.0.lock().unwrap(), (0, 0));
    }
}
