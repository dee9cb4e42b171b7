//! Every entry point this library exports, by construct, each with its GCC symbol
//! version written once: in the file of its construct, an `exports!` block lists the
//! entry points as `"VERSION" fn NAME(...) { ... }` (or `"VERSION" fn NAME =
//! family!(...);` for one of a family written by a macro). The block makes each an
//! `extern "C"` function, binds it to its version node of `libgomp.map` with a
//! `.symver` directive inside its body (`symver!`), and lists it in the file's
//! `SYMBOLS`, which [`CONSTRUCTS`] gathers for the tests and for the list in
//! `docs/openmp.md` (a test checks that list against this table); a test checks that
//! the built library exports exactly this table, each symbol with its version. A
//! symbol not listed is not exported, so a program that needs it fails to load (with
//! `LD_BIND_NOW=1`, as `locus run` sets) naming it.
//!
//! Bodies run under `guard` (`guard.rs`), so that a Rust panic prints and
//! aborts instead of unwinding into C, except the hottest two (`GOMP_task`,
//! `GOMP_taskwait`). Signatures follow GCC 12's libgomp (`libgomp_g.h`, `omp.h.in`) and
//! what `gcc -fopenmp -fdump-tree-optimized` emits; `tests/suite/programs.rs` compares
//! the library's exports with this table and with the system libgomp's versions.

/// Defines a file's entry points and its `SYMBOLS` table. Each entry, after its doc
/// comment and attributes, is one of:
/// - `"VERSION" fn NAME(ARGS) -> RET { BODY }`: an entry point written here;
/// - `"VERSION" fn NAME = family!(ARGS);`: one written by `family!`, which is called
///   as `family!(ATTRS NAME @ "VERSION", ARGS)` and defines `NAME` as an `extern "C"`
///   function whose body starts with `symver!(NAME, "VERSION")`;
/// - `"VERSION" extern NAME;`: one defined in assembly in the same file.
macro_rules! exports {
    (@table [$($table:tt)*]) => {
        /// This file's entry points and their versions.
        pub(crate) const SYMBOLS: &[(&str, &str)] = &[$($table)*];
    };
    (@table [$($table:tt)*]
        $(#[$attr:meta])*
        $ver:literal fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block
        $($rest:tt)*
    ) => {
        #[doc = concat!("`", stringify!($name), "@@", $ver, "`.")]
        #[doc = ""]
        $(#[$attr])*
        #[no_mangle]
        #[inline(never)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            symver!($name, $ver);
            $body
        }
        exports!(@table [$($table)* (stringify!($name), $ver),] $($rest)*);
    };
    (@table [$($table:tt)*]
        $(#[$attr:meta])*
        $ver:literal fn $name:ident = $family:ident!($($args:tt)*);
        $($rest:tt)*
    ) => {
        $family!(
            #[doc = concat!("`", stringify!($name), "@@", $ver, "`.")]
            #[doc = ""]
            $(#[$attr])*
            #[inline(never)]
            $name @ $ver,
            $($args)*
        );
        exports!(@table [$($table)* (stringify!($name), $ver),] $($rest)*);
    };
    (@table [$($table:tt)*]
        $(#[$attr:meta])*
        $ver:literal extern $name:ident;
        $($rest:tt)*
    ) => {
        $(#[$attr])*
        std::arch::global_asm!(concat!(".symver ", stringify!($name), ", ", stringify!($name), "@@", $ver));
        exports!(@table [$($table)* (stringify!($name), $ver),] $($rest)*);
    };
    ($($entries:tt)*) => {
        exports!(@table [] $($entries)*);
    };
}

/// Binds entry point `name` to its version node: an assembler directive (no
/// instruction) at the top of the function's body, so that it lands in the object that
/// defines the symbol, which `.symver` needs, however rustc and LLVM split the crate
/// into codegen units (the entry points are `#[inline(never)]`, so that no copy of a
/// body, and of its directive, lands elsewhere). Not in unit tests, which link this
/// crate into an executable that has no version script.
macro_rules! symver {
    ($name:ident, $ver:literal) => {
        #[cfg(not(test))]
        // SAFETY: a directive to the assembler, which emits nothing here: no code runs.
        unsafe {
            std::arch::asm!(
                concat!(
                    ".symver ",
                    stringify!($name),
                    ", ",
                    stringify!($name),
                    "@@",
                    $ver
                ),
                options(nomem, nostack, preserves_flags)
            )
        };
    };
}

#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod alloc_locks;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod doacross;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod fortran;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod loops;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod parallel;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod routines;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod sync;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod target;
#[allow(non_snake_case, clippy::missing_safety_doc)]
pub mod tasks;

/// The exported symbols by construct: a title, then each symbol with its version.
pub const CONSTRUCTS: &[(&str, &[(&str, &str)])] = &[
    ("parallel regions", parallel::SYMBOLS),
    (
        "worksharing: loops, ordered, sections, scope",
        loops::SYMBOLS,
    ),
    ("doacross loops", doacross::SYMBOLS),
    ("tasks", tasks::SYMBOLS),
    ("synchronisation, cancellation, error", sync::SYMBOLS),
    ("devices, target, teams", target::SYMBOLS),
    ("routines", routines::SYMBOLS),
    ("allocators and locks", alloc_locks::SYMBOLS),
    ("Fortran routines", fortran::SYMBOLS),
];

/// Every exported symbol with its version.
pub fn symbols() -> impl Iterator<Item = (&'static str, &'static str)> {
    CONSTRUCTS.iter().flat_map(|(_, s)| s.iter().copied())
}

/// The list `docs/openmp.md` shows between its `symbols` markers, made from
/// [`CONSTRUCTS`]: one line per construct, each symbol with its version.
pub fn symbol_list() -> String {
    let mut out = String::new();
    for (title, symbols) in CONSTRUCTS {
        let names: Vec<String> = symbols
            .iter()
            .map(|(name, version)| format!("`{name}` {version}"))
            .collect();
        out.push_str(&format!("- {title}: {}\n", names.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{symbol_list, symbols};
    use std::collections::HashSet;

    #[test]
    fn every_symbol_is_exported_once_into_a_node_of_the_version_script() {
        let script = include_str!("../libgomp.map");
        let mut seen = HashSet::new();
        for (name, version) in symbols() {
            assert!(seen.insert(name), "{name} exported twice");
            assert!(
                script
                    .lines()
                    .any(|l| l.starts_with(&format!("{version} {{"))),
                "{name}@@{version}: no such node in libgomp.map"
            );
        }
        assert!(seen.len() > 300, "{} symbols", seen.len());
    }

    /// `docs/openmp.md` lists the symbols as this table has them (to regenerate its list:
    /// `LOCUS_BLESS=1 cargo test -p locus-omp --lib abi::`).
    #[test]
    fn the_docs_list_every_symbol_with_its_version() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openmp.md");
        let doc = std::fs::read_to_string(path).expect("docs/openmp.md");
        let (begin, end) = ("<!-- symbols: begin -->\n", "<!-- symbols: end -->");
        let start = doc.find(begin).expect("the begin marker") + begin.len();
        let stop = doc.find(end).expect("the end marker");
        let want = symbol_list();
        if std::env::var_os("LOCUS_BLESS").is_some() {
            let blessed = format!("{}{want}{}", &doc[..start], &doc[stop..]);
            std::fs::write(path, blessed).expect("docs/openmp.md is writable");
            return;
        }
        assert_eq!(
            doc[start..stop],
            want,
            "docs/openmp.md's symbol list differs from abi::CONSTRUCTS; \
             LOCUS_BLESS=1 rewrites it"
        );
    }
}
