//! Content hashes: FNV-1a over 64 bits, for schedule checksums and the identity of input
//! files.
//!
//! FNV-1a (Fowler, Noll, Vo; offset basis `0xcbf29ce484222325`, prime `0x100000001b3`,
//! one xor and one multiply per byte) is no cryptographic hash: it detects accidental
//! corruption and hand edits, which is all a schedule file's checksum is for, and it
//! needs no dependency. The same constants give [`locus_policy::TaskId`] its root ids.

use std::io::{self, Read};
use std::path::Path;

use crate::error::{Kind, ProfileError};

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

/// An FNV-1a hash being computed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fnv1a(u64);

impl Fnv1a {
    pub(crate) fn new() -> Fnv1a {
        Fnv1a(OFFSET_BASIS)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
        self.0 = h;
    }

    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::new();
    h.write(bytes);
    h.finish()
}

/// The FNV-1a hash of a file's content, read in blocks. The file must be a regular
/// file (a link to `/dev/zero` or a FIFO would be read for ever), and only the length
/// it had when opened is read, so one that grows meanwhile cannot run away either.
fn hash_file(path: &Path) -> Result<u64, Kind> {
    let (file, len) = locus_files::open_input("input file", path)?;
    let io = |err| Kind::Io {
        what: "input file",
        path: path.to_path_buf(),
        err,
    };
    let mut file = file.take(len);
    let mut h = Fnv1a::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(h.finish()),
            Ok(n) => h.write(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
}

/// The identity of a kernel's input, as profiles and schedules record it: the kernel's
/// name, its canonical size string, and the content hash of every file the input is
/// read from (`files`, such as a matrix file: the kernel's parameters say which), so a
/// schedule made for one matrix is refused for another file of the same name. An input
/// read from no file (every built-in generator) is `"KERNEL SIZE"`.
///
/// # Errors
/// If a file cannot be read.
pub fn input_identity(kernel: &str, size: &str, files: &[&Path]) -> Result<String, ProfileError> {
    let mut id = format!("{kernel} {size}");
    for &path in files {
        let hash = hash_file(path)?;
        id.push_str(&format!(" [{} fnv1a64:{hash:016x}]", path.display()));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // From the FNV reference test suite (Landon Curt Noll's fnv test vectors).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn identities_hash_the_files_a_size_names() {
        assert_eq!(
            input_identity("heat", "64x64,leaf=8,iters=2", &[]).unwrap(),
            "heat 64x64,leaf=8,iters=2"
        );
        let dir = std::env::temp_dir().join(format!("locus-profile-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A comma in the path: the size string cannot be split to find it.
        let file = dir.join("m,1.mtx");
        std::fs::write(&file, b"1 1 1\n").unwrap();
        let size = format!("matrix={},x=1", file.display());
        let a = input_identity("spmv", &size, &[&file]).unwrap();
        assert!(
            a.starts_with(&format!("spmv {size} [{}", file.display())),
            "{a}"
        );
        std::fs::write(&file, b"2 2 1\n").unwrap();
        let b = input_identity("spmv", &size, &[&file]).unwrap();
        assert_ne!(a, b, "another content, another identity");
        std::fs::remove_file(&file).unwrap();
        let e = input_identity("spmv", &size, &[&file]).unwrap_err();
        assert!(e.to_string().contains("m,1.mtx"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_regular_is_not_hashed() {
        let dir = std::env::temp_dir().join(format!("locus-profile-zero-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let zero = dir.join("zero.mtx");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = input_identity("spmv", "matrix=zero.mtx", &[&zero])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("input file") && e.contains("zero.mtx") && e.contains("not a regular file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
