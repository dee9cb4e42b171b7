//! Declared footprints: the address ranges a task reads and writes.
//!
//! Code that knows what memory it touches (a stencil knows its rows, a merge knows its
//! halves) declares it here. One description serves three listeners (DESIGN.md, "The
//! words"): the `declared` counter source where hardware counters are missing, the
//! simulator's memory trace, and the affinity-graph profiler.
//!
//! Declaring is free unless something listens: every call first reads one global flag
//! with `Relaxed` ordering and returns when it is clear. A listener is installed for the
//! whole process with [`set_sink`] and removed with [`clear_sink`]; the sink is called
//! on the thread that runs the declaring task, so it can attribute the access to that
//! task through thread-local state of its own (for example [`crate::current_task`]).
//!
//! ```
//! let rows = vec![0.0f64; 1024];
//! locus::footprint::read_slice(&rows[..512]);
//! locus::footprint::write_slice(&rows[512..]);
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

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
}

/// Set while a sink is installed; read on every declaration.
static LISTENING: AtomicBool = AtomicBool::new(false);
static SINK: RwLock<Option<Arc<dyn FootprintSink>>> = RwLock::new(None);

/// Installs `sink` as the process-wide listener, replacing any earlier one.
pub fn set_sink(sink: Arc<dyn FootprintSink>) {
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = Some(sink);
    // Release pairs with the Acquire load in `record_slow`: a declaration that sees the
    // flag also sees the sink.
    LISTENING.store(true, Ordering::Release);
}

/// Removes the process-wide listener; later declarations are no-ops again.
pub fn clear_sink() {
    LISTENING.store(false, Ordering::Release);
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Whether a listener is installed.
#[inline]
pub fn is_listening() -> bool {
    LISTENING.load(Ordering::Relaxed)
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
    if len == 0 || !LISTENING.load(Ordering::Acquire) {
        return;
    }
    let sink = SINK.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(sink) = sink {
        sink.record(access, addr, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Log(Mutex<Vec<(Access, usize, usize)>>);
    impl FootprintSink for Log {
        fn record(&self, access: Access, addr: usize, len: usize) {
            self.0.lock().unwrap().push((access, addr, len));
        }
    }

    #[test]
    fn sink_sees_declarations_only_while_installed() {
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
}
