//! Parallel iterators (to come) and the serial loop executor the kernels' recorder
//! installs ([`hook`]).

pub mod hook;
