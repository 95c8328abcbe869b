//! Which project the server serves: the one `--root` names, else the one the client's roots
//! hold (MCP `roots`, asked for after `initialize` and again when they change), else the one
//! found from the folder the server started in. A server that finds none still starts: every
//! call then returns a tool error that says how to point it at one, since a client only
//! shows "connection closed" for a server that exits.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use crate::tools::Failure;
use crate::ServeOptions;
use brief_watch::Shared;

/// How long a request waits for the client's roots to be looked up before it goes on.
const ROOTS_WAIT: Duration = Duration::from_secs(10);

/// The project being served, if there is one, and how to find another.
pub(crate) struct Served {
    root: Option<PathBuf>,
    cwd: PathBuf,
    watch: bool,
    /// Over HTTP several clients share one server: their roots only fill an empty place.
    roots_replace: bool,
    /// How long one tool call may run (`None`: as long as it takes).
    pub time_limit: Option<Duration>,
    current: RwLock<Current>,
    /// `true` while the client's roots are being looked up.
    finding: tokio::sync::watch::Sender<bool>,
    /// The roots last looked at, for the message when none holds a project.
    roots_seen: Mutex<Vec<String>>,
}

#[derive(Clone)]
enum Current {
    Open(Arc<Opened>),
    /// Why there is no project, as the lines of a tool error.
    Missing(Vec<String>),
}

/// A project open for serving, with its watcher.
pub(crate) struct Opened {
    /// The project.
    pub shared: Arc<Shared>,
    /// The canonical root, to tell whether a root found later is the same project.
    canonical: PathBuf,
    /// The file watcher and the answers to other brief processes; stop when dropped.
    _kept: Option<brief_watch::Kept>,
}

/// Says what the server does, on stderr.
fn say(line: String) {
    eprintln!("brief serve: {line}");
}

impl Served {
    /// The project `options` point at, or the reason there is none.
    pub(crate) fn start(options: &ServeOptions) -> Served {
        let current = match open(options.root.clone(), options.cwd.clone(), options.watch) {
            Ok(opened) => Current::Open(Arc::new(opened)),
            Err(lines) => {
                for line in &lines {
                    say(line.clone());
                }
                Current::Missing(lines)
            }
        };
        Served {
            root: options.root.clone(),
            cwd: options.cwd.clone(),
            watch: options.watch,
            roots_replace: options.http.is_none(),
            time_limit: options.time_limit,
            current: RwLock::new(current),
            finding: tokio::sync::watch::Sender::new(false),
            roots_seen: Mutex::new(Vec::new()),
        }
    }

    /// The project, or the tool error that says how to point the server at one.
    pub(crate) fn project(&self) -> Result<Arc<Shared>, Failure> {
        match &*self.current.read().unwrap_or_else(|p| p.into_inner()) {
            Current::Open(opened) => Ok(Arc::clone(&opened.shared)),
            Current::Missing(lines) => Err(Failure(lines.clone())),
        }
    }

    /// Whether the client's roots may choose the project: not when `--root` named one, and
    /// over HTTP only while there is none.
    pub(crate) fn roots_decide(&self) -> bool {
        self.root.is_none()
            && (self.roots_replace
                || matches!(
                    *self.current.read().unwrap_or_else(|p| p.into_inner()),
                    Current::Missing(_)
                ))
    }

    /// Marks the roots as being looked up: requests wait for [`Served::found`].
    pub(crate) fn finding(&self) {
        self.finding.send_replace(true);
    }

    /// Waits (a bounded while) until no lookup of roots is under way.
    pub(crate) async fn settled(&self) {
        let mut state = self.finding.subscribe();
        let _ = tokio::time::timeout(ROOTS_WAIT, state.wait_for(|finding| !finding)).await;
    }

    /// Serves the first project among `roots` (`file://` URIs), if one holds a project
    /// other than the one served; ends the lookup either way.
    pub(crate) fn found(&self, roots: Vec<String>) {
        let folders: Vec<PathBuf> = roots.iter().filter_map(|uri| file_path(uri)).collect();
        *self.roots_seen.lock().unwrap_or_else(|p| p.into_inner()) = roots.clone();
        for folder in folders {
            let Ok(project) = brief::Project::open(None, &folder) else {
                continue;
            };
            // Discovery names the root relative to where it started.
            let root = canonical(&folder.join(&project.root));
            if let Current::Open(opened) = &*self.current.read().unwrap_or_else(|p| p.into_inner())
            {
                if opened.canonical == root {
                    break;
                }
            }
            match open(Some(root.clone()), root, self.watch) {
                Ok(opened) => {
                    say(format!(
                        "serving {} (from the client's roots)",
                        opened.shared.root().display()
                    ));
                    *self.current.write().unwrap_or_else(|p| p.into_inner()) =
                        Current::Open(Arc::new(opened));
                    break;
                }
                Err(lines) => {
                    for line in lines {
                        say(line);
                    }
                }
            }
        }
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        if let Current::Missing(_) = &*current {
            *current = Current::Missing(self.missing_lines());
        }
        drop(current);
        self.finding.send_replace(false);
    }

    /// Ends a lookup that could not ask the client.
    pub(crate) fn not_found(&self) {
        self.finding.send_replace(false);
    }

    /// The tool error of a server without a project.
    fn missing_lines(&self) -> Vec<String> {
        let roots = self
            .roots_seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        no_project(&self.cwd, &roots)
    }
}

/// Opens the project and starts watching it.
fn open(root: Option<PathBuf>, cwd: PathBuf, watching: bool) -> Result<Opened, Vec<String>> {
    let explicit = root.is_some();
    let shared = match Shared::open(root.clone(), cwd.clone()) {
        Ok(shared) => Arc::new(shared),
        Err(brief::EngineError::Project(brief::ProjectError::NotFound(_))) if !explicit => {
            return Err(no_project(&cwd, &[]));
        }
        Err(e) => {
            let mut lines = e.describe(root.as_deref().unwrap_or(Path::new(".")));
            if explicit {
                lines.push(
                    "error: the server's --root names no project it can serve; point --root at \
                     the project's folder in the client's server settings"
                        .into(),
                );
            }
            return Err(lines);
        }
    };
    let kept = if watching {
        brief_watch::keep(&shared, &say)
    } else {
        None
    };
    Ok(Opened {
        canonical: canonical(&shared.root()),
        shared,
        _kept: kept,
    })
}

/// What a call answers while no project is found.
fn no_project(cwd: &Path, roots: &[String]) -> Vec<String> {
    let roots = if roots.is_empty() {
        "the client named no roots".to_string()
    } else {
        format!(
            "none of the client's roots ({}) holds one",
            roots.join(", ")
        )
    };
    vec![format!(
        "error: brief serve has no project: it was started without --root in {}, which holds \
         no brief project, and {roots}. Point it at one: add `--root /path/to/project` to the \
         server's arguments in the client's settings (VS Code: \"args\": [\"serve\", \
         \"--root\", \"${{workspaceFolder}}\"]), or run `brief init --write` in the project \
         first.",
        cwd.display()
    )]
}

/// The folder a `file://` root names.
fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///path` or `file://localhost/path`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    Some(PathBuf::from(percent_decode(path)?))
}

/// `%XX` escapes decoded; `None` when the result is not UTF-8 or an escape is broken.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_folders() {
        assert_eq!(
            file_path("file:///home/a/p"),
            Some(PathBuf::from("/home/a/p"))
        );
        assert_eq!(
            file_path("file://localhost/home/a/my%20project"),
            Some(PathBuf::from("/home/a/my project"))
        );
        assert_eq!(file_path("https://example.com/x"), None);
        assert_eq!(file_path("file://server/share"), None);
        assert_eq!(file_path("file:///bad%zz"), None);
    }
}
