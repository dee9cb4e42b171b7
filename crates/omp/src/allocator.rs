//! What an OpenMP allocator is: handles, memory spaces and traits as `omp.h` numbers
//! them, the traits locus can keep ([`check_traits`]), and the grammar of
//! `OMP_ALLOCATOR` ([`check_environment`], which the settings call at start).
//! Allocating is `alloc.rs`'s.

use std::sync::atomic::AtomicUsize;

/// `omp_allocator_handle_t`: a predefined allocator's number, or an [`Allocator`]'s
/// address from `Arc::into_raw`.
pub(crate) type Handle = usize;
/// `omp_memspace_handle_t`.
pub(crate) type Memspace = usize;

/// `omp_null_allocator`.
pub(crate) const NULL_ALLOCATOR: Handle = 0;
/// `omp_default_mem_alloc`.
pub(crate) const DEFAULT_MEM_ALLOC: Handle = 1;

/// The predefined allocators, numbered from 1 as in `omp.h`.
pub(crate) const PREDEFINED: [&str; 8] = [
    "omp_default_mem_alloc",
    "omp_large_cap_mem_alloc",
    "omp_const_mem_alloc",
    "omp_high_bw_mem_alloc",
    "omp_low_lat_mem_alloc",
    "omp_cgroup_mem_alloc",
    "omp_pteam_mem_alloc",
    "omp_thread_mem_alloc",
];

/// The memory spaces, numbered from 0 as in `omp.h`.
pub(crate) const MEMSPACES: [&str; 5] = [
    "omp_default_mem_space",
    "omp_large_cap_mem_space",
    "omp_const_mem_space",
    "omp_high_bw_mem_space",
    "omp_low_lat_mem_space",
];

/// `omp_alloctrait_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trait {
    /// `omp_alloctrait_key_t`, a plain C enum (an `int`).
    pub(crate) key: u32,
    /// `omp_uintptr_t`.
    pub(crate) value: usize,
}

const _: () = assert!(std::mem::size_of::<Trait>() == 2 * std::mem::size_of::<usize>());

/// The traits' names, in the order of their keys (from 1).
pub(crate) const TRAITS: [&str; 8] = [
    "sync_hint",
    "alignment",
    "access",
    "pool_size",
    "fallback",
    "fb_data",
    "pinned",
    "partition",
];

// omp_alloctrait_key_t.
pub(crate) const ATK_SYNC_HINT: u32 = 1;
pub(crate) const ATK_ALIGNMENT: u32 = 2;
pub(crate) const ATK_ACCESS: u32 = 3;
pub(crate) const ATK_POOL_SIZE: u32 = 4;
pub(crate) const ATK_FALLBACK: u32 = 5;
pub(crate) const ATK_FB_DATA: u32 = 6;
pub(crate) const ATK_PINNED: u32 = 7;
pub(crate) const ATK_PARTITION: u32 = 8;

// omp_alloctrait_value_t.
pub(crate) const ATV_DEFAULT: usize = usize::MAX;
pub(crate) const ATV_FALSE: usize = 0;
pub(crate) const ATV_TRUE: usize = 1;
pub(crate) const ATV_CONTENDED: usize = 3;
pub(crate) const ATV_PRIVATE: usize = 6;
pub(crate) const ATV_ALL: usize = 7;
pub(crate) const ATV_CGROUP: usize = 10;
pub(crate) const ATV_DEFAULT_MEM_FB: usize = 11;
pub(crate) const ATV_NULL_FB: usize = 12;
pub(crate) const ATV_ABORT_FB: usize = 13;
pub(crate) const ATV_ALLOCATOR_FB: usize = 14;
pub(crate) const ATV_ENVIRONMENT: usize = 15;
pub(crate) const ATV_INTERLEAVED: usize = 18;

/// What an allocator does when it cannot serve a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// `default_mem_fb`: serve it from `omp_default_mem_alloc`.
    DefaultMem,
    /// `null_fb`: return a null pointer.
    Null,
    /// `abort_fb`: end the program.
    Abort,
    /// `allocator_fb`: serve it from the `fb_data` allocator.
    Other(Handle),
}

/// An allocator made by `omp_init_allocator`.
#[derive(Debug)]
pub(crate) struct Allocator {
    /// At least this alignment for every block (a power of two).
    pub(crate) align: usize,
    /// The most bytes outstanding at once, if limited.
    pub(crate) pool: Option<usize>,
    /// Bytes outstanding now (requested sizes; counted only with a pool).
    pub(crate) used: AtomicUsize,
    pub(crate) fallback: Fallback,
}

/// Why `omp_init_allocator` makes no allocator, for tests and `OMP_ALLOCATOR`'s error.
pub(crate) fn check_traits(memspace: Memspace, traits: &[Trait]) -> Result<Allocator, String> {
    if memspace >= MEMSPACES.len() {
        return Err(format!("memory space {memspace} is not one of omp.h's"));
    }
    let mut a = Allocator {
        align: 1,
        pool: None,
        used: AtomicUsize::new(0),
        fallback: Fallback::DefaultMem,
    };
    let mut fb_data = None;
    for t in traits {
        let v = t.value;
        match t.key {
            ATK_SYNC_HINT if v == ATV_DEFAULT || (ATV_CONTENDED..=ATV_PRIVATE).contains(&v) => {}
            ATK_ALIGNMENT if v == ATV_DEFAULT => {}
            ATK_ALIGNMENT if v.is_power_of_two() => a.align = v,
            ATK_ACCESS if v == ATV_DEFAULT || (ATV_ALL..=ATV_CGROUP).contains(&v) => {}
            ATK_POOL_SIZE if v == ATV_DEFAULT => {}
            ATK_POOL_SIZE => a.pool = Some(v),
            ATK_FALLBACK => {
                a.fallback = match v {
                    ATV_DEFAULT | ATV_DEFAULT_MEM_FB => Fallback::DefaultMem,
                    ATV_NULL_FB => Fallback::Null,
                    ATV_ABORT_FB => Fallback::Abort,
                    ATV_ALLOCATOR_FB => Fallback::Other(NULL_ALLOCATOR),
                    _ => return Err(format!("fallback value {v} is not one of omp.h's")),
                }
            }
            ATK_FB_DATA if is_valid(v) && v != NULL_ALLOCATOR => fb_data = Some(v),
            ATK_PINNED if v == ATV_DEFAULT || v == ATV_FALSE => {}
            ATK_PINNED if v == ATV_TRUE => {
                return Err("pinned memory is not supported by locus".to_string())
            }
            ATK_PARTITION
                if v == ATV_DEFAULT || (ATV_ENVIRONMENT..=ATV_INTERLEAVED).contains(&v) => {}
            ATK_SYNC_HINT..=ATK_PARTITION => {
                let name = TRAITS[t.key as usize - 1];
                return Err(format!("{v} is not a valid value of the {name} trait"));
            }
            key => return Err(format!("trait key {key} is not one of omp.h's")),
        }
    }
    if a.fallback == Fallback::Other(NULL_ALLOCATOR) {
        match fb_data {
            Some(h) => a.fallback = Fallback::Other(h),
            None => return Err("fallback=allocator_fb needs an fb_data allocator".to_string()),
        }
    }
    Ok(a)
}

/// Checks an `OMP_ALLOCATOR` value (at start, with the other settings).
pub(crate) fn check_environment(spec: &str) -> Result<(), String> {
    match parse_allocator(spec)? {
        Spec::Predefined(_) => Ok(()),
        Spec::Made(memspace, traits) => check_traits(memspace, &traits).map(drop),
    }
}

/// What `OMP_ALLOCATOR` says.
#[derive(Debug, PartialEq)]
pub(crate) enum Spec {
    /// A predefined allocator, by name.
    Predefined(Handle),
    /// `memspace[:trait=value,...]` (OpenMP 5.1).
    Made(Memspace, Vec<Trait>),
}

/// Parses `OMP_ALLOCATOR`: a predefined allocator's name, or a memory space's name with
/// traits after a colon (`omp_default_mem_space:alignment=64,pool_size=1048576,
/// fallback=null_fb`).
pub(crate) fn parse_allocator(spec: &str) -> Result<Spec, String> {
    let spec = spec.trim();
    if let Some(i) = PREDEFINED.iter().position(|&n| n == spec) {
        return Ok(Spec::Predefined(i + 1));
    }
    let (space, traits) = spec.split_once(':').unwrap_or((spec, ""));
    let Some(memspace) = MEMSPACES.iter().position(|&n| n == space.trim()) else {
        return Err(format!(
            "expected a predefined allocator ({}) or a memory space ({}) with traits after \
             a colon",
            PREDEFINED.join(", "),
            MEMSPACES.join(", ")
        ));
    };
    let mut out = Vec::new();
    for item in traits.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((key, value)) = item.split_once('=') else {
            return Err(format!("trait {item:?}: expected name=value"));
        };
        let (key, value) = (key.trim(), value.trim());
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("trait {key}: {value:?} is not a number"))
        };
        let word = |names: &[(&str, usize)]| {
            names
                .iter()
                .find(|(n, _)| *n == value)
                .map(|&(_, v)| v)
                .ok_or_else(|| {
                    let all: Vec<_> = names.iter().map(|(n, _)| *n).collect();
                    format!("trait {key}: {value:?} is not one of {}", all.join(", "))
                })
        };
        let t = match key {
            "sync_hint" => Trait {
                key: ATK_SYNC_HINT,
                value: word(&[
                    ("contended", 3),
                    ("uncontended", 4),
                    ("serialized", 5),
                    ("private", 6),
                ])?,
            },
            "alignment" => Trait {
                key: ATK_ALIGNMENT,
                value: number()?,
            },
            "access" => Trait {
                key: ATK_ACCESS,
                value: word(&[("all", 7), ("thread", 8), ("pteam", 9), ("cgroup", 10)])?,
            },
            "pool_size" => Trait {
                key: ATK_POOL_SIZE,
                value: number()?,
            },
            "fallback" => Trait {
                key: ATK_FALLBACK,
                value: word(&[
                    ("default_mem_fb", 11),
                    ("null_fb", 12),
                    ("abort_fb", 13),
                    ("allocator_fb", 14),
                ])?,
            },
            "fb_data" => Trait {
                key: ATK_FB_DATA,
                value: PREDEFINED
                    .iter()
                    .position(|&n| n == value)
                    .map(|i| i + 1)
                    .ok_or_else(|| {
                        format!("trait fb_data: {value:?} is not a predefined allocator")
                    })?,
            },
            "pinned" => Trait {
                key: ATK_PINNED,
                value: word(&[("false", 0), ("true", 1)])?,
            },
            "partition" => Trait {
                key: ATK_PARTITION,
                value: word(&[
                    ("environment", 15),
                    ("nearest", 16),
                    ("blocked", 17),
                    ("interleaved", 18),
                ])?,
            },
            _ => return Err(format!("{key:?} is not an allocator trait")),
        };
        out.push(t);
    }
    Ok(Spec::Made(memspace, out))
}

/// Whether `h` is a predefined allocator or one made here and not yet destroyed (the
/// latter is the caller's promise: the handle is only looked up, never read, here).
pub(crate) fn is_valid(h: Handle) -> bool {
    h <= PREDEFINED.len() || h % std::mem::align_of::<Allocator>() == 0
}
