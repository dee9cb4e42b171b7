//! The uniform entry the CLI and benchmark drivers use: pick a [`Kernel`], get its
//! [`Params`] (defaults or parsed from a `--size` string), [`Params::prepare`] the input
//! once, then per repetition [`Prepared::run`] (or `reset`, a timed `execute`, `verify`).
//!
//! The timing protocol over a prepared input lives with [`Prepared`] (`prepared.rs`).
//!
//! Footprints are declared by the kernels themselves (see each kernel's module); this
//! module declares none.

use std::fmt;
use std::str::FromStr;

use crate::fft::{self, Complex, FftParams};
use crate::fib::{self, FibParams};
use crate::ge::{self, GeParams};
use crate::heat::{self, HeatParams};
use crate::heat_moving::{self, HeatMovingParams};
use crate::irreg::{self, IrregParams};
use crate::knapsack::{self, KnapsackParams};
use crate::mandelbrot::{self, MandelbrotParams};
use crate::mapreduce::{self, MapReduceParams};
use crate::mtx::MtxError;
use crate::nqueens::{self, NqueensParams};
use crate::prepared::Prepared;
use crate::radix::{self, RadixParams};
use crate::sor::{self, SorParams};
use crate::sort::{self, SortParams};
use crate::sparse::{self, MatrixSpec, SizeError, SparseParams};
use crate::spmm;

/// A benchmark kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Doubly recursive Fibonacci: scheduler overhead ([`crate::fib`]).
    Fib,
    /// N-queens solution count: irregular search tree ([`crate::nqueens`]).
    Nqueens,
    /// Five-point Jacobi heat diffusion: iterative, locality-sensitive ([`crate::heat`]).
    Heat,
    /// Fork-join mergesort with serial merges: memory-bound divide and conquer
    /// ([`crate::sort`]).
    Sort,
    /// Heat over CATS's unbalanced task tree ([`crate::heat_ub`]).
    HeatUb,
    /// Heat as a parallel loop over blocks of rows, its grids first touched by the
    /// same loop ([`crate::heat`], [`Split::Loop`](crate::split::Split::Loop)).
    HeatLoop,
    /// heat-loop written with parallel iterators: `par_chunks_mut` over blocks of rows
    /// ([`crate::iters`]).
    HeatIter,
    /// Heat with a hot band of rows, computed several times, that moves between sweeps
    /// ([`crate::heat_moving`]).
    HeatMoving,
    /// Red-black successive over-relaxation ([`crate::sor`]).
    Sor,
    /// SOR over CATS's unbalanced task tree ([`crate::sor_ub`]).
    SorUb,
    /// Gaussian elimination without pivoting ([`crate::ge`]).
    Ge,
    /// Gaussian elimination over CATS's unbalanced task tree ([`crate::ge_ub`]).
    GeUb,
    /// CAB's mergesort, with parallel merges ([`crate::mergesort`]).
    Mergesort,
    /// Mandelbrot escape counts: CPU-bound, uneven rows ([`crate::mandelbrot`]).
    Mandelbrot,
    /// Recursive radix-2 complex FFT ([`crate::fft`]).
    Fft,
    /// 0-1 knapsack by parallel branch and bound ([`crate::knapsack`]).
    Knapsack,
    /// The affinity-graph paper's sparse matrix-vector product, `A` stored by rows
    /// ([`crate::spmv`]).
    SpmvCrs,
    /// spmv-crs written with parallel iterators: `par_chunks_mut` of `y` by rows
    /// ([`crate::iters`]).
    SpmvIter,
    /// The affinity-graph paper's sparse matrix-vector product, `A` stored by columns,
    /// concurrent updates of `y` ([`crate::spmv`]).
    SpmvCcs,
    /// The affinity-graph paper's sparse matrix product `A A^T` ([`crate::spmm`]).
    Spmm,
    /// The affinity-graph paper's partitioned MSD radix sort ([`crate::radix`]).
    Radix,
    /// The affinity-graph paper's IRREG: an edge loop over an irregular mesh
    /// ([`crate::irreg`]).
    Irreg,
    /// A histogram and a sum of a function of a large array's elements, `fold` then
    /// `reduce` ([`crate::mapreduce`]).
    MapReduce,
}

impl Kernel {
    /// Every kernel, in the order reports list them.
    pub const ALL: [Kernel; 23] = [
        Kernel::Fib,
        Kernel::Nqueens,
        Kernel::Heat,
        Kernel::Sort,
        Kernel::HeatUb,
        Kernel::HeatLoop,
        Kernel::HeatIter,
        Kernel::HeatMoving,
        Kernel::Sor,
        Kernel::SorUb,
        Kernel::Ge,
        Kernel::GeUb,
        Kernel::Mergesort,
        Kernel::Mandelbrot,
        Kernel::Fft,
        Kernel::Knapsack,
        Kernel::SpmvCrs,
        Kernel::SpmvIter,
        Kernel::SpmvCcs,
        Kernel::Spmm,
        Kernel::Radix,
        Kernel::Irreg,
        Kernel::MapReduce,
    ];

    /// The kernel's name, as accepted by `FromStr` and written by `Display`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Fib => "fib",
            Kernel::Nqueens => "nqueens",
            Kernel::Heat => "heat",
            Kernel::Sort => "sort",
            Kernel::HeatUb => "heat-ub",
            Kernel::HeatLoop => "heat-loop",
            Kernel::HeatIter => "heat-iter",
            Kernel::HeatMoving => "heat-moving",
            Kernel::Sor => "sor",
            Kernel::SorUb => "sor-ub",
            Kernel::Ge => "ge",
            Kernel::GeUb => "ge-ub",
            Kernel::Mergesort => "mergesort",
            Kernel::Mandelbrot => "mandelbrot",
            Kernel::Fft => "fft",
            Kernel::Knapsack => "knapsack",
            Kernel::SpmvCrs => "spmv-crs",
            Kernel::SpmvIter => "spmv-iter",
            Kernel::SpmvCcs => "spmv-ccs",
            Kernel::Spmm => "spmm",
            Kernel::Radix => "radix",
            Kernel::Irreg => "irreg",
            Kernel::MapReduce => "mapreduce",
        }
    }

    /// Whether the kernel is CPU-bound (its time goes to arithmetic on registers and a
    /// small working set: fib, nqueens, mandelbrot, fft, knapsack, as CATS's Table 1
    /// classes them) rather than memory-bound (heat, sort, sor, ge, mergesort, the `-ub`
    /// variants and heat-moving). Drivers use it to pick kernel sets.
    pub fn cpu_bound(self) -> bool {
        match self {
            Kernel::Fib | Kernel::Nqueens | Kernel::Mandelbrot | Kernel::Fft | Kernel::Knapsack => {
                true
            }
            Kernel::Heat
            | Kernel::Sort
            | Kernel::HeatUb
            | Kernel::HeatLoop
            | Kernel::HeatIter
            | Kernel::HeatMoving
            | Kernel::Sor
            | Kernel::SorUb
            | Kernel::Ge
            | Kernel::GeUb
            | Kernel::Mergesort
            | Kernel::SpmvCrs
            | Kernel::SpmvIter
            | Kernel::SpmvCcs
            | Kernel::Spmm
            | Kernel::Radix
            | Kernel::Irreg
            | Kernel::MapReduce => false,
        }
    }

    /// The syntax of this kernel's `--size` string, for help texts.
    pub fn size_syntax(self) -> &'static str {
        match self {
            Kernel::Fib => fib::SYNTAX,
            Kernel::Nqueens => nqueens::SYNTAX,
            Kernel::Heat | Kernel::HeatUb | Kernel::HeatLoop | Kernel::HeatIter => heat::SYNTAX,
            Kernel::HeatMoving => heat_moving::SYNTAX,
            Kernel::Sort | Kernel::Mergesort => sort::SYNTAX,
            Kernel::Sor | Kernel::SorUb => sor::SYNTAX,
            Kernel::Ge | Kernel::GeUb => ge::SYNTAX,
            Kernel::Mandelbrot => mandelbrot::SYNTAX,
            Kernel::Fft => fft::SYNTAX,
            Kernel::Knapsack => knapsack::SYNTAX,
            Kernel::SpmvCrs | Kernel::SpmvIter | Kernel::SpmvCcs | Kernel::Spmm => sparse::SYNTAX,
            Kernel::Radix => radix::SYNTAX,
            Kernel::Irreg => irreg::SYNTAX,
            Kernel::MapReduce => mapreduce::SYNTAX,
        }
    }

    /// The default parameters of this kernel. Each default run takes some milliseconds
    /// on one core in release builds (the figures are in each params type's `Default`).
    pub fn default_params(self) -> Params {
        match self {
            Kernel::Fib => Params::Fib(FibParams::default()),
            Kernel::Nqueens => Params::Nqueens(NqueensParams::default()),
            Kernel::Heat => Params::Heat(HeatParams::default()),
            Kernel::Sort => Params::Sort(SortParams::default()),
            Kernel::HeatUb => Params::HeatUb(HeatParams::default()),
            Kernel::HeatLoop => Params::HeatLoop(HeatParams::default()),
            Kernel::HeatIter => Params::HeatIter(HeatParams::default()),
            Kernel::HeatMoving => Params::HeatMoving(HeatMovingParams::default()),
            Kernel::Sor => Params::Sor(SorParams::default()),
            Kernel::SorUb => Params::SorUb(SorParams::default()),
            Kernel::Ge => Params::Ge(GeParams::default()),
            Kernel::GeUb => Params::GeUb(GeParams::default()),
            Kernel::Mergesort => Params::Mergesort(SortParams::default()),
            Kernel::Mandelbrot => Params::Mandelbrot(MandelbrotParams::default()),
            Kernel::Fft => Params::Fft(FftParams::default()),
            Kernel::Knapsack => Params::Knapsack(KnapsackParams::default()),
            Kernel::SpmvCrs => Params::SpmvCrs(SparseParams::spmv_default()),
            Kernel::SpmvIter => Params::SpmvIter(SparseParams::spmv_default()),
            Kernel::SpmvCcs => Params::SpmvCcs(SparseParams::spmv_default()),
            Kernel::Spmm => Params::Spmm(SparseParams::spmm_default()),
            Kernel::Radix => Params::Radix(RadixParams::default()),
            Kernel::Irreg => Params::Irreg(IrregParams::default()),
            Kernel::MapReduce => Params::MapReduce(MapReduceParams::default()),
        }
    }

    /// Parses a `--size` string for this kernel; unspecified options keep their defaults.
    ///
    /// fib `"30"` or `"30,cutoff=0"`; nqueens `"11"` or `"11,depth=3"`; heat and heat-ub
    /// `"1024x512"` or `"1024x512,leaf=8,iters=10"`; heat-moving heat's and
    /// `"1024x512,band=64,hot=4"`; sort and mergesort `"1048576"` or
    /// `"1048576,cutoff=4096"`; sor and sor-ub `"1024x512,leaf=8,iters=10,omega=1.25"`;
    /// ge and ge-ub `"512"` or `"512,leaf=8"`; mandelbrot `"256x256,maxiter=256,leaf=4"`;
    /// fft `"262144"` or `"2^18,cutoff=2048"`; knapsack `"48"` or `"48,depth=12"`;
    /// heat-iter heat's; spmv-crs, spmv-iter, spmv-ccs and spmm a matrix and options, `"laplace2d:256,iters=10,grain=32"`,
    /// `"banded:N:B:K"`, `"block:N:S:K"`, `"random:100000:8"` or `"matrix=PATH,iters=5"`
    /// (a Matrix Market file, read here; see [`Params::with_matrix`] for a path with a
    /// `,`); radix `"262144,iters=10,grain=4096"`; irreg `"small"`, `"medium"`,
    /// `"large"` or `"4000:40000"`, with `mesh=geometric|uniform`, `iters=I`, `grain=G`;
    /// mapreduce `"1048576,iters=10,grain=4096"`.
    /// Kernels with seeded input also take `seed=S`. The error names the input, what is
    /// wrong with it and the expected syntax (or, for a matrix file, the file, the line
    /// and what is wrong there).
    pub fn parse_size(self, s: &str) -> Result<Params, KernelError> {
        let parsed = match self {
            Kernel::Fib => fib::parse(s).map(Params::Fib),
            Kernel::Nqueens => nqueens::parse(s).map(Params::Nqueens),
            Kernel::Heat => heat::parse(s).map(Params::Heat),
            Kernel::Sort => sort::parse(s).map(Params::Sort),
            Kernel::HeatUb => heat::parse(s).map(Params::HeatUb),
            Kernel::HeatLoop => heat::parse(s).map(Params::HeatLoop),
            Kernel::HeatIter => heat::parse(s).map(Params::HeatIter),
            Kernel::HeatMoving => heat_moving::parse(s).map(Params::HeatMoving),
            Kernel::Sor => sor::parse(s).map(Params::Sor),
            Kernel::SorUb => sor::parse(s).map(Params::SorUb),
            Kernel::Ge => ge::parse(s).map(Params::Ge),
            Kernel::GeUb => ge::parse(s).map(Params::GeUb),
            Kernel::Mergesort => sort::parse(s).map(Params::Mergesort),
            Kernel::Mandelbrot => mandelbrot::parse(s).map(Params::Mandelbrot),
            Kernel::Fft => fft::parse(s).map(Params::Fft),
            Kernel::Knapsack => knapsack::parse(s).map(Params::Knapsack),
            Kernel::SpmvCrs => {
                return self.sparse(s, SparseParams::spmv_default(), Params::SpmvCrs)
            }
            Kernel::SpmvIter => {
                return self.sparse(s, SparseParams::spmv_default(), Params::SpmvIter)
            }
            Kernel::SpmvCcs => {
                return self.sparse(s, SparseParams::spmv_default(), Params::SpmvCcs)
            }
            Kernel::Spmm => return self.sparse(s, SparseParams::spmm_default(), Params::Spmm),
            Kernel::Radix => radix::parse(s).map(Params::Radix),
            Kernel::Irreg => irreg::parse(s).map(Params::Irreg),
            Kernel::MapReduce => mapreduce::parse(s).map(Params::MapReduce),
        };
        parsed.map_err(|reason| KernelError {
            kind: ErrorKind::BadSize {
                kernel: self,
                input: s.to_owned(),
                reason,
            },
        })
    }

    /// Parses a sparse kernel's size string (reading its matrix file, if it names one).
    fn sparse(
        self,
        s: &str,
        defaults: SparseParams,
        wrap: fn(SparseParams) -> Params,
    ) -> Result<Params, KernelError> {
        sparse::parse(s, defaults).map(wrap).map_err(|e| {
            let input = s.to_owned();
            let kind = match e {
                SizeError::Reason(reason) => ErrorKind::BadSize {
                    kernel: self,
                    input,
                    reason,
                },
                SizeError::Matrix(source) => ErrorKind::Matrix {
                    kernel: self,
                    input,
                    source: Box::new(source),
                },
            };
            KernelError { kind }
        })
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kernel {
    type Err = KernelError;

    /// Parses a kernel name, ignoring ASCII case and surrounding blanks. `queens` (CATS's
    /// name) is accepted for `nqueens`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        if name.eq_ignore_ascii_case("queens") {
            return Ok(Kernel::Nqueens);
        }
        Kernel::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| KernelError {
                kind: ErrorKind::UnknownKernel {
                    input: s.to_owned(),
                },
            })
    }
}

/// The parameters of one kernel run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Params {
    /// Parameters of [`Kernel::Fib`].
    Fib(FibParams),
    /// Parameters of [`Kernel::Nqueens`].
    Nqueens(NqueensParams),
    /// Parameters of [`Kernel::Heat`].
    Heat(HeatParams),
    /// Parameters of [`Kernel::Sort`].
    Sort(SortParams),
    /// Parameters of [`Kernel::HeatUb`] (heat's).
    HeatUb(HeatParams),
    /// Parameters of [`Kernel::HeatLoop`] (heat's; `leaf` is the loop's grain in rows).
    HeatLoop(HeatParams),
    /// Parameters of [`Kernel::HeatIter`] (heat's; `leaf` is the rows of a block).
    HeatIter(HeatParams),
    /// Parameters of [`Kernel::HeatMoving`].
    HeatMoving(HeatMovingParams),
    /// Parameters of [`Kernel::Sor`].
    Sor(SorParams),
    /// Parameters of [`Kernel::SorUb`] (sor's).
    SorUb(SorParams),
    /// Parameters of [`Kernel::Ge`].
    Ge(GeParams),
    /// Parameters of [`Kernel::GeUb`] (ge's).
    GeUb(GeParams),
    /// Parameters of [`Kernel::Mergesort`] (sort's).
    Mergesort(SortParams),
    /// Parameters of [`Kernel::Mandelbrot`].
    Mandelbrot(MandelbrotParams),
    /// Parameters of [`Kernel::Fft`].
    Fft(FftParams),
    /// Parameters of [`Kernel::Knapsack`].
    Knapsack(KnapsackParams),
    /// Parameters of [`Kernel::SpmvCrs`].
    SpmvCrs(SparseParams),
    /// Parameters of [`Kernel::SpmvIter`] (spmv-crs's).
    SpmvIter(SparseParams),
    /// Parameters of [`Kernel::SpmvCcs`].
    SpmvCcs(SparseParams),
    /// Parameters of [`Kernel::Spmm`].
    Spmm(SparseParams),
    /// Parameters of [`Kernel::Radix`].
    Radix(RadixParams),
    /// Parameters of [`Kernel::Irreg`].
    Irreg(IrregParams),
    /// Parameters of [`Kernel::MapReduce`].
    MapReduce(MapReduceParams),
}

/// `a * b * c` in `u64`, saturating (sizes come from parsed, checked input, but the
/// fields are public).
fn bytes(a: usize, b: usize, c: usize) -> u64 {
    let [a, b, c] = [a, b, c].map(|x| u64::try_from(x).unwrap_or(u64::MAX));
    a.saturating_mul(b).saturating_mul(c)
}

impl Params {
    /// The kernel these parameters belong to.
    pub fn kernel(&self) -> Kernel {
        match self {
            Params::Fib(_) => Kernel::Fib,
            Params::Nqueens(_) => Kernel::Nqueens,
            Params::Heat(_) => Kernel::Heat,
            Params::Sort(_) => Kernel::Sort,
            Params::HeatUb(_) => Kernel::HeatUb,
            Params::HeatLoop(_) => Kernel::HeatLoop,
            Params::HeatIter(_) => Kernel::HeatIter,
            Params::HeatMoving(_) => Kernel::HeatMoving,
            Params::Sor(_) => Kernel::Sor,
            Params::SorUb(_) => Kernel::SorUb,
            Params::Ge(_) => Kernel::Ge,
            Params::GeUb(_) => Kernel::GeUb,
            Params::Mergesort(_) => Kernel::Mergesort,
            Params::Mandelbrot(_) => Kernel::Mandelbrot,
            Params::Fft(_) => Kernel::Fft,
            Params::Knapsack(_) => Kernel::Knapsack,
            Params::SpmvCrs(_) => Kernel::SpmvCrs,
            Params::SpmvIter(_) => Kernel::SpmvIter,
            Params::SpmvCcs(_) => Kernel::SpmvCcs,
            Params::Spmm(_) => Kernel::Spmm,
            Params::Radix(_) => Kernel::Radix,
            Params::Irreg(_) => Kernel::Irreg,
            Params::MapReduce(_) => Kernel::MapReduce,
        }
    }

    /// The size in bytes of the data the kernel works on: `S_d` of CAB's Eq. 4 for the
    /// root task. Counts every array the timed part reads or writes, scratch included:
    /// heat and heat-moving `rows * cols * 8 * 2` (two grids); sort and mergesort
    /// `n * 8 * 2` (data and buffer); sor `rows * ceil(cols / 2) * 8 * 2` (two colour
    /// planes, about one grid); ge `n * n * 8` (in place); mandelbrot `rows * cols * 4`
    /// (the image); fft `n * 16 * 2 + n / 2 * 16` (data, scratch, twiddles); knapsack
    /// `n * 16` (the items); 0 for fib and nqueens (stack only). spmv-crs and spmv-ccs:
    /// the matrix's compressed arrays (`(major + 1) * 8 + nnz * 12`) and `x` and `y`;
    /// spmm: `A`, `B` (the same size) and `C`'s pattern and values, `C`'s entries found by
    /// the symbolic product of a generated or read `A` (as costly as preparing the input);
    /// radix `n * 4 * 3` (input, buffer, output) and the two `chunks * 256` tables; irreg
    /// `edges * 8 + nodes * 24` (end points; `x`, `y`, weights). heat-iter and spmv-iter
    /// as heat-loop and spmv-crs; mapreduce `n * 8` (the array).
    pub fn data_bytes(&self) -> u64 {
        const F64: usize = std::mem::size_of::<f64>();
        match self {
            Params::Fib(_) | Params::Nqueens(_) => 0,
            Params::Heat(p) | Params::HeatUb(p) | Params::HeatLoop(p) | Params::HeatIter(p) => {
                bytes(p.rows, p.cols, 2 * F64)
            }
            Params::HeatMoving(p) => bytes(p.heat.rows, p.heat.cols, 2 * F64),
            Params::Sort(p) | Params::Mergesort(p) => bytes(p.n, 2, std::mem::size_of::<u64>()),
            Params::Sor(p) | Params::SorUb(p) => bytes(p.rows, p.cols.div_ceil(2), 2 * F64),
            Params::Ge(p) | Params::GeUb(p) => bytes(p.n, p.n, F64),
            Params::Mandelbrot(p) => bytes(p.rows, p.cols, std::mem::size_of::<u32>()),
            Params::Fft(p) => {
                let c = std::mem::size_of::<Complex>();
                bytes(p.n, 2, c).saturating_add(bytes(p.n / 2, 1, c))
            }
            Params::Knapsack(p) => bytes(p.n, 1, std::mem::size_of::<knapsack::Item>()),
            Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::SpmvCcs(p) => {
                let (rows, cols, nnz) = p.matrix.shape();
                let major = if !matches!(self, Params::SpmvCcs(_)) {
                    rows
                } else {
                    cols
                };
                sparse::compressed_bytes(major, nnz).saturating_add(bytes(rows + cols, 1, F64))
            }
            Params::Spmm(p) => {
                let (rows, cols, nnz) = p.matrix.shape();
                let c = spmm::product_nnz(&p.matrix.matrix(p.seed));
                sparse::compressed_bytes(rows, nnz)
                    .saturating_add(sparse::compressed_bytes(cols, nnz))
                    .saturating_add(sparse::compressed_bytes(rows, c))
            }
            Params::Radix(p) => bytes(p.n, 3, std::mem::size_of::<u32>()).saturating_add(bytes(
                p.n.div_ceil(p.grain.max(1)),
                radix::BUCKETS,
                16,
            )),
            Params::Irreg(p) => irreg::data_bytes(p),
            Params::MapReduce(p) => bytes(p.n, 1, std::mem::size_of::<u64>()),
        }
    }

    /// The branching degree of the kernel's task tree: `B` of CAB's Eq. 4, the number of
    /// children of an inner task.
    ///
    /// Every kernel here but heat-loop forks with binary `join`, so this is 2 for them;
    /// heat-loop's one flat loop gives its root a child per block of rows, as heat-iter's
    /// loop does. mapreduce's loop has a leaf per chunk, at most [`locus::iter::LEAVES`]. For the
    /// `-ub` kernels (heat-ub, sor-ub, ge-ub) it is also 2, although their tree mixes
    /// Cilk nodes of branching 2 and 4 (CATS's Algorithm 1): CAB's `B` is ambiguous for
    /// such mixed trees (a level-based `BL` assumes one degree), and the 4-way nodes are
    /// built from binary joins here anyway ([`crate::split`]). The affinity-graph
    /// kernels (spmv-crs, spmv-ccs, spmm, radix, irreg) are flat loops too: their root
    /// has a child per chunk of its main loop (rows, columns, keys or edges).
    pub fn branching(&self) -> u32 {
        match self {
            Params::Fib(_)
            | Params::Nqueens(_)
            | Params::Heat(_)
            | Params::Sort(_)
            | Params::HeatUb(_)
            | Params::HeatMoving(_)
            | Params::Sor(_)
            | Params::SorUb(_)
            | Params::Ge(_)
            | Params::GeUb(_)
            | Params::Mergesort(_)
            | Params::Mandelbrot(_)
            | Params::Fft(_)
            | Params::Knapsack(_) => 2,
            // One flat loop: the root has a child per block of rows.
            Params::HeatLoop(p) | Params::HeatIter(p) => {
                u32::try_from(p.rows.saturating_sub(2).div_ceil(p.leaf.max(1))).unwrap_or(u32::MAX)
            }
            Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::Spmm(p) => {
                chunks(p.matrix.shape().0, p.grain)
            }
            Params::SpmvCcs(p) => chunks(p.matrix.shape().1, p.grain),
            Params::Radix(p) => chunks(p.n, p.grain),
            Params::Irreg(p) => chunks(p.edges, p.grain),
            // A leaf per chunk, at most `LEAVES` (locus's cut).
            Params::MapReduce(p) => {
                let chunks = p.n.div_ceil(p.grain.max(1));
                let per_leaf = chunks.div_ceil(locus::iter::LEAVES).max(1);
                u32::try_from(chunks.div_ceil(per_leaf)).unwrap_or(u32::MAX)
            }
        }
    }

    /// Generates the input and computes the serial reference result, once, outside any
    /// timing. This can take as long as a serial run of the kernel.
    pub fn prepare(&self) -> Prepared {
        Prepared::new(self.clone(), false)
    }

    /// As [`Params::prepare`], but the serial reference of the kernels that take an
    /// input (heat, sort, sor, ge, fft, mandelbrot and their variants) is computed on a
    /// thread of its own, which the first [`Prepared::verify`] waits for: for a caller
    /// that runs the kernel once, untimed, meanwhile (the simulator's recorder). Not for
    /// timing: the reference would take a core from the timed run. The thread generates
    /// its own copy of the input, so until it ends the preparation holds up to twice
    /// the bytes of [`Params::estimate`].
    pub fn prepare_overlapped(&self) -> Prepared {
        Prepared::new(self.clone(), true)
    }

    /// The files the input is read from (a sparse kernel's Matrix Market file), which
    /// the size string names but does not describe: a profile's input identity hashes
    /// their content.
    pub fn input_files(&self) -> Vec<&std::path::Path> {
        match self {
            Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::SpmvCcs(p) | Params::Spmm(p) => {
                match &p.matrix {
                    MatrixSpec::File(m) => vec![m.path()],
                    MatrixSpec::Generated(_) => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// These parameters with the matrix read from the Matrix Market file at `path`
    /// (for spmv-crs, spmv-iter, spmv-ccs and spmm; the other kernels take no matrix). The error
    /// names the file, the line and what is wrong there.
    pub fn with_matrix(&self, path: impl AsRef<std::path::Path>) -> Result<Params, KernelError> {
        let path = path.as_ref();
        let kernel = self.kernel();
        let input = path.display().to_string();
        let load = |p: &SparseParams| {
            p.clone().with_matrix(path).map_err(|source| KernelError {
                kind: ErrorKind::Matrix {
                    kernel,
                    input: input.clone(),
                    source: Box::new(source),
                },
            })
        };
        match self {
            Params::SpmvCrs(p) => load(p).map(Params::SpmvCrs),
            Params::SpmvIter(p) => load(p).map(Params::SpmvIter),
            Params::SpmvCcs(p) => load(p).map(Params::SpmvCcs),
            Params::Spmm(p) => load(p).map(Params::Spmm),
            _ => Err(KernelError {
                kind: ErrorKind::NoMatrix { kernel, input },
            }),
        }
    }
}

/// Chunks of `grain` in a loop of `n`, as a branching degree.
fn chunks(n: usize, grain: usize) -> u32 {
    u32::try_from(n.div_ceil(grain.max(1))).unwrap_or(u32::MAX)
}

impl fmt::Display for Params {
    /// Writes the canonical size string, which [`Kernel::parse_size`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Params::Fib(p) => p.fmt(f),
            Params::Nqueens(p) => p.fmt(f),
            Params::Heat(p) | Params::HeatUb(p) | Params::HeatLoop(p) | Params::HeatIter(p) => {
                p.fmt(f)
            }
            Params::HeatMoving(p) => p.fmt(f),
            Params::Sort(p) | Params::Mergesort(p) => p.fmt(f),
            Params::Sor(p) | Params::SorUb(p) => p.fmt(f),
            Params::Ge(p) | Params::GeUb(p) => p.fmt(f),
            Params::Mandelbrot(p) => p.fmt(f),
            Params::Fft(p) => p.fmt(f),
            Params::Knapsack(p) => p.fmt(f),
            Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::SpmvCcs(p) | Params::Spmm(p) => {
                p.fmt(f)
            }
            Params::Radix(p) => p.fmt(f),
            Params::Irreg(p) => p.fmt(f),
            Params::MapReduce(p) => p.fmt(f),
        }
    }
}

/// A kernel name or `--size` string that could not be parsed.
///
/// The message names the input, what is wrong and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct KernelError {
    kind: ErrorKind,
}

impl KernelError {
    /// The string that failed to parse.
    pub fn input(&self) -> &str {
        match &self.kind {
            ErrorKind::UnknownKernel { input } | ErrorKind::BadSize { input, .. } => input,
            ErrorKind::Matrix { input, .. } | ErrorKind::NoMatrix { input, .. } => input,
        }
    }
}

/// The kernel names, comma-separated.
fn valid_names() -> String {
    Kernel::ALL.map(Kernel::name).join(", ")
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ErrorKind {
    #[error("unknown kernel {input:?}; valid kernels: {}", valid_names())]
    UnknownKernel { input: String },
    #[error(
        "invalid size {input:?} for kernel {kernel}: {reason}; expected {}",
        kernel.size_syntax()
    )]
    BadSize {
        kernel: Kernel,
        input: String,
        reason: String,
    },
    #[error("cannot read the matrix of kernel {kernel} ({input:?}): {source}")]
    Matrix {
        kernel: Kernel,
        input: String,
        source: Box<MtxError>,
    },
    #[error(
        "kernel {kernel} takes no matrix ({input:?}); spmv-crs, spmv-iter, spmv-ccs and \
         spmm do"
    )]
    NoMatrix { kernel: Kernel, input: String },
}
