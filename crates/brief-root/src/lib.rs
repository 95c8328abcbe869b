//! The project root as a boundary that holds when a file is opened, not only when it is
//! checked.
//!
//! A [`Root`] keeps a handle on the project folder, taken once when the project is opened,
//! and opens every file and folder brief reads — and the few it writes under `.brief/` —
//! relative to that handle: on Linux with `openat2(RESOLVE_BENEATH)`, elsewhere on Unix (or
//! where a sandbox refuses `openat2`) by walking the path one component at a time with
//! `O_NOFOLLOW` and resolving each symlink itself. A path that leads outside the root (an
//! absolute symlink, `..` above the root, a folder swapped for a symlink after it was
//! listed) fails at the moment it is opened, so a swap between a check and a use cannot
//! escape. Each project has its own handle: nothing is remembered per process.
//!
//! Files are opened for reading only when they are regular files, and without blocking: a
//! FIFO, a socket or a device listed as a source is refused, never waited on.
//!
//! Writes ([`Root::private_dir`]) go through folders that are not symlinks at all, so
//! `.brief` linked to somewhere else is refused rather than written through.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

#[cfg(unix)]
use std::os::fd::{AsFd, OwnedFd};

/// Why a path could not be opened beneath the root.
#[derive(Debug)]
pub enum OpenError {
    /// The path leads outside the root (through a symlink, `..`, or an absolute path).
    Outside,
    /// Not a regular file: a FIFO, a socket, a device or a folder (named by the string).
    NotRegular(&'static str),
    /// A symlink where brief writes (only plain folders are written through).
    Symlink,
    /// Any other failure (missing, permissions, …).
    Io(std::io::Error),
}

impl OpenError {
    /// Whether the file or folder does not exist.
    pub fn is_missing(&self) -> bool {
        matches!(self, OpenError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }

    /// Whether the failure is a lack of write access (a read-only checkout or file system).
    pub fn is_read_only(&self) -> bool {
        match self {
            OpenError::Io(e) => is_read_only(e),
            _ => false,
        }
    }
}

/// Whether an I/O error says the file system or folder cannot be written.
pub fn is_read_only(e: &std::io::Error) -> bool {
    if e.kind() == std::io::ErrorKind::PermissionDenied {
        return true;
    }
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::EROFS) {
        return true;
    }
    false
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Outside => {
                f.write_str("resolves outside the project root (symlink or `..`?); not read")
            }
            OpenError::NotRegular(what) => {
                write!(f, "is {what}, not a regular file; not read")
            }
            OpenError::Symlink => {
                f.write_str("is a symbolic link; brief does not write through links")
            }
            OpenError::Io(e) => match e.kind() {
                std::io::ErrorKind::NotFound => f.write_str("no such file"),
                std::io::ErrorKind::PermissionDenied => f.write_str("permission denied"),
                _ => write!(f, "{e}"),
            },
        }
    }
}

impl From<std::io::Error> for OpenError {
    fn from(e: std::io::Error) -> OpenError {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::EXDEV) {
            return OpenError::Outside;
        }
        OpenError::Io(e)
    }
}

/// What a folder entry is (without following a symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file: the loaders read it.
    File,
    /// A folder: listings descend into it.
    Dir,
    /// A symbolic link, not followed by the listing (opens resolve it beneath the root).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// One entry of a folder listed by [`Root::list_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's file name within the listed folder (no path).
    pub name: OsString,
    /// What the entry is, read without following a symlink.
    pub kind: EntryKind,
}

/// The project root: its path as given, its real path, and (on Unix) an open handle that
/// every open is made relative to.
#[derive(Clone)]
pub struct Root {
    shown: PathBuf,
    real: PathBuf,
    #[cfg(unix)]
    dir: Arc<OwnedFd>,
    #[cfg(not(unix))]
    _dir: Arc<()>,
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Root({})", self.shown.display())
    }
}

impl Root {
    /// Opens the folder at `path` as a root.
    pub fn open(path: &Path) -> std::io::Result<Root> {
        let real = std::fs::canonicalize(path)?;
        #[cfg(unix)]
        {
            let dir = sys::open_dir_at(None, path)?;
            Ok(Root {
                shown: path.to_path_buf(),
                real,
                dir: Arc::new(dir),
            })
        }
        #[cfg(not(unix))]
        {
            if !real.is_dir() {
                return Err(std::io::Error::other("not a folder"));
            }
            Ok(Root {
                shown: path.to_path_buf(),
                real,
                _dir: Arc::new(()),
            })
        }
    }

    /// The root as given (relative roots stay relative, so messages read as typed).
    pub fn path(&self) -> &Path {
        &self.shown
    }

    /// The root with every symlink resolved (what SQLite is given, so that it can refuse
    /// any symlink under the root).
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// `path` (the root joined with something, or a path relative to the root) as a path
    /// relative to the root; `None` for an absolute path elsewhere.
    pub fn relative(&self, path: &Path) -> Option<PathBuf> {
        let rest = match path.strip_prefix(&self.shown) {
            Ok(rest) => rest,
            // With the current folder as the root, a relative path is relative to both.
            Err(_) if self.shown == Path::new(".") && path.is_relative() => path,
            Err(_) => path.strip_prefix(&self.real).ok()?,
        };
        let mut out = PathBuf::new();
        for component in rest.components() {
            match component {
                Component::Normal(part) => out.push(part),
                Component::CurDir => {}
                // Resolved when opened: `..` may not climb above the root.
                Component::ParentDir => out.push(".."),
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        Some(out)
    }

    /// A path the user named (a baseline file), as a path relative to the root with `.` and
    /// `..` taken as written; `Err(Outside)` when it lies outside the root (or names the
    /// root itself). Opening it still goes through the root, so a symlink cannot lead out.
    pub fn named(&self, given: &Path, from: NamedFrom<'_>) -> Result<PathBuf, OpenError> {
        let inside = match from {
            NamedFrom::Root if given.is_absolute() => None,
            NamedFrom::Root => lexical(Path::new(""), given),
            NamedFrom::Folder(cwd) => {
                let absolute = lexical(cwd, given).ok_or(OpenError::Outside)?;
                let root = lexical(cwd, &self.shown).ok_or(OpenError::Outside)?;
                absolute
                    .strip_prefix(&root)
                    .or_else(|_| absolute.strip_prefix(&self.real))
                    .ok()
                    .map(Path::to_path_buf)
            }
        };
        inside
            .filter(|rel| rel.components().next().is_some())
            .ok_or(OpenError::Outside)
    }

    fn rel_or_outside(&self, path: &Path) -> Result<PathBuf, OpenError> {
        self.relative(path).ok_or(OpenError::Outside)
    }

    /// Opens a regular file beneath the root for reading, without blocking.
    pub fn open_file(&self, path: &Path) -> Result<File, OpenError> {
        let rel = self.rel_or_outside(path)?;
        #[cfg(unix)]
        {
            let fd = sys::open_beneath(
                self.dir.as_fd(),
                &rel,
                libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
                0,
                false,
            )?;
            let file = File::from(fd);
            let meta = file.metadata().map_err(OpenError::Io)?;
            regular(&meta)?;
            Ok(file)
        }
        #[cfg(not(unix))]
        {
            let full = self.real.join(&rel);
            let real = std::fs::canonicalize(&full).map_err(OpenError::Io)?;
            if !real.starts_with(&self.real) {
                return Err(OpenError::Outside);
            }
            let file = File::open(&real).map_err(OpenError::Io)?;
            regular(&file.metadata().map_err(OpenError::Io)?)?;
            Ok(file)
        }
    }

    /// Reads a regular file beneath the root whole, with its metadata taken after opening
    /// and before reading (so an edit made meanwhile shows in the next stat).
    pub fn read(&self, path: &Path) -> Result<(Vec<u8>, std::fs::Metadata), OpenError> {
        self.read_limited(path, u64::MAX)
    }

    /// [`Root::read`] of at most `limit` bytes (a longer file is read up to the limit).
    pub fn read_limited(
        &self,
        path: &Path,
        limit: u64,
    ) -> Result<(Vec<u8>, std::fs::Metadata), OpenError> {
        let file = self.open_file(path)?;
        let meta = file.metadata().map_err(OpenError::Io)?;
        let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize + 1);
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(OpenError::Io)?;
        Ok((bytes, meta))
    }

    /// What is at `path` beneath the root, following symlinks that stay beneath it
    /// (`Err(Outside)` for one that leaves).
    pub fn kind(&self, path: &Path) -> Result<EntryKind, OpenError> {
        let rel = self.rel_or_outside(path)?;
        #[cfg(unix)]
        {
            let fd = sys::open_beneath(self.dir.as_fd(), &rel, sys::O_LOOKUP, 0, false)?;
            let meta = File::from(fd).metadata().map_err(OpenError::Io)?;
            Ok(kind_of(&meta.file_type()))
        }
        #[cfg(not(unix))]
        {
            let real = std::fs::canonicalize(self.real.join(&rel)).map_err(OpenError::Io)?;
            if !real.starts_with(&self.real) {
                return Err(OpenError::Outside);
            }
            let meta = std::fs::metadata(&real).map_err(OpenError::Io)?;
            Ok(kind_of(&meta.file_type()))
        }
    }

    /// Whether `path` is a folder beneath the root.
    pub fn is_dir(&self, path: &Path) -> bool {
        matches!(self.kind(path), Ok(EntryKind::Dir))
    }

    /// Whether `path` is a regular file beneath the root.
    pub fn is_file(&self, path: &Path) -> bool {
        matches!(self.kind(path), Ok(EntryKind::File))
    }

    /// A folder beneath the root (`rel` relative to it), opened for reading its entries.
    #[cfg(unix)]
    fn open_folder(&self, rel: &Path) -> Result<std::os::fd::OwnedFd, OpenError> {
        sys::open_beneath(
            self.dir.as_fd(),
            rel,
            libc::O_RDONLY | libc::O_DIRECTORY,
            0,
            false,
        )
    }

    /// The entries of a folder beneath the root, sorted by name (`.` and `..` left out).
    pub fn list_dir(&self, path: &Path) -> Result<Vec<DirEntry>, OpenError> {
        let rel = self.rel_or_outside(path)?;
        #[cfg(unix)]
        let mut entries = sys::list(self.open_folder(&rel)?)?;
        #[cfg(not(unix))]
        let mut entries = {
            let real = std::fs::canonicalize(self.real.join(&rel)).map_err(OpenError::Io)?;
            if !real.starts_with(&self.real) {
                return Err(OpenError::Outside);
            }
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&real).map_err(OpenError::Io)?.flatten() {
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                entries.push(DirEntry {
                    name: entry.file_name(),
                    kind: kind_of(&file_type),
                });
            }
            entries
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// The subfolders of a folder beneath the root (its entries of kind [`EntryKind::Dir`],
    /// sorted by name). A folder whose link count says it has none — 2, for itself and its
    /// `.`, on a file system known to count subfolders there (ext4, XFS, tmpfs; any other is
    /// read) — is not read: a folder of thousands of files costs an `fstat` and an `fstatfs`.
    pub fn subfolders(&self, path: &Path) -> Result<Vec<DirEntry>, OpenError> {
        let entries = self.entries_if_subfolders(path)?.unwrap_or_default();
        let mut folders: Vec<DirEntry> = entries
            .into_iter()
            .filter(|e| matches!(e.kind, EntryKind::Dir))
            .collect();
        folders.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(folders)
    }

    /// Every entry of a folder beneath the root, in the order read, when it may have
    /// subfolders; `None`, without reading it, when its link count says it has none (as
    /// [`Root::subfolders`]). For a walk that looks for a name among the subfolders: where
    /// the folder is read anyway, the listing tells, with no lookup of its own.
    pub fn entries_if_subfolders(&self, path: &Path) -> Result<Option<Vec<DirEntry>>, OpenError> {
        #[cfg(unix)]
        {
            let rel = self.rel_or_outside(path)?;
            let fd = self.open_folder(&rel)?;
            let links = sys::link_count(fd.as_fd()).map_err(OpenError::Io)?;
            if links == 2 && sys::counts_subfolders(fd.as_fd()) {
                return Ok(None);
            }
            Ok(Some(sys::list(fd)?))
        }
        #[cfg(not(unix))]
        {
            self.list_dir(path).map(Some)
        }
    }

    /// The folder at `rel` beneath the root (e.g. `.brief/cache`), created if missing, for
    /// brief's own files. Every component must be a plain folder: a symlink anywhere on the
    /// way is refused ([`OpenError::Symlink`]) rather than followed.
    pub fn private_dir(&self, rel: &Path) -> Result<PrivateDir, OpenError> {
        let rel = self.rel_or_outside(&self.shown.join(rel))?;
        #[cfg(unix)]
        {
            let mut current: Option<OwnedFd> = None;
            for component in rel.components() {
                let Component::Normal(name) = component else {
                    return Err(OpenError::Outside);
                };
                let parent = current
                    .as_ref()
                    .map(|fd| fd.as_fd())
                    .unwrap_or(self.dir.as_fd());
                current = Some(sys::mkdir_plain(parent, name)?);
            }
            let fd = match current {
                Some(fd) => fd,
                None => {
                    sys::open_beneath(self.dir.as_fd(), Path::new("."), sys::O_LOOKUP, 0, true)?
                }
            };
            Ok(PrivateDir {
                fd,
                real: self.real.join(&rel),
                shown: self.shown.join(&rel),
            })
        }
        #[cfg(not(unix))]
        {
            let mut at = self.real.clone();
            for component in rel.components() {
                let Component::Normal(name) = component else {
                    return Err(OpenError::Outside);
                };
                at.push(name);
                match std::fs::symlink_metadata(&at) {
                    Ok(meta) if meta.file_type().is_symlink() => return Err(OpenError::Symlink),
                    Ok(meta) if meta.is_dir() => {}
                    Ok(_) => return Err(OpenError::NotRegular("a file")),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        std::fs::create_dir(&at).map_err(OpenError::Io)?
                    }
                    Err(e) => return Err(OpenError::Io(e)),
                }
            }
            Ok(PrivateDir {
                real: at,
                shown: self.shown.join(&rel),
            })
        }
    }
}

/// What a path the user names is relative to ([`Root::named`]).
#[derive(Debug, Clone, Copy)]
pub enum NamedFrom<'a> {
    /// The working folder of a command line: a relative path starts there, an absolute one
    /// is taken as it is.
    Folder(&'a Path),
    /// The project root: a server's client names files relative to it (an absolute path is
    /// outside by definition).
    Root,
}

/// `path` joined to `base` with `.` dropped and `..` removing the part before it, as written;
/// `None` when a `..` would climb above the start (above `/`, or above a relative start).
fn lexical(base: &Path, path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in base.join(path).components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// A folder of brief's own under the root (`.brief/cache`, `.brief`), held open: files in
/// it are created, renamed and deleted relative to the handle, never through a symlink.
pub struct PrivateDir {
    #[cfg(unix)]
    fd: OwnedFd,
    real: PathBuf,
    shown: PathBuf,
}

impl fmt::Debug for PrivateDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PrivateDir({})", self.shown.display())
    }
}

impl PrivateDir {
    /// The folder as shown in messages (under the root as given).
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// The real path of a file in the folder: what SQLite opens (with
    /// `SQLITE_OPEN_NOFOLLOW`, so a symlink anywhere on it is refused).
    pub fn real_path(&self, name: &str) -> PathBuf {
        self.real.join(name)
    }

    /// What `name` is, without following a symlink (`None`: missing).
    pub fn entry(&self, name: &str) -> Option<EntryKind> {
        #[cfg(unix)]
        {
            sys::stat_nofollow(self.fd.as_fd(), name)
                .ok()
                .map(|st| sys::kind_of_mode(st.st_mode))
        }
        #[cfg(not(unix))]
        {
            std::fs::symlink_metadata(self.real.join(name))
                .ok()
                .map(|m| kind_of(&m.file_type()))
        }
    }

    /// Device and inode of `name` (not following a symlink): tells a file from its
    /// replacement.
    pub fn identity(&self, name: &str) -> Option<(u64, u64)> {
        #[cfg(unix)]
        {
            // The field types differ between systems (`st_dev` is `i32` on macOS).
            #[allow(clippy::unnecessary_cast)]
            sys::stat_nofollow(self.fd.as_fd(), name)
                .ok()
                .map(|st| (st.st_dev as u64, st.st_ino as u64))
        }
        #[cfg(not(unix))]
        {
            self.real.join(name).exists().then_some((0, 0))
        }
    }

    /// Creates `name` with `contents` unless it exists; `Ok(false)` when it did.
    pub fn create_new(&self, name: &str, contents: &[u8]) -> Result<bool, OpenError> {
        use std::io::Write;
        #[cfg(unix)]
        let opened = sys::open_in(
            self.fd.as_fd(),
            name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
        );
        #[cfg(not(unix))]
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.real.join(name));
        match opened {
            Ok(mut file) => {
                file.write_all(contents).map_err(OpenError::Io)?;
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(OpenError::Io(e)),
        }
    }

    /// Opens (creating if needed) a regular file for writing without truncating it: a lock
    /// file. A symlink or anything but a regular file is refused.
    pub fn open_lock(&self, name: &str) -> Result<File, OpenError> {
        #[cfg(unix)]
        let file = sys::open_in(
            self.fd.as_fd(),
            name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_NONBLOCK,
        )
        .map_err(|e| sys::symlink_or(e, OpenError::Symlink))?;
        #[cfg(not(unix))]
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.real.join(name))
            .map_err(OpenError::Io)?;
        regular(&file.metadata().map_err(OpenError::Io)?)?;
        Ok(file)
    }

    /// Deletes `name` (a file or a symlink, never what a symlink points to); a missing file
    /// is not an error.
    pub fn remove(&self, name: &str) -> std::io::Result<()> {
        #[cfg(unix)]
        let result = sys::unlink_in(self.fd.as_fd(), name);
        #[cfg(not(unix))]
        let result = std::fs::remove_file(self.real.join(name));
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// What a freshness check needs of `name`, not following a symlink (`None`: missing).
    pub fn stat(&self, name: &str) -> Option<FileStat> {
        #[cfg(unix)]
        {
            sys::stat_nofollow(self.fd.as_fd(), name)
                .ok()
                .map(|st| stat::unix::from_stat(&st))
        }
        #[cfg(not(unix))]
        {
            std::fs::symlink_metadata(self.real.join(name))
                .ok()
                .map(|m| FileStat::from_metadata(&m))
        }
    }

    /// Reads `name` (a regular file, never a symlink; at most `limit` bytes); `None` when it
    /// is missing or cannot be read.
    pub fn read(&self, name: &str, limit: u64) -> Option<Vec<u8>> {
        #[cfg(unix)]
        let file = sys::open_in(self.fd.as_fd(), name, libc::O_RDONLY | libc::O_NONBLOCK).ok()?;
        #[cfg(not(unix))]
        let file = File::open(self.real.join(name)).ok()?;
        regular(&file.metadata().ok()?).ok()?;
        let mut bytes = Vec::new();
        file.take(limit).read_to_end(&mut bytes).ok()?;
        Some(bytes)
    }

    /// Replaces `name` whole: `contents` is written under a name of this process's own and
    /// renamed over it, so a reader finds the old file or the new one, never half of one.
    pub fn replace(&self, name: &str, contents: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let temporary = format!(
            "{name}.{}-{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        // Created afresh: whatever another process left under that name (a FIFO that would
        // block the write, a hard link to a file elsewhere that it would overwrite) is
        // unlinked first, and an exclusive create never writes through one.
        let _ = self.remove(&temporary);
        #[cfg(unix)]
        let opened = sys::open_in(
            self.fd.as_fd(),
            &temporary,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NONBLOCK,
        );
        #[cfg(not(unix))]
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.real.join(&temporary));
        let written = opened.and_then(|mut file| file.write_all(contents));
        let renamed = written.and_then(|()| self.rename(&temporary, name));
        if renamed.is_err() {
            let _ = self.remove(&temporary);
        }
        renamed
    }

    /// Renames `from` to `to` inside the folder (replacing `to`).
    pub fn rename(&self, from: &str, to: &str) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            sys::rename_in(self.fd.as_fd(), from, to)
        }
        #[cfg(not(unix))]
        {
            std::fs::rename(self.real.join(from), self.real.join(to))
        }
    }
}

/// Refuses anything but a regular file.
fn regular(meta: &std::fs::Metadata) -> Result<(), OpenError> {
    match kind_of(&meta.file_type()) {
        EntryKind::File => Ok(()),
        EntryKind::Dir => Err(OpenError::NotRegular("a folder")),
        EntryKind::Symlink => Err(OpenError::Symlink),
        EntryKind::Other => Err(OpenError::NotRegular(other_name(meta))),
    }
}

#[cfg(unix)]
fn other_name(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn other_name(_meta: &std::fs::Metadata) -> &'static str {
    "a special file"
}

fn kind_of(t: &std::fs::FileType) -> EntryKind {
    if t.is_symlink() {
        EntryKind::Symlink
    } else if t.is_dir() {
        EntryKind::Dir
    } else if t.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

/// Reads a regular file by its path (no root to hold it beneath): for discovering a project
/// before its root is known. Never blocks on a FIFO; at most `limit` bytes.
pub fn read_plain(path: &Path, limit: u64) -> Option<Vec<u8>> {
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .ok()?
    };
    #[cfg(not(unix))]
    let file = File::open(path).ok()?;
    regular(&file.metadata().ok()?).ok()?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

mod stat;
#[cfg(unix)]
mod sys;

pub use stat::{stat_files, FileStat};

#[cfg(test)]
#[cfg(unix)]
mod tests;
