//! The walk for Kiro workspaces, kept between requests in `.brief/cache/kiro-walk`: reading a
//! large repository's folders three levels deep costs milliseconds on every request, and its
//! answer changes only when one of those folders does.
//!
//! The file holds each folder the walk went through, with its stamp (taken before the folder
//! was read or asked for its `.kiro`), and the workspaces found. It is believed while every
//! folder's stamp is still the same (a `.kiro` created, removed or renamed, a subfolder added
//! or a permission changed moves its folder's modification or change time) and every
//! workspace is still a folder. A walk is kept only when none of its stamps was racy (taken
//! too soon after a change to tell a second one) and no `.kiro` was a symlink, whose target
//! may change while no folder does. Anything else — a missing, damaged or foreign file, a
//! folder changed — walks again.

use brief_root::{PrivateDir, Root};

use super::walk_workspaces;
use crate::Stamp;

/// The file's name in `.brief/cache`.
const FILE: &str = "kiro-walk";
/// Its first line: the format and its version.
const HEADER: &str = "brief-kiro-walk 1";
/// The largest file read or written (a walk of some 40,000 folders); a larger walk is not
/// kept.
const MOST_BYTES: u64 = 4 << 20;

/// How the workspaces were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answered {
    /// From the kept walk, its folders unchanged.
    Kept,
    /// By walking the folders.
    Walked,
}

/// The `.kiro/` folders under the root: the root's, and nested ones up to three folders deep
/// (not inside hidden folders, dependencies or build output), sorted. From the walk kept in
/// `cache` (`.brief/cache`) while its folders are unchanged; otherwise the folders are walked
/// and the walk is kept there.
pub fn kiro_workspaces_kept(root: &Root, cache: Option<&PrivateDir>) -> Vec<String> {
    kept_or_walked(root, cache).0
}

pub(crate) fn kept_or_walked(root: &Root, cache: Option<&PrivateDir>) -> (Vec<String>, Answered) {
    let Some(cache) = cache else {
        return (walk_workspaces(root).found, Answered::Walked);
    };
    if let Some(found) = cache
        .read(FILE, MOST_BYTES)
        .and_then(|bytes| still_true(root, &bytes))
    {
        return (found, Answered::Kept);
    }
    let walk = walk_workspaces(root);
    let trusted = walk
        .trail
        .as_ref()
        .filter(|trail| trail.iter().all(|(_, stamp, taken)| !stamp.racy(*taken)));
    if let Some(trail) = trusted {
        let text = written(&walk.found, trail);
        if text.len() as u64 <= MOST_BYTES {
            // Best effort: a cache that cannot be written costs the next request a walk.
            let _ = cache.replace(FILE, text.as_bytes());
        }
    }
    (walk.found, Answered::Walked)
}

/// The file for a walk: the header, a line per folder (`f`, its stamp, its path) and per
/// workspace (`w`, its path), and the BLAKE3 hash of all that.
pub(super) fn written(found: &[String], trail: &[(String, Stamp, i64)]) -> String {
    let mut text = format!("{HEADER}\n");
    for (rel, stamp, _) in trail {
        let Stamp {
            size,
            mtime,
            ctime,
            inode,
            device,
        } = stamp;
        text.push_str(&format!(
            "f\t{size}\t{mtime}\t{ctime}\t{inode}\t{device}\t{rel}\n"
        ));
    }
    for rel in found {
        text.push_str(&format!("w\t{rel}\n"));
    }
    let sum = blake3::hash(text.as_bytes()).to_hex();
    text.push_str(&format!("sum\t{sum}\n"));
    text
}

/// The workspaces of a kept walk, when the file is whole and every folder it went through and
/// every workspace it found are as they were. A file that could not come from a walk here is
/// not believed either: its first folder is the root (whose inode and change time no other
/// clone shares), its folders are ones a walk goes into, and each workspace is the `.kiro` of
/// one of them, in order, once.
fn still_true(root: &Root, bytes: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let body_end = text.rfind("sum\t")?;
    let (body, sum) = text.split_at(body_end);
    if sum.trim_end() != format!("sum\t{}", blake3::hash(body.as_bytes()).to_hex()) {
        return None;
    }
    let mut lines = body.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let base = root.path();
    let mut folders = std::collections::BTreeSet::new();
    let mut found: Vec<String> = Vec::new();
    for line in lines {
        match line.split_once('\t')? {
            ("f", rest) if found.is_empty() => {
                let (kept, rel) = parse_folder(rest)?;
                let first = folders.is_empty();
                if first != rel.is_empty() || !walked_into(rel) || !folders.insert(rel) {
                    return None;
                }
                let (_, now) = crate::folder_stamp(&base.join(rel));
                if now.map(|(stamp, _)| stamp) != Some(kept) {
                    return None;
                }
            }
            ("w", rel) => {
                let folder = match rel.strip_suffix(".kiro")? {
                    "" => "",
                    parent => parent.strip_suffix('/')?,
                };
                let in_order = found.last().is_none_or(|last| last.as_str() < rel);
                if !folders.contains(folder) || !in_order || !root.is_dir(&base.join(rel)) {
                    return None;
                }
                found.push(rel.to_string());
            }
            _ => return None,
        }
    }
    (!folders.is_empty()).then_some(found)
}

/// Whether a walk goes into the folder at `rel` (root-relative, `""` the root): at most
/// three folders deep, through folders it goes into.
fn walked_into(rel: &str) -> bool {
    rel.is_empty() || {
        let parts: Vec<&str> = rel.split('/').collect();
        parts.len() <= super::NESTED_DEPTH && parts.iter().all(|part| super::walkable_name(part))
    }
}

/// A folder line's stamp and path (`size mtime ctime inode device path`, tab-separated).
fn parse_folder(rest: &str) -> Option<(Stamp, &str)> {
    let mut fields = rest.splitn(6, '\t');
    let mut number = || fields.next()?.parse::<i64>().ok();
    let stamp = Stamp {
        size: number()?,
        mtime: number()?,
        ctime: number()?,
        inode: number()?,
        device: number()?,
    };
    Some((stamp, fields.next()?))
}
