//! What a kernel's parameters cost, estimated from the parameters alone before anything
//! is allocated ([`Params::estimate`]), and the machine's memory to hold it against
//! ([`available_memory`]).
//!
//! An [`Estimate`] is meant as an upper bound, so that a driver can refuse an input that
//! cannot run instead of aborting on a failed allocation half way:
//!
//! - `bytes`: the most memory the kernel holds at once while its input is prepared and
//!   run (the input, its copies for `reset`, the serial reference and the scratch both
//!   make), plus [`SLACK_BYTES`] for small allocations. Each kernel's formula below
//!   names the arrays it counts; `tests/estimate.rs` checks under a counting allocator
//!   that no kernel allocates more at small sizes.
//! - `work`: declared instructions of preparing the input (generating it and computing
//!   the serial reference, a run of its own) and one run, at most; `None` where the
//!   search tree depends on the data (nqueens, knapsack: their `MAX_N` bounds them).
//!   [`MAX_WORK`] is the bound drivers hold it to.
//! - `tasks`: tasks one run spawns, at most (the simulator's recorder holds one record
//!   per task); `None` where the tree depends on the data.
//!
//! No footprint (nothing here runs inside a task).

use crate::sparse::{self, MatrixSpec};
use crate::{fib, ge, heat, irreg, mandelbrot, sor, sort, spmm, Params};

/// Small allocations beside the arrays a formula counts (task closures, reports, a
/// knapsack's item table, the generators' buffers), added to every estimate. Guess,
/// above the most measured at small sizes (knapsack's, 90 KB).
pub const SLACK_BYTES: u64 = 1 << 20;

/// Most work an input may take: the declared instructions of preparing it (generating it
/// and computing its serial reference) and one run of the kernel, about 2.7 * 10^11.
///
/// The preparation runs on one core before the first timed run, and the simulator's
/// recorder runs the kernel serially once more; at about 3 instructions a nanosecond
/// this bound is a minute and a half of one core, before anything is timed or
/// simulated. The largest inputs of the papers (IRREG's large mesh, heat at 1024x512 and
/// 10 iterations) take under 10^9, so the bound leaves two orders of magnitude above
/// them.
pub const MAX_WORK: u64 = 1 << 38;

/// What a kernel's parameters cost (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Most bytes held at once by preparing and running the kernel.
    pub bytes: u64,
    /// Instructions of preparing the input and one run; `None` when the data decides.
    pub work: Option<u64>,
    /// Tasks one run spawns; `None` when the data decides.
    pub tasks: Option<u64>,
}

/// `a * b` in `u64`, saturating.
fn mul(a: impl TryInto<u64>, b: impl TryInto<u64>) -> u64 {
    let [a, b] = [a.try_into().ok(), b.try_into().ok()].map(|x| x.unwrap_or(u64::MAX));
    a.saturating_mul(b)
}

/// `ceil(log2(n))`, at least 1.
fn log2(n: u64) -> u64 {
    u64::from(n.max(2).next_power_of_two().trailing_zeros())
}

/// Tasks of one row tree ([`crate::split`]) over `rows` rows in leaves of `leaf`: at
/// most two per leaf in a binary tree, doubled for the unbalanced tree's extra joins.
fn row_tree(rows: usize, leaf: usize) -> u64 {
    mul(4, rows.div_ceil(leaf.max(1))).saturating_add(4)
}

/// Tasks of `loops` flat loops of `n` in chunks of `grain`, with a join around each.
fn loops(loops: u64, n: usize, grain: usize) -> u64 {
    mul(loops, mul(1, n.div_ceil(grain.max(1))).saturating_add(4))
}

/// Calls of `fib(n)` that join, with cutoff `c` (see [`crate::fib`]).
fn fib_joins(n: u32, cutoff: u32) -> u64 {
    let lowest = cutoff.max(2);
    // joins[m] for m = 0..=n: J(m) = 0 below `lowest`, else 1 + J(m - 1) + J(m - 2).
    let mut j = vec![0u64; n as usize + 1];
    for m in 0..=n as usize {
        if m as u32 >= lowest {
            j[m] = 1u64.saturating_add(j[m - 1]).saturating_add(j[m - 2]);
        }
    }
    j[n as usize]
}

impl Params {
    /// What these parameters cost, from the parameters alone (see the module doc). Cheap
    /// for every kernel but spmm over a generated matrix of up to 256 MiB, whose product
    /// `A A^T` is counted exactly by a symbolic product (above, its size is bounded in
    /// closed form).
    pub fn estimate(&self) -> Estimate {
        const F64: u64 = 8;
        let (bytes, work, tasks) = match self {
            // Stack only; fib(n) makes 2 fib(n + 1) - 1 calls, nqueens searches.
            Params::Fib(p) => {
                let joins = fib_joins(p.n, p.cutoff);
                let calls = mul(2, fib::reference(p.n.saturating_add(1).min(fib::MAX_N)));
                (0, Some(mul(calls, fib::CALL_WORK)), Some(mul(2, joins) + 1))
            }
            Params::Nqueens(_) => (0, None, None),
            Params::Knapsack(p) => (mul(p.n, 32), None, None),
            // init, a, b and the reference's result: four grids; the reference sweeps
            // once per iteration as a run does.
            Params::Heat(p) | Params::HeatUb(p) | Params::HeatLoop(p) | Params::HeatIter(p) => {
                let cells = mul(p.rows, p.cols);
                let run = mul(mul(cells, p.iters), heat::CELL_WORK)
                    .saturating_add(mul(cells, heat::COPY_WORK));
                let trees = mul(p.iters.saturating_add(1), row_tree(p.rows, p.leaf));
                (mul(cells, 4 * F64), Some(two_runs(run, cells)), Some(trees))
            }
            // As heat, with the rows of the hot band computed `hot` times per sweep.
            Params::HeatMoving(p) => {
                let h = &p.heat;
                let cells = mul(h.rows, h.cols);
                let run = mul(mul(mul(cells, h.iters), p.hot), heat::CELL_WORK);
                let trees = mul(
                    h.iters.saturating_add(1),
                    mul(row_tree(h.rows, h.leaf), p.hot.saturating_add(1)),
                );
                (mul(cells, 4 * F64), Some(two_runs(run, cells)), Some(trees))
            }
            // input, data, buf and the reference: four arrays; a merge sort's levels.
            Params::Sort(p) | Params::Mergesort(p) => {
                let n = mul(1, p.n);
                let run = mul(mul(n, log2(n)), sort::MERGE_WORK);
                let leaves = p.n.div_ceil(p.cutoff.max(1));
                let tasks = mul(row_tree(p.n, p.cutoff), log2(mul(1, leaves)) + 1);
                (mul(n, 4 * F64), Some(two_runs(run, n)), Some(tasks))
            }
            // The grid, the reference's result, the two colour planes and their copies
            // for reset: four grids (a plane is half a grid, rounded up).
            Params::Sor(p) | Params::SorUb(p) => {
                let cells = mul(p.rows, p.cols.saturating_add(1));
                let run = mul(mul(cells, p.iters), sor::CELL_WORK);
                let trees = mul(mul(2, p.iters).saturating_add(1), row_tree(p.rows, p.leaf));
                (mul(cells, 4 * F64), Some(two_runs(run, cells)), Some(trees))
            }
            // input, a and the reference: three matrices; n - 1 elimination steps, each a
            // row tree over the rows below the pivot, n^2 / 2 updates on average.
            Params::Ge(p) | Params::GeUb(p) => {
                let cells = mul(p.n, p.n);
                let run = mul(mul(cells, p.n), ge::UPDATE_WORK)
                    .saturating_add(mul(mul(p.n, p.n), ge::ROW_WORK));
                let trees = mul(p.n, row_tree(p.n, p.leaf));
                (mul(cells, 3 * F64), Some(two_runs(run, cells)), Some(trees))
            }
            // The image and the reference's: every pixel at most `maxiter` iterations.
            Params::Mandelbrot(p) => {
                let pixels = mul(p.rows, p.cols);
                let per_pixel =
                    mul(p.maxiter, mandelbrot::ITER_WORK).saturating_add(mandelbrot::PIXEL_WORK);
                let run = mul(pixels, per_pixel);
                (
                    mul(pixels, 2 * 4),
                    Some(two_runs(run, pixels)),
                    Some(row_tree(p.rows, p.leaf)),
                )
            }
            // input, data, tmp, the reference and its scratch: five arrays of n points,
            // and the n / 2 twiddles; log2(n) levels of butterflies.
            Params::Fft(p) => {
                let n = mul(1, p.n);
                let point = std::mem::size_of::<crate::fft::Complex>() as u64;
                let run = mul(mul(n, log2(n)), crate::fft::BUTTERFLY_WORK);
                let tasks = mul(row_tree(p.n, p.cutoff), log2(n) + 1);
                (
                    mul(n, 5 * point).saturating_add(mul(n / 2, point)),
                    Some(two_runs(run, n)),
                    Some(tasks),
                )
            }
            Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::SpmvCcs(p) => {
                let (rows, cols, nnz) = p.matrix.shape();
                let bytes = matrix_bytes(&p.matrix)
                    // CRS and CCS both, and x, y and the reference's y.
                    .saturating_add(sparse::compressed_bytes(rows.max(cols), nnz))
                    .saturating_add(mul(rows.saturating_add(cols), 3 * F64));
                let per_iter = mul(nnz, crate::spmv::CCS_ENTRY_WORK)
                    .saturating_add(mul(rows.saturating_add(cols), crate::spmv::CCS_COL_WORK));
                let run = mul(per_iter, p.iters);
                let tasks = loops(2 * mul(1, p.iters), rows.max(cols), p.grain);
                (bytes, Some(two_runs(run, mul(nnz, 4))), Some(tasks))
            }
            // A, B = A^T, C's pattern and values and the reference's C.
            Params::Spmm(p) => {
                let (rows, _, nnz) = p.matrix.shape();
                let c = spmm_product_nnz(&p.matrix, p.seed);
                let bytes = matrix_bytes(&p.matrix)
                    .saturating_add(sparse::compressed_bytes(rows, nnz))
                    .saturating_add(mul(
                        2,
                        sparse::compressed_bytes(rows, usize::try_from(c).unwrap_or(usize::MAX)),
                    ));
                let per_iter = mul(c, spmm::ENTRY_WORK + spmm::STEP_WORK)
                    .saturating_add(mul(mul(nnz, 2), spmm::STEP_WORK))
                    .saturating_add(mul(rows, spmm::ROW_WORK));
                let run = mul(per_iter, p.iters);
                (
                    bytes,
                    Some(two_runs(run, mul(c, 8))),
                    Some(loops(mul(1, p.iters), rows, p.grain)),
                )
            }
            // Input, buffer, output and the reference: four key arrays, the per-chunk
            // histograms; each key passes through 4 digits.
            Params::Radix(p) => {
                let n = mul(1, p.n);
                let chunks = p.n.div_ceil(p.grain.max(1));
                let tables = mul(mul(chunks, crate::radix::BUCKETS), 2 * F64);
                let per_key = 4 * (crate::radix::HIST_WORK + crate::radix::SCATTER_WORK);
                let run = mul(mul(n, per_key), p.iters)
                    .saturating_add(mul(mul(chunks, crate::radix::BUCKETS), p.iters));
                let tasks = mul(
                    p.iters,
                    loops(3, p.n, p.grain).saturating_add(mul(2, crate::radix::BUCKETS)),
                );
                (
                    mul(n, 4 * 4).saturating_add(tables),
                    Some(two_runs(run, n)),
                    Some(tasks.saturating_add(2)),
                )
            }
            Params::Irreg(p) => irreg_estimate(p),
            // The array; every element mapped once an iteration, by the run and by the
            // reference; a loop of at most a leaf per chunk an iteration.
            Params::MapReduce(p) => {
                let n = mul(1, p.n);
                let chunks = mul(1, p.n.div_ceil(p.grain.max(1)));
                let run = mul(mul(n, p.iters), crate::mapreduce::ELEMENT_WORK)
                    .saturating_add(mul(mul(chunks, p.iters), crate::mapreduce::CHUNK_WORK));
                (
                    mul(n, F64),
                    Some(two_runs(run, n)),
                    Some(loops(mul(1, p.iters), p.n, p.grain)),
                )
            }
        };
        Estimate {
            bytes: bytes.saturating_add(SLACK_BYTES),
            work,
            tasks: tasks.map(|t| t.saturating_add(2)),
        }
    }
}

/// Preparing and running a kernel whose run takes `run` instructions: the reference is a
/// run of its own, and generating the input about 10 instructions an element.
fn two_runs(run: u64, elements: u64) -> u64 {
    mul(2, run).saturating_add(mul(elements, 10))
}

/// Bytes of generating a sparse kernel's matrix `A` (the triplets, 16 bytes an entry,
/// and the compressed rows they become), or of a matrix already read (its arrays).
fn matrix_bytes(m: &MatrixSpec) -> u64 {
    let (rows, _, nnz) = m.shape();
    let compressed = sparse::compressed_bytes(rows, nnz);
    match m {
        MatrixSpec::Generated(_) => compressed.saturating_add(mul(nnz, 16)),
        MatrixSpec::File(_) => compressed,
    }
}

/// Matrices of spmm up to this size (`A`'s compressed arrays) have their product counted
/// exactly; a quarter of a second's work and memory that the estimate of `A` already
/// allows.
const EXACT_PRODUCT_BYTES: u64 = 256 << 20;

/// Entries of spmm's `C = A A^T`: exact where `A` is read or small, else bounded by the
/// rows squared and by every entry meeting every entry of its column (at most
/// `nnz * min(rows, nnz)`).
fn spmm_product_nnz(m: &MatrixSpec, seed: u64) -> u64 {
    let (rows, _, nnz) = m.shape();
    let small = sparse::compressed_bytes(rows, nnz) <= EXACT_PRODUCT_BYTES;
    if matches!(m, MatrixSpec::File(_)) || small {
        return mul(1, spmm::product_nnz(&m.matrix(seed)));
    }
    mul(rows, rows).min(mul(nnz, rows.min(nnz)))
}

/// Irreg: the mesh's generation dominates (points, their order, the grid of cells and
/// the candidate pairs, measured at 124 bytes a node and edge for `1000000:1000000`);
/// then `x`, `y`, the weights and the reference's values.
fn irreg_estimate(p: &irreg::IrregParams) -> (u64, Option<u64>, Option<u64>) {
    let (n, e) = (mul(1, p.nodes), mul(1, p.edges));
    let bytes = mul(n, 96).saturating_add(mul(e, 64));
    let run = mul(
        mul(e, irreg::EDGE_WORK).saturating_add(mul(n, irreg::NODE_WORK)),
        p.iters,
    );
    let generate = match p.mesh {
        irreg::MeshKind::Geometric => mul(mul(n, log2(n)), irreg::GEOMETRIC_NODE_WORK)
            .saturating_add(mul(mul(e, log2(e)), irreg::GEOMETRIC_EDGE_WORK)),
        irreg::MeshKind::Uniform => mul(e, 20),
    };
    let tasks = mul(
        p.iters,
        loops(1, p.edges, p.grain).saturating_add(loops(1, p.nodes, p.grain)),
    );
    (
        bytes,
        Some(mul(2, run).saturating_add(generate)),
        Some(tasks),
    )
}

/// Memory this process may allocate, as the machine reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from, for messages: "MemAvailable in /proc/meminfo".
    pub source: &'static str,
}

/// The memory available for new allocations: `MemAvailable` of `/proc/meminfo` (what
/// can be allocated without swapping), else its `MemTotal`, or where smaller what this
/// process's resource limits and cgroup leave it ([`locus_files::memory`]); `None` where
/// none can be read (not Linux), and then nothing is refused for its memory. Read once
/// per process.
pub fn available_memory() -> Option<Available> {
    static AVAILABLE: std::sync::OnceLock<Option<Available>> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let machine = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| meminfo(&text));
        let process = locus_files::memory::process_limit().map(|l| Available {
            bytes: l.bytes,
            source: l.source,
        });
        match (machine, process) {
            (Some(m), Some(p)) if p.bytes < m.bytes => Some(p),
            (m, p) => m.or(p),
        }
    })
}

/// Parses `/proc/meminfo`'s text.
fn meminfo(text: &str) -> Option<Available> {
    let field = |name: &str| {
        text.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            let kib: u64 = rest.trim().strip_suffix("kB")?.trim().parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
    };
    if let Some(bytes) = field("MemAvailable") {
        return Some(Available {
            bytes,
            source: "MemAvailable in /proc/meminfo",
        });
    }
    field("MemTotal").map(|bytes| Available {
        bytes,
        source: "MemTotal in /proc/meminfo",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kernel;

    #[test]
    fn meminfo_prefers_the_available_memory() {
        let text = "MemTotal:       24684096 kB\nMemFree:        21037048 kB\n\
                    MemAvailable:   23939668 kB\n";
        assert_eq!(
            meminfo(text),
            Some(Available {
                bytes: 23939668 * 1024,
                source: "MemAvailable in /proc/meminfo"
            })
        );
        let old = "MemTotal: 1000 kB\nMemFree: 10 kB\n";
        assert_eq!(meminfo(old).map(|a| a.bytes), Some(1000 * 1024));
        assert_eq!(meminfo("nothing here"), None);
        assert_eq!(meminfo("MemAvailable: lots\n"), None);
    }

    #[test]
    fn fib_tasks_are_counted_exactly() {
        // fib(n) with cutoff 0 joins at every call with n >= 2: fib(n + 1) - 1 joins.
        assert_eq!(fib_joins(1, 0), 0);
        assert_eq!(fib_joins(2, 0), 1);
        assert_eq!(fib_joins(10, 0), fib::reference(11) - 1);
        assert_eq!(fib_joins(10, 11), 0);
        assert!(fib_joins(93, 0) > 1 << 60);
    }

    #[test]
    fn the_papers_largest_inputs_are_within_the_work_bound() {
        let defaults = Kernel::ALL.map(Kernel::default_params);
        let large = Kernel::Irreg.parse_size("large").unwrap();
        for params in defaults.iter().chain([&large]) {
            if let Some(work) = params.estimate().work {
                assert!(
                    work < MAX_WORK / 100,
                    "{} {params}: {work}",
                    params.kernel()
                );
            }
        }
        let huge = Kernel::Irreg.parse_size("100000000:100000000").unwrap();
        assert!(huge.estimate().work.unwrap() > MAX_WORK);
    }
}
