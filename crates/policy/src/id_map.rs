//! Maps keyed by task id, hashed by one multiplication: the online profile's, the
//! iteration-affinity homes' and the engines' chunk placement tracker's.

use crate::TaskId;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The hasher of maps keyed by task id, which take a lookup or two per spawn, start or
/// completion, often under a lock: a task id is already a 64-bit hash of its spawn
/// path, so one multiply (FxHash's) spreads it, carrying a loop's chunks (`parent * K +
/// i + 1`, see [`TaskId::child`], consecutive in their low bits) into the high bits the
/// map's control bytes come from. SipHash's keyed rounds were a third of `cats`'s
/// instructions per task while profiling, and a fifth of its overhead over `ws` per
/// task once partitioned (callgrind, `locus bench fib --size 18,cutoff=0` and `heat
/// --size 256x128,leaf=2,iters=4`, `--policy cats --machine 2x1 --threads 2`); a single
/// lock with SipHash took 85% of the time of a loop of one-edge chunks in the chunk
/// tracker (`crate::ChunkPlacement`, `irreg medium,grain=1` on four workers).
pub(crate) use locus_task::rng::FxHasher as IdHasher;

/// A map keyed by task id, hashed by [`IdHasher`].
pub(crate) type IdMap<V> = HashMap<TaskId, V, BuildHasherDefault<IdHasher>>;
