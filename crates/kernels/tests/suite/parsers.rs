//! Bounded fuzzing of the Matrix Market reader (`--matrix`, `matrix=` in a size; see
//! `locus_files::fuzz`): the good files of `tests/data/mtx/` mutated, and made-up text,
//! are read or refused with a message naming the file; none panics.

use locus_files::fuzz;
use locus_kernels::mtx;
use proptest::prelude::*;

/// Good files of every format, field and symmetry.
const FILES: &[&str] = &[
    include_str!("../data/mtx/general_real.mtx"),
    include_str!("../data/mtx/general_integer.mtx"),
    include_str!("../data/mtx/general_pattern.mtx"),
    include_str!("../data/mtx/symmetric_real.mtx"),
    include_str!("../data/mtx/symmetric_pattern.mtx"),
    include_str!("../data/mtx/skew_integer.mtx"),
    include_str!("../data/mtx/array_real.mtx"),
    include_str!("../data/mtx/array_symmetric.mtx"),
    include_str!("../data/mtx/array_skew.mtx"),
    include_str!("../data/mtx/crlf_uppercase.mtx"),
];

/// What Matrix Market files are made of.
const MTX_BYTES: &[u8] =
    b"%% 0123456789.-+eEdD\n\r\tMatrixcoordinatearrayrealintegerpatterngeneralsymmetricskew";

const NAME: &str = "fuzz/m.mtx";

proptest! {
    #![proptest_config(fuzz::config(256))]

    #[test]
    fn matrix_market(input in fuzz::inputs(FILES, MTX_BYTES)) {
        if let Err(e) = mtx::read_from(input.as_slice(), NAME) {
            let e = e.to_string();
            prop_assert!(e.starts_with(NAME), "{e}");
        }
    }
}

#[test]
fn the_samples_are_valid() {
    for text in FILES {
        mtx::read_from(text.as_bytes(), NAME).unwrap_or_else(|e| panic!("{e}"));
    }
}
