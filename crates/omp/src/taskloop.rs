//! `taskloop`: `GOMP_taskloop` and `GOMP_taskloop_ull`.
//!
//! The encountering task splits the loop's `n` iterations into tasks as GCC's libgomp
//! does (so a program sees the same number of tasks and the same ranges under both):
//! - `grainsize(g)`: `n / g` tasks (at least one), the iterations spread evenly, the
//!   first `n % tasks` taking one more; with `strict`, tasks of exactly `g` and a last
//!   one of the remainder;
//! - `num_tasks(t)` (or neither clause: the team's size): `min(t, n)` tasks, spread
//!   evenly.
//!
//! Each task is an ordinary explicit task (`task.rs`) whose data is a copy of the
//! encountering task's block (by `cpyfn` if GCC gives one: firstprivate data) with its
//! first two words overwritten by its range `[first, end)` of loop values, where GCC's
//! outlined function reads them (and decides `lastprivate` by comparing its end with the
//! loop's). Unless `nogroup`, the tasks are made inside a taskgroup that the encountering
//! task then waits for. `if(false)` and `final` make them undeferred, as for `task`.
//! Priority is ignored, as for `task`. A `reduction` clause registers GCC's reduction
//! block in the loop's taskgroup (`reduction.rs`).

use crate::task::{self, Spawn, FLAG_FINAL, FLAG_GRAINSIZE, FLAG_IF, FLAG_NOGROUP};
use crate::task::{FLAG_REDUCTION, FLAG_STRICT};
use crate::{member, reduction};

/// How a loop of `n` iterations is split: `tasks` tasks, the first `big_tasks` of
/// `big` iterations, the others of `small`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split {
    pub(crate) tasks: u64,
    pub(crate) big_tasks: u64,
    pub(crate) big: u64,
    pub(crate) small: u64,
    /// One task whose range ends at the loop's bound as given, not after its last
    /// iteration (libgomp's grainsize larger than half the loop).
    pub(crate) to_bound: bool,
}

impl Split {
    /// `n` iterations over `tasks` (`0 < tasks <= n`) as evenly as can be.
    fn even(n: u64, tasks: u64) -> Split {
        Split {
            tasks,
            big_tasks: n % tasks,
            big: n / tasks + 1,
            small: n / tasks,
            to_bound: false,
        }
    }

    /// One task of everything.
    fn whole(n: u64) -> Split {
        Split {
            tasks: 1,
            big_tasks: 1,
            big: n,
            small: n,
            to_bound: true,
        }
    }
}

/// Splits `n > 0` iterations as libgomp does for `flags` and the `num_tasks` argument
/// (a grainsize under `FLAG_GRAINSIZE`; 0: the team's size, `team_size`).
pub(crate) fn split(n: u64, flags: u32, num_tasks: u64, team_size: u64) -> Split {
    if flags & FLAG_GRAINSIZE != 0 {
        // GCC refuses grainsize(0) when it is a constant; a computed 0 is taken as 1.
        let grain = num_tasks.max(1);
        let tasks = n / grain;
        if flags & FLAG_STRICT != 0 {
            return match n % grain {
                0 => Split {
                    tasks,
                    big_tasks: tasks,
                    big: grain,
                    small: grain,
                    to_bound: false,
                },
                rest => Split {
                    tasks: tasks + 1,
                    big_tasks: tasks,
                    big: grain,
                    small: rest,
                    to_bound: false,
                },
            };
        }
        if tasks <= 1 {
            return Split::whole(n);
        }
        return Split::even(n, tasks);
    }
    let tasks = if num_tasks == 0 {
        team_size.max(1)
    } else {
        num_tasks
    };
    if tasks >= n {
        Split {
            tasks: n,
            big_tasks: n,
            big: 1,
            small: 1,
            to_bound: false,
        }
    } else {
        Split::even(n, tasks)
    }
}

/// The loop of a taskloop construct, in 64-bit words (a `long` loop's values and step
/// as two's complement): `n` iterations from `start` by `step`; `end` is the bound GCC
/// passed, the end of a loop split into one task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Loop {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) step: u64,
    pub(crate) n: u64,
}

/// `GOMP_taskloop` and `GOMP_taskloop_ull`: `spawn` describes each task (its
/// `if_clause`, `flags` and `range` are set here from `flags`).
///
/// # Safety
/// GCC's arguments for a taskloop construct: `spawn.data` holds `arg_size` bytes (or is
/// what `cpyfn` reads) starting with two 8-byte words for the bounds.
pub(crate) unsafe fn taskloop(mut spawn: Spawn, flags: u32, num_tasks: u64, lp: Loop) {
    // GCC's block starts with the two bounds, then (with a reduction) its reductions'.
    let reductions = spawn.data.cast::<*mut usize>().wrapping_add(2);
    let reduce = flags & (FLAG_NOGROUP | FLAG_REDUCTION) == FLAG_REDUCTION;
    if lp.n == 0 {
        if reduce {
            // SAFETY: GCC's reduction block; word 2 at 0 tells the caller that nothing
            // was registered (so it combines and unregisters nothing).
            unsafe { *(*reductions).add(2) = 0 };
        }
        return;
    }
    let team_size = member::member().team().size as u64;
    let split = split(lp.n, flags, num_tasks, team_size);
    let group = flags & FLAG_NOGROUP == 0;
    if group {
        task::taskgroup_start();
        if reduce {
            // SAFETY: GCC's reduction block, which it unregisters after this returns.
            unsafe { reduction::register(*reductions) };
        }
    }
    spawn.if_clause = flags & FLAG_IF != 0;
    spawn.flags = flags & FLAG_FINAL;
    let mut first = lp.start;
    for i in 0..split.tasks {
        let len = if i < split.big_tasks {
            split.big
        } else {
            split.small
        };
        let end = if split.to_bound {
            lp.end
        } else {
            first.wrapping_add(len.wrapping_mul(lp.step))
        };
        spawn.range = Some([first, end]);
        // SAFETY: the caller's contract; each task copies the data before the next
        // range is written.
        unsafe { task::task(spawn) };
        first = end;
    }
    if group {
        task::taskgroup_end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(s: Split) -> Vec<u64> {
        (0..s.tasks)
            .map(|i| if i < s.big_tasks { s.big } else { s.small })
            .collect()
    }

    #[test]
    fn splits_cover_every_iteration_as_libgomp_does() {
        // grainsize 7 over 100: 14 tasks, the first 2 of 8.
        let s = split(100, FLAG_GRAINSIZE, 7, 4);
        assert_eq!(s.tasks, 14);
        assert_eq!(sizes(s).iter().sum::<u64>(), 100);
        assert_eq!(&sizes(s)[..3], &[8, 8, 7]);
        // grainsize larger than the loop: one task.
        assert_eq!(split(10, FLAG_GRAINSIZE, 50, 4), Split::whole(10));
        // strict: tasks of 4 and a last of the rest.
        let s = split(30, FLAG_GRAINSIZE | FLAG_STRICT, 4, 4);
        assert_eq!(sizes(s), [4, 4, 4, 4, 4, 4, 4, 2]);
        assert_eq!(sizes(split(3, FLAG_GRAINSIZE | FLAG_STRICT, 4, 4)), [3]);
        // num_tasks: at most one task per iteration; none given: the team's size.
        assert_eq!(sizes(split(3, 0, 5, 4)), [1, 1, 1]);
        assert_eq!(sizes(split(10, 0, 0, 4)), [3, 3, 2, 2]);
        assert_eq!(sizes(split(10, 0, 3, 4)), [4, 3, 3]);
    }
}
