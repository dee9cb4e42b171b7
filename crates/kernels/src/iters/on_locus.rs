//! The kernels of [`super`] compiled against locus's parallel iterators.

use locus::prelude;

#[path = "body.rs"]
pub(super) mod body;
