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

#[test]
fn named_paths_are_taken_from_where_they_are_named_and_must_stay_inside() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    let base = dir.path();
    let inside = |given: &str, from: NamedFrom<'_>| root.named(Path::new(given), from).ok();
    // From the command line's folder: relative to it, absolute as given.
    assert_eq!(
        inside("ci/base.json", NamedFrom::Folder(base)),
        Some(PathBuf::from("ci/base.json"))
    );
    assert_eq!(
        inside("../x.json", NamedFrom::Folder(&base.join("ci"))),
        Some(PathBuf::from("x.json"))
    );
    let absolute = base.join("a/./b/../c.json");
    assert_eq!(
        inside(
            absolute.to_str().unwrap(),
            NamedFrom::Folder(Path::new("/"))
        ),
        Some(PathBuf::from("a/c.json"))
    );
    for outside in ["../x.json", "/etc/passwd", "/dev/zero", ".", "a/../.."] {
        assert_eq!(inside(outside, NamedFrom::Folder(base)), None, "{outside}");
    }
    // From the root (a server's client): relative only.
    assert_eq!(
        inside("ci/base.json", NamedFrom::Root),
        Some(PathBuf::from("ci/base.json"))
    );
    for outside in ["/etc/passwd", "../x", "a/../../x", ""] {
        assert_eq!(inside(outside, NamedFrom::Root), None, "{outside}");
    }
    // A root given relative to the folder it was named from.
    let nested = base.join("proj");
    std::fs::create_dir_all(nested.join("ci")).unwrap();
    let relative_root = Root::open(&nested).unwrap();
    assert_eq!(
        relative_root
            .named(Path::new("proj/ci/b.json"), NamedFrom::Folder(base))
            .ok(),
        Some(PathBuf::from("ci/b.json"))
    );
}

#[test]
fn a_private_dir_replaces_reads_and_stats_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    let folder = root.private_dir(Path::new("a/b")).unwrap();
    assert_eq!(folder.stat("f"), None);
    folder.replace("f", b"one").unwrap();
    folder.replace("f", b"two!").unwrap();
    assert_eq!(folder.read("f", 100).as_deref(), Some(&b"two!"[..]));
    assert_eq!(folder.read("f", 2).as_deref(), Some(&b"tw"[..]));
    let stat = folder.stat("f").unwrap();
    assert_eq!(stat.size, 4);
    // Only the file is left (no temporary names), and a link is read as nothing.
    let names: Vec<_> = std::fs::read_dir(dir.path().join("a/b"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["f"]);
    symlink(dir.path().join("a/b/f"), dir.path().join("a/b/link")).unwrap();
    assert_eq!(folder.read("link", 100), None);
    assert!(!folder.stat("link").unwrap().is_dir);
}

#[test]
fn subfolders_are_the_real_folders_inside_a_folder_and_a_leaf_has_none() {
    // The result only: whether a leaf is listed at all (the link-count shortcut) shows in
    // BENCHMARKS.md, not here.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("vault/topic/inner")).unwrap();
    std::fs::create_dir_all(dir.path().join("vault/leaf")).unwrap();
    for n in 0..20 {
        std::fs::write(dir.path().join(format!("vault/leaf/{n}.md")), "x").unwrap();
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink("topic", dir.path().join("vault/link")).unwrap();
    let root = Root::open(dir.path()).unwrap();
    let names = |rel: &str| -> Vec<String> {
        root.subfolders(&dir.path().join(rel))
            .unwrap()
            .into_iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .collect()
    };
    // A symlink to a folder is not a subfolder.
    assert_eq!(names("vault"), ["leaf", "topic"]);
    assert_eq!(names("vault/topic"), ["inner"]);
    assert!(names("vault/leaf").is_empty());
    assert!(matches!(
        root.subfolders(Path::new("/etc")),
        Err(OpenError::Outside)
    ));
}

#[test]
fn a_replace_writes_through_nothing_left_at_its_temporary_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    let cache = root.private_dir(Path::new(".brief/cache")).unwrap();
    let victim = dir.path().join("victim.md");
    std::fs::write(&victim, "# precious\n").unwrap();
    // The names this process's next writes take: hard links to a file elsewhere, and FIFOs
    // (a write into one blocks until someone reads).
    let pid = std::process::id();
    for n in 0..64 {
        let at = dir.path().join(format!(".brief/cache/kept.{pid}-{n}.tmp"));
        std::fs::hard_link(&victim, &at).unwrap();
        let fifo = dir.path().join(format!(".brief/cache/fifo.{pid}-{n}.tmp"));
        let path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
    }
    for _ in 0..8 {
        cache.replace("kept", b"walk").unwrap();
        cache.replace("fifo", b"walk").unwrap();
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "# precious\n");
    assert_eq!(
        std::fs::read(dir.path().join(".brief/cache/fifo")).unwrap(),
        b"walk"
    );
}
