//! The private folder that puts the library first on the program's `LD_LIBRARY_PATH`.
//!
//! Invariants, so that nothing another user (or an earlier run) planted is ever trusted
//! or destroyed:
//! - The name is fresh: `locus-run-` and 16 hex digits of a keyed hash (std's
//!   `RandomState`, whose keys come from the operating system), made by one `mkdir`
//!   that fails if anything has the name (a folder, a file, a symbolic link, which
//!   `mkdir` does not follow); on such a clash a new name is tried, a few times.
//! - It is made with mode 0700 in `$TMPDIR` (`/tmp` if unset or empty), which must
//!   exist: no folder above it is created. It is then checked to be a folder of this
//!   user with no access for others.
//! - Only what locus made is removed at the end: the entries it named (the library's
//!   link, the library's load mark), then the folder itself if that left it empty. A
//!   folder that still holds something else is left, and said so.
//! - Its path must be one the dynamic loader reads as written: no `:` or `;` (which
//!   separate `LD_LIBRARY_PATH`'s entries) and no `$` (which starts `$ORIGIN` and its
//!   kind), else the run is not made.

use anyhow::{anyhow, bail, Context};
use std::hash::{BuildHasher, Hasher};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Names tried before giving up (each clash means something has a random name).
const ATTEMPTS: u32 = 16;

/// A folder made for one run, removed (as far as locus made it) when dropped.
#[derive(Debug)]
pub(super) struct Folder {
    /// Its absolute path.
    path: PathBuf,
    /// The names inside it that locus made or asked to be made, removed on drop.
    made: Vec<PathBuf>,
}

impl Folder {
    /// Makes a fresh private folder in `$TMPDIR` (see the module docs).
    pub(super) fn new() -> anyhow::Result<Folder> {
        let (parent, named) = match std::env::var_os("TMPDIR").filter(|v| !v.is_empty()) {
            Some(dir) => {
                let shown = format!("TMPDIR={:?}", Path::new(&dir).display().to_string());
                (PathBuf::from(dir), shown)
            }
            None => (
                PathBuf::from("/tmp"),
                "/tmp (TMPDIR being unset)".to_owned(),
            ),
        };
        let parent = if parent.is_absolute() {
            parent
        } else {
            std::env::current_dir()
                .with_context(|| format!("{named}: a relative folder, and no current folder"))?
                .join(parent)
        };
        for attempt in 0..ATTEMPTS {
            let path = parent.join(fresh_name(attempt));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let folder = Folder {
                        path,
                        made: Vec::new(),
                    };
                    folder.verify(&named)?;
                    return Ok(folder);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                    "{named}: no such folder (locus run makes its private folder there, and \
                     makes no folder above it)"
                ),
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("{named}: cannot make locus run's private folder there")
                    })
                }
            }
        }
        bail!("{named}: {ATTEMPTS} fresh names for a private folder were all taken")
    }

    /// Checks what `mkdir` made (the folder is dropped, so removed, on failure).
    fn verify(&self, named: &str) -> anyhow::Result<()> {
        let meta = std::fs::symlink_metadata(&self.path)
            .with_context(|| format!("{named}: cannot read back {}", self.path.display()))?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        if !meta.is_dir() || meta.uid() != me || meta.mode() & 0o077 != 0 {
            bail!(
                "{named}: {} is not the private folder just made (a folder of this user \
                 that only it may open)",
                self.path.display()
            );
        }
        if let Some(c) = self
            .path
            .to_string_lossy()
            .chars()
            .find(|c| matches!(c, ':' | ';' | '$'))
        {
            bail!(
                "{named}: the folder {} holds {c:?}, which LD_LIBRARY_PATH cannot carry; \
                 set TMPDIR to a folder without it",
                self.path.display()
            );
        }
        Ok(())
    }

    /// The folder's absolute path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Links `name` in the folder to `target`; returns the link's path.
    pub(super) fn link(&mut self, name: &str, target: &Path) -> anyhow::Result<PathBuf> {
        let link = self.path.join(name);
        std::os::unix::fs::symlink(target, &link)
            .with_context(|| format!("cannot link {} to {}", link.display(), target.display()))?;
        self.made.push(link.clone());
        Ok(link)
    }

    /// A path in the folder for a file the program may make, removed at the end.
    pub(super) fn entry(&mut self, name: &str) -> PathBuf {
        let path = self.path.join(name);
        self.made.push(path.clone());
        path
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        for entry in self.made.iter().rev() {
            let _ = std::fs::remove_file(entry);
        }
        match std::fs::remove_dir(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => eprintln!(
                "locus: left {}: {} (it holds files locus run did not make)",
                self.path.display(),
                anyhow!(e)
            ),
        }
    }
}

/// `locus-run-` and 16 hex digits no one can predict.
fn fresh_name(attempt: u32) -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("locus-run-{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_fresh() {
        let a = fresh_name(0);
        assert!(a.starts_with("locus-run-") && a.len() == "locus-run-".len() + 16);
        assert_ne!(a, fresh_name(0));
        assert_ne!(a, format!("locus-run-{}", std::process::id()));
    }
}
