//! The Matrix Market reader: good files of every supported format, field and symmetry
//! load to the right matrix; broken files (in `tests/data/mtx/`) are refused with a
//! message naming the file, the line and what is wrong; the sparse kernels run on a
//! file named in their size string or given through `Params::with_matrix`.

use std::path::{Path, PathBuf};

use locus_kernels::mtx;
use locus_kernels::sparse::{Csr, MatrixSpec};
use locus_kernels::{Kernel, Params, Serial};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mtx")
        .join(name)
}

/// The matrix of `rows x cols` with these 1-based entries.
fn matrix(rows: usize, cols: usize, entries: &[(usize, usize, f64)]) -> Csr {
    let zero_based: Vec<_> = entries.iter().map(|&(i, j, v)| (i - 1, j - 1, v)).collect();
    Csr::from_triplets(rows, cols, &zero_based).unwrap()
}

#[test]
fn good_files_load_to_the_right_matrix() {
    let cases: &[(&str, Csr)] = &[
        (
            // Comments, a blank line, a Fortran exponent, entries in any order.
            "general_real.mtx",
            matrix(
                3,
                4,
                &[
                    (1, 1, 1.5),
                    (3, 4, -22.5),
                    (2, 2, 4.0),
                    (1, 3, -0.1),
                    (3, 1, 7.0),
                ],
            ),
        ),
        (
            // An explicit zero is kept as given.
            "general_integer.mtx",
            matrix(2, 3, &[(2, 3, -4.0), (1, 1, 12.0), (2, 1, 0.0)]),
        ),
        (
            "general_pattern.mtx",
            matrix(3, 3, &[(1, 2, 1.0), (2, 3, 1.0), (3, 1, 1.0), (3, 3, 1.0)]),
        ),
        (
            "symmetric_real.mtx",
            matrix(
                3,
                3,
                &[
                    (1, 1, 2.0),
                    (2, 1, -1.0),
                    (1, 2, -1.0),
                    (3, 2, -0.5),
                    (2, 3, -0.5),
                    (3, 3, 4.0),
                ],
            ),
        ),
        (
            "symmetric_pattern.mtx",
            matrix(
                3,
                3,
                &[
                    (2, 1, 1.0),
                    (1, 2, 1.0),
                    (3, 1, 1.0),
                    (1, 3, 1.0),
                    (2, 2, 1.0),
                ],
            ),
        ),
        (
            "skew_integer.mtx",
            matrix(
                3,
                3,
                &[(2, 1, 5.0), (1, 2, -5.0), (3, 2, -3.0), (2, 3, 3.0)],
            ),
        ),
        (
            // Column-major; zeros are not stored.
            "array_real.mtx",
            matrix(2, 3, &[(1, 1, 1.0), (1, 2, 2.5), (2, 2, -1.0), (2, 3, 3.0)]),
        ),
        (
            // Lower triangle column by column: (1,1) (2,1) (3,1) (2,2) (3,2) (3,3).
            "array_symmetric.mtx",
            matrix(
                3,
                3,
                &[
                    (1, 1, 1.0),
                    (2, 1, 2.0),
                    (1, 2, 2.0),
                    (3, 1, 3.0),
                    (1, 3, 3.0),
                    (2, 2, 4.0),
                    (3, 3, 6.0),
                ],
            ),
        ),
        (
            // Strictly below the diagonal: (2,1) (3,1) (3,2).
            "array_skew.mtx",
            matrix(
                3,
                3,
                &[
                    (2, 1, 1.0),
                    (1, 2, -1.0),
                    (3, 1, 2.0),
                    (1, 3, -2.0),
                    (3, 2, 3.0),
                    (2, 3, -3.0),
                ],
            ),
        ),
        (
            // Windows line ends and banner words in any case.
            "crlf_uppercase.mtx",
            matrix(2, 2, &[(1, 1, 1.0), (2, 2, 2.0)]),
        ),
    ];
    for (name, want) in cases {
        let got = mtx::read(data(name)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&got, want, "{name}");
    }
}

/// The broken files: (file, line, what the message says).
const BROKEN: &[(&str, Option<usize>, &str)] = &[
    ("empty.mtx", None, "the file is empty"),
    (
        "no_banner.mtx",
        Some(1),
        "expected the banner '%%MatrixMarket matrix FORMAT FIELD SYMMETRY', found \"3 3 1\"",
    ),
    (
        "banner_words.mtx",
        Some(1),
        "the banner has 4 words, expected 5",
    ),
    (
        "object_vector.mtx",
        Some(1),
        "unsupported object \"vector\"",
    ),
    (
        "format_unknown.mtx",
        Some(1),
        "unknown format \"compressed\"",
    ),
    ("field_unknown.mtx", Some(1), "unknown field \"double\""),
    ("complex.mtx", Some(1), "complex matrices are not supported"),
    (
        "hermitian.mtx",
        Some(1),
        "hermitian matrices are not supported",
    ),
    (
        "symmetry_unknown.mtx",
        Some(1),
        "unknown symmetry \"upper\"",
    ),
    (
        "pattern_array.mtx",
        Some(1),
        "the 'array' format has no 'pattern' field",
    ),
    (
        "no_size_line.mtx",
        Some(4),
        "the file ends before the size line 'ROWS COLS ENTRIES'",
    ),
    (
        "bad_size_line.mtx",
        Some(2),
        "bad size line \"3 3\": expected 'ROWS COLS ENTRIES'",
    ),
    (
        "zero_rows.mtx",
        Some(2),
        "the matrix is 0 x 3: it needs at least one row",
    ),
    (
        "not_square.mtx",
        Some(2),
        "a symmetric matrix must be square, this one is 3 x 4",
    ),
    (
        "too_many_declared.mtx",
        Some(2),
        "declares 5 entries, more than the 4 places",
    ),
    (
        "missing_value.mtx",
        Some(4),
        "expected 3 fields (row, column, value), found 2",
    ),
    (
        "index_zero.mtx",
        Some(4),
        "row index 0: indices are 1-based",
    ),
    (
        "index_range.mtx",
        Some(4),
        "column index 4 is out of range 1..=3",
    ),
    (
        "index_not_integer.mtx",
        Some(3),
        "row index \"1.5\" is not a positive integer",
    ),
    (
        "value_not_number.mtx",
        Some(4),
        "value \"abc\" is not a real number",
    ),
    (
        "integer_not_whole.mtx",
        Some(3),
        "value \"2.5\" is not an integer",
    ),
    ("not_finite.mtx", Some(3), "value \"inf\" is not finite"),
    (
        "duplicate.mtx",
        Some(6),
        "entry (2, 1) is given twice (first on line 3); repeated entries are refused, not summed",
    ),
    (
        "upper_triangle.mtx",
        Some(4),
        "entry (1, 3) lies above the diagonal: a symmetric file stores only the lower triangle",
    ),
    (
        "skew_diagonal.mtx",
        Some(4),
        "entry (2, 2) lies on the diagonal",
    ),
    (
        "truncated.mtx",
        Some(4),
        "the file ends after 2 of the 4 entries the size line declares",
    ),
    (
        "extra_entries.mtx",
        Some(5),
        "more entries than the 2 the size line declares",
    ),
    (
        "array_truncated.mtx",
        Some(7),
        "the file ends after 5 of the 6 entries",
    ),
    ("not_utf8.mtx", Some(2), "the line is not valid UTF-8 text"),
    ("no_such_file.mtx", None, "cannot read it: No such file"),
];

#[test]
fn broken_files_are_refused_with_their_own_message() {
    let cases = BROKEN;
    let mut messages = Vec::new();
    for &(name, line, what) in cases {
        let path = data(name);
        let err = mtx::read(&path).expect_err(name);
        let msg = err.to_string();
        assert_eq!(err.path(), path, "{name}");
        assert_eq!(err.line(), line, "{name}: {msg}");
        assert!(
            msg.starts_with(&path.display().to_string()),
            "{name}: {msg}"
        );
        if let Some(line) = line {
            assert!(msg.contains(&format!(", line {line}: ")), "{name}: {msg}");
        }
        assert!(msg.contains(what), "{name}: {msg:?} lacks {what:?}");
        messages.push(msg);
    }
    // Every broken file has its own message.
    let mut reasons: Vec<&str> = messages
        .iter()
        .map(|m| m.split_once(": ").map_or(m.as_str(), |(_, r)| r))
        .collect();
    reasons.sort_unstable();
    reasons.dedup();
    assert_eq!(reasons.len(), cases.len());
}

#[test]
fn every_data_file_is_tested() {
    // Every `.mtx` in the data folder is a good file or one of the broken ones above.
    let good = [
        "general_real.mtx",
        "general_integer.mtx",
        "general_pattern.mtx",
        "symmetric_real.mtx",
        "symmetric_pattern.mtx",
        "skew_integer.mtx",
        "array_real.mtx",
        "array_symmetric.mtx",
        "array_skew.mtx",
        "crlf_uppercase.mtx",
    ];
    let mut broken = 0;
    for entry in std::fs::read_dir(data("")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let ok = mtx::read(data(&name)).is_ok();
        assert_eq!(ok, good.contains(&name.as_str()), "{name}");
        if !ok {
            assert!(BROKEN.iter().any(|b| b.0 == name), "{name} is not tested");
            broken += 1;
        }
    }
    assert!(broken >= 10, "{broken} broken files");
}

#[test]
fn sparse_kernels_run_on_a_file() {
    let file = data("symmetric_real.mtx");
    let want = mtx::read(&file).unwrap();
    for kernel in [Kernel::SpmvCrs, Kernel::SpmvCcs, Kernel::Spmm] {
        let size = format!("matrix={},iters=3,grain=2", file.display());
        let params = kernel.parse_size(&size).unwrap_or_else(|e| panic!("{e}"));
        let (Params::SpmvCrs(p) | Params::SpmvCcs(p) | Params::Spmm(p)) = &params else {
            panic!("{kernel}: {params:?}");
        };
        match &p.matrix {
            MatrixSpec::File(m) => {
                assert_eq!(**m.matrix(), want);
                assert_eq!(m.path(), file);
            }
            other => panic!("{kernel}: {other:?}"),
        }
        assert_eq!((p.iters, p.grain), (3, 2));
        // Display round-trips (reading the file again).
        assert_eq!(params.to_string(), size);
        assert_eq!(kernel.parse_size(&params.to_string()).unwrap(), params);
        let mut prepared = params.prepare();
        for _ in 0..2 {
            let outcome = prepared.run(&Serial);
            assert!(outcome.verified, "{kernel}: {outcome}");
        }

        // The same through `with_matrix`, keeping the other options.
        let base = kernel.parse_size("random:10:2,iters=4,grain=5").unwrap();
        let loaded = base.with_matrix(&file).unwrap();
        assert_eq!(
            loaded.to_string(),
            format!("matrix={},iters=4,grain=5", file.display())
        );
        assert!(loaded.prepare().run(&Serial).verified);
        let err = base
            .with_matrix(data("duplicate.mtx"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(kernel.name()) && err.contains("duplicate.mtx, line 6: entry (2, 1)"),
            "{err}"
        );
    }
    // A file's error through the size string names the kernel, the input and the line.
    let size = format!("matrix={},iters=2", data("index_range.mtx").display());
    let err = Kernel::SpmvCrs.parse_size(&size).unwrap_err();
    assert_eq!(err.input(), size);
    let msg = err.to_string();
    assert!(
        msg.contains("spmv-crs") && msg.contains("index_range.mtx, line 4: column index 4"),
        "{msg}"
    );
    // Kernels without a matrix refuse one.
    let err = Kernel::Radix
        .default_params()
        .with_matrix(&file)
        .unwrap_err()
        .to_string();
    assert!(err.contains("radix takes no matrix"), "{err}");
    // An empty path.
    let err = Kernel::Spmm
        .parse_size("matrix=,iters=2")
        .unwrap_err()
        .to_string();
    assert!(err.contains("names no file"), "{err}");
}
