//! Finding a project and reading `brief.toml`: which sources it has and its defaults.

mod init;

use brief_sources::line_col;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use brief_count::Encoding;
use brief_model::Depth;
use brief_model::Detail;
use brief_model::Location;
use brief_root::{OpenError, Root};

mod config;

pub use config::{
    CheckConfig, EmbeddingsConfig, HookConfig, Level, SessionConfig, Step, DEFAULT_LIMIT,
    DEFAULT_LIMITS, DEFAULT_MODEL, DEFAULT_SAFETY_MARGIN, DEFAULT_WINDOWS,
};
pub use init::{init_plan, init_write, Init, InitError};

/// The budget used when neither the command line nor `brief.toml` gives one.
pub const DEFAULT_BUDGET: usize = 4000;

use brief_sources::Format;
pub use brief_sources::Source;

/// Defaults for `context`, from `brief.toml`'s `[context]` table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Defaults {
    /// `[context] budget`: tokens when `--budget` is not given.
    pub budget: Option<usize>,
    /// `[context] depth`: when `--depth` is not given.
    pub depth: Option<Depth>,
    /// `[context] detail`: the starting detail level when `--detail` is not given.
    pub detail: Option<Detail>,
    /// `[context] encoding`: the tokenizer when `--encoding` is not given.
    pub encoding: Option<Encoding>,
    /// Most neighbours followed over one relation of one node (`[context] fanout`).
    pub fanout: Option<usize>,
    /// Most start nodes a target in words gets (`[context] seeds`).
    pub seeds: Option<usize>,
    /// Custom lenses (`[lenses.NAME]`), in name order.
    pub lenses: Vec<(String, brief_model::LensConfig)>,
}

/// A discovered project: its root, its sources, its defaults.
#[derive(Debug, Clone)]
pub struct Project {
    /// The root as given (relative paths stay relative, so messages read as typed).
    pub root: PathBuf,
    /// The root as a boundary: every file of the project is opened beneath it.
    pub guard: Root,
    /// Where nodes are read from: declared in `brief.toml` or found by layout.
    pub sources: Vec<Source>,
    /// `[context]` defaults and custom lenses.
    pub defaults: Defaults,
    /// `brief check` settings (`[check]`).
    pub check: CheckConfig,
    /// Session-store settings (`[session]`): retrieval limits, model windows, margin.
    pub session: SessionConfig,
    /// `brief hook` settings (`[hook]`): the budget and the time limit.
    pub hook: HookConfig,
    /// The embeddings endpoint (`[embeddings]` and `BRIEF_EMBEDDINGS_*`); `None`: off.
    pub embeddings: Option<EmbeddingsConfig>,
}

/// Why a project could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The root given does not exist (its path).
    #[error("{0}: no such directory")]
    NoRoot(String),
    /// `--root` names something that is not a folder (a file, a FIFO).
    #[error("{0} is not a folder: --root names the project's folder (the one holding brief.toml or its sources)")]
    RootNotAFolder(String),
    /// No project marker in the start folder or any parent (the start folder).
    #[error("no brief project found in {0} or any parent: expected brief.toml, specgraph/graph.json, graph.json (with specgraphVersion), .contextia/, .brief/, .specify/, specs/NNN-*/, .kiro/ or a Markdown knowledge base (use --root DIR)")]
    NotFound(String),
    /// A setting of `brief.toml` that cannot be used.
    #[error("{location}: {message}")]
    Config {
        /// Where in `brief.toml` (or the file it names) the setting is.
        location: Location,
        /// What is wrong with it.
        message: String,
    },
    /// A setting from the environment (`BRIEF_EMBEDDINGS_…`) that cannot be used.
    #[error("{variable} (environment): {message}")]
    Environment {
        /// The variable's name.
        variable: String,
        /// What is wrong with its value.
        message: String,
    },
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    specgraph: Option<String>,
    contextia: Option<String>,
    #[serde(default)]
    artifacts: Vec<String>,
    /// A Tana workspace export (JSON), relative to the root.
    tana: Option<String>,
    /// Read the Markdown knowledge base under the root (ADRs, docs, agent files, notes).
    markdown: Option<bool>,
    /// Read GitHub Spec Kit's constitution and feature folders.
    speckit: Option<bool>,
    /// Read every Kiro workspace (`.kiro/`) under the root.
    kiro: Option<bool>,
    /// Read the knowledge pages of these registered formats under the root (`asciidoc`).
    #[serde(default)]
    formats: Vec<String>,
    #[serde(default)]
    context: ContextTable,
    #[serde(default)]
    check: CheckConfig,
    #[serde(default)]
    lenses: std::collections::BTreeMap<String, brief_model::LensConfig>,
    #[serde(default)]
    session: SessionConfig,
    #[serde(default)]
    hook: HookConfig,
    embeddings: Option<toml::Spanned<config::EmbeddingsTable>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ContextTable {
    budget: Option<usize>,
    depth: Option<toml::Value>,
    detail: Option<String>,
    encoding: Option<String>,
    fanout: Option<usize>,
    seeds: Option<usize>,
}

impl Project {
    /// Where `path` stands in `brief.toml` as `(line, column)`, as the TOML parser places it
    /// ([`config::place`]); the file's start when it is not there.
    pub fn config_place(&self, path: &[Step<'_>]) -> (u32, u32) {
        let text = self
            .guard
            .read(&self.root.join("brief.toml"))
            .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default();
        config::place(&text, path)
            .map(|at| line_col(&text, at))
            .unwrap_or((1, 1))
    }

    /// Loads every source of the project (see [`brief_sources::load`]).
    pub fn load(&self) -> brief_sources::Loaded {
        brief_sources::load(&self.guard, &self.sources)
    }

    /// Opens the project at `root`, or discovers it by walking up from `start`.
    pub fn open(root: Option<&Path>, start: &Path) -> Result<Project, ProjectError> {
        match root {
            Some(root) => {
                if !root.is_dir() {
                    let name = root.display().to_string();
                    return Err(if root.exists() {
                        ProjectError::RootNotAFolder(name)
                    } else {
                        ProjectError::NoRoot(name)
                    });
                }
                Project::at(root)
            }
            None => {
                let mut dir = Some(start);
                while let Some(current) = dir {
                    if looks_like_root(current) {
                        return Project::at(&relative_to(current, start));
                    }
                    dir = current.parent();
                }
                Err(ProjectError::NotFound(start.display().to_string()))
            }
        }
    }

    /// Opens the project rooted exactly at `root`.
    pub fn at(root: &Path) -> Result<Project, ProjectError> {
        let guard =
            Root::open(root).map_err(|_| ProjectError::NoRoot(root.display().to_string()))?;
        let config_path = root.join("brief.toml");
        let (config, text) = match guard.kind(&config_path) {
            Err(e) if e.is_missing() => (ConfigFile::default(), String::new()),
            _ => read_config(&guard, &config_path)?,
        };
        let defaults = defaults(&config, &config_path, &text)?;
        let embeddings = embeddings(&config, &config_path, &text)?;
        config
            .session
            .validate()
            .map_err(|message| ProjectError::Config {
                location: Location::file(config_path.display().to_string()),
                message,
            })?;
        let sources = if declared(&config) {
            declared_sources(&guard, root, &config, &config_path, &text)?
        } else {
            discovered_sources(&guard, root)
        };
        Ok(Project {
            root: root.to_path_buf(),
            guard,
            sources,
            defaults,
            check: config.check,
            session: config.session,
            hook: config.hook,
            embeddings,
        })
    }
}

/// Whether `brief.toml` names any source: then only those are read, nothing is discovered.
fn declared(config: &ConfigFile) -> bool {
    config.specgraph.is_some()
        || config.contextia.is_some()
        || !config.artifacts.is_empty()
        || config.tana.is_some()
        || config.markdown.is_some()
        || config.speckit.is_some()
        || config.kiro.is_some()
        || !config.formats.is_empty()
}

/// Where `at` stands in `brief.toml` (whose text is `text`), as the TOML parser read it; the
/// file's start when it is not there.
fn config_location(config_path: &Path, text: &str, at: &[Step<'_>]) -> Location {
    let (line, col) = config::place(text, at)
        .map(|offset| line_col(text, offset))
        .unwrap_or((1, 1));
    Location {
        path: config_path.display().to_string(),
        line,
        col,
    }
}

/// The sources `brief.toml` names, each checked to lie under the root.
fn declared_sources(
    guard: &Root,
    root: &Path,
    config: &ConfigFile,
    config_path: &Path,
    text: &str,
) -> Result<Vec<Source>, ProjectError> {
    let mut sources = Vec::new();
    let bad_at = |at: &[Step<'_>], message: String| ProjectError::Config {
        location: config_location(config_path, text, at),
        message,
    };
    // Every source must lie under the root: checked here, before anything is listed
    // (and again whenever a file is opened).
    let inside = |at: &[Step<'_>], value: &str| -> Result<PathBuf, ProjectError> {
        let bad = |message: String| bad_at(at, message);
        let key = match at.first() {
            Some(Step::Key(key)) => key,
            _ => "",
        };
        let path = root.join(value);
        match guard.kind(&path) {
            Ok(_) => Ok(path),
            Err(OpenError::Outside) => Err(bad(format!(
                "{key} = {value:?} is outside the project root; brief reads only files under {}",
                root.display()
            ))),
            Err(e) if e.is_missing() => {
                Err(bad(format!("source {} does not exist", path.display())))
            }
            Err(e) => Err(bad(format!("source {}: {e}", path.display()))),
        }
    };
    if let Some(dir) = &config.specgraph {
        let path = inside(&[Step::Key("specgraph")], dir)?;
        let manifest = if guard.is_dir(&path) {
            path.join("graph.json")
        } else {
            path
        };
        // A folder without its graph.json: reported like any missing source.
        inside(
            &[Step::Key("specgraph")],
            &format!("{}", rel_or(&manifest, root).display()),
        )?;
        sources.push(Source::SpecGraph { manifest });
    }
    if let Some(dir) = &config.contextia {
        sources.push(Source::Contextia {
            dir: inside(&[Step::Key("contextia")], dir)?,
        });
    }
    for (i, dir) in config.artifacts.iter().enumerate() {
        sources.push(Source::Folder {
            dir: inside(&[Step::Key("artifacts"), Step::Item(i)], dir)?,
        });
    }
    if let Some(file) = &config.tana {
        let export = inside(&[Step::Key("tana")], file)?;
        if !guard.is_file(&export) {
            return Err(bad_at(
                &[Step::Key("tana")],
                format!(
                    "tana = {file:?}: {} is not a file (expected a Tana workspace export, .json)",
                    export.display()
                ),
            ));
        }
        sources.push(Source::Tana { export });
    }
    if config.markdown == Some(true) {
        sources.push(Source::Markdown {
            dir: root.to_path_buf(),
        });
    }
    if config.speckit == Some(true) {
        sources.push(Source::SpecKit {
            dir: root.to_path_buf(),
        });
    }
    if config.kiro == Some(true) {
        sources.extend(kiro_sources(guard, root));
    }
    sources.extend(declared_formats(root, config, config_path, text)?);
    Ok(sources)
}

/// A source per page format `formats = [...]` names; an unknown name is an error at its item.
fn declared_formats(
    root: &Path,
    config: &ConfigFile,
    config_path: &Path,
    text: &str,
) -> Result<Vec<Source>, ProjectError> {
    let mut sources = Vec::new();
    for (i, name) in config.formats.iter().enumerate() {
        let Some(format) = Format::named(name) else {
            let known: Vec<&str> = Format::all().iter().map(|f| f.name()).collect();
            return Err(ProjectError::Config {
                location: config_location(
                    config_path,
                    text,
                    &[Step::Key("formats"), Step::Item(i)],
                ),
                message: format!(
                    "unknown page format {name:?}: brief reads {}",
                    known.join(", ")
                ),
            });
        };
        sources.push(Source::Pages {
            format,
            dir: root.to_path_buf(),
        });
    }
    Ok(sources)
}

/// The sources found in the usual places when `brief.toml` names none.
fn discovered_sources(guard: &Root, root: &Path) -> Vec<Source> {
    let mut sources = Vec::new();
    if let Some(manifest) = brief_sources::discover_specgraph(guard) {
        sources.push(Source::SpecGraph { manifest });
    }
    let contextia = root.join(".contextia");
    if guard.is_dir(&contextia) {
        sources.push(Source::Contextia { dir: contextia });
    }
    // brief's own `.brief/` is an artifact source only when it holds artifacts, not
    // just the cache and the session store.
    let brief = root.join(".brief");
    if guard.is_dir(&brief) && !brief_sources::markdown_files(guard, &brief, &["cache"]).is_empty()
    {
        sources.push(Source::Folder { dir: brief });
    }
    let layout = brief_sources::Layout::detect(guard);
    if layout.found() {
        sources.push(Source::Markdown {
            dir: root.to_path_buf(),
        });
    }
    if brief_sources::detect_speckit(guard) {
        sources.push(Source::SpecKit {
            dir: root.to_path_buf(),
        });
    }
    sources.extend(kiro_sources(guard, root));
    let survey = brief_sources::Survey::new(guard, &layout);
    sources.extend(
        Format::all()
            .iter()
            .filter(|format| format.discover(&survey))
            .map(|&format| Source::Pages {
                format,
                dir: root.to_path_buf(),
            }),
    );
    sources
}

impl fmt::Display for Project {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.root.display())
    }
}

/// A Kiro source per `.kiro/` workspace under the root. The walk that finds them is kept in
/// `.brief/cache` once there is one (discovery never creates that folder).
fn kiro_sources(guard: &Root, root: &Path) -> Vec<Source> {
    let cache_dir = Path::new(".brief/cache");
    let cache = guard
        .is_dir(&root.join(cache_dir))
        .then(|| guard.private_dir(cache_dir).ok())
        .flatten();
    brief_sources::kiro_workspaces_kept(guard, cache.as_ref())
        .into_iter()
        .map(|rel| Source::Kiro {
            dir: root.join(rel),
        })
        .collect()
}

fn looks_like_root(dir: &Path) -> bool {
    let Ok(root) = Root::open(dir) else {
        return false;
    };
    let marked = root.is_file(&dir.join("brief.toml"))
        || brief_sources::discover_specgraph(&root).is_some()
        || root.is_dir(&dir.join(".contextia"))
        || root.is_dir(&dir.join(".brief"))
        || brief_sources::detect_speckit(&root)
        || root.is_dir(&dir.join(".kiro"));
    if marked {
        return true;
    }
    let layout = brief_sources::Layout::detect(&root);
    let survey = brief_sources::Survey::new(&root, &layout);
    layout.found() || Format::all().iter().any(|format| format.discover(&survey))
}

/// `path` relative to `root` when it lies under it (for messages), else `path`.
fn rel_or<'p>(path: &'p Path, root: &Path) -> &'p Path {
    path.strip_prefix(root).unwrap_or(path)
}

/// `dir` as a path relative to `start` when it is `start` or one of its parents, so output
/// and messages never carry absolute paths the user did not type.
fn relative_to(dir: &Path, start: &Path) -> PathBuf {
    let Ok(rest) = start.strip_prefix(dir) else {
        return dir.to_path_buf();
    };
    let ups = rest.components().count();
    if ups == 0 {
        PathBuf::from(".")
    } else {
        (0..ups).map(|_| "..").collect()
    }
}

/// The embeddings settings of `brief.toml` (`text`, read from `path`) and the environment.
fn embeddings(
    config: &ConfigFile,
    path: &Path,
    text: &str,
) -> Result<Option<EmbeddingsConfig>, ProjectError> {
    let env = |name: &str| std::env::var(name).ok();
    config::EmbeddingsTable::resolve(config.embeddings.as_ref(), &env).map_err(|invalid| {
        match invalid {
            config::Invalid::InFile { span, message } => {
                let (line, col) = line_col(text, span.start);
                ProjectError::Config {
                    location: Location {
                        path: path.display().to_string(),
                        line,
                        col,
                    },
                    message: format!("[embeddings] {message}"),
                }
            }
            config::Invalid::InEnvironment { variable, message } => {
                ProjectError::Environment { variable, message }
            }
        }
    })
}

/// `brief.toml` parsed, and its text (for the places of later messages).
fn read_config(root: &Root, path: &Path) -> Result<(ConfigFile, String), ProjectError> {
    let cannot = |message: String| ProjectError::Config {
        location: Location::file(path.display().to_string()),
        message,
    };
    let (bytes, _) = root.read(path).map_err(|err| match err {
        OpenError::Io(_) => cannot(format!("cannot read: {err}")),
        other => cannot(format!("brief.toml {other}")),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| cannot("not valid UTF-8".into()))?;
    let config = toml::from_str(&text).map_err(|err| {
        let (line, col) = err
            .span()
            .map(|span| line_col(&text, span.start))
            .unwrap_or((1, 1));
        ProjectError::Config {
            location: Location {
                path: path.display().to_string(),
                line,
                col,
            },
            message: err.message().to_string(),
        }
    })?;
    Ok((config, text))
}

fn defaults(config: &ConfigFile, path: &Path, text: &str) -> Result<Defaults, ProjectError> {
    let bad_at = |key: &str, message: String| ProjectError::Config {
        location: config_location(path, text, &[Step::Key("context"), Step::Key(key)]),
        message,
    };
    let table = &config.context;
    let depth = match &table.depth {
        None => None,
        Some(toml::Value::Integer(n)) if *n >= 0 => Some(Depth::Hops(*n as u32)),
        Some(toml::Value::String(s)) => Some(
            s.parse::<Depth>()
                .map_err(|e| bad_at("depth", format!("[context] depth: {e}")))?,
        ),
        Some(other) => {
            return Err(bad_at(
                "depth",
                format!(
                    "[context] depth must be a number or \"full\", not {}",
                    other.type_str()
                ),
            ))
        }
    };
    let detail = match &table.detail {
        None => None,
        Some(s) => Some(
            s.parse::<Detail>()
                .map_err(|e| bad_at("detail", format!("[context] detail: {e}")))?,
        ),
    };
    let encoding = match &table.encoding {
        None => None,
        Some(s) => Some(
            s.parse::<Encoding>()
                .map_err(|e| bad_at("encoding", format!("[context] encoding: {e}")))?,
        ),
    };
    let lenses: Vec<(String, brief_model::LensConfig)> = config
        .lenses
        .iter()
        .map(|(name, lens)| (name.clone(), lens.clone()))
        .collect();
    // Bad relation families are reported when the project opens, not when a lens is used.
    brief_model::all_lenses(&lenses).map_err(|e| ProjectError::Config {
        location: config_location(path, text, &[Step::Key("lenses")]),
        message: e.to_string(),
    })?;
    Ok(Defaults {
        budget: table.budget,
        depth,
        detail,
        encoding,
        fanout: table.fanout,
        seeds: match table.seeds {
            Some(0) => return Err(bad_at(
                "seeds",
                "[context] seeds must be at least 1 (the most start nodes a target in words gets)"
                    .into(),
            )),
            other => other,
        },
        lenses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_root_for_parents() {
        assert_eq!(
            relative_to(Path::new("/a"), Path::new("/a/b/c")),
            PathBuf::from("../..")
        );
        assert_eq!(
            relative_to(Path::new("/a"), Path::new("/a")),
            PathBuf::from(".")
        );
    }

    #[test]
    fn config_errors_have_a_location() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("brief.toml"), "[context]\nbudgt = 10\n").unwrap();
        let err = Project::at(dir.path()).unwrap_err().to_string();
        assert!(err.contains("brief.toml:2:1"), "{err}");
        assert!(err.contains("budgt"), "{err}");
    }

    #[test]
    fn settings_refused_after_parsing_are_placed_at_their_key() {
        let dir = tempfile::tempdir().unwrap();
        let at = |toml: &str| {
            std::fs::write(dir.path().join("brief.toml"), toml).unwrap();
            match Project::at(dir.path()).unwrap_err() {
                ProjectError::Config { location, .. } => (location.line, location.col),
                other => panic!("{other}"),
            }
        };
        assert_eq!(
            at("# depth = 2\n[context]\nbudget = 9\ndepth = \"deep\"\n"),
            (4, 1)
        );
        assert_eq!(at("[context]\nseeds = 0\n"), (2, 1));
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        assert_eq!(at("artifacts = [\"docs\", \"gone\"]\n"), (1, 23));
        assert_eq!(at("\n\ntana = \"docs\"\n"), (3, 1));
    }

    #[test]
    fn session_table_is_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("brief.toml"),
            "[session]\ndefault_limit = 2\nsafety_margin = 0.2\n[session.limits]\ndeveloper = 4\n[session.windows]\n\"llama-3.1\" = 131072\n",
        )
        .unwrap();
        let project = Project::at(dir.path()).unwrap();
        assert_eq!(project.session.limit_for("developer"), 4);
        assert_eq!(project.session.limit_for("designer"), 2);
        assert_eq!(project.session.window_for("llama-3.1-70b"), Some(131_072));
        assert_eq!(project.session.margin_bp(), 2000);
        std::fs::write(dir.path().join("brief.toml"), "[session]\nretrieval = 3\n").unwrap();
        let err = Project::at(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("brief.toml:2:1") && err.contains("retrieval"),
            "{err}"
        );
        std::fs::write(
            dir.path().join("brief.toml"),
            "[session]\nsafety_margin = 1.5\n",
        )
        .unwrap();
        let err = Project::at(dir.path()).unwrap_err().to_string();
        assert!(err.contains("safety_margin"), "{err}");
    }

    #[test]
    fn a_brief_toml_with_only_embeddings_keeps_discovering_the_sources() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".contextia")).unwrap();
        let discovered = Project::at(dir.path()).unwrap().sources;
        assert_eq!(discovered.len(), 1);
        std::fs::write(
            dir.path().join("brief.toml"),
            "[embeddings]\nurl = \"http://localhost:11434/v1\"\nmodel = \"nomic-embed-text\"\n",
        )
        .unwrap();
        let project = Project::at(dir.path()).unwrap();
        assert_eq!(project.sources, discovered);
        let embeddings = project.embeddings.unwrap();
        assert_eq!(embeddings.model, "nomic-embed-text");
    }

    #[test]
    fn embeddings_errors_have_the_place_of_the_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("brief.toml"),
            "[embeddings]\nurl = \"http://h/v1\"\nmodel = \"m\"\n  batch = 0\n",
        )
        .unwrap();
        let err = Project::at(dir.path()).unwrap_err().to_string();
        assert!(err.contains("brief.toml:4:11"), "{err}");
        assert!(err.contains("[embeddings] batch"), "{err}");
        std::fs::write(
            dir.path().join("brief.toml"),
            "[embeddings]\nurl = \"http://h/v1\"\nmodl = \"m\"\n",
        )
        .unwrap();
        let err = Project::at(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("brief.toml:3:1") && err.contains("modl"),
            "{err}"
        );
    }

    #[test]
    fn config_sets_defaults_and_sources() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(
            dir.path().join("brief.toml"),
            "artifacts = [\"docs\"]\n[context]\nbudget = 6000\ndepth = \"full\"\nencoding = \"o200k\"\n",
        )
        .unwrap();
        let project = Project::at(dir.path()).unwrap();
        assert_eq!(project.defaults.budget, Some(6000));
        assert_eq!(project.defaults.depth, Some(Depth::Full));
        assert_eq!(project.defaults.encoding, Some(Encoding::O200k));
        assert!(matches!(project.sources[0], Source::Folder { .. }));
    }
}
