//! Which library `locus run` puts in GCC's libgomp's place, and the proof that it is
//! locus's: an ELF shared object for this machine (the class, byte order and machine of
//! the running `locus` binary) whose dynamic symbol table defines [`SYMBOL`], a function
//! only locus's libgomp exports. Anything else (a text file, GCC's own libgomp, a library
//! for another architecture, a FIFO) is refused before the program starts, naming where
//! the path came from, rather than failing in the loader or running silently on another
//! OpenMP runtime.
//!
//! The reader takes what it needs from the section headers (`SHT_DYNSYM` and the string
//! table it links to), every offset and size checked against the file's length, so a
//! cut or corrupt file is an error saying what is wrong, never a panic or a huge
//! allocation.

use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The library's file name as cargo builds it.
pub(super) const LIBRARY: &str = "liblocus_omp.so";

/// A function that only locus's libgomp defines (`crates/omp`, version `LOCUS_1.0`).
pub(super) const SYMBOL: &str = "locus_footprint_read";

/// Largest symbol or string table read (a libgomp's are a few KiB).
const MAX_TABLE: u64 = 64 << 20;

/// `e_type` of a shared object.
const ET_DYN: u16 = 3;
/// `sh_type` of the dynamic symbol table.
const SHT_DYNSYM: u32 = 11;
/// `sh_type` of a string table.
const SHT_STRTAB: u32 = 3;
/// `st_shndx` of an undefined symbol.
const SHN_UNDEF: u16 = 0;
/// `STT_FUNC`, the type of a function symbol.
const STT_FUNC: u8 = 2;

/// The file to check for a path the user gave: the path, or `LIBRARY` inside it if it
/// is a folder.
pub(super) fn given_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(LIBRARY)
    } else {
        path.to_path_buf()
    }
}

/// The first of the places beside `exe` that holds a library (see the module docs of
/// `run`), if any.
pub(super) fn beside(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent().unwrap_or(Path::new("."));
    [
        dir.join(LIBRARY),
        dir.join("deps").join(LIBRARY),
        dir.join("../lib/locus").join(LIBRARY),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// Checks that `path` is locus's libgomp for this machine; the error says what it is
/// instead.
pub(super) fn check(path: &Path) -> Result<(), String> {
    // Non-blocking, so that a FIFO is refused instead of waited on.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot open it: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read its metadata: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_owned());
    }
    let host = host_header();
    let read = |at: u64, len: usize| -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0; len];
        file.read_exact_at(&mut buf, at)?;
        Ok(buf)
    };
    check_elf(&read, meta.len(), &host)
}

/// What a library must share with the running binary: ELF class, byte order, machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Host {
    /// `EI_CLASS`: 1 for 32-bit, 2 for 64-bit.
    pub(super) class: u8,
    /// `EI_DATA`: 1 little-endian, 2 big-endian.
    pub(super) data: u8,
    /// `e_machine`, if the running binary could be read.
    pub(super) machine: Option<u16>,
}

/// This machine's [`Host`]: class and byte order from the build, the machine from the
/// running binary's own header.
fn host_header() -> Host {
    let class = if cfg!(target_pointer_width = "64") {
        2
    } else {
        1
    };
    let data = if cfg!(target_endian = "little") { 1 } else { 2 };
    let machine = std::env::current_exe()
        .and_then(File::open)
        .and_then(|f| {
            let mut head = [0; 20];
            f.read_exact_at(&mut head, 0)?;
            Ok(head)
        })
        .ok()
        .filter(|h| h[..4] == *b"\x7fELF" && h[4] == class && h[5] == data)
        .map(|h| u16_at(&h, 18, data));
    Host {
        class,
        data,
        machine,
    }
}

/// A little- or big-endian `u16` at `at` (`data` as `EI_DATA`); `b` holds it.
fn u16_at(b: &[u8], at: usize, data: u8) -> u16 {
    let v = [b[at], b[at + 1]];
    if data == 1 {
        u16::from_le_bytes(v)
    } else {
        u16::from_be_bytes(v)
    }
}

/// A `u32` at `at`, as [`u16_at`].
fn u32_at(b: &[u8], at: usize, data: u8) -> u32 {
    let v = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if data == 1 {
        u32::from_le_bytes(v)
    } else {
        u32::from_be_bytes(v)
    }
}

/// A `u64` at `at`, as [`u16_at`].
fn u64_at(b: &[u8], at: usize, data: u8) -> u64 {
    let mut v = [0; 8];
    v.copy_from_slice(&b[at..at + 8]);
    if data == 1 {
        u64::from_le_bytes(v)
    } else {
        u64::from_be_bytes(v)
    }
}

/// A word of the file's class: 8 bytes in a 64-bit file, 4 in a 32-bit one.
fn word_at(b: &[u8], at: usize, class: u8, data: u8) -> u64 {
    if class == 2 {
        u64_at(b, at, data)
    } else {
        u64::from(u32_at(b, at, data))
    }
}

/// The layout of one ELF class: where the fields this reader needs are.
struct Layout {
    /// Bytes of the file header.
    header: usize,
    /// `e_shoff`, `e_shentsize`, `e_shnum`.
    shoff: usize,
    shentsize: usize,
    shnum: usize,
    /// Bytes of a section header, and its `sh_type`, `sh_offset`, `sh_size`, `sh_link`.
    section: usize,
    sh_offset: usize,
    sh_size: usize,
    sh_link: usize,
    /// Bytes of a symbol, and its `st_info` and `st_shndx`.
    symbol: usize,
    st_info: usize,
    st_shndx: usize,
}

/// ELF64.
const LAYOUT_64: Layout = Layout {
    header: 64,
    shoff: 0x28,
    shentsize: 0x3a,
    shnum: 0x3c,
    section: 64,
    sh_offset: 24,
    sh_size: 32,
    sh_link: 40,
    symbol: 24,
    st_info: 4,
    st_shndx: 6,
};

/// ELF32.
const LAYOUT_32: Layout = Layout {
    header: 52,
    shoff: 0x20,
    shentsize: 0x2e,
    shnum: 0x30,
    section: 40,
    sh_offset: 16,
    sh_size: 20,
    sh_link: 24,
    symbol: 16,
    st_info: 12,
    st_shndx: 14,
};

/// Reads `len` bytes at `at` of a file of `file_len` bytes, after checking that they lie
/// inside it; `what` names them in the error.
fn table(
    read: &dyn Fn(u64, usize) -> std::io::Result<Vec<u8>>,
    file_len: u64,
    at: u64,
    len: u64,
    what: &str,
) -> Result<Vec<u8>, String> {
    if at.checked_add(len).is_none_or(|end| end > file_len) {
        return Err(format!(
            "its {what} ({len} bytes at offset {at}) lies past the end of the file \
             ({file_len} bytes): cut short or corrupt"
        ));
    }
    if len > MAX_TABLE {
        return Err(format!(
            "its {what} is {len} bytes, more than a libgomp's ever is ({MAX_TABLE})"
        ));
    }
    let len = usize::try_from(len).map_err(|_| format!("its {what} is too large"))?;
    read(at, len).map_err(|e| format!("cannot read its {what}: {e}"))
}

/// Checks the ELF file that `read` reads (`file_len` bytes long) as [`check`] does.
pub(super) fn check_elf(
    read: &dyn Fn(u64, usize) -> std::io::Result<Vec<u8>>,
    file_len: u64,
    host: &Host,
) -> Result<(), String> {
    let not_elf = "not an ELF file (no \\x7fELF header): not a shared library";
    if file_len < 16 {
        return Err(not_elf.to_owned());
    }
    let ident = read(0, 16).map_err(|e| format!("cannot read it: {e}"))?;
    if ident[..4] != *b"\x7fELF" {
        return Err(not_elf.to_owned());
    }
    let (class, data) = (ident[4], ident[5]);
    if class != host.class || data != host.data {
        return Err(format!(
            "an ELF file of class {class} and byte order {data}, where this machine's are \
             {} and {}: built for another machine",
            host.class, host.data
        ));
    }
    let l = if class == 2 { &LAYOUT_64 } else { &LAYOUT_32 };
    let header = table(read, file_len, 0, l.header as u64, "ELF header")?;
    let e_type = u16_at(&header, 16, data);
    if e_type != ET_DYN {
        return Err(format!(
            "an ELF file of type {e_type}, not a shared library (type {ET_DYN})"
        ));
    }
    let machine = u16_at(&header, 18, data);
    if host.machine.is_some_and(|m| m != machine) {
        return Err(format!(
            "a shared library for ELF machine {machine}, where this one is {}",
            host.machine.unwrap_or(0)
        ));
    }
    let shoff = word_at(&header, l.shoff, class, data);
    let shentsize = u16_at(&header, l.shentsize, data);
    let shnum = u16_at(&header, l.shnum, data);
    if shoff == 0 || shnum == 0 {
        return Err(format!(
            "a shared library without section headers, so no {SYMBOL} can be found: \
             not locus's libgomp"
        ));
    }
    if usize::from(shentsize) != l.section {
        return Err(format!(
            "its section headers are {shentsize} bytes each, not {}: corrupt",
            l.section
        ));
    }
    let sections = table(
        read,
        file_len,
        shoff,
        u64::from(shnum) * l.section as u64,
        "section header table",
    )?;
    let section = |i: usize| &sections[i * l.section..(i + 1) * l.section];
    let Some(dynsym) = (0..usize::from(shnum)).find(|&i| u32_at(section(i), 4, data) == SHT_DYNSYM)
    else {
        return Err(format!(
            "a shared library without a dynamic symbol table, so it defines no \
             {SYMBOL}: not locus's libgomp"
        ));
    };
    let sym = section(dynsym);
    let link = u32_at(sym, l.sh_link, data) as usize;
    if link >= usize::from(shnum) || u32_at(section(link), 4, data) != SHT_STRTAB {
        return Err(format!(
            "its dynamic symbol table links to section {link}, which is not a string \
             table: corrupt"
        ));
    }
    let strtab = section(link);
    let names = table(
        read,
        file_len,
        word_at(strtab, l.sh_offset, class, data),
        word_at(strtab, l.sh_size, class, data),
        "dynamic string table",
    )?;
    let symbols = table(
        read,
        file_len,
        word_at(sym, l.sh_offset, class, data),
        word_at(sym, l.sh_size, class, data),
        "dynamic symbol table",
    )?;
    let defined = symbols.chunks_exact(l.symbol).any(|s| {
        let name = u32_at(s, 0, data) as usize;
        let is_func = s[l.st_info] & 0xf == STT_FUNC;
        let is_defined = u16_at(s, l.st_shndx, data) != SHN_UNDEF;
        is_func
            && is_defined
            && names
                .get(name..)
                .and_then(|rest| rest.split(|&b| b == 0).next())
                .is_some_and(|n| n == SYMBOL.as_bytes())
    });
    if defined {
        Ok(())
    } else {
        Err(format!(
            "a shared library that does not define {SYMBOL}: not locus's libgomp (which \
             crates/omp builds as {LIBRARY})"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: Host = Host {
        class: 2,
        data: 1,
        machine: Some(62),
    };

    /// A little-endian ELF64 shared object for machine 62: header, a `.dynstr`, a
    /// `.dynsym` with one function symbol named `name` (undefined if `defined` is false),
    /// and three section headers (null, dynstr, dynsym).
    fn elf(name: &str, defined: bool) -> Vec<u8> {
        let mut f = vec![0u8; 64];
        f[..4].copy_from_slice(b"\x7fELF");
        f[4] = 2;
        f[5] = 1;
        f[6] = 1;
        f[16..18].copy_from_slice(&ET_DYN.to_le_bytes());
        f[18..20].copy_from_slice(&62u16.to_le_bytes());
        // .dynstr at 64
        let dynstr_at = f.len() as u64;
        let mut dynstr = vec![0u8];
        dynstr.extend_from_slice(name.as_bytes());
        dynstr.push(0);
        f.extend_from_slice(&dynstr);
        while f.len() % 8 != 0 {
            f.push(0);
        }
        // .dynsym: the null symbol, then ours
        let dynsym_at = f.len() as u64;
        f.extend_from_slice(&[0; 24]);
        let mut s = [0u8; 24];
        s[0..4].copy_from_slice(&1u32.to_le_bytes());
        s[4] = (1 << 4) | STT_FUNC;
        s[6..8].copy_from_slice(&u16::from(defined).to_le_bytes());
        f.extend_from_slice(&s);
        // section headers
        let shoff = f.len() as u64;
        f.extend_from_slice(&[0; 64]);
        let section = |ty: u32, at: u64, size: u64, link: u32| {
            let mut h = [0u8; 64];
            h[4..8].copy_from_slice(&ty.to_le_bytes());
            h[24..32].copy_from_slice(&at.to_le_bytes());
            h[32..40].copy_from_slice(&size.to_le_bytes());
            h[40..44].copy_from_slice(&link.to_le_bytes());
            h
        };
        f.extend_from_slice(&section(SHT_STRTAB, dynstr_at, dynstr.len() as u64, 0));
        f.extend_from_slice(&section(SHT_DYNSYM, dynsym_at, 48, 1));
        f[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        f[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        f[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        f
    }

    fn check_bytes(bytes: &[u8], host: &Host) -> Result<(), String> {
        let read = |at: u64, len: usize| -> std::io::Result<Vec<u8>> {
            let at = at as usize;
            bytes
                .get(at..at + len)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| std::io::ErrorKind::UnexpectedEof.into())
        };
        check_elf(&read, bytes.len() as u64, host)
    }

    #[test]
    fn a_library_that_defines_the_symbol_passes() {
        assert_eq!(check_bytes(&elf(SYMBOL, true), &HOST), Ok(()));
    }

    #[test]
    fn other_libraries_are_refused_saying_why() {
        let cases: Vec<(Vec<u8>, Host, &str)> = vec![
            (elf("GOMP_parallel", true), HOST, "does not define"),
            (elf(SYMBOL, false), HOST, "does not define"),
            (
                b"garbage, not a library\n".to_vec(),
                HOST,
                "not an ELF file",
            ),
            (Vec::new(), HOST, "not an ELF file"),
            (
                elf(SYMBOL, true),
                Host {
                    machine: Some(183),
                    ..HOST
                },
                "ELF machine 62",
            ),
            (
                elf(SYMBOL, true),
                Host { class: 1, ..HOST },
                "another machine",
            ),
        ];
        for (bytes, host, says) in cases {
            let e = check_bytes(&bytes, &host).expect_err(says);
            assert!(e.contains(says), "{says:?} not in {e:?}");
        }
        let mut exe = elf(SYMBOL, true);
        exe[16] = 2; // ET_EXEC
        let e = check_bytes(&exe, &HOST).unwrap_err();
        assert!(e.contains("not a shared library"), "{e}");
    }

    #[test]
    fn every_cut_of_a_good_file_is_refused_without_a_panic() {
        let good = elf(SYMBOL, true);
        for len in 0..good.len() {
            assert!(
                check_bytes(&good[..len], &HOST).is_err(),
                "cut at {len} passed"
            );
        }
    }

    #[test]
    fn corrupt_offsets_and_counts_are_refused_without_a_panic() {
        let good = elf(SYMBOL, true);
        // Every byte of the file set to each of a few values: an answer, never a panic.
        for at in 0..good.len() {
            for v in [0u8, 1, 0x7f, 0xff] {
                let mut bad = good.clone();
                bad[at] = v;
                let _ = check_bytes(&bad, &HOST);
            }
        }
        let mut huge = good.clone();
        huge[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = check_bytes(&huge, &HOST).unwrap_err();
        assert!(e.contains("past the end"), "{e}");
        let mut entsize = good.clone();
        entsize[0x3a] = 63;
        let e = check_bytes(&entsize, &HOST).unwrap_err();
        assert!(e.contains("corrupt"), "{e}");
        let mut link = good.clone();
        let dynsym_header = good.len() - 64;
        link[dynsym_header + 40] = 9;
        let e = check_bytes(&link, &HOST).unwrap_err();
        assert!(e.contains("links to section 9"), "{e}");
        let mut name = good;
        let symbol = 64 + 24 + 24; // header, dynstr (padded to 24), null symbol
        name[symbol..symbol + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = check_bytes(&name, &HOST).unwrap_err();
        assert!(e.contains("does not define"), "{e}");
    }
}
