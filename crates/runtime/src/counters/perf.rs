//! The `perf` source: one `perf_event_open` group per thread.
//!
//! The group leader counts cycles; instructions and the private last-level data-cache
//! miss event (see `events.rs`) are members, so the three are scheduled on the PMU
//! together and one `read(2)` of the leader returns all of them. Counters observe the
//! opening thread only (pid 0, cpu -1), user mode only (`exclude_kernel`,
//! `exclude_hv`). The leader's read format is `GROUP | TOTAL_TIME_ENABLED |
//! TOTAL_TIME_RUNNING | ID` (`perf-event2` adds `ID` to every group); the buffer is
//! parsed by [`parse_group_read`], a pure function tested on hand-made buffers.

use super::events::{CpuId, Encoding, MissEvent};
use super::{CounterError, CounterKind, CounterSource, ErrorKind, Sample, ThreadCounters};
use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Event, Hardware, Raw};
use perf_event::{Builder, Counter, ReadFormat};
use std::io;
use std::os::fd::AsRawFd;

/// Members of the group, in the order the kernel reports them: the leader first.
const CYCLES: usize = 0;
const INSTRUCTIONS: usize = 1;
const MISSES: usize = 2;
const MEMBERS: usize = 3;

/// `read_format` bits of the kernel ABI (`linux/perf_event.h`).
const FORMAT_TOTAL_TIME_ENABLED: u64 = 1 << 0;
const FORMAT_TOTAL_TIME_RUNNING: u64 = 1 << 1;
const FORMAT_ID: u64 = 1 << 2;
const FORMAT_GROUP: u64 = 1 << 3;
const FORMAT_LOST: u64 = 1 << 4;

/// The largest group read this module asks for: `nr`, two times, and value, id and
/// lost for each member.
const MAX_READ_BYTES: usize = 8 * (3 + 3 * MEMBERS);

/// One group read, as the kernel laid it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GroupRead<const N: usize> {
    /// Nanoseconds the group was enabled, if the format asked for it.
    pub(super) time_enabled: Option<u64>,
    /// Nanoseconds the group was on the PMU, if the format asked for it.
    pub(super) time_running: Option<u64>,
    /// Counter values, leader first.
    pub(super) values: [u64; N],
}

impl<const N: usize> GroupRead<N> {
    /// The values scaled to the whole enabled time, as `perf stat` scales a group the
    /// kernel time-shared: `value * enabled / running`. A group that never ran reads 0.
    pub(super) fn scaled(&self) -> [u64; N] {
        match (self.time_enabled, self.time_running) {
            (Some(enabled), Some(running)) if running < enabled => self.values.map(|v| {
                if running == 0 {
                    0
                } else {
                    let scaled = u128::from(v) * u128::from(enabled) / u128::from(running);
                    u64::try_from(scaled).unwrap_or(u64::MAX)
                }
            }),
            _ => self.values,
        }
    }
}

/// Parses the buffer a `read(2)` of a group leader with `read_format` filled, expecting
/// `N` counters. Native byte order, as the kernel writes it.
pub(super) fn parse_group_read<const N: usize>(
    buf: &[u8],
    read_format: u64,
) -> Result<GroupRead<N>, CounterError> {
    let bad = |reason: String| CounterError::new(ErrorKind::GroupFormat { reason });
    if read_format & FORMAT_GROUP == 0 {
        return Err(bad(format!(
            "read format {read_format:#x} lacks PERF_FORMAT_GROUP"
        )));
    }
    let has = |flag: u64| read_format & flag != 0;
    let header = 1
        + usize::from(has(FORMAT_TOTAL_TIME_ENABLED))
        + usize::from(has(FORMAT_TOTAL_TIME_RUNNING));
    let per_counter = 1 + usize::from(has(FORMAT_ID)) + usize::from(has(FORMAT_LOST));
    let need = 8 * (header + per_counter * N);
    if buf.len() < need {
        return Err(bad(format!(
            "{} bytes, but {N} counters with read format {read_format:#x} need {need}",
            buf.len()
        )));
    }
    let word = |i: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&buf[8 * i..8 * i + 8]);
        u64::from_ne_bytes(bytes)
    };
    let nr = word(0);
    if nr != N as u64 {
        return Err(bad(format!("the group holds {nr} counters, expected {N}")));
    }
    let mut next = 1;
    let mut take = |present: bool| {
        present.then(|| {
            next += 1;
            word(next - 1)
        })
    };
    let time_enabled = take(has(FORMAT_TOTAL_TIME_ENABLED));
    let time_running = take(has(FORMAT_TOTAL_TIME_RUNNING));
    let values = std::array::from_fn(|i| word(header + i * per_counter));
    Ok(GroupRead {
        time_enabled,
        time_running,
        values,
    })
}

/// Turns a group's (scaled) values into a sample.
fn sample_from(values: [u64; MEMBERS], line_size: u32) -> Sample {
    Sample {
        private_llc_misses: values[MISSES],
        instructions: values[INSTRUCTIONS],
        cycles: values[CYCLES],
        bytes: values[MISSES].saturating_mul(u64::from(line_size)),
    }
}

/// A builder for one user-mode counter of the calling thread on any CPU.
fn builder<'a>(event: impl Event + 'a) -> Builder<'a> {
    let mut b = Builder::new(event);
    b.observe_self()
        .any_cpu()
        .exclude_kernel(true)
        .exclude_hv(true);
    b
}

/// The group leader: cycles, reading the whole group with its enabled and running times.
fn leader_builder() -> Builder<'static> {
    let mut b = builder(Hardware::CPU_CYCLES);
    b.read_format(
        ReadFormat::GROUP | ReadFormat::TOTAL_TIME_ENABLED | ReadFormat::TOTAL_TIME_RUNNING,
    );
    b
}

/// Wraps an open failure with what failed and, for the usual errnos, why.
fn open_error(what: &str, source: io::Error) -> CounterError {
    let hint = match source.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) => {
            "; the kernel offers no such hardware event here (usual in virtual machines)"
                .to_string()
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unreadable".to_string());
            format!("; not permitted (kernel.perf_event_paranoid = {paranoid})")
        }
        Some(libc::EINVAL) => "; the kernel rejects this event on this CPU".to_string(),
        _ => String::new(),
    };
    CounterError::new(ErrorKind::Open {
        what: what.to_string(),
        hint,
        source,
    })
}

/// Opens (and closes) a user-mode cycles counter for the calling thread.
pub(super) fn probe() -> Result<(), CounterError> {
    builder(Hardware::CPU_CYCLES)
        .build()
        .map(drop)
        .map_err(|e| open_error("cycles", e))
}

/// The `perf` source: the event chosen for this CPU and the line size.
#[derive(Debug)]
pub(super) struct PerfSource {
    cpu: CpuId,
    misses: MissEvent,
    line_size: u32,
}

impl PerfSource {
    /// Chooses the miss event for this CPU and opens a whole group on the calling
    /// thread once, so that an event the kernel refuses fails here, not on a worker.
    /// The cycles counter is opened first, so where no hardware counters exist the
    /// error is the one [`probe`] gives.
    pub(super) fn open(line_size: u32) -> Result<PerfSource, CounterError> {
        let cpu = CpuId::this_machine();
        let misses = super::events::miss_event(&cpu);
        let source = PerfSource {
            cpu,
            misses,
            line_size,
        };
        source.open_group()?;
        Ok(source)
    }

    fn open_group(&self) -> Result<PerfThread, CounterError> {
        let miss_builder = match self.misses.encoding {
            Encoding::Raw(config) => builder(Raw::new(config)),
            Encoding::GenericLlReadMiss => builder(Cache {
                which: CacheId::LL,
                operation: CacheOp::READ,
                result: CacheResult::MISS,
            }),
        };
        open_group_of(
            [
                (leader_builder(), "cycles"),
                (builder(Hardware::INSTRUCTIONS), "instructions"),
                (miss_builder, &self.misses.description),
            ],
            self.line_size,
        )
    }
}

/// Opens and enables a group of three counters (the leader, built with the group read
/// format, first) and takes the first read as the zero point. Each builder comes with
/// the name an open failure reports.
fn open_group_of(
    [(leader, leader_name), (second, second_name), (third, third_name)]: [(Builder<'_>, &str);
        MEMBERS],
    line_size: u32,
) -> Result<PerfThread, CounterError> {
    let read_format = leader.attrs().read_format;
    let mut leader = leader.build().map_err(|e| open_error(leader_name, e))?;
    // As perf_event_open(2) prescribes, the members are opened enabled and count while
    // their leader does. Opened disabled, they start late once the group is enabled:
    // on Linux 6.18, a third of the runs of `a_software_group_reads_through_the_same_path`
    // counted some of the thread's page faults, or none.
    let (mut second, mut third) = (second, third);
    let second = second
        .enabled(true)
        .build_with_group(&mut leader)
        .map_err(|e| open_error(second_name, e))?;
    let third = third
        .enabled(true)
        .build_with_group(&mut leader)
        .map_err(|e| open_error(third_name, e))?;
    leader
        .enable_group()
        .map_err(|e| CounterError::new(ErrorKind::Read { source: e }))?;
    let mut thread = PerfThread {
        leader,
        _members: [second, third],
        read_format,
        line_size,
        base: [0; MEMBERS],
        last: Sample::default(),
        warned: false,
    };
    // The first read both checks the format and sets the zero point.
    thread.base = thread.read_scaled()?;
    Ok(thread)
}

impl CounterSource for PerfSource {
    fn kind(&self) -> CounterKind {
        CounterKind::Perf
    }

    fn describe(&self) -> String {
        format!(
            "perf: {}, instructions, cycles per worker thread (user mode; {}; bytes = misses x {} B lines)",
            self.misses.description, self.cpu, self.line_size
        )
    }

    fn open_thread(&self) -> Result<Box<dyn ThreadCounters>, CounterError> {
        Ok(Box::new(self.open_group()?))
    }

    fn line_size(&self) -> u32 {
        self.line_size
    }
}

/// The open group of one thread.
struct PerfThread {
    leader: Counter,
    /// Kept open: closing a member's descriptor removes it from the group.
    _members: [Counter; 2],
    read_format: u64,
    line_size: u32,
    /// Scaled values at open; reads are relative to them.
    base: [u64; MEMBERS],
    last: Sample,
    warned: bool,
}

impl PerfThread {
    fn read_scaled(&mut self) -> Result<[u64; MEMBERS], CounterError> {
        let mut buf = [0u8; MAX_READ_BYTES];
        // SAFETY: the descriptor is open for as long as `self.leader` lives, and `buf`
        // is a live, writable buffer of exactly `buf.len()` bytes.
        let n = unsafe { libc::read(self.leader.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        let n = usize::try_from(n).map_err(|_| {
            CounterError::new(ErrorKind::Read {
                source: io::Error::last_os_error(),
            })
        })?;
        let group = parse_group_read::<MEMBERS>(&buf[..n], self.read_format)?;
        Ok(group.scaled())
    }

    #[cold]
    #[inline(never)]
    fn warn_once(&mut self, error: &CounterError) {
        if !self.warned {
            self.warned = true;
            tracing::warn!(
                error = %crate::error_chain(error),
                "perf counters of this thread stopped; its tasks will read zero deltas"
            );
        }
    }
}

impl ThreadCounters for PerfThread {
    fn read(&mut self) -> Sample {
        match self.read_scaled() {
            Ok(values) => {
                let since_open = std::array::from_fn(|i| values[i].saturating_sub(self.base[i]));
                self.last = sample_from(since_open, self.line_size);
            }
            Err(e) => self.warn_once(&e),
        }
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WITH_TIMES_AND_ID: u64 =
        FORMAT_GROUP | FORMAT_TOTAL_TIME_ENABLED | FORMAT_TOTAL_TIME_RUNNING | FORMAT_ID;

    fn bytes(words: &[u64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    #[test]
    fn parses_the_format_this_module_opens() {
        // nr, enabled, running, then (value, id) for cycles, instructions, misses.
        let buf = bytes(&[3, 1_000, 1_000, 5_000, 11, 8_000, 12, 40, 13]);
        let read = parse_group_read::<3>(&buf, WITH_TIMES_AND_ID).unwrap();
        assert_eq!(
            read,
            GroupRead {
                time_enabled: Some(1_000),
                time_running: Some(1_000),
                values: [5_000, 8_000, 40]
            }
        );
        assert_eq!(read.scaled(), [5_000, 8_000, 40]);
        assert_eq!(
            sample_from(read.scaled(), 64),
            Sample {
                private_llc_misses: 40,
                instructions: 8_000,
                cycles: 5_000,
                bytes: 2_560
            }
        );
    }

    #[test]
    fn parses_other_layouts() {
        let plain = parse_group_read::<2>(&bytes(&[2, 7, 9]), FORMAT_GROUP).unwrap();
        assert_eq!(
            plain,
            GroupRead {
                time_enabled: None,
                time_running: None,
                values: [7, 9]
            }
        );
        let running_only = parse_group_read::<1>(
            &bytes(&[1, 55, 3, 99]),
            FORMAT_GROUP | FORMAT_TOTAL_TIME_RUNNING | FORMAT_ID,
        )
        .unwrap();
        assert_eq!(
            running_only,
            GroupRead {
                time_enabled: None,
                time_running: Some(55),
                values: [3]
            }
        );
        let with_lost = parse_group_read::<2>(
            &bytes(&[2, 10, 20, 1, 0, 30, 2, 5]),
            FORMAT_GROUP | FORMAT_TOTAL_TIME_ENABLED | FORMAT_ID | FORMAT_LOST,
        )
        .unwrap();
        assert_eq!(with_lost.values, [20, 30]);
        // A longer buffer than needed is fine (the caller passes what read returned).
        let long = parse_group_read::<1>(&bytes(&[1, 4, 0, 0]), FORMAT_GROUP).unwrap();
        assert_eq!(long.values, [4]);
    }

    #[test]
    fn short_buffers_are_errors() {
        let full = bytes(&[3, 1_000, 1_000, 5_000, 11, 8_000, 12, 40, 13]);
        for len in [0, 7, 8, 24, full.len() - 8, full.len() - 1] {
            let err = parse_group_read::<3>(&full[..len], WITH_TIMES_AND_ID).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(&format!("{len} bytes")), "{text}");
            assert!(text.contains("need 72"), "{text}");
        }
    }

    #[test]
    fn wrong_counts_and_formats_are_errors() {
        let err = parse_group_read::<3>(&bytes(&[2, 1, 2, 3]), FORMAT_GROUP).unwrap_err();
        assert!(
            err.to_string().contains("holds 2 counters, expected 3"),
            "{err}"
        );
        let err = parse_group_read::<1>(&bytes(&[1, 1]), FORMAT_ID).unwrap_err();
        assert!(err.to_string().contains("lacks PERF_FORMAT_GROUP"), "{err}");
    }

    #[test]
    fn time_shared_groups_are_scaled() {
        let half = GroupRead {
            time_enabled: Some(2_000),
            time_running: Some(1_000),
            values: [10, 0, u64::MAX],
        };
        assert_eq!(half.scaled(), [20, 0, u64::MAX]);
        let third = GroupRead {
            time_enabled: Some(3),
            time_running: Some(1),
            values: [7, 1, 0],
        };
        assert_eq!(third.scaled(), [21, 3, 0]);
        let never = GroupRead {
            time_enabled: Some(500),
            time_running: Some(0),
            values: [7, 8, 9],
        };
        assert_eq!(never.scaled(), [0, 0, 0]);
        let untimed = GroupRead {
            time_enabled: None,
            time_running: None,
            values: [7, 8, 9],
        };
        assert_eq!(untimed.scaled(), [7, 8, 9]);
    }

    #[test]
    fn bytes_saturate() {
        let s = sample_from([0, 0, u64::MAX / 2], 64);
        assert_eq!(s.bytes, u64::MAX);
    }

    /// The real open, enable, `read(2)` and parse path, on software events that the
    /// kernel offers even where hardware counters are absent (virtual machines, CI):
    /// task clock in the cycles slot, page faults in the instructions slot, minor page
    /// faults in the misses slot.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "perf_event_open is a system call Miri does not emulate"
    )]
    fn a_software_group_reads_through_the_same_path() {
        use perf_event::events::Software;
        let mut leader = leader_builder();
        leader.event(Software::TASK_CLOCK);
        let opened = open_group_of(
            [
                (leader, "task clock"),
                (builder(Software::PAGE_FAULTS), "page faults"),
                (builder(Software::PAGE_FAULTS_MIN), "minor page faults"),
            ],
            64,
        );
        let mut thread = match opened {
            Ok(thread) => thread,
            Err(e) => {
                // Some kernels forbid even software events (perf_event_paranoid 3).
                eprintln!("skipped: {}", crate::error_chain(&e));
                return;
            }
        };
        let before = thread.read();
        let pages = vec![1u8; 64 << 20];
        let touched: u64 = pages.iter().step_by(4096).map(|&b| u64::from(b)).sum();
        assert_eq!(touched, (64 << 20) / 4096);
        let after = thread.read();
        assert!(
            after.cycles > before.cycles,
            "task clock runs: {before:?} {after:?}"
        );
        assert!(
            after.instructions >= before.instructions + 1000,
            "page faults: {before:?} {after:?}"
        );
        assert!(
            after.private_llc_misses >= before.private_llc_misses + 1000,
            "minor faults: {before:?} {after:?}"
        );
        assert_eq!(after.bytes, after.private_llc_misses * 64);
    }

    #[test]
    fn the_read_buffer_fits_the_opened_format() {
        let format = leader_builder().attrs().read_format;
        assert_eq!(format & FORMAT_GROUP, FORMAT_GROUP);
        let need = 8 * (3 + MEMBERS * (1 + usize::from(format & FORMAT_ID != 0)));
        assert!(need <= MAX_READ_BYTES);
    }
}
