//! Stat many files at once, for the per-request freshness check: every source file of a
//! project is stat'ed on each request, so the cost of one `stat` is the cost of a request.
//!
//! A plain `stat(root/folder/name)` walks every component of the path again; here each
//! folder is opened once (`O_PATH`) and its files are stat'ed by name relative to that
//! handle (`fstatat`), which leaves the kernel one component to look up per file. The result
//! is what `std::fs::metadata` of the joined path would give (symlinks followed).

use std::ffi::OsStr;
use std::path::Path;

/// What a freshness check needs of a file: enough to tell that it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Length in bytes.
    pub size: u64,
    /// A folder (its size means nothing).
    pub is_dir: bool,
    /// Last modification, in nanoseconds since the epoch (`None` before 1970).
    pub modified_ns: Option<i64>,
    /// Last status change, nanoseconds since the epoch (creation where there is none).
    pub changed_ns: i64,
    /// Inode number (zero where the platform has none): with `device`, tells a replaced
    /// file from one rewritten in place.
    pub inode: u64,
    /// Device number (zero where the platform has none).
    pub device: u64,
}

impl FileStat {
    /// The same facts from a file's metadata (what `std::fs::metadata` gives).
    pub fn from_metadata(meta: &std::fs::Metadata) -> FileStat {
        let nanos = |t: std::io::Result<std::time::SystemTime>| -> Option<i64> {
            Some(
                t.ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?
                    .as_nanos() as i64,
            )
        };
        #[cfg(unix)]
        let (changed_ns, inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (
                meta.ctime()
                    .saturating_mul(1_000_000_000)
                    .saturating_add(meta.ctime_nsec()),
                meta.ino(),
                meta.dev(),
            )
        };
        #[cfg(not(unix))]
        let (changed_ns, inode, device) = (nanos(meta.created()).unwrap_or(0), 0, 0);
        FileStat {
            size: meta.len(),
            is_dir: meta.is_dir(),
            modified_ns: nanos(meta.modified()),
            changed_ns,
            inode,
            device,
        }
    }
}

/// Stats each of `files` (`(folder, name)`, grouped by folder for speed: each run of the same
/// folder opens it once), in order; `None` for a file that cannot be stat'ed.
pub fn stat_files<'a>(
    files: impl IntoIterator<Item = (&'a Path, &'a OsStr)>,
) -> Vec<Option<FileStat>> {
    #[cfg(unix)]
    {
        unix::stat_files(files)
    }
    #[cfg(not(unix))]
    {
        files
            .into_iter()
            .map(|(dir, name)| {
                std::fs::metadata(dir.join(name))
                    .ok()
                    .map(|m| FileStat::from_metadata(&m))
            })
            .collect()
    }
}

#[cfg(unix)]
pub(crate) mod unix {
    use super::FileStat;
    use std::ffi::{CString, OsStr};
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    pub(super) fn stat_files<'a>(
        files: impl IntoIterator<Item = (&'a Path, &'a OsStr)>,
    ) -> Vec<Option<FileStat>> {
        let mut out = Vec::new();
        // The folder handle for the current run of files (`None`: it could not be opened,
        // and every file in it stats as missing, as a joined path would).
        let mut current: Option<(&Path, Option<OwnedFd>)> = None;
        for (dir, name) in files {
            if current.as_ref().map(|(d, _)| *d) != Some(dir) {
                current = Some((dir, open_dir(dir)));
            }
            let fd = current.as_ref().and_then(|(_, fd)| fd.as_ref());
            out.push(fd.and_then(|fd| stat_at(fd, name)));
        }
        out
    }

    fn open_dir(dir: &Path) -> Option<OwnedFd> {
        // An empty folder path is the current folder, as in `Path::join`.
        let path = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        super::super::sys::open_dir_at(None, path).ok()
    }

    fn stat_at(dir: &OwnedFd, name: &OsStr) -> Option<FileStat> {
        let name = CString::new(name.as_bytes()).ok()?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a valid folder handle, a NUL-terminated name and room for the result.
        let rc = unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), st.as_mut_ptr(), 0) };
        if rc != 0 {
            return None;
        }
        // SAFETY: fstatat succeeded, so it filled the struct.
        Some(from_stat(&unsafe { st.assume_init() }))
    }

    /// The facts of a `stat` result.
    pub(crate) fn from_stat(st: &libc::stat) -> FileStat {
        let ns = |sec: i64, nsec: i64| sec.saturating_mul(1_000_000_000).saturating_add(nsec);
        #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
        let (mtime, mtime_nsec, ctime, ctime_nsec) = (
            st.st_mtime as i64,
            st.st_mtime_nsec as i64,
            st.st_ctime as i64,
            st.st_ctime_nsec as i64,
        );
        #[allow(clippy::unnecessary_cast)]
        FileStat {
            size: st.st_size as u64,
            is_dir: st.st_mode & libc::S_IFMT == libc::S_IFDIR,
            modified_ns: (mtime >= 0).then(|| ns(mtime, mtime_nsec)),
            changed_ns: ns(ctime, ctime_nsec),
            inode: st.st_ino as u64,
            device: st.st_dev as u64,
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn expected(path: &Path) -> Option<FileStat> {
        let m = std::fs::metadata(path).ok()?;
        let modified = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos() as i64;
        Some(FileStat {
            size: m.len(),
            is_dir: m.is_dir(),
            modified_ns: Some(modified),
            changed_ns: m.ctime() * 1_000_000_000 + m.ctime_nsec(),
            inode: m.ino(),
            device: m.dev(),
        })
    }

    #[test]
    fn stats_match_std_metadata_of_the_joined_path() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap();
        std::fs::write(a.join("one.md"), "one").unwrap();
        std::fs::write(a.join("two.md"), "two two").unwrap();
        std::fs::write(dir.path().join("top.md"), "top").unwrap();
        std::os::unix::fs::symlink("a/one.md", dir.path().join("link.md")).unwrap();
        std::os::unix::fs::symlink("nowhere.md", dir.path().join("dangling.md")).unwrap();
        let files: Vec<(std::path::PathBuf, std::ffi::OsString)> = [
            ("a", "one.md"),
            ("a", "two.md"),
            ("a", "missing.md"),
            ("", "top.md"),
            ("", "link.md"),
            ("", "dangling.md"),
            ("", "a"),
            ("b", "gone.md"),
            ("a", "one.md"),
        ]
        .iter()
        .map(|(d, n)| (dir.path().join(d), (*n).into()))
        .collect();
        let got = stat_files(files.iter().map(|(d, n)| (d.as_path(), n.as_os_str())));
        let want: Vec<Option<FileStat>> = files.iter().map(|(d, n)| expected(&d.join(n))).collect();
        assert_eq!(got, want);
        assert!(got[0].is_some() && got[2].is_none() && got[5].is_none() && got[7].is_none());
        assert_eq!(got[4], got[0], "a symlink stats as what it names");
        assert!(got[6].unwrap().is_dir);
    }
}
