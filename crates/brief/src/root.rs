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
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// One entry of a folder listed by [`Root::list_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: OsString,
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

    /// The entries of a folder beneath the root, sorted by name (`.` and `..` left out).
    pub fn list_dir(&self, path: &Path) -> Result<Vec<DirEntry>, OpenError> {
        let rel = self.rel_or_outside(path)?;
        #[cfg(unix)]
        let mut entries = {
            let fd = sys::open_beneath(
                self.dir.as_fd(),
                &rel,
                libc::O_RDONLY | libc::O_DIRECTORY,
                0,
                false,
            )?;
            sys::list(fd)?
        };
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

#[cfg(unix)]
mod sys {
    //! The system calls behind [`Root`](super::Root): `openat2` where the kernel has it, a
    //! component-by-component walk where it does not.

    use std::ffi::{CString, OsStr, OsString};
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::{Component, Path};

    use super::{DirEntry, EntryKind, OpenError};

    /// Flags that open a path just to look at it (no read permission needed on Linux).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub const O_LOOKUP: libc::c_int = libc::O_PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    pub const O_LOOKUP: libc::c_int = libc::O_RDONLY;

    /// How many symlinks one open may expand (the kernel's own limit).
    const MAX_SYMLINKS: usize = 40;

    fn cstr(name: &OsStr) -> io::Result<CString> {
        CString::new(name.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
    }

    fn check(fd: libc::c_int) -> io::Result<OwnedFd> {
        if fd < 0 {
            Err(io::Error::last_os_error())
        } else {
            // SAFETY: a file descriptor the kernel just returned, owned by no one else.
            Ok(unsafe { OwnedFd::from_raw_fd(fd) })
        }
    }

    fn openat(
        dir: BorrowedFd,
        name: &OsStr,
        flags: libc::c_int,
        mode: libc::mode_t,
    ) -> io::Result<OwnedFd> {
        let name = cstr(name)?;
        loop {
            // SAFETY: a valid folder handle and a NUL-terminated name.
            let fd = unsafe {
                libc::openat(
                    dir.as_raw_fd(),
                    name.as_ptr(),
                    flags | libc::O_CLOEXEC,
                    libc::c_uint::from(mode),
                )
            };
            match check(fd) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    /// Opens a folder by path (the root itself).
    pub fn open_dir_at(_dir: Option<BorrowedFd>, path: &Path) -> io::Result<OwnedFd> {
        let name = cstr(path.as_os_str())?;
        // SAFETY: a NUL-terminated path.
        let fd = unsafe {
            libc::open(
                name.as_ptr(),
                O_LOOKUP | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        check(fd)
    }

    /// Opens `rel` beneath `root` with `flags`: never outside it, whatever symlinks or `..`
    /// the path holds. With `no_symlinks`, any symlink on the way is refused.
    pub fn open_beneath(
        root: BorrowedFd,
        rel: &Path,
        flags: libc::c_int,
        mode: libc::mode_t,
        no_symlinks: bool,
    ) -> Result<OwnedFd, OpenError> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(result) = openat2::open(root, rel, flags, mode, no_symlinks) {
            return result.map_err(OpenError::from);
        }
        by_hand(root, rel, flags, mode, no_symlinks).map_err(OpenError::from)
    }

    /// The fallback: one component at a time, each opened with `O_NOFOLLOW`, each symlink
    /// read and expanded here (relative ones only; absolute ones lead outside), `..`
    /// taking back the last folder opened and never the root.
    pub fn by_hand(
        root: BorrowedFd,
        rel: &Path,
        flags: libc::c_int,
        mode: libc::mode_t,
        no_symlinks: bool,
    ) -> io::Result<OwnedFd> {
        let outside = || io::Error::from_raw_os_error(libc::EXDEV);
        let mut todo: Vec<OsString> = Vec::new();
        if !push_components(&mut todo, rel) {
            return Err(outside());
        }
        let mut opened: Vec<OwnedFd> = Vec::new();
        let mut expansions = 0;
        while let Some(name) = todo.pop() {
            if name == ".." {
                if opened.pop().is_none() {
                    return Err(outside());
                }
                continue;
            }
            let dir = opened.last().map(AsFd::as_fd).unwrap_or(root);
            let last = todo.is_empty();
            let attempt = if last {
                openat(dir, &name, flags | libc::O_NOFOLLOW, mode)
            } else {
                openat(
                    dir,
                    &name,
                    O_LOOKUP | libc::O_DIRECTORY | libc::O_NOFOLLOW,
                    0,
                )
            };
            let is_link = match &attempt {
                // `O_PATH | O_NOFOLLOW` opens a symlink itself: look at what was opened.
                Ok(fd) => File::from(fd.try_clone()?)
                    .metadata()
                    .is_ok_and(|m| m.file_type().is_symlink()),
                // A symlink under `O_NOFOLLOW` fails with ELOOP (ENOTDIR with
                // `O_DIRECTORY` on some systems, EMLINK on FreeBSD).
                Err(e) => {
                    matches!(
                        e.raw_os_error(),
                        Some(libc::ELOOP | libc::ENOTDIR | libc::EMLINK)
                    ) && stat_nofollow(dir, &name)
                        .is_ok_and(|st| kind_of_mode(st.st_mode) == EntryKind::Symlink)
                }
            };
            if !is_link {
                let fd = attempt?;
                if last {
                    return Ok(fd);
                }
                opened.push(fd);
                continue;
            }
            if no_symlinks {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            expansions += 1;
            if expansions > MAX_SYMLINKS {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            let target = readlink(dir, &name)?;
            if !push_components(&mut todo, Path::new(&target)) {
                return Err(outside());
            }
        }
        // The root itself.
        let dir = opened.last().map(AsFd::as_fd).unwrap_or(root);
        openat(dir, OsStr::new("."), flags, mode)
    }

    /// Pushes a relative path's components onto a stack so the first comes off first;
    /// false for an absolute path.
    fn push_components(todo: &mut Vec<OsString>, path: &Path) -> bool {
        let mut parts = Vec::new();
        for component in path.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_os_string()),
                Component::ParentDir => parts.push(OsString::from("..")),
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => return false,
            }
        }
        todo.extend(parts.into_iter().rev());
        true
    }

    fn readlink(dir: BorrowedFd, name: &OsStr) -> io::Result<OsString> {
        let name = cstr(name)?;
        let mut buf = vec![0u8; 4096];
        // SAFETY: a valid folder handle, a NUL-terminated name and a buffer of its length.
        let n = unsafe {
            libc::readlinkat(
                dir.as_raw_fd(),
                name.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        buf.truncate(n as usize);
        Ok(OsString::from_vec(buf))
    }

    /// `fstatat` without following a final symlink.
    pub fn stat_nofollow(dir: BorrowedFd, name: impl AsRef<OsStr>) -> io::Result<libc::stat> {
        let name = cstr(name.as_ref())?;
        // SAFETY: zeroed `stat` is a valid out-parameter.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a valid folder handle, a NUL-terminated name and a `stat` to fill.
        let rc = unsafe {
            libc::fstatat(
                dir.as_raw_fd(),
                name.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(st)
        }
    }

    pub fn kind_of_mode(mode: libc::mode_t) -> EntryKind {
        match mode & libc::S_IFMT {
            libc::S_IFREG => EntryKind::File,
            libc::S_IFDIR => EntryKind::Dir,
            libc::S_IFLNK => EntryKind::Symlink,
            _ => EntryKind::Other,
        }
    }

    /// Opens or creates the plain folder `name` in `dir` (a symlink is refused).
    pub fn mkdir_plain(dir: BorrowedFd, name: &OsStr) -> Result<OwnedFd, OpenError> {
        let cname = cstr(name)?;
        // SAFETY: a valid folder handle and a NUL-terminated name.
        let rc = unsafe { libc::mkdirat(dir.as_raw_fd(), cname.as_ptr(), 0o755) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::AlreadyExists {
                return Err(OpenError::Io(e));
            }
        }
        match openat(
            dir,
            name,
            O_LOOKUP | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        ) {
            Ok(fd) => Ok(fd),
            Err(e) => Err(symlink_or(
                e,
                match stat_nofollow(dir, name) {
                    Ok(st) if kind_of_mode(st.st_mode) == EntryKind::Symlink => OpenError::Symlink,
                    Ok(_) => OpenError::NotRegular("a file, not a folder"),
                    Err(e) => OpenError::Io(e),
                },
            )),
        }
    }

    /// `instead` for the errors a symlink under `O_NOFOLLOW` gives, else the error itself.
    pub fn symlink_or(e: io::Error, instead: OpenError) -> OpenError {
        match e.raw_os_error() {
            Some(libc::ELOOP | libc::ENOTDIR | libc::EMLINK) => instead,
            _ => OpenError::Io(e),
        }
    }

    /// Opens a file directly in `dir` (no path walk), never through a symlink.
    pub fn open_in(dir: BorrowedFd, name: &str, flags: libc::c_int) -> io::Result<File> {
        openat(dir, OsStr::new(name), flags | libc::O_NOFOLLOW, 0o644).map(File::from)
    }

    pub fn unlink_in(dir: BorrowedFd, name: &str) -> io::Result<()> {
        let name = cstr(OsStr::new(name))?;
        // SAFETY: a valid folder handle and a NUL-terminated name.
        if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    pub fn rename_in(dir: BorrowedFd, from: &str, to: &str) -> io::Result<()> {
        let (from, to) = (cstr(OsStr::new(from))?, cstr(OsStr::new(to))?);
        // SAFETY: valid folder handles and NUL-terminated names.
        if unsafe { libc::renameat(dir.as_raw_fd(), from.as_ptr(), dir.as_raw_fd(), to.as_ptr()) }
            < 0
        {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// The entries of an open folder (the handle is consumed).
    pub fn list(fd: OwnedFd) -> Result<Vec<DirEntry>, OpenError> {
        use std::os::fd::IntoRawFd;
        let raw = fd.into_raw_fd();
        // SAFETY: `raw` is an open folder handle whose ownership passes to the DIR stream.
        let stream = unsafe { libc::fdopendir(raw) };
        if stream.is_null() {
            let e = io::Error::last_os_error();
            // SAFETY: fdopendir failed, so the handle is still ours to close.
            unsafe { libc::close(raw) };
            return Err(OpenError::Io(e));
        }
        let mut entries = Vec::new();
        loop {
            // SAFETY: a valid DIR stream, read by this thread only.
            let entry = unsafe { libc::readdir(stream) };
            if entry.is_null() {
                break;
            }
            // SAFETY: readdir returned a valid entry with a NUL-terminated name.
            let (name, d_type) = unsafe {
                (
                    std::ffi::CStr::from_ptr((*entry).d_name.as_ptr())
                        .to_bytes()
                        .to_vec(),
                    (*entry).d_type,
                )
            };
            if name == b"." || name == b".." {
                continue;
            }
            let name = OsString::from_vec(name);
            let kind = match d_type {
                libc::DT_REG => EntryKind::File,
                libc::DT_DIR => EntryKind::Dir,
                libc::DT_LNK => EntryKind::Symlink,
                libc::DT_UNKNOWN => {
                    // SAFETY: the stream's own handle, valid while the stream is open.
                    let dir = unsafe { BorrowedFd::borrow_raw(libc::dirfd(stream)) };
                    match stat_nofollow(dir, &name) {
                        Ok(st) => kind_of_mode(st.st_mode),
                        Err(_) => continue,
                    }
                }
                _ => EntryKind::Other,
            };
            entries.push(DirEntry { name, kind });
        }
        // SAFETY: the stream is valid and closed once.
        unsafe { libc::closedir(stream) };
        Ok(entries)
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub mod openat2 {
        //! `openat2(2)` with `RESOLVE_BENEATH`: the kernel refuses any path that would leave
        //! the folder, including through symlinks and `..`, atomically.

        use std::ffi::CString;
        use std::io;
        use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
        use std::os::unix::ffi::OsStrExt;
        use std::path::Path;
        use std::sync::atomic::{AtomicU8, Ordering};

        /// `struct open_how` of `linux/openat2.h`.
        #[repr(C)]
        struct OpenHow {
            flags: u64,
            mode: u64,
            resolve: u64,
        }

        /// 0 not tried yet, 1 works, 2 unavailable (old kernel or a sandbox refusing it).
        static AVAILABLE: AtomicU8 = AtomicU8::new(0);

        /// `None` when the kernel does not offer `openat2` (use the fallback).
        pub fn open(
            root: BorrowedFd,
            rel: &Path,
            flags: libc::c_int,
            mode: libc::mode_t,
            no_symlinks: bool,
        ) -> Option<io::Result<OwnedFd>> {
            if AVAILABLE.load(Ordering::Relaxed) == 2 {
                return None;
            }
            let path = if rel.as_os_str().is_empty() {
                CString::new(".").ok()?
            } else {
                match CString::new(rel.as_os_str().as_bytes()) {
                    Ok(path) => path,
                    Err(_) => return Some(Err(io::Error::from_raw_os_error(libc::EINVAL))),
                }
            };
            let mut resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
            if no_symlinks {
                resolve |= libc::RESOLVE_NO_SYMLINKS;
            }
            let how = OpenHow {
                flags: (flags | libc::O_CLOEXEC) as u64,
                mode: if flags & libc::O_CREAT != 0 {
                    u64::from(mode)
                } else {
                    0
                },
                resolve,
            };
            // A rename elsewhere in the tree can make the kernel ask for a retry.
            for _ in 0..64 {
                // SAFETY: a valid folder handle, a NUL-terminated path and an `open_how`
                // of the size passed.
                let fd = unsafe {
                    libc::syscall(
                        libc::SYS_openat2,
                        root.as_raw_fd(),
                        path.as_ptr(),
                        &how as *const OpenHow,
                        std::mem::size_of::<OpenHow>(),
                    )
                };
                if fd >= 0 {
                    AVAILABLE.store(1, Ordering::Relaxed);
                    return Some(super::check(fd as libc::c_int));
                }
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR | libc::EAGAIN) => continue,
                    Some(libc::ENOSYS | libc::EPERM) if AVAILABLE.load(Ordering::Relaxed) != 1 => {
                        AVAILABLE.store(2, Ordering::Relaxed);
                        return None;
                    }
                    _ => return Some(Err(e)),
                }
            }
            Some(Err(io::Error::from_raw_os_error(libc::EAGAIN)))
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A root with a file, a folder, links that stay inside and links that leave.
    fn fixture() -> (tempfile::TempDir, tempfile::TempDir) {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("docs/deep")).unwrap();
        std::fs::write(root.join("docs/a.md"), "a").unwrap();
        std::fs::write(root.join("docs/deep/b.md"), "b").unwrap();
        symlink("a.md", root.join("docs/alias.md")).unwrap();
        symlink("..", root.join("docs/deep/up")).unwrap();
        symlink(outside.path().join("secret.md"), root.join("docs/abs.md")).unwrap();
        symlink(outside.path(), root.join("away")).unwrap();
        symlink("../../..", root.join("docs/deep/climb")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        (dir, outside)
    }

    #[derive(Debug, PartialEq)]
    enum Seen {
        Text(String),
        Outside,
        NotRegular,
        Failed,
    }

    fn seen(result: Result<OwnedFd, OpenError>) -> Seen {
        match result {
            Ok(fd) => {
                let mut text = String::new();
                match File::from(fd).read_to_string(&mut text) {
                    Ok(_) => Seen::Text(text),
                    Err(_) => Seen::NotRegular,
                }
            }
            Err(OpenError::Outside) => Seen::Outside,
            Err(OpenError::NotRegular(_)) => Seen::NotRegular,
            Err(_) => Seen::Failed,
        }
    }

    #[test]
    fn both_resolvers_keep_every_open_beneath_the_root() {
        let (dir, _outside) = fixture();
        let root = Root::open(dir.path()).unwrap();
        let cases = [
            ("docs/a.md", Seen::Text("a".into())),
            ("docs/alias.md", Seen::Text("a".into())),
            ("docs/deep/up/a.md", Seen::Text("a".into())),
            ("docs/deep/../a.md", Seen::Text("a".into())),
            ("docs/deep/b.md", Seen::Text("b".into())),
            ("docs/abs.md", Seen::Outside),
            ("away/secret.md", Seen::Outside),
            ("docs/deep/climb/etc/passwd", Seen::Outside),
            ("../x.md", Seen::Outside),
            ("docs/../../x.md", Seen::Outside),
            ("loop1", Seen::Failed),
            ("docs/missing.md", Seen::Failed),
        ];
        for (rel, expected) in cases {
            let by_kernel =
                sys::open_beneath(root.dir.as_fd(), Path::new(rel), libc::O_RDONLY, 0, false);
            assert_eq!(seen(by_kernel), expected, "open_beneath {rel}");
            let by_hand = sys::by_hand(root.dir.as_fd(), Path::new(rel), libc::O_RDONLY, 0, false)
                .map_err(OpenError::from);
            assert_eq!(seen(by_hand), expected, "by_hand {rel}");
        }
        // Without symlinks at all, even a link that stays inside is refused.
        for resolve in [true, false] {
            let result = if resolve {
                sys::open_beneath(
                    root.dir.as_fd(),
                    Path::new("docs/alias.md"),
                    libc::O_RDONLY,
                    0,
                    true,
                )
            } else {
                sys::by_hand(
                    root.dir.as_fd(),
                    Path::new("docs/alias.md"),
                    libc::O_RDONLY,
                    0,
                    true,
                )
                .map_err(OpenError::from)
            };
            assert!(result.is_err(), "no_symlinks");
        }
    }

    #[test]
    fn only_regular_files_are_read_and_a_fifo_never_blocks() {
        let (dir, _outside) = fixture();
        let fifo = dir.path().join("docs/pipe.md");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
        let root = Root::open(dir.path()).unwrap();
        let err = root.read(&fifo).unwrap_err();
        assert!(matches!(err, OpenError::NotRegular("a FIFO")), "{err:?}");
        assert_eq!(err.to_string(), "is a FIFO, not a regular file; not read");
        let err = root.read(&dir.path().join("docs")).unwrap_err();
        assert!(matches!(err, OpenError::NotRegular("a folder")), "{err:?}");
        assert_eq!(root.read(&dir.path().join("docs/a.md")).unwrap().0, b"a");
        assert!(matches!(
            root.read(&dir.path().join("docs/abs.md")),
            Err(OpenError::Outside)
        ));
        assert!(matches!(
            root.read(Path::new("/etc/passwd")),
            Err(OpenError::Outside)
        ));
        assert_eq!(read_plain(&fifo, 10), None);
    }

    #[test]
    fn listing_and_kinds_stay_beneath_the_root() {
        let (dir, _outside) = fixture();
        let root = Root::open(dir.path()).unwrap();
        let names: Vec<(String, EntryKind)> = root
            .list_dir(&dir.path().join("docs"))
            .unwrap()
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
            .collect();
        assert_eq!(
            names,
            [
                ("a.md".to_string(), EntryKind::File),
                ("abs.md".to_string(), EntryKind::Symlink),
                ("alias.md".to_string(), EntryKind::Symlink),
                ("deep".to_string(), EntryKind::Dir),
            ]
        );
        assert!(matches!(
            root.list_dir(&dir.path().join("away")),
            Err(OpenError::Outside)
        ));
        assert_eq!(
            root.kind(&dir.path().join("docs/deep/up")).unwrap(),
            EntryKind::Dir
        );
        assert!(matches!(
            root.kind(&dir.path().join("away")),
            Err(OpenError::Outside)
        ));
        assert!(root.is_file(&dir.path().join("docs/alias.md")));
        assert!(!root.is_file(&dir.path().join("docs/abs.md")));
    }

    #[test]
    fn private_folders_are_created_and_never_written_through_a_symlink() {
        let (dir, outside) = fixture();
        let root = Root::open(dir.path()).unwrap();
        let cache = root.private_dir(Path::new(".brief/cache")).unwrap();
        assert!(dir.path().join(".brief/cache").is_dir());
        assert!(cache.create_new("x", b"1").unwrap());
        assert!(!cache.create_new("x", b"2").unwrap());
        cache.rename("x", "y").unwrap();
        assert_eq!(
            std::fs::read(dir.path().join(".brief/cache/y")).unwrap(),
            b"1"
        );
        assert_eq!(cache.entry("y"), Some(EntryKind::File));
        cache.remove("y").unwrap();
        cache.remove("y").unwrap();
        assert_eq!(cache.entry("y"), None);
        // A link named like brief's file is refused, and removing it removes only the link.
        symlink(
            outside.path().join("secret.md"),
            dir.path().join(".brief/cache/lock"),
        )
        .unwrap();
        assert!(matches!(cache.open_lock("lock"), Err(OpenError::Symlink)));
        cache.remove("lock").unwrap();
        assert_eq!(
            std::fs::read(outside.path().join("secret.md")).unwrap(),
            b"secret"
        );

        let other = tempfile::tempdir().unwrap();
        symlink(outside.path(), other.path().join(".brief")).unwrap();
        let root = Root::open(other.path()).unwrap();
        assert!(matches!(
            root.private_dir(Path::new(".brief/cache")),
            Err(OpenError::Symlink)
        ));
        assert!(
            !outside.path().join("cache").exists(),
            "nothing created outside"
        );
    }

    #[test]
    fn relative_paths_are_taken_from_the_root_as_given() {
        let (dir, _outside) = fixture();
        let root = Root::open(dir.path()).unwrap();
        assert_eq!(
            root.relative(&dir.path().join("docs/./a.md")),
            Some(PathBuf::from("docs/a.md"))
        );
        assert_eq!(
            root.relative(&root.real().join("docs")),
            Some(PathBuf::from("docs"))
        );
        assert_eq!(root.relative(Path::new("/elsewhere/a.md")), None);
        assert_eq!(root.relative(dir.path()), Some(PathBuf::new()));
    }
}
