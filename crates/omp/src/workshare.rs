//! The record of one worksharing construct being dealt to a team ([`WorkShare`]), kept
//! in the team's state (`member.rs`); how it is dealt is `loops.rs`'s.

use crate::schedule::Kind;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize};
use std::sync::OnceLock;

/// One loop being dealt to a team.
pub(crate) struct WorkShare {
    pub(crate) key: u64,
    /// The first value and the step, as 64-bit words: a `long` loop's in two's
    /// complement, so iteration `i`'s value is `start + i * incr` wrapping for both.
    pub(crate) start: u64,
    pub(crate) incr: u64,
    /// Iterations.
    pub(crate) n: u64,
    pub(crate) kind: Kind,
    pub(crate) chunk: u64,
    /// The next iteration not dealt (dynamic, guided).
    pub(crate) next: AtomicU64,
    /// Members that have not ended the loop.
    pub(crate) left: AtomicUsize,
    /// `single copyprivate`: the executor's data, published before the team's barrier.
    pub(crate) copy: AtomicPtr<c_void>,
    /// Ordered loops: iterations before this one have run their `ordered` blocks.
    pub(crate) turn: AtomicU64,
    /// Doacross loops: the iterations posted.
    pub(crate) doacross: Option<Doacross>,
    /// Task reductions of the construct (`reduction(task, ...)`): whether a member
    /// claimed their registration, and the block it registered (0 until then).
    pub(crate) reductions_claimed: std::sync::atomic::AtomicBool,
    pub(crate) reductions: AtomicUsize,
    /// The construct's scratch memory (`scan`, `lastprivate(conditional:)`), made
    /// zeroed by the first member to ask for it (see [`scratch`](crate::loops::scratch)).
    pub(crate) scratch: OnceLock<Box<[AtomicU64]>>,
}

/// The largest scratch block a construct may ask for (GCC asks for a few words per
/// team member): past it the request is taken for a corrupt size and the program
/// ends, naming it, rather than the allocation aborting. A guess, far above any use.
pub(crate) const MAX_SCRATCH: usize = 1 << 30;

/// The cross-iteration dependences of a doacross loop (see the module docs).
#[derive(Debug)]
pub(crate) struct Doacross {
    /// The trip counts of the ordered dimensions, the dealt one first.
    pub(crate) counts: Box<[u64]>,
    /// Logical iterations of the dimensions after the first: one outer iteration's.
    pub(crate) per_outer: u64,
    /// Outer iterations per entry of `posted`: the loop's chunk.
    pub(crate) span: u64,
    /// Per chunk, 1 + the flattened number of the last iteration posted in it; 0 if none.
    pub(crate) posted: Box<[AtomicU64]>,
}

impl Doacross {
    pub(crate) fn new(counts: &[u64], span: u64) -> Result<Doacross, String> {
        // A loop with a count of 0 has no iteration, so no post or wait follows, and GCC
        // leaves the counts after the first 0 unset: they read as 0 here, as libgomp
        // (`gomp_doacross_init`) reads none past the first 0.
        let counts: Vec<u64> = match counts.iter().position(|&c| c == 0) {
            Some(zero) => counts[..zero]
                .iter()
                .copied()
                .chain(std::iter::repeat_n(0, counts.len() - zero))
                .collect(),
            None => counts.to_vec(),
        };
        let counts = &counts[..];
        let per_outer = counts[1..]
            .iter()
            .try_fold(1u64, |acc, &c| acc.checked_mul(c));
        let total = per_outer.and_then(|p| p.checked_mul(counts[0]));
        let (Some(per_outer), Some(_)) = (per_outer, total.filter(|&t| t < u64::MAX)) else {
            return Err(format!(
                "a doacross loop of {counts:?} iterations, more than 2^64 in all"
            ));
        };
        let span = span.max(1);
        let entries = usize::try_from(counts[0].div_ceil(span))
            .map_err(|_| format!("a doacross loop of {} outer iterations", counts[0]))?;
        Ok(Doacross {
            counts: counts.into(),
            per_outer,
            span,
            posted: (0..entries).map(|_| AtomicU64::new(0)).collect(),
        })
    }

    /// The entry of iteration vector `v` and its flattened number plus one; `None` if `v`
    /// lies outside the iteration space (a sink OpenMP says to ignore).
    pub(crate) fn locate(&self, v: &[u64]) -> Option<(&AtomicU64, u64)> {
        if v.len() != self.counts.len() || v.iter().zip(&self.counts).any(|(x, n)| x >= n) {
            return None;
        }
        let inner = v[1..]
            .iter()
            .zip(&self.counts[1..])
            .fold(0u64, |acc, (&x, &n)| acc * n + x);
        let entry = &self.posted[(v[0] / self.span) as usize];
        Some((entry, v[0] * self.per_outer + inner + 1))
    }
}
