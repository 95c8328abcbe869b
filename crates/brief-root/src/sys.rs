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
pub(crate) const O_LOOKUP: libc::c_int = libc::O_PATH;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) const O_LOOKUP: libc::c_int = libc::O_RDONLY;

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
pub(crate) fn open_dir_at(_dir: Option<BorrowedFd>, path: &Path) -> io::Result<OwnedFd> {
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
pub(crate) fn open_beneath(
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
pub(crate) fn by_hand(
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
pub(crate) fn stat_nofollow(dir: BorrowedFd, name: impl AsRef<OsStr>) -> io::Result<libc::stat> {
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

pub(crate) fn kind_of_mode(mode: libc::mode_t) -> EntryKind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => EntryKind::File,
        libc::S_IFDIR => EntryKind::Dir,
        libc::S_IFLNK => EntryKind::Symlink,
        _ => EntryKind::Other,
    }
}

/// Opens or creates the plain folder `name` in `dir` (a symlink is refused).
pub(crate) fn mkdir_plain(dir: BorrowedFd, name: &OsStr) -> Result<OwnedFd, OpenError> {
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
pub(crate) fn symlink_or(e: io::Error, instead: OpenError) -> OpenError {
    match e.raw_os_error() {
        Some(libc::ELOOP | libc::ENOTDIR | libc::EMLINK) => instead,
        _ => OpenError::Io(e),
    }
}

/// Opens a file directly in `dir` (no path walk), never through a symlink.
pub(crate) fn open_in(dir: BorrowedFd, name: &str, flags: libc::c_int) -> io::Result<File> {
    openat(dir, OsStr::new(name), flags | libc::O_NOFOLLOW, 0o644).map(File::from)
}

pub(crate) fn unlink_in(dir: BorrowedFd, name: &str) -> io::Result<()> {
    let name = cstr(OsStr::new(name))?;
    // SAFETY: a valid folder handle and a NUL-terminated name.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

pub(crate) fn rename_in(dir: BorrowedFd, from: &str, to: &str) -> io::Result<()> {
    let (from, to) = (cstr(OsStr::new(from))?, cstr(OsStr::new(to))?);
    // SAFETY: valid folder handles and NUL-terminated names.
    if unsafe { libc::renameat(dir.as_raw_fd(), from.as_ptr(), dir.as_raw_fd(), to.as_ptr()) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The entries of an open folder (the handle is consumed).
pub(crate) fn list(fd: OwnedFd) -> Result<Vec<DirEntry>, OpenError> {
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
pub(crate) mod openat2 {
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
    pub(crate) fn open(
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

/// The link count of an open file or folder, by one `fstat`.
pub(crate) fn link_count(fd: BorrowedFd) -> io::Result<u64> {
    // SAFETY: `stat` is plain data, filled by the call on a valid handle.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // The field's type differs between targets.
    #[allow(clippy::useless_conversion)]
    Ok(u64::from(st.st_nlink))
}

/// Whether the file system holding `folder` counts a folder's subfolders in its link count
/// (ext2/3/4, XFS, tmpfs), so that a count of 2 means it has none. Elsewhere — btrfs, SMB
/// mounts without Unix extensions (which report 2 for every folder), network and FUSE file
/// systems — the count says nothing, and the folder is read.
#[cfg(target_os = "linux")]
pub(crate) fn counts_subfolders(folder: BorrowedFd) -> bool {
    const EXT: i64 = 0xEF53;
    const XFS: i64 = 0x5846_5342;
    const TMPFS: i64 = 0x0102_1994;
    // SAFETY: `statfs` is plain data, filled by the call on a valid handle.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(folder.as_raw_fd(), &mut st) } != 0 {
        return false;
    }
    // The field's type differs between targets.
    #[allow(clippy::useless_conversion)]
    let kind = i64::from(st.f_type);
    matches!(kind, EXT | XFS | TMPFS)
}

/// Outside Linux the link count of a folder is not relied on.
#[cfg(not(target_os = "linux"))]
pub(crate) fn counts_subfolders(_folder: BorrowedFd) -> bool {
    false
}
