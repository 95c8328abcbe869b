//! `brief check`: the integrity of a project's knowledge graph, every problem in one run.
//!
//! [`run`] reads every source once (node files and artifacts in parallel, through the loaders'
//! own parsers), builds the [`Graph`], scans the source tree for code annotations, and applies
//! every rule of [`RULES`]. Each problem becomes a [`Finding`] with a stable rule id, a
//! severity (the rule's default, or `brief.toml`'s `[check.rules]`), a root-relative
//! `path:line:col` and a message that says what to do. One bad file never stops the run.
//!
//! - [`load`](self) — reading the sources: loader problems become findings.
//! - `schema` — the Spec Graph JSON schema (graph.json and node files).
//! - `graph` — links, self-edges, `depends_on` cycles, layer rules, ambiguity, pins.
//! - `artifacts` — frontmatter fields, references, paths, orphans, scopes, identity size.
//! - `annotations` — `@spec`/`@decision`/`@norm`/`@test` in code comments.
//! - `baseline` — fingerprints of known findings, so CI sees only new ones.

mod annotations;
mod artifacts;
mod baseline;
mod config;
mod graph;
mod knowledge;
mod load;
mod paths;
mod schema;
mod specs;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;
use serde_json::{json, Value};

pub use baseline::Baseline;
pub use baseline::BaselineError;
pub use config::{CheckConfig, Level};

use brief_model::{Graph, Location};
use brief_project::Project;
use brief_project::Step;
use brief_sources::frontmatter_end;
#[cfg(test)]
use brief_sources::line_col;
use brief_sources::line_cols;
pub use brief_sources::Severity;

/// One rule of `brief check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case id, used by `--rule`, `[check.rules]` and baselines.
    pub id: &'static str,
    /// Severity unless `brief.toml` overrides it.
    pub severity: Severity,
    /// `specgraph`, `artifacts`, `annotations` or `any`.
    pub group: &'static str,
    /// What triggers it, in one line.
    pub summary: &'static str,
}

const fn rule(
    id: &'static str,
    severity: Severity,
    group: &'static str,
    summary: &'static str,
) -> Rule {
    Rule {
        id,
        severity,
        group,
        summary,
    }
}

use Severity::{Error as E, Warning as W};

/// Every rule, in the order `--list-rules` prints them.
pub const RULES: &[Rule] = &[
    rule("parse-error", E, "any", "a file cannot be read or parsed (invalid JSON, not UTF-8, a node that is not an object)"),
    rule("config", E, "any", "brief.toml's [check.rules] names a rule brief does not have (the other rules still run)"),
    rule("duplicate-id", E, "any", "two nodes, artifacts or graph.json entries share an id"),
    rule("self-edge", E, "any", "a node links to itself"),
    rule("depends-on-cycle", E, "any", "depends_on links form a cycle (the cycle is printed)"),
    rule("missing-file", E, "specgraph", "a graph.json entry points at a file that does not exist"),
    rule("id-mismatch", E, "specgraph", "a node file's id differs from its graph.json entry"),
    rule("type-mismatch", E, "specgraph", "a node file's type differs from its graph.json expectedType"),
    rule("file-hash-mismatch", E, "specgraph", "a graph.json entry's sha256 differs from its file's SHA-256"),
    rule("schema", E, "specgraph", "a Spec Graph schema rule: required/forbidden fields per type, field types, lengths, enums, decision category and rationale, policy severity"),
    rule("id-pattern", E, "specgraph", "an id does not match ^[A-Z][A-Z0-9-]{0,79}$ (features and layers: at most 20 characters)"),
    rule("verification-entry", E, "specgraph", "a verification entry has an unknown kind, misses the fields its kind requires, or has unknown fields"),
    rule("broken-link", E, "specgraph", "a Spec Graph link (or graph.json root) names a node that does not exist"),
    rule("layer-depends-on-feature", E, "specgraph", "a layer depends_on a feature"),
    rule("foundation-depends-on", E, "specgraph", "a foundation depends_on a layer, feature or behavior"),
    rule("ambiguous-layer-decision", E, "specgraph", "two decisions of one category propagate to a node through layers and neither supersedes the other"),
    rule("pin-mismatch", E, "specgraph", "a pin's sha256 differs from its source (artifact.sha256, or the file's SHA-256), or names a missing node"),
    rule("derived-from-without-pin", W, "specgraph", "a derived_from link has no matching pins entry"),
    rule("malformed-frontmatter", E, "artifacts", "an artifact's frontmatter is missing, unclosed, not valid YAML or not a mapping"),
    rule("missing-required-field", E, "artifacts", "an artifact misses id or title (specs: status; plus [check.required_fields]); the identity needs neither"),
    rule("broken-ref", E, "artifacts", "an artifact link key names an id that does not exist"),
    rule("broken-path", W, "artifacts", "a `paths` glob matches no file"),
    rule("orphan-spec", W, "artifacts", "a spec is linked from no task and named by no code annotation"),
    rule("empty-scope", W, "artifacts", "a norm has no `scope`"),
    rule("oversized-identity", W, "artifacts", "the identity document is over identity_max_tokens (default 800)"),
    rule("md-broken-link", W, "markdown", "a relative Markdown link names a file that does not exist, or a wikilink names no note"),
    rule("adr-superseded-by-missing", W, "markdown", "an ADR says it is superseded by an ADR that does not exist"),
    rule("md-frontmatter", W, "markdown", "a knowledge-base file's frontmatter is not valid YAML (it is read as one `key: value` per line)"),
    rule("md-long-title", W, "markdown", "a knowledge-base title over 1,000 characters (cut to them)"),
    rule("unknown-status", W, "markdown", "a status word the lifecycle table does not know (the node counts as current)"),
    rule("spec-unknown-story", W, "specs", "a Spec Kit task or document names a user story (`[US9]`) its feature does not have"),
    rule("spec-unknown-requirement", W, "specs", "a Spec Kit task or document names a requirement or success criterion (`FR-099`, `SC-009`) its feature's spec.md does not define"),
    rule("spec-unknown-task", W, "specs", "a Spec Kit task names another task (`depends on T077`) that is not in its feature's tasks.md"),
    rule("kiro-unknown-requirement", W, "specs", "a Kiro `_Requirements:` or `Validates:` number names no requirement or acceptance criterion of the spec"),
    rule("unknown-principle", W, "specs", "a Spec Kit document cites a constitution principle (`Principle VII`) the constitution does not have"),
    rule("duplicate-task-id", W, "specs", "a task id is written twice in one tasks.md (the second is not read)"),
    rule("rule-glob-no-match", W, "specs", "a rule's glob (Cursor `globs`, Copilot `applyTo`, Claude Code `paths`, Kiro `fileMatchPattern`) matches no file, or is not a valid glob"),
    rule("annotation-broken-ref", E, "annotations", "a code annotation (@spec, @decision, @norm, @test) names an id that does not exist"),
    rule("annotation-outside-paths", W, "annotations", "a file annotated @spec X lies outside X's `paths` (error with strict_bidirectional)"),
];

/// The rules as a table: id, default severity, what triggers it (for `--list-rules`).
pub fn rules_table() -> String {
    let mut out = String::new();
    for rule in RULES {
        let _ = writeln!(
            out,
            "{:<26} {:<8} {}",
            rule.id,
            severity_name(rule.severity),
            rule.summary
        );
    }
    out
}

/// The rule with this id.
pub(crate) fn find_rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.id == id)
}

/// The default identity size limit, in tokens.
pub(crate) const DEFAULT_IDENTITY_MAX_TOKENS: usize = 800;

/// A severity's name as printed.
pub fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// One problem found by a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The id of the rule that found it (`duplicate-id`).
    pub rule: &'static str,
    /// How bad it is, after `[check.rules]` levels.
    pub severity: Severity,
    /// Root-relative path with `/`, 1-based line and column.
    pub location: Location,
    /// The node the finding is about, when there is one.
    pub node: Option<String>,
    /// What is wrong and what to do, as printed.
    pub message: String,
}

/// What to run and how.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Run only these rules (ids); empty runs every rule.
    pub rules: Vec<String>,
    /// Hide findings recorded in this baseline.
    pub baseline: Option<Baseline>,
    /// What makes the run fail.
    pub gate: Gate,
}

/// Which findings make `brief check` fail (exit 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Gate {
    /// Errors only: warnings are printed and pass.
    #[default]
    Errors,
    /// Every finding (`--strict`): with a baseline, a new warning fails CI too.
    Everything,
}

/// Why check could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// `--rule` names no rule.
    #[error("unknown rule `{id}`{hint}: `brief check --list-rules` lists them")]
    UnknownRule {
        /// The id as given.
        id: String,
        /// The closest rule ids as ` (did you mean …?)`, or empty.
        hint: String,
    },
    /// `[check]` in `brief.toml` cannot be used.
    #[error("{location}: {message}")]
    Config {
        /// Where in `brief.toml`.
        location: Location,
        /// What is wrong.
        message: String,
    },
}

/// The result of a run: findings sorted by (path, line, col, rule, message).
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The findings shown, sorted.
    pub findings: Vec<Finding>,
    /// Findings hidden because the baseline has them.
    pub hidden: usize,
    /// What makes the run fail.
    pub gate: Gate,
}

impl Report {
    /// Whether the run fails: an error, or with [`Gate::Everything`] any finding.
    pub fn failed(&self) -> bool {
        match self.gate {
            Gate::Errors => self.errors() > 0,
            Gate::Everything => !self.findings.is_empty(),
        }
    }

    /// Number of error findings.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// Number of warning findings.
    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
    }

    /// `N errors, M warnings` (plus what the baseline hid).
    pub fn summary(&self) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut line = format!(
            "{}, {}",
            plural(self.errors(), "error"),
            plural(self.warnings(), "warning")
        );
        if self.hidden > 0 {
            let _ = write!(
                line,
                " ({} hidden by the baseline)",
                plural(self.hidden, "finding")
            );
        }
        if self.gate == Gate::Everything && self.warnings() > 0 {
            line.push_str("; --strict: warnings fail the check");
        }
        line
    }

    /// One `path:line:col: severity[rule]: message` line per finding, then the summary. Paths
    /// are prefixed with `root` unless it is `.`, so they open from where brief was run.
    pub fn text(&self, root: &Path) -> String {
        let prefix = if root == Path::new(".") {
            String::new()
        } else {
            format!("{}/", root.display().to_string().trim_end_matches('/'))
        };
        let mut out = String::new();
        for f in &self.findings {
            let _ = writeln!(
                out,
                "{prefix}{}: {}[{}]: {}",
                f.location,
                severity_name(f.severity),
                f.rule,
                f.message
            );
        }
        let _ = writeln!(out, "{}", self.summary());
        out
    }

    /// `{"errors", "warnings", "hidden", "findings": [{rule, severity, path, line, col, node,
    /// message}]}` with root-relative paths.
    pub fn json(&self) -> String {
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "rule": f.rule,
                    "severity": severity_name(f.severity),
                    "path": f.location.path,
                    "line": f.location.line,
                    "col": f.location.col,
                    "node": f.node,
                    "message": f.message,
                })
            })
            .collect();
        let value = json!({
            "errors": self.errors(),
            "warnings": self.warnings(),
            "hidden": self.hidden,
            "findings": findings,
        });
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// Where a finding points before its line is known: a JSON path or a frontmatter token,
/// resolved by reading the file once at the end (only files with findings are re-read).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Anchor {
    /// The location is already exact.
    Exact,
    /// A value inside a JSON file.
    Json(Vec<brief_sources::Seg>),
    /// The first whole-word occurrence of a token in a Markdown file's frontmatter, else the
    /// line of a top-level key, else the frontmatter's first line.
    Front { key: String, token: Option<String> },
}

/// A finding whose line may still have to be found.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub rule: &'static str,
    pub path: String,
    pub line: u32,
    pub col: u32,
    pub anchor: Anchor,
    pub node: Option<String>,
    pub message: String,
}

impl Pending {
    /// A finding at an exact location.
    pub(crate) fn at(
        rule: &'static str,
        location: &Location,
        message: impl Into<String>,
    ) -> Pending {
        Pending {
            rule,
            path: location.path.clone(),
            line: location.line.max(1),
            col: location.col.max(1),
            anchor: Anchor::Exact,
            node: None,
            message: message.into(),
        }
    }

    /// A finding in `path`, located by `anchor`.
    pub(crate) fn anchored(
        rule: &'static str,
        path: &str,
        anchor: Anchor,
        message: impl Into<String>,
    ) -> Pending {
        Pending {
            rule,
            path: path.to_string(),
            line: 1,
            col: 1,
            anchor,
            node: None,
            message: message.into(),
        }
    }

    /// The same finding, about `node`.
    pub(crate) fn node(mut self, node: impl Into<String>) -> Pending {
        self.node = Some(node.into());
        self
    }
}

/// The rules that run and collected findings.
pub(crate) struct Sink {
    enabled: HashSet<&'static str>,
    pub findings: Vec<Pending>,
}

impl Sink {
    /// Whether a rule runs (so costly rules can be skipped).
    pub(crate) fn on(&self, rule: &str) -> bool {
        self.enabled.contains(rule)
    }

    /// Records a finding if its rule runs.
    pub(crate) fn push(&mut self, pending: Pending) {
        if self.enabled.contains(pending.rule) {
            self.findings.push(pending);
        }
    }

    pub(crate) fn extend(&mut self, pending: impl IntoIterator<Item = Pending>) {
        for p in pending {
            self.push(p);
        }
    }
}

/// The effective settings of a run.
pub(crate) struct Settings<'a> {
    pub config: &'a CheckConfig,
    pub identity_max_tokens: usize,
}

/// Runs every enabled rule on the project and returns the findings.
pub fn run(project: &Project, options: &CheckOptions) -> Result<Report, CheckError> {
    let config = &project.check;
    let (levels, unknown) = levels(project)?;
    let mut enabled: HashSet<&'static str> = HashSet::new();
    if options.rules.is_empty() {
        enabled.extend(RULES.iter().map(|r| r.id));
    } else {
        for id in &options.rules {
            match find_rule(id) {
                Some(rule) => {
                    enabled.insert(rule.id);
                }
                None => return Err(unknown_rule(id)),
            }
        }
    }
    enabled.retain(|id| levels.get(id) != Some(&None));
    let mut sink = Sink {
        enabled,
        findings: Vec::new(),
    };
    let settings = Settings {
        config,
        identity_max_tokens: config
            .identity_max_tokens
            .unwrap_or(DEFAULT_IDENTITY_MAX_TOKENS),
    };

    let reader = load::Reader::new(&project.guard);
    let input = load::load(project, &reader, &settings, &mut sink);
    graph::check(project, &input, &mut sink);
    let needs_tree = [
        "rule-glob-no-match",
        "broken-path",
        "orphan-spec",
        "annotation-broken-ref",
        "annotation-outside-paths",
    ]
    .iter()
    .any(|rule| sink.on(rule));
    let tree = if needs_tree {
        annotations::scan(project, config)
    } else {
        annotations::Tree::default()
    };
    artifacts::check(project, &input, &tree, &settings, &mut sink);
    annotations::check(&input, &tree, &settings, &mut sink);
    specs::check(project, &input, &tree, &mut sink);

    let config_on = sink.on("config");
    let mut findings = resolve(&reader, &input.fronts, sink.findings, &levels);
    if let (true, Some(Some(severity))) = (config_on, levels.get("config")) {
        findings.extend(unknown.into_iter().map(|mut finding| {
            finding.severity = *severity;
            finding
        }));
    }
    findings
        .sort_by(|a, b| (&a.location, a.rule, &a.message).cmp(&(&b.location, b.rule, &b.message)));
    findings.dedup();
    let mut report = Report {
        findings,
        hidden: 0,
        gate: options.gate,
    };
    if let Some(baseline) = &options.baseline {
        baseline.filter(&mut report);
    }
    Ok(report)
}

/// The severity of every rule after `[check.rules]` (`None` = off), and a `config` finding per
/// rule named there that brief does not have (the project is checked all the same, as
/// `context` reads it all the same).
fn levels(project: &Project) -> Result<(Levels, Vec<Finding>), CheckError> {
    let mut levels: HashMap<&'static str, Option<Severity>> =
        RULES.iter().map(|r| (r.id, Some(r.severity))).collect();
    if project.check.strict_bidirectional {
        levels.insert("annotation-outside-paths", Some(Severity::Error));
    }
    if let Err((pattern, why)) = annotations::ignore_set(&project.check.ignore_patterns) {
        let index = project
            .check
            .ignore_patterns
            .iter()
            .position(|p| *p == pattern)
            .unwrap_or_default();
        return Err(config_error(
            project,
            &[
                Step::Key("check"),
                Step::Key("ignore_patterns"),
                Step::Item(index),
            ],
            format!("[check] ignore_patterns: `{pattern}` is not a valid glob ({why})"),
        ));
    }
    let mut unknown = Vec::new();
    for (id, level) in &project.check.rules {
        let Some(rule) = find_rule(id) else {
            let message = match unknown_rule(id) {
                CheckError::UnknownRule { id, hint } => {
                    format!("[check.rules]: unknown rule `{id}`{hint}; its setting is ignored")
                }
                other => other.to_string(),
            };
            let CheckError::Config { location, message } = config_error(
                project,
                &[Step::Key("check"), Step::Key("rules"), Step::Key(id)],
                message,
            ) else {
                continue;
            };
            unknown.push(Finding {
                rule: "config",
                severity: Severity::Error,
                location: Location {
                    path: "brief.toml".into(),
                    ..location
                },
                node: None,
                message,
            });
            continue;
        };
        levels.insert(
            rule.id,
            match level {
                Level::Error => Some(Severity::Error),
                Level::Warning => Some(Severity::Warning),
                Level::Off => None,
            },
        );
    }
    unknown.sort_by(|a, b| a.location.cmp(&b.location));
    Ok((levels, unknown))
}

/// The severity of each rule (`None`: off).
type Levels = HashMap<&'static str, Option<Severity>>;

/// A `brief.toml` problem, located where the TOML parser places `path` (else at the start
/// of the file).
fn config_error(project: &Project, path: &[Step<'_>], message: String) -> CheckError {
    let (line, col) = project.config_place(path);
    CheckError::Config {
        location: Location {
            path: project.root.join("brief.toml").display().to_string(),
            line,
            col,
        },
        message,
    }
}

fn unknown_rule(id: &str) -> CheckError {
    let close: Vec<&str> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|known| known.contains(id) || id.contains(known) || shared_prefix(known, id) >= 4)
        .collect();
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", close.join(", "))
    };
    CheckError::UnknownRule {
        id: id.to_string(),
        hint,
    }
}

fn shared_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Gives every pending finding its line (reading each anchored file once) and severity.
fn resolve(
    reader: &load::Reader,
    fronts: &HashMap<String, String>,
    pending: Vec<Pending>,
    levels: &HashMap<&'static str, Option<Severity>>,
) -> Vec<Finding> {
    let mut by_path: BTreeMap<String, Vec<Pending>> = BTreeMap::new();
    let mut findings = Vec::with_capacity(pending.len());
    let finish = |p: Pending, line: u32, col: u32| -> Option<Finding> {
        let severity = (*levels.get(p.rule)?)?;
        Some(Finding {
            rule: p.rule,
            severity,
            location: Location {
                path: p.path,
                line: line.max(1),
                col: col.max(1),
            },
            node: p.node,
            message: p.message,
        })
    };
    for p in pending {
        if p.anchor == Anchor::Exact {
            let (line, col) = (p.line, p.col);
            findings.extend(finish(p, line, col));
        } else {
            by_path.entry(p.path.clone()).or_default().push(p);
        }
    }
    let groups: Vec<(String, Vec<Pending>)> = by_path.into_iter().collect();
    let resolved: Vec<Vec<(Pending, u32, u32)>> = groups
        .into_par_iter()
        .map(|(path, group)| {
            let front_only = group
                .iter()
                .all(|p| matches!(p.anchor, Anchor::Front { .. }));
            let text = match fronts.get(&path) {
                Some(front) if front_only => std::borrow::Cow::Borrowed(front.as_str()),
                _ => std::borrow::Cow::Owned(
                    reader.read(&reader.root().join(&path)).unwrap_or_default(),
                ),
            };
            // One pass over the file for all its findings: the JSON walked once into a tree of
            // offsets, the frontmatter's words indexed once, lines counted once.
            let locator = group
                .iter()
                .any(|p| matches!(p.anchor, Anchor::Json(_)))
                .then(|| brief_sources::Locator::new(&text));
            let mut front = FrontIndex::new(&text);
            let offsets: Vec<Option<usize>> = group
                .iter()
                .map(|p| match &p.anchor {
                    Anchor::Exact => None,
                    Anchor::Json(segs) => locator.as_ref().and_then(|l| l.locate(segs)),
                    Anchor::Front { key, token } => front.offset(key, token.as_deref()),
                })
                .collect();
            let positions = line_cols(&text, &offsets);
            group
                .into_iter()
                .zip(positions)
                .map(|(p, position)| {
                    let (line, col) = position.unwrap_or((p.line, p.col));
                    (p, line, col)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for (p, line, col) in resolved.into_iter().flatten() {
        findings.extend(finish(p, line, col));
    }
    findings
}

/// The words of a frontmatter, indexed once, so locating many tokens in it costs one pass:
/// answers are those of [`front_offset`].
struct FrontIndex<'t> {
    front: &'t str,
    /// Offsets of every whole word, in order (built on first use).
    words: Option<HashMap<&'t str, Vec<usize>>>,
    keys: HashMap<String, Option<usize>>,
}

impl<'t> FrontIndex<'t> {
    fn new(text: &'t str) -> FrontIndex<'t> {
        FrontIndex {
            front: &text[..frontmatter_end(text)],
            words: None,
            keys: HashMap::new(),
        }
    }

    fn offset(&mut self, key: &str, token: Option<&str>) -> Option<usize> {
        let front = self.front;
        let key_at = *self
            .keys
            .entry(key.to_string())
            .or_insert_with(|| top_level_key(front, key));
        if let Some(token) = token {
            let from = key_at.unwrap_or(0);
            if let Some(at) = self.word(token, from).or_else(|| self.word(token, 0)) {
                return Some(at);
            }
        }
        key_at.or_else(|| front.find('\n').map(|i| i + 1))
    }

    /// [`find_word`] through the index (a token with other characters than a word's is
    /// searched for directly).
    fn word(&mut self, token: &str, from: usize) -> Option<usize> {
        if token.is_empty() || !token.chars().all(is_word_char) {
            return find_word(self.front, from, token);
        }
        let front = self.front;
        let words = self.words.get_or_insert_with(|| {
            let mut words: HashMap<&str, Vec<usize>> = HashMap::new();
            let mut start = None;
            for (i, c) in front.char_indices().chain([(front.len(), ' ')]) {
                match (is_word_char(c), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        words.entry(&front[s..i]).or_default().push(s);
                        start = None;
                    }
                    _ => {}
                }
            }
            words
        });
        let found = words.get(token)?;
        let first = found.partition_point(|&at| at < from);
        found.get(first).copied()
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Offset of `token` (whole word) in the frontmatter, else of the top-level `key:` line,
/// else of the frontmatter's first line (what [`FrontIndex::offset`] answers, one token at a
/// time).
#[cfg(test)]
pub(crate) fn front_offset(text: &str, key: &str, token: Option<&str>) -> Option<usize> {
    let front_end = frontmatter_end(text);
    let front = &text[..front_end];
    let key_at = top_level_key(front, key);
    if let Some(token) = token {
        let from = key_at.unwrap_or(0);
        if let Some(at) = find_word(front, from, token).or_else(|| find_word(front, 0, token)) {
            return Some(at);
        }
    }
    key_at.or_else(|| front.find('\n').map(|i| i + 1))
}

/// Offset of a top-level `key:` line in YAML-ish text.
pub(crate) fn top_level_key(text: &str, key: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(key) {
            if rest.trim_start().starts_with(':') {
                return Some(offset);
            }
        }
        offset += line.len();
    }
    None
}

/// Whole-word occurrence of `word` in `text` at or after `from`.
pub(crate) fn find_word(text: &str, from: usize, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let is_word = is_word_char;
    let mut start = from.min(text.len());
    while !text.is_char_boundary(start) {
        start += 1;
    }
    while let Some(i) = text[start..].find(word) {
        let at = start + i;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return Some(at);
        }
        start = at + word.len();
    }
    None
}

/// Ids in `ids` joined for messages: `A, B and C`.
pub(crate) fn join_ids<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let ids: Vec<&str> = ids.into_iter().collect();
    match ids.len() {
        0 => String::new(),
        1 => ids[0].to_string(),
        n => format!("{} and {}", ids[..n - 1].join(", "), ids[n - 1]),
    }
}

/// Everything check read, shared by the rule modules.
pub(crate) struct Input {
    pub graph: Graph,
    /// Ids listed in a graph.json whose node could not be loaded (links to them are not
    /// reported as broken: the node's own finding says what is wrong).
    pub unloadable: BTreeSet<String>,
    /// `root` of each graph.json that declares one: (manifest path, id).
    pub roots: Vec<(String, String)>,
    /// The frontmatter text of every artifact file read, by path.
    pub fronts: HashMap<String, String>,
    /// The files the spec-driven sources (Spec Kit, Kiro) read, by path: their references
    /// are the spec rules' (`specs.rs`), not `broken-ref`'s.
    pub spec_files: std::collections::BTreeMap<String, specs::SpecFile>,
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
