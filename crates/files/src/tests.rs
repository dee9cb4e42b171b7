//! Unit tests over real files in a scratch folder: links, FIFOs and device-like paths,
//! caps, collisions.

use super::*;
use std::os::unix::fs::{symlink, PermissionsExt};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("locus-files-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

#[test]
fn a_regular_file_and_a_link_to_one_are_read() {
    let dir = scratch("read");
    let file = dir.join("a.xml");
    fs::write(&file, "hello").unwrap();
    symlink(&file, dir.join("link.xml")).unwrap();
    assert_eq!(
        read_input("--machine", &file, 5, "a test file").unwrap(),
        b"hello"
    );
    assert_eq!(
        read_input_string("--machine", &dir.join("link.xml"), 5, "a test file").unwrap(),
        "hello"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn devices_fifos_and_folders_are_not_inputs() {
    let dir = scratch("notregular");
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    let zero_link = dir.join("zero.xml");
    symlink("/dev/zero", &zero_link).unwrap();
    for (path, kind) in [
        (Path::new("/dev/zero"), "a character device"),
        (&zero_link, "a character device"),
        (&fifo, "a FIFO"),
        (&dir, "a folder"),
    ] {
        let e = read_input("--schedule", path, 1 << 20, "a schedule").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("--schedule ") && msg.contains(kind) && msg.contains("regular"),
            "{msg}"
        );
        assert!(!e.is_io());
    }
    let e = read_input("--schedule", &dir.join("missing"), 10, "x").unwrap_err();
    assert!(e.is_io() && e.to_string().contains("cannot read it"), "{e}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_file_over_the_cap_is_refused_with_both_sizes() {
    let dir = scratch("cap");
    let file = dir.join("big.json");
    fs::write(&file, vec![b' '; 2048]).unwrap();
    let e = read_input("--latencies", &file, 1024, "a latencies file").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("--latencies {file:?}: is 2048 bytes, more than the 1 KiB locus reads for a latencies file")
    );
    assert!(read_input("--latencies", &file, 2048, "x").is_ok());
    let bad = dir.join("bad.txt");
    fs::write(&bad, [0xff, 0xfe]).unwrap();
    assert!(read_input_string("--latencies", &bad, 10, "x")
        .unwrap_err()
        .to_string()
        .contains("as text"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn outputs_go_only_to_new_or_regular_files() {
    let dir = scratch("outputs");
    let regular = dir.join("r.json");
    fs::write(&regular, "old").unwrap();
    assert!(check_output("--json", &regular).is_ok());
    assert!(check_output("--json", &dir.join("new.json")).is_ok());
    let link = dir.join("link.json");
    symlink(&regular, &link).unwrap();
    let fifo = dir.join("fifo");
    mkfifo(&fifo);
    for (path, what) in [
        (link.as_path(), "symbolic link"),
        (Path::new("/dev/null"), "a character device"),
        (&fifo, "a FIFO"),
        (&dir, "a folder"),
        (&dir.join("no/such/x.json"), "does not exist"),
        (Path::new(""), "empty"),
    ] {
        let msg = check_output("--json", path).unwrap_err().to_string();
        assert!(msg.starts_with("--json") && msg.contains(what), "{msg}");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn writing_replaces_a_regular_file_and_leaves_others_alone() {
    let dir = scratch("write");
    let target = dir.join("out.json");
    fs::write(&target, "old").unwrap();
    write_output("--json", &target, |w: &mut dyn Write| w.write_all(b"new")).unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"new");
    // A failing writer leaves the old content and no temporary file.
    let e = write_output("--json", &target, |_: &mut dyn Write| {
        Err(io::Error::other("disk full"))
    })
    .unwrap_err();
    assert!(e.is_io() && e.to_string().contains("disk full"), "{e}");
    assert_eq!(fs::read(&target).unwrap(), b"new");
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    // A link stays a link, and its target is untouched.
    let link = dir.join("link.json");
    symlink(&target, &link).unwrap();
    assert!(write_output("--json", &link, |w: &mut dyn Write| w.write_all(b"x")).is_err());
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"new");
    // /dev/null stays a device.
    assert!(write_output("--json", Path::new("/dev/null"), |_: &mut dyn Write| Ok(())).is_err());
    assert!(fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_output_may_not_be_an_input_or_another_output() {
    let dir = scratch("collide");
    let matrix = dir.join("m.mtx");
    fs::write(&matrix, "%%MatrixMarket").unwrap();
    let hard = dir.join("hard.mtx");
    fs::hard_link(&matrix, &hard).unwrap();
    let mut files = RunFiles::new();
    files.input("--matrix", &matrix).unwrap();
    files.input("--size matrix=", &matrix).unwrap();
    let e = files.output("--json", &matrix).unwrap_err().to_string();
    assert!(
        e.starts_with("--json") && e.contains("--matrix input") && e.contains("own inputs"),
        "{e}"
    );
    let e = files.output("--json", &hard).unwrap_err().to_string();
    assert!(
        e.contains("--matrix input"),
        "a hard link is the same file: {e}"
    );
    let dotted = dir.join(".").join("m.mtx");
    assert!(files.output("--trace", &dotted).is_err());
    // Two outputs of one run, neither existing yet.
    files.output("--json", &dir.join("x.json")).unwrap();
    let e = files
        .output("--trace", &dir.join("./x.json"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("--trace") && e.contains("--json output"),
        "{e}"
    );
    // An input noted after an output is checked too.
    files.output("--plot", &dir.join("p.svg")).unwrap();
    let e = files.input("--latencies", &dir.join("p.svg")).unwrap_err();
    assert!(e.to_string().starts_with("--plot"), "{e}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_output_folder_is_created_only_at_the_last_level() {
    let dir = scratch("outdir");
    create_output_dir("--out", &dir.join("a")).unwrap();
    assert!(dir.join("a").is_dir());
    create_output_dir("--out", &dir.join("a")).unwrap();
    let e = create_output_dir("--out", &dir.join("b/c/d")).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert!(!dir.join("b").exists());
    fs::write(dir.join("f"), "").unwrap();
    let e = create_output_dir("--out", &dir.join("f")).unwrap_err();
    assert!(e.to_string().ends_with("is a file, not a folder"), "{e}");
    let e = create_output_dir("--out", &dir.join("f/sub")).unwrap_err();
    assert!(e.to_string().ends_with("is a file, not a folder"), "{e}");
    let e = check_output("--json", &dir.join("f/x.json")).unwrap_err();
    assert!(e.to_string().ends_with("is a file, not a folder"), "{e}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn byte_counts_read_as_people_write_them() {
    assert_eq!(Bytes(512).to_string(), "512 bytes");
    assert_eq!(Bytes(1024).to_string(), "1 KiB");
    assert_eq!(Bytes(64 << 20).to_string(), "64 MiB");
    assert_eq!(Bytes(3 << 29).to_string(), "1.5 GiB");
    assert_eq!(Bytes(80_000_000_000).to_string(), "74.5 GiB");
}

#[test]
fn writability_is_decided_by_the_bits_that_apply_to_the_user() {
    let user = Ids {
        uid: 1000,
        gid: 1000,
        groups: vec![27],
    };
    // The owner's bits alone, for the owner: 0o044 lets others write, not the owner.
    assert!(may_write_mode(0o100644, 1000, 1000, &user));
    assert!(!may_write_mode(0o100444, 1000, 1000, &user));
    assert!(!may_write_mode(0o100466, 1000, 1000, &user));
    // The group's, for a member (effective or supplementary).
    assert!(may_write_mode(0o100464, 0, 1000, &user));
    assert!(may_write_mode(0o100464, 0, 27, &user));
    assert!(!may_write_mode(0o100446, 0, 27, &user));
    // The others', for anyone else.
    assert!(may_write_mode(0o100446, 0, 0, &user));
    assert!(!may_write_mode(0o100664, 0, 0, &user));
    // The superuser writes anything, as `>` does.
    let root = Ids {
        uid: 0,
        gid: 0,
        groups: vec![],
    };
    assert!(may_write_mode(0o100444, 1000, 1000, &root));
}

#[test]
fn a_file_the_user_cannot_write_is_refused_and_kept() {
    let dir = scratch("readonly");
    let mine = dir.join("mine.json");
    fs::write(&mine, "old").unwrap();
    fs::set_permissions(&mine, fs::Permissions::from_mode(0o444)).unwrap();
    let ino = fs::metadata(&mine).unwrap().ino();
    let who = Ids::of_process();
    let result = write_output("--json", &mine, |w: &mut dyn Write| w.write_all(b"new"));
    let meta = fs::metadata(&mine).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o444, "the mode is kept either way");
    assert_eq!(meta.ino(), ino, "the file is never replaced");
    if who.uid == 0 {
        // `>` writes it for the superuser, and so does locus, in place.
        result.unwrap();
        assert_eq!(fs::read(&mine).unwrap(), b"new");
    } else {
        let e = result.unwrap_err().to_string();
        assert!(
            e.starts_with("--json") && e.contains("not writable") && e.contains("0444"),
            "{e}"
        );
        assert_eq!(fs::read(&mine).unwrap(), b"old");
        assert!(check_output("--json", &mine).is_err());
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_existing_file_keeps_its_mode_and_its_hard_links() {
    let dir = scratch("inplace");
    let target = dir.join("out.json");
    fs::write(&target, "a longer old document").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    let other = dir.join("other-name.json");
    fs::hard_link(&target, &other).unwrap();
    write_output("--json", &target, |w: &mut dyn Write| w.write_all(b"new")).unwrap();
    let meta = fs::metadata(&target).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o640);
    assert_eq!(meta.nlink(), 2, "the hard link is kept");
    assert_eq!(fs::read(&target).unwrap(), b"new", "cut to the new length");
    assert_eq!(fs::read(&other).unwrap(), b"new", "both names see it");
    // A failing writer leaves the old document whole, and nothing beside it.
    let e = write_output("--json", &target, |w: &mut dyn Write| {
        w.write_all(b"half")?;
        Err(io::Error::other("disk full"))
    })
    .unwrap_err();
    assert!(e.to_string().contains("disk full"), "{e}");
    assert_eq!(fs::read(&target).unwrap(), b"new");
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 2);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_link_to_a_folder_is_no_output_folder() {
    let dir = scratch("outdirlink");
    fs::create_dir(dir.join("real")).unwrap();
    symlink(dir.join("real"), dir.join("link")).unwrap();
    let e = create_output_dir("--out", &dir.join("link")).unwrap_err();
    assert!(
        e.to_string().starts_with("--out") && e.to_string().contains("symbolic link"),
        "{e}"
    );
    create_output_dir("--out", &dir.join("real")).unwrap();
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_line_is_read_up_to_its_cap_and_no_further() {
    use std::io::{BufReader, Cursor};
    let mut r = BufReader::with_capacity(4, Cursor::new(b"ab\ncdefgh\nxyz".to_vec()));
    let mut buf = Vec::new();
    assert_eq!(read_line(&mut r, &mut buf, 6).unwrap(), 3);
    assert_eq!(buf, b"ab\n");
    buf.clear();
    assert_eq!(
        read_line(&mut r, &mut buf, 6).unwrap(),
        7,
        "6 bytes and the break"
    );
    buf.clear();
    assert_eq!(
        read_line(&mut r, &mut buf, 6).unwrap(),
        3,
        "the last line, unended"
    );
    buf.clear();
    assert_eq!(read_line(&mut r, &mut buf, 6).unwrap(), 0);
    // No line break within the cap: an error, having read little more than the cap.
    let zeros = io::repeat(0).take(1 << 30);
    let mut r = BufReader::with_capacity(64, zeros);
    let mut buf = Vec::new();
    let e = read_line(&mut r, &mut buf, 1000).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(e.to_string().contains("longer than the 1000 bytes"), "{e}");
    assert!(buf.len() <= 1000 + 64, "read {} bytes", buf.len());
}
