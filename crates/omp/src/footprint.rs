//! `locus.h`: C programs declare what their tasks read and write, as Rust tasks do
//! through `locus::footprint`, so the `declared` counter source (and with it `cats` and
//! `cab` where hardware counters are missing) and the profilers see C tasks too.

/// Declares that the running task reads `len` bytes at `ptr` (`locus.h`).
pub(crate) fn read(ptr: *const u8, len: usize) {
    locus::footprint::read(ptr as usize, len);
}

/// Declares that the running task writes `len` bytes at `ptr` (`locus.h`).
pub(crate) fn write(ptr: *const u8, len: usize) {
    locus::footprint::write(ptr as usize, len);
}
