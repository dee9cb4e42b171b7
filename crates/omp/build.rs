//! Links the shared library as GCC's libgomp: its soname and its symbol versions (the
//! version nodes of `libgomp.map`; each symbol is bound to its node by a `.symver`
//! directive beside each entry point in `src/abi/`, through the `exports!` macro of
//! `src/abi.rs`).

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=libgomp.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/libgomp.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgomp.so.1");
}
