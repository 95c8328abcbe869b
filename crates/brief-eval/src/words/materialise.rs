//! Materialises a pinned commit of a repository from a local git directory into a folder:
//! the files of the commit's tree, written as they are, without `.git`.
//!
//! Blobs the git directory lacks (a partial clone, or a snapshot without its largest files)
//! are skipped and counted, so a repository whose binaries are absent still materialises.
//! Symbolic links are written as links (on Unix) when they point inside the checkout, since
//! repositories link `CLAUDE.md` to `AGENTS.md`; submodules are skipped. Nothing is
//! downloaded: the mirrors must hold the commit.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one materialisation wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written.
    pub files: usize,
    /// Files of the tree whose content the git directory lacks.
    pub missing: usize,
}

/// The git directory of `owner+name` under `mirrors`: `mirrors/owner+name`, or the `repo`
/// or `.git` folder inside it.
pub fn git_dir(mirrors: &Path, folder: &str) -> PathBuf {
    let base = mirrors.join(folder);
    for inner in ["repo/.git", "repo", ".git"] {
        let candidate = base.join(inner);
        if candidate.join("HEAD").is_file() {
            return candidate;
        }
    }
    base
}

/// Writes the tree of `commit` from the git directory `git` into `into` (replaced if it
/// exists).
pub fn materialise(git: &Path, commit: &str, into: &Path) -> Result<Written, String> {
    let entries = tree(git, commit)?;
    if into.exists() {
        std::fs::remove_dir_all(into).map_err(|e| format!("{}: {e}", into.display()))?;
    }
    std::fs::create_dir_all(into).map_err(|e| format!("{}: {e}", into.display()))?;
    write_blobs(git, &entries, into)
}

/// One file of a tree: its blob, its path, and whether it is a symbolic link (the blob is
/// then the link's target).
struct Entry {
    blob: String,
    path: String,
    link: bool,
}

/// The regular files of `commit`'s tree (`git ls-tree -r -z`).
fn tree(git: &Path, commit: &str) -> Result<Vec<Entry>, String> {
    let output = Command::new("git")
        .arg("--git-dir")
        .arg(git)
        .args(["ls-tree", "-r", "-z", "--full-tree", commit])
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{}: commit {commit} cannot be listed (fetch the repository there first): {}",
            git.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let mut entries = Vec::new();
    for record in output.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let record = String::from_utf8_lossy(record);
        let Some((meta, path)) = record.split_once('\t') else {
            continue;
        };
        let mut parts = meta.split(' ');
        let (Some(mode), Some(kind), Some(blob)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        // 100644 and 100755 are files, 120000 links; 160000 submodules are skipped.
        let link = mode == "120000";
        if kind == "blob" && (link || mode.starts_with("100")) && is_safe(path) {
            entries.push(Entry {
                blob: blob.to_string(),
                path: path.to_string(),
                link,
            });
        }
    }
    Ok(entries)
}

/// A tree path that stays inside the folder it is written to.
fn is_safe(path: &str) -> bool {
    !path.starts_with('/') && path.split('/').all(|part| !matches!(part, "" | "." | ".."))
}

/// Streams every blob through one `git cat-file --batch` and writes the present ones.
fn write_blobs(git: &Path, entries: &[Entry], into: &Path) -> Result<Written, String> {
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(git)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("git cat-file gave no pipes".into());
    };
    let request: String = entries.iter().map(|e| format!("{}\n", e.blob)).collect();
    // A thread writes the requests while this one reads the answers, so neither pipe fills.
    let writer = std::thread::spawn(move || stdin.write_all(request.as_bytes()));
    let mut reader = BufReader::new(stdout);
    let mut written = Written::default();
    for entry in entries {
        match read_blob(&mut reader)? {
            Some(content) => {
                if write_entry(into, entry, &content)? {
                    written.files += 1;
                }
            }
            None => written.missing += 1,
        }
    }
    let sent = writer.join().map_err(|_| "the git writer thread failed")?;
    sent.map_err(|e| format!("writing to git cat-file: {e}"))?;
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("git cat-file failed: {status}"));
    }
    Ok(written)
}

/// Writes one file, or one link whose target stays inside the checkout; whether it wrote.
fn write_entry(into: &Path, entry: &Entry, content: &[u8]) -> Result<bool, String> {
    let path = into.join(&entry.path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    if !entry.link {
        std::fs::write(&path, content).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(true);
    }
    let target = String::from_utf8_lossy(content).to_string();
    let folder = entry.path.rsplit_once('/').map_or("", |(folder, _)| folder);
    if !stays_inside(folder, &target) {
        return Ok(false);
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&target, &path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(true)
    }
    #[cfg(not(unix))]
    Ok(false)
}

/// Whether the relative link `target`, found in `folder` of the checkout, names a path
/// inside the checkout.
fn stays_inside(folder: &str, target: &str) -> bool {
    if target.starts_with('/') || target.contains('\\') {
        return false;
    }
    let mut depth = folder.split('/').filter(|p| !p.is_empty()).count();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." if depth == 0 => return false,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    true
}

/// One answer of `git cat-file --batch`: `<oid> blob <size>\n<content>\n`, or
/// `<oid> missing\n` (`None`).
fn read_blob(reader: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut header = String::new();
    reader
        .read_line(&mut header)
        .map_err(|e| format!("reading git cat-file: {e}"))?;
    let fields: Vec<&str> = header.split_whitespace().collect();
    match fields.as_slice() {
        [_, "missing"] => Ok(None),
        [_, _, size] => {
            let size: usize = size
                .parse()
                .map_err(|_| format!("git cat-file said `{}`", header.trim()))?;
            let mut content = vec![0; size + 1];
            reader
                .read_exact(&mut content)
                .map_err(|e| format!("reading git cat-file: {e}"))?;
            content.pop(); // the newline after the content
            Ok(Some(content))
        }
        _ => Err(format!("git cat-file said `{}`", header.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_answers_are_read_with_and_without_content() {
        let answers = b"aaaa blob 5\nhello\nbbbb missing\ncccc blob 0\n\n";
        let mut reader = &answers[..];
        assert_eq!(read_blob(&mut reader).unwrap(), Some(b"hello".to_vec()));
        assert_eq!(read_blob(&mut reader).unwrap(), None);
        assert_eq!(read_blob(&mut reader).unwrap(), Some(Vec::new()));
        assert!(read_blob(&mut reader).is_err());
    }

    #[test]
    fn links_are_kept_only_inside_the_checkout() {
        assert!(stays_inside("", "AGENTS.md"));
        assert!(stays_inside("docs/realtime", "../../AGENTS.md"));
        assert!(!stays_inside("docs", "../../etc/passwd"));
        assert!(!stays_inside("", "/etc/passwd"));
    }

    #[test]
    fn paths_that_leave_the_folder_are_not_written() {
        assert!(is_safe("docs/adr/0001-a.md"));
        for bad in ["/etc/x", "a/../b", "./a", "a//b", ".."] {
            assert!(!is_safe(bad), "{bad}");
        }
    }
}
