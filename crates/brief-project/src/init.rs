//! `brief init`: the `brief.toml` zero-configuration discovery would use, written out with
//! what was found, so a project can pin (and then edit) its sources.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use crate::{Project, Source};
use brief_model::{Applies, Kind, Node};
use brief_sources::{kb_layout, kb_listing, read_source, rel_path, RuleFile};

/// What `brief init` found and the configuration it proposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Init {
    /// One line per source found (for the comment and the report).
    pub found: Vec<String>,
    /// The `brief.toml` text.
    pub toml: String,
}

/// Why `brief init --write` could not write.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The file to write is already there (its path).
    #[error("{0}: already exists; brief init never overwrites it (remove it, or edit it)")]
    Exists(String),
    /// Writing a file failed.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file that could not be written.
        path: String,
        /// The system's error.
        source: std::io::Error,
    },
}

/// The configuration for the sources `project` was discovered with.
pub fn init_plan(project: &Project) -> Init {
    let root = project.guard.path();
    let mut found = Vec::new();
    let mut keys = String::new();
    let mut artifacts = Vec::new();
    let mut formats = Vec::new();
    for source in &project.sources {
        match source {
            Source::SpecGraph { manifest } => {
                let rel = rel_path(root, manifest);
                found.push(format!("Spec Graph: {rel}"));
                let _ = writeln!(keys, "specgraph = {rel:?}");
            }
            Source::Contextia { dir } => {
                let rel = rel_path(root, dir);
                found.push(format!("Contextia: {rel}/"));
                let _ = writeln!(keys, "contextia = {rel:?}");
            }
            Source::Folder { dir } => {
                let rel = rel_path(root, dir);
                found.push(format!("Markdown artifacts: {rel}/"));
                artifacts.push(rel);
            }
            Source::Tana { export } => {
                let rel = rel_path(root, export);
                found.push(format!("Tana export: {rel}"));
                let _ = writeln!(keys, "tana = {rel:?}");
            }
            Source::Markdown { .. } => {
                found.extend(describe_knowledge_base(project));
                keys.push_str("markdown = true\n");
            }
            Source::SpecKit { .. } => {
                found.push(describe_speckit(project, source));
                keys.push_str("speckit = true\n");
            }
            Source::Kiro { dir } => {
                found.push(describe_kiro(project, source, &rel_path(root, dir)));
                if !keys.contains("kiro = true") {
                    keys.push_str("kiro = true\n");
                }
            }
            Source::Pages { format, .. } => {
                let pages = nodes_of(project, source)
                    .iter()
                    .map(|n| n.location.path.as_str())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                found.push(format!("{} pages: {pages}", format.title()));
                formats.push(format!("{:?}", format.name()));
            }
        }
    }
    if !formats.is_empty() {
        let _ = writeln!(keys, "formats = [{}]", formats.join(", "));
    }
    if !artifacts.is_empty() {
        let list: Vec<String> = artifacts.iter().map(|a| format!("{a:?}")).collect();
        let _ = writeln!(keys, "artifacts = [{}]", list.join(", "));
    }
    let mut toml = String::from("# brief.toml, proposed by `brief init` from what it found:\n");
    if found.is_empty() {
        toml.push_str("#   no sources (add specgraph, contextia, artifacts, tana or markdown)\n");
    }
    for line in &found {
        let _ = writeln!(toml, "#   {line}");
    }
    toml.push('\n');
    toml.push_str(&keys);
    toml.push_str("\n[context]\n");
    let _ = writeln!(toml, "budget = {}", crate::DEFAULT_BUDGET);
    toml.push_str(&embeddings_table(project.embeddings.as_ref()));
    Init { found, toml }
}

/// The `[embeddings]` table: the settings in use (from the environment), or a commented
/// example that says what it does and where node text goes.
fn embeddings_table(config: Option<&crate::EmbeddingsConfig>) -> String {
    let mut out = String::from(
        "\n# Meaning, not only words: vectors from an OpenAI-compatible embeddings server\n\
         # (Ollama, llama.cpp, vLLM, LM Studio, text-embeddings-inference, OpenAI). Node text\n\
         # is sent to that endpoint and nowhere else.\n",
    );
    let Some(config) = config else {
        out.push_str(
            "# [embeddings]\n\
             # url = \"http://localhost:11434/v1\"\n\
             # model = \"nomic-embed-text\"\n\
             # api_key_env = \"OPENAI_API_KEY\"  # the variable that holds the key, never the key\n",
        );
        return out;
    };
    out.push_str("[embeddings]\n");
    let _ = writeln!(out, "url = {:?}", config.url);
    let _ = writeln!(out, "model = {:?}", config.model);
    let optional = [
        ("dimensions", config.dimensions.map(|d| d.to_string())),
        (
            "api_key_env",
            config.api_key_env.as_ref().map(|v| format!("{v:?}")),
        ),
        (
            "query_prefix",
            (!config.query_prefix.is_empty()).then(|| format!("{:?}", config.query_prefix)),
        ),
        (
            "passage_prefix",
            (!config.passage_prefix.is_empty()).then(|| format!("{:?}", config.passage_prefix)),
        ),
        ("input_type", config.input_type.then(|| "true".to_string())),
        ("timeout_ms", config.timeout_ms.map(|t| t.to_string())),
        ("batch", config.batch.map(|b| b.to_string())),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            let _ = writeln!(out, "{key} = {value}");
        }
    }
    out
}

/// The knowledge base's parts, one line each: ADR folders (and where they were found),
/// agent instruction files, a vault, and how many Markdown files in all.
fn describe_knowledge_base(project: &Project) -> Vec<String> {
    let layout = kb_layout(&project.guard, &project.sources);
    let mut lines = Vec::new();
    for (dir, origin) in &layout.adr_origins {
        let how = match *origin {
            "conventional" => "a conventional folder".to_string(),
            other => format!("from {other}"),
        };
        lines.push(format!("ADRs: {dir}/ ({how})"));
    }
    if layout.vault {
        let templates = layout
            .template_dir
            .as_ref()
            .map(|t| format!(", templates in {t}/ not read"))
            .unwrap_or_default();
        lines.push(format!("Obsidian vault: .obsidian/ at the root{templates}"));
    }
    let files = kb_listing(&project.guard, &layout).files;
    let root = project.guard.path();
    let rels: Vec<String> = files.iter().map(|f| rel_path(root, f)).collect();
    let agents: Vec<&str> = rels
        .iter()
        .map(String::as_str)
        .filter(|r| RuleFile::of(r).is_some())
        .collect();
    if !agents.is_empty() {
        lines.push(format!(
            "agent instruction files: {} ({})",
            agents.join(", "),
            applies_summary(project, source_of(project, "markdown"))
        ));
    }
    let adrs = rels.iter().filter(|r| layout.is_adr(r)).count();
    lines.push(format!(
        "Markdown knowledge base: {} files ({adrs} ADRs, {} other)",
        rels.len(),
        rels.len() - adrs
    ));
    lines
}

/// The nodes one source of the project holds (problems are `brief check`'s to report).
fn nodes_of(project: &Project, source: &Source) -> Vec<Node> {
    read_source(&project.guard, &project.sources, source).nodes
}

fn source_of<'p>(project: &'p Project, which: &str) -> Option<&'p Source> {
    project.sources.iter().find(|s| match s {
        Source::Markdown { .. } => which == "markdown",
        _ => false,
    })
}

/// How many of a source's rules apply always, by file glob, or only when linked.
fn applies_summary(project: &Project, source: Option<&Source>) -> String {
    let nodes = source.map(|s| nodes_of(project, s)).unwrap_or_default();
    let (mut always, mut files, mut linked) = (0, 0, 0);
    for node in nodes.iter().filter(|n| n.kind == Kind::Norm) {
        match node.applies() {
            Applies::Always => always += 1,
            Applies::Files(_) => files += 1,
            Applies::Linked => linked += 1,
        }
    }
    format!("{always} always, {files} by file, {linked} when linked")
}

/// Counts of the kinds in `nodes`, in the order given, those present only.
fn counts(nodes: &[Node], kinds: &[(&str, &str)]) -> String {
    let mut parts = Vec::new();
    for (kind, label) in kinds {
        let n = nodes
            .iter()
            .filter(|node| node.kind.name() == *kind)
            .count();
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    parts.join(", ")
}

/// `Spec Kit: constitution (5 principles, 2 non-negotiable), 3 features (1 archived): …`.
fn describe_speckit(project: &Project, source: &Source) -> String {
    let nodes = nodes_of(project, source);
    let principles: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.id.starts_with("constitution/"))
        .collect();
    let hard = principles
        .iter()
        .filter(|n| n.severity() == Some("hard"))
        .count();
    let features: Vec<&Node> = nodes.iter().filter(|n| n.kind == Kind::Feature).collect();
    let archived = features
        .iter()
        .filter(|n| brief_sources::is_archived(&n.id))
        .count();
    let constitution = if nodes.iter().any(|n| n.id == "constitution") {
        format!(
            "constitution ({} principles, {hard} hard)",
            principles.len()
        )
    } else {
        "no constitution".to_string()
    };
    let archived = if archived > 0 {
        format!(" ({archived} archived)")
    } else {
        String::new()
    };
    format!(
        "Spec Kit: {constitution}, {} features{archived}: {}",
        features.len(),
        counts(
            &nodes,
            &[
                ("story", "stories"),
                ("requirement", "requirements"),
                ("criterion", "success criteria"),
                ("task", "tasks"),
                ("decision", "research decisions"),
                ("entity", "entities"),
                ("api_contract", "contracts"),
                ("checklist", "checklists"),
            ]
        )
    )
}

/// `Kiro: .kiro/ (2 specs: 5 requirements, 14 criteria, 9 tasks; 3 steering files: …)`.
fn describe_kiro(project: &Project, source: &Source, dir: &str) -> String {
    let nodes = nodes_of(project, source);
    let specs = nodes.iter().filter(|n| n.kind == Kind::Feature).count();
    let steering = nodes.iter().filter(|n| n.kind == Kind::Norm).count();
    let mut line = format!(
        "Kiro: {dir}/ ({specs} specs: {}",
        counts(
            &nodes,
            &[
                ("requirement", "requirements"),
                ("criterion", "acceptance criteria"),
                ("task", "tasks"),
            ]
        )
    );
    if steering > 0 {
        line.push_str(&format!(
            "; {steering} steering files: {}",
            applies_summary(project, Some(source))
        ));
    }
    line.push(')');
    line
}

/// Writes `toml` as `brief.toml` at `root`; an existing file (or link) is never replaced.
pub fn init_write(root: &Path, toml: &str) -> Result<(), InitError> {
    let path = root.join("brief.toml");
    let shown = path.display().to_string();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AlreadyExists => InitError::Exists(shown.clone()),
            _ => InitError::Write {
                path: shown.clone(),
                source,
            },
        })?;
    file.write_all(toml.as_bytes())
        .map_err(|source| InitError::Write {
            path: shown,
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proposal_mentions_embeddings_and_writes_the_ones_in_use() {
        let commented = embeddings_table(None);
        assert!(commented.contains("# [embeddings]"), "{commented}");
        assert!(commented.contains("nowhere else"), "{commented}");
        let config = crate::EmbeddingsConfig {
            url: "http://localhost:8080/v1".into(),
            model: "e5".into(),
            dimensions: None,
            api_key_env: Some("KEY".into()),
            query_prefix: "query: ".into(),
            passage_prefix: String::new(),
            input_type: false,
            timeout_ms: Some(700),
            batch: None,
        };
        let written = embeddings_table(Some(&config));
        // What it writes reads back as the same settings.
        let table: toml::Table = toml::from_str(&written).unwrap();
        let embeddings = table["embeddings"].as_table().unwrap();
        assert_eq!(embeddings["url"].as_str(), Some("http://localhost:8080/v1"));
        assert_eq!(embeddings["query_prefix"].as_str(), Some("query: "));
        assert_eq!(embeddings["timeout_ms"].as_integer(), Some(700));
        assert_eq!(embeddings["api_key_env"].as_str(), Some("KEY"));
        assert!(!embeddings.contains_key("passage_prefix"));
    }
}
