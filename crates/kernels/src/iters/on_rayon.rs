//! The kernels of [`super`] compiled against rayon's parallel iterators.

use rayon::prelude;

#[path = "body.rs"]
pub(super) mod body;
