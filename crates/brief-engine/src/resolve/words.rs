//! The query model for targets in words: task sentences such as "drop support for Python
//! 3.8". Pure functions over what the index reports (each word's node count and each node's
//! BM25 relevance per word), so every rule is unit-tested without SQLite
//! (`docs/ranking.md`, "Targets in words").
//!
//! - Stop words weigh nothing and generic task words ("add", "remove", "support") little, so
//!   "add" does not pick a start and "store" in a ticket does not outweigh "PostgreSQL".
//! - A node's score is its weighted BM25 times its *coverage*: the share of the query's
//!   informative weight (each word's weight times its IDF) the node holds. A node holding
//!   more of the distinct words beats one holding a single rare word.
//! - Hub documents (changelogs, release notes, indexes, READMEs) and nodes that are not
//!   current weigh less, so an accepted decision starts the context rather than the one it
//!   replaced, and a changelog that mentions everything does not.
//! - The match is calibrated: [`Confidence`] says whether the best node holds enough of the
//!   query to be trusted, and [`Verdict::Nothing`] when only stop words, generic words or one
//!   common word matched.

use brief_model::{Lifecycle, NodeIx};

/// How much a word of the query counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Role {
    /// A function word: it counts for nothing.
    Stop,
    /// A word every ticket uses ("add", "fix", "support"): it counts a little.
    Generic,
    /// A version number (`3.8`, `1.2.0`): a ticket names the instance, the documents that
    /// govern it speak of versions in general, so it counts as little as a generic word; but
    /// it is no common word, and a query it matches is answered.
    Version,
    /// A word that says what the task is about.
    Content,
}

impl Role {
    /// The weight of a word of this role.
    pub(crate) fn weight(self) -> f64 {
        match self {
            Role::Stop => 0.0,
            Role::Generic | Role::Version => 0.3,
            Role::Content => 1.0,
        }
    }
}

/// One word of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// Lower-cased; dotted, hyphenated and underscored words stay one word (`3.8`,
    /// `pull_request_target`, `rate-limit`), which the index reads as a phrase.
    pub text: String,
    /// What the word weighs in a match.
    pub role: Role,
}

/// Function words: articles, pronouns, prepositions, auxiliaries.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "etc",
    "every", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
    "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
    "me", "more", "most", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or",
    "other", "our", "ours", "out", "over", "own", "same", "she", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "us", "very", "via", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "you", "your", "yours", "e", "g", "eg", "ie", "vs", "per",
    // What is left of a possessive or a contraction once the apostrophe splits it
    // (`user's`, `don't`, `we'll`): the index's tokenizer splits it the same way.
    "s", "t", "d", "ll", "m", "re", "ve", "don", "doesn", "didn", "isn", "aren", "wasn", "weren",
    "hasn", "haven", "hadn", "won", "wouldn", "shouldn", "couldn", "mustn", "needn",
];

/// Words every ticket uses whatever it is about: verbs of changing things and the nouns of
/// the trade. They still count a little, so two nodes otherwise equal are told apart.
const GENERIC_WORDS: &[&str] = &[
    "add",
    "adding",
    "adds",
    "added",
    "allow",
    "allows",
    "allowing",
    "bug",
    "bugs",
    "change",
    "changes",
    "changing",
    "create",
    "creates",
    "creating",
    "delete",
    "deleting",
    "drop",
    "dropping",
    "enable",
    "enabling",
    "disable",
    "disabling",
    "ensure",
    "fix",
    "fixes",
    "fixing",
    "get",
    "handle",
    "handling",
    "implement",
    "implementing",
    "improve",
    "improving",
    "instead",
    "issue",
    "let",
    "make",
    "making",
    "move",
    "moving",
    "need",
    "needs",
    "new",
    "please",
    "remove",
    "removing",
    "rename",
    "replace",
    "replacing",
    "set",
    "should",
    "must",
    "support",
    "supporting",
    "supports",
    "switch",
    "task",
    "ticket",
    "update",
    "updating",
    "use",
    "used",
    "uses",
    "using",
    "want",
    "way",
    "work",
    "working",
    "make",
    "better",
    "proper",
    "properly",
    "correctly",
    "start",
    "stop",
    "put",
    "keep",
    "own",
];

/// Splits a query into words: runs of letters and digits, joined across `.`, `-` and `_`
/// between two of them (`3.8`, `x86_64`, `rate-limit`), lower-cased, each word once.
pub(crate) fn words(query: &str) -> Vec<Word> {
    let chars: Vec<char> = query.chars().collect();
    let mut out: Vec<Word> = Vec::new();
    let mut current = String::new();
    for (k, &c) in chars.iter().enumerate() {
        let joiner = matches!(c, '.' | '-' | '_')
            && !current.is_empty()
            && chars.get(k + 1).is_some_and(|n| n.is_alphanumeric());
        if c.is_alphanumeric() || joiner {
            current.extend(c.to_lowercase());
        } else if !current.is_empty() {
            push_word(&mut out, std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        push_word(&mut out, current);
    }
    out
}

fn push_word(out: &mut Vec<Word>, text: String) {
    if out.iter().any(|w| w.text == text) {
        return;
    }
    let role = if STOP_WORDS.contains(&text.as_str()) {
        Role::Stop
    } else if GENERIC_WORDS.contains(&text.as_str()) {
        Role::Generic
    } else if is_version(&text) {
        Role::Version
    } else {
        Role::Content
    };
    out.push(Word { text, role });
}

/// Whether a word is a version number (`3.8`, `1.2.0`).
fn is_version(text: &str) -> bool {
    text.contains('.') && text.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// A query word as the index counted it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Counted {
    pub role: Role,
    /// How many nodes hold it (0: none).
    pub nodes: u64,
}

/// What the index knows of one candidate node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Evidence {
    pub node: NodeIx,
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its source file, relative to the root.
    pub file: String,
    pub lifecycle: Lifecycle,
    /// Whether it is normative: a decision, a policy or a norm (what governs the work).
    pub normative: bool,
    /// BM25 relevance per query word (in the order of the counted words); 0 when the node
    /// does not hold the word.
    pub relevance: Vec<f64>,
    /// Whether it is a translation: it lives in a language folder (`de/`, `pt-br/`) beside an
    /// `en/` one or under a folder of translations such as `i18n/` ([`translations`]).
    pub translation: bool,
}

/// A candidate with its score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    /// The node.
    pub node: NodeIx,
    /// Its id (the tie-breaker).
    pub id: String,
    /// Weighted relevance × coverage × the hub and status factors, rounded to six
    /// significant digits (so float noise never decides an order).
    pub score: f64,
    /// The share of the query's informative weight the node holds, in [0, 1].
    pub coverage: f64,
    /// How many content words it holds.
    pub content_words: usize,
    /// Whether every content word it holds is common ([`COMMON_SHARE`]).
    pub only_common: bool,
    /// Whether it is a translation: a copy in a language folder beside `en/` or under a
    /// folder of translations such as `i18n/` ([`translations`]).
    pub translation: bool,
    /// Whether it is normative: a decision, a policy or a norm (what governs the work).
    pub normative: bool,
}

/// How far the best node can be trusted to be what the query is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Confidence {
    /// The target named a node exactly (an id, a path).
    #[default]
    Exact,
    /// The best node holds most of what the query says.
    Strong,
    /// The best node holds part of it: the context is an answer, and says it is a guess.
    Weak,
}

impl Confidence {
    /// The name used in documents and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Confidence::Exact => "exact",
            Confidence::Strong => "strong",
            Confidence::Weak => "weak",
        }
    }
}

/// The outcome of scoring: nodes best first and how much to trust the first, or why nothing
/// matches well enough to answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Nodes match: the best ones and how far to trust the first.
    Found {
        /// Best first; ties by id.
        hits: Vec<Scored>,
        /// How far the first hit can be trusted.
        confidence: Confidence,
    },
    /// Nothing matches well: the reason, for the user.
    Nothing(Weakness),
}

/// Why no node matches a query well enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weakness {
    /// The target has no word to look for (punctuation alone).
    NoWordAsked,
    /// No node holds any word of the query.
    NoWord,
    /// Only stop words or generic task words matched.
    OnlyCommonWords,
    /// The best node holds a single word of several, and that word is common.
    OneWeakWord,
}

impl Weakness {
    /// Why, in one clause a user reads after "nothing matches `X` well:".
    pub fn describe(self) -> &'static str {
        match self {
            Weakness::NoWordAsked => "it has no word to look for",
            Weakness::NoWord => "no node's text has those words",
            Weakness::OnlyCommonWords => {
                "only common words of it (like \"the\", \"add\", \"support\") occur in the nodes"
            }
            Weakness::OneWeakWord => "the best match holds only one of its words, and a common one",
        }
    }
}

/// A coverage at or above this is a strong match.
const STRONG_COVERAGE: f64 = 0.6;

/// A word held by at least this share of the nodes (and by at least [`COMMON_MIN_NODES`]) is
/// common: alone, it does not identify what a query is about.
const COMMON_SHARE: f64 = 0.05;
const COMMON_MIN_NODES: u64 = 3;

/// Hub documents weigh this much: a changelog or an index mentions every topic.
const HUB_FACTOR: f64 = 0.5;
/// A node written in another script than the query (a translation in a multilingual vault
/// whose code and names match the query's words) weighs this much.
const OTHER_SCRIPT_FACTOR: f64 = 0.4;
/// A node not current (superseded, deprecated, rejected…) weighs this much.
const NOT_CURRENT_FACTOR: f64 = 0.5;
/// A proposed node weighs this much.
const PROPOSED_FACTOR: f64 = 0.85;
/// A normative node (decision, policy, norm) weighs this much: a task starts from what
/// governs it rather than from a page that describes the same thing.
const NORMATIVE_FACTOR: f64 = 1.25;

/// File names (without extension, lower case, letters and digits only) of hub documents.
const HUB_NAMES: &[&str] = &[
    "changelog",
    "changes",
    "history",
    "news",
    "releasenotes",
    "releases",
    "whatsnew",
    "readme",
    "index",
    "summary",
    "toc",
    "sidebar",
    "sitemap",
    "contents",
    "nav",
    "home",
    "contributing",
    "install",
    "installation",
    "glossary",
    "introduction",
    "intro",
    "faq",
    "credits",
    "authors",
    "license",
    "licence",
    "upgradeinstructions",
    "upgrading",
    "codeofconduct",
    "security",
];

/// Folder names (lower case, letters and digits only) whose documents are hubs: every
/// release note mentions a dozen topics once.
const HUB_FOLDERS: &[&str] = &[
    "changelog",
    "changelogs",
    "releasenotes",
    "releases",
    "news",
    "newsletters",
    "newsletter",
    "whatsnew",
];

/// The inverse document frequency of a word held by `nodes` of `total` (BM25's, always > 0).
pub(super) fn idf(nodes: u64, total: u64) -> f64 {
    let n = total.max(nodes) as f64;
    let df = nodes as f64;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// Scores candidates for counted words over `total` nodes, best first, and judges the match
/// (Latin script: what the unit tests use).
#[cfg(test)]
pub(crate) fn judge(words: &[Counted], total: u64, candidates: Vec<Evidence>) -> Verdict {
    judge_in(words, total, candidates, Script::Latin)
}

/// [`judge`] for a query written in `script`.
pub(crate) fn judge_in(
    words: &[Counted],
    total: u64,
    candidates: Vec<Evidence>,
    script: Script,
) -> Verdict {
    let content_found = words
        .iter()
        .filter(|w| matches!(w.role, Role::Content | Role::Version) && w.nodes > 0)
        .count();
    let informative: f64 = words
        .iter()
        .filter(|w| w.nodes > 0)
        .map(|w| w.role.weight() * idf(w.nodes, total))
        .sum();
    if candidates.is_empty() {
        return Verdict::Nothing(Weakness::NoWord);
    }
    if content_found == 0 && words.iter().any(|w| w.role == Role::Content) {
        return Verdict::Nothing(Weakness::OnlyCommonWords);
    }
    if informative <= 0.0 {
        return Verdict::Nothing(Weakness::OnlyCommonWords);
    }
    let mut hits: Vec<Scored> = candidates
        .into_iter()
        .map(|c| scored(words, total, informative, script, c))
        .filter(|s| s.score > 0.0)
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    let Some(best) = hits.first() else {
        return Verdict::Nothing(Weakness::OnlyCommonWords);
    };
    let content_asked = words.iter().filter(|w| w.role == Role::Content).count();
    if content_asked >= 2 && best.content_words <= 1 && best.only_common && best.coverage < 0.5 {
        return Verdict::Nothing(Weakness::OneWeakWord);
    }
    let confidence = if best.coverage >= STRONG_COVERAGE {
        Confidence::Strong
    } else {
        Confidence::Weak
    };
    Verdict::Found { hits, confidence }
}

/// Whether a word held by `nodes` of `total` is too common to identify a topic alone.
fn is_common(nodes: u64, total: u64) -> bool {
    nodes >= COMMON_MIN_NODES && nodes as f64 >= COMMON_SHARE * total as f64
}

fn scored(words: &[Counted], total: u64, informative: f64, script: Script, c: Evidence) -> Scored {
    let mut raw = 0.0;
    let mut held = 0.0;
    let mut content_words = 0;
    let mut only_common = true;
    for (word, &relevance) in words.iter().zip(&c.relevance) {
        if relevance <= 0.0 {
            continue;
        }
        let weight = word.role.weight();
        raw += weight * relevance;
        held += weight * idf(word.nodes, total);
        if word.role == Role::Content {
            content_words += 1;
            only_common &= is_common(word.nodes, total);
        }
    }
    let coverage = (held / informative).clamp(0.0, 1.0);
    let factor = standing(&c, script);

    Scored {
        node: c.node,
        score: significant(raw * coverage * factor),
        coverage: (coverage * 10_000.0).round() / 10_000.0,
        content_words,
        only_common,
        translation: c.translation,
        normative: c.normative,
        id: c.id,
    }
}

/// What a candidate's score is multiplied by whatever matched it (words or meaning): less
/// for a hub document, a node that is not current or proposed, one in another script than
/// the query; more for a normative node.
pub(crate) fn standing(c: &Evidence, script: Script) -> f64 {
    let other_script = c.translation || Script::of(&c.title).is_some_and(|s| s != script);
    hub_factor(&c.file)
        * lifecycle_factor(c.lifecycle)
        * if c.normative { NORMATIVE_FACTOR } else { 1.0 }
        * if other_script {
            OTHER_SCRIPT_FACTOR
        } else {
            1.0
        }
}

/// Folder names of translations: language codes as documentation sites name their copies.
const LANGUAGE_FOLDERS: &[&str] = &[
    "ar", "bg", "bn", "ca", "cs", "da", "de", "el", "es", "et", "fa", "fi", "fr", "he", "hi", "hr",
    "hu", "id", "it", "ja", "km", "ko", "lt", "lv", "nb", "nl", "no", "pl", "pt", "ptbr", "ptpt",
    "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh", "zhcn", "zhtw", "zhhans",
    "zhhant",
];

/// Whether one of the folders of `file` is named like a language other than English, or its
/// name ends in one (a translation only where [`Languages`] says so).
pub(crate) fn may_be_translation(file: &str) -> bool {
    language_suffix(file).is_some() || folders(file).any(|(_, folder)| is_language(folder))
}

/// The name without its language, when a file's name ends in a language other than English
/// before its extension (`docs/README.zh-CN.md` → `docs/README.md`).
fn language_suffix(file: &str) -> Option<String> {
    let (folder, name) = file.rsplit_once('/').map_or(("", file), |(f, n)| (f, n));
    let mut parts = name.rsplitn(3, '.');
    let (Some(extension), Some(language), Some(stem)) = (parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if stem.is_empty() || !is_language(language) {
        return None;
    }
    Some(match folder {
        "" => format!("{stem}.{extension}"),
        folder => format!("{folder}/{stem}.{extension}"),
    })
}

/// For each file, whether it is a translation ([`Languages`], judged among `files`).
pub(crate) fn translations(files: &[&str]) -> Vec<bool> {
    let languages = Languages::of(files.iter().copied());
    files
        .iter()
        .map(|file| languages.is_translation(file))
        .collect()
}

/// Where a set of files keeps its English: the folders that hold an `en` folder. A file is a
/// translation when one of its folders is a language code other than English and that
/// folder's parent also holds `en` — the shape of a multilingual help site or vault (`en/…`
/// beside `de/…`) — or is a folder of translations ([`TRANSLATION_ROOTS`]: `i18n/de/…`, where
/// a documentation site keeps its copies while its English stays in `docs/`), or when the
/// same path without that folder is among the files (the page's original beside its copy),
/// or when its name ends in a language and the name without it is among the files
/// (`README.zh-CN.md` beside `README.md`). Elsewhere a folder named like a language (`it/`,
/// `id/`) is an ordinary folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Languages {
    /// The paths (with their trailing `/`, empty for the root) of the folders holding `en/`.
    parents_of_en: std::collections::BTreeSet<String>,
    /// The files judged, to find a page's original beside its copy.
    files: std::collections::BTreeSet<String>,
}

impl Languages {
    /// The English folders among `files`.
    pub(crate) fn of<'f>(files: impl IntoIterator<Item = &'f str>) -> Languages {
        let files: std::collections::BTreeSet<String> =
            files.into_iter().map(str::to_string).collect();
        let parents_of_en = files
            .iter()
            .flat_map(|file| folders(file).filter(|(_, folder)| plain(folder) == "en"))
            .map(|(parent, _)| parent.to_string())
            .collect();
        Languages {
            parents_of_en,
            files,
        }
    }

    /// Whether `file` is a translation, its original looked for among the files judged.
    pub(crate) fn is_translation(&self, file: &str) -> bool {
        self.is_translation_beside(file, &|original| self.files.contains(original))
    }

    /// Whether `file` is a translation, `exists` telling whether a page's original (the same
    /// path without its language folder or its language suffix) is a file of the project.
    pub(crate) fn is_translation_beside(&self, file: &str, exists: &dyn Fn(&str) -> bool) -> bool {
        // The name without its language: `README.zh-CN.md` beside `README.md`, MkDocs'
        // `guide.fr.md` beside `guide.md`. Without the original, `root.ca.md` or
        // `data.gov.uk.md` is a page like any other.
        language_suffix(file).is_some_and(|original| exists(&original))
            || folders(file).any(|(parent, folder)| {
                // The path without the language folder: Mintlify keeps its English at the
                // root and `fr/customize/custom-domain.mdx` beside
                // `customize/custom-domain.mdx`.
                let original = || format!("{parent}{}", &file[parent.len() + folder.len() + 1..]);
                is_language(folder)
                    && (self.parents_of_en.contains(parent)
                        || holds_translations(parent)
                        || exists(&original()))
            })
    }
}

/// Folders that hold one folder per language, each a translation of the site (MkDocs'
/// and Docusaurus' `i18n/`, `locales/`).
const TRANSLATION_ROOTS: &[&str] = &["i18n", "l10n", "locale", "locales", "translations"];

/// Whether the folder at `path` (with its trailing `/`) is one of [`TRANSLATION_ROOTS`].
fn holds_translations(path: &str) -> bool {
    let name = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    TRANSLATION_ROOTS.contains(&plain(name).as_str())
}

/// Whether a folder's name is one of [`LANGUAGE_FOLDERS`].
fn is_language(folder: &str) -> bool {
    LANGUAGE_FOLDERS.contains(&plain(folder).as_str())
}

/// The folders of a path (its last part aside), each with the path of its parent (`a/b/c.md`:
/// `("", "a")`, `("a/", "b")`).
fn folders(file: &str) -> impl Iterator<Item = (&str, &str)> {
    let parts: Vec<&str> = file.split('/').collect();
    let count = parts.len().saturating_sub(1);
    let mut at = 0;
    parts.into_iter().take(count).map(move |folder| {
        let parent = &file[..at];
        at += folder.len() + 1;
        (parent, folder)
    })
}

/// File names (as [`HUB_NAMES`]) of documents that only gather what others say: a change
/// log, release notes, upgrade notes, a table of contents.
const AGGREGATE_NAMES: &[&str] = &[
    "changelog",
    "changes",
    "history",
    "news",
    "releasenotes",
    "releases",
    "whatsnew",
    "upgradeinstructions",
    "upgrading",
    "summary",
    "toc",
    "sidebar",
    "sitemap",
    "contents",
    "nav",
];

/// Whether a file only gathers what other documents say (a change log, release notes, a
/// table of contents): it mentions and links to every topic, so neither its mentions nor its
/// links are evidence of what bears on one. A README or an index page is a hub for ranking
/// (it mentions much) but may well be the one page about a module: it is not an aggregate.
pub(crate) fn is_aggregate(file: &str) -> bool {
    let (folders, name) = file.rsplit_once('/').unwrap_or(("", file));
    let stem = plain(name.split('.').next().unwrap_or(name));
    AGGREGATE_NAMES.contains(&stem.as_str())
        || folders
            .split('/')
            .any(|folder| HUB_FOLDERS.contains(&plain(folder).as_str()))
}

/// Lower-case letters and digits only: how file and folder names are compared.
fn plain(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// How much a hub document weighs, by its file name and folders.
fn hub_factor(file: &str) -> f64 {
    let (folders, name) = file.rsplit_once('/').unwrap_or(("", file));
    let stem = plain(name.split('.').next().unwrap_or(name));
    let in_hub_folder = folders
        .split('/')
        .any(|folder| HUB_FOLDERS.contains(&plain(folder).as_str()));
    if HUB_NAMES.contains(&stem.as_str()) || in_hub_folder {
        HUB_FACTOR
    } else {
        1.0
    }
}

/// The script a text is mostly written in, as far as telling translations apart needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    /// Latin letters (with diacritics).
    Latin,
    /// Any other script (CJK, Cyrillic, Arabic, …).
    Other,
}

impl Script {
    /// The script most letters of `text` are in; `None` without letters.
    pub(crate) fn of(text: &str) -> Option<Script> {
        let (mut latin, mut other) = (0usize, 0usize);
        for c in text.chars().filter(|c| c.is_alphabetic()) {
            if (c as u32) < 0x0250 || (0x1E00..0x1F00).contains(&(c as u32)) {
                latin += 1;
            } else {
                other += 1;
            }
        }
        match (latin, other) {
            (0, 0) => None,
            (l, o) if l >= o => Some(Script::Latin),
            _ => Some(Script::Other),
        }
    }
}

fn lifecycle_factor(lifecycle: Lifecycle) -> f64 {
    match lifecycle {
        Lifecycle::Current => 1.0,
        Lifecycle::Proposed => PROPOSED_FACTOR,
        Lifecycle::NotCurrent(_) => NOT_CURRENT_FACTOR,
    }
}

/// `x` rounded to six significant digits (0 stays 0).
pub(crate) fn significant(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let scale = 10f64.powi(5 - x.log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use brief_model::Retired;

    fn texts(query: &str) -> Vec<(String, Role)> {
        words(query).into_iter().map(|w| (w.text, w.role)).collect()
    }

    #[test]
    fn task_sentences_split_into_weighted_words() {
        assert_eq!(
            texts("Drop support for Python 3.8!"),
            vec![
                ("drop".into(), Role::Generic),
                ("support".into(), Role::Generic),
                ("for".into(), Role::Stop),
                ("python".into(), Role::Content),
                ("3.8".into(), Role::Version),
            ]
        );
        assert_eq!(
            texts("never add a pull_request_target workflow, rate-limit it."),
            vec![
                ("never".into(), Role::Content),
                ("add".into(), Role::Generic),
                ("a".into(), Role::Stop),
                ("pull_request_target".into(), Role::Content),
                ("workflow".into(), Role::Content),
                ("rate-limit".into(), Role::Content),
                ("it".into(), Role::Stop),
            ]
        );
        assert_eq!(texts("a A a"), vec![("a".into(), Role::Stop)]);
        assert!(words("—…!").is_empty());
    }

    #[test]
    fn a_navigation_file_only_gathers_pages() {
        // Antora's `nav.adoc` lists every page of a module: it weighs half as a start and is
        // never related material. A page about navigation is a page like any other.
        assert!(is_aggregate("docs/modules/concepts/nav.adoc"));
        assert!(!is_aggregate("docs/navigation.md"));
        assert!(hub_factor("docs/modules/concepts/nav.adoc") < 1.0);
        assert!(!is_aggregate(
            "docs/modules/concepts/navigating-the-ui.adoc"
        ));
        assert!(!is_aggregate("docs/readme.md"));
    }

    #[test]
    fn newsletters_and_whats_new_pages_are_release_notes() {
        // A newsletter or a "what's new" page names every change of a release: like release
        // notes, it weighs half as a start and is never related material. A record
        // about one migration is a record like any other.
        for file in [
            "docs/whats-new.md",
            "Doc/whatsnew/3.12.md",
            "newsletters/2026-February.md",
        ] {
            assert!(is_aggregate(file), "{file}");
            assert!(hub_factor(file) < 1.0, "{file}");
        }
        // A migration or upgrade guide may be the one page on moving data or a cluster.
        for file in ["docs/migration.md", "docs/runbooks/upgrade.md"] {
            assert!(!is_aggregate(file), "{file}");
            assert_eq!(hub_factor(file), 1.0, "{file}");
        }
    }

    #[test]
    fn a_version_number_counts_as_little_as_a_task_verb() {
        assert_eq!(
            texts("drop Python 3.10 and 1.2.0, keep v2 and 42"),
            vec![
                ("drop".into(), Role::Generic),
                ("python".into(), Role::Content),
                ("3.10".into(), Role::Version),
                ("and".into(), Role::Stop),
                ("1.2.0".into(), Role::Version),
                ("keep".into(), Role::Generic),
                ("v2".into(), Role::Content),
                ("42".into(), Role::Content),
            ]
        );
    }

    #[test]
    fn possessives_and_contractions_leave_no_content_word() {
        assert_eq!(
            texts("the user's phone won't ring"),
            vec![
                ("the".into(), Role::Stop),
                ("user".into(), Role::Content),
                ("s".into(), Role::Stop),
                ("phone".into(), Role::Content),
                ("won".into(), Role::Stop),
                ("t".into(), Role::Stop),
                ("ring".into(), Role::Content),
            ]
        );
    }

    fn counted(role: Role, nodes: u64) -> Counted {
        Counted { role, nodes }
    }

    fn evidence(node: NodeIx, id: &str, relevance: &[f64]) -> Evidence {
        Evidence {
            node,
            id: id.into(),
            title: format!("{id} title"),
            file: format!("docs/{id}.md"),
            lifecycle: Lifecycle::Current,
            normative: false,
            relevance: relevance.to_vec(),
            translation: false,
        }
    }

    #[test]
    fn translations_are_language_folders_beside_english() {
        let files = [
            "en/Sync/Set up.md",
            "de/Sync/Einrichten.md",
            "id/Impor/Evernote.md",
            "docs/it/ops.md",
            "site/i18n/fr/guide.md",
            "site/i18n/en/guide.md",
            "README.md",
        ];
        assert_eq!(
            translations(&files),
            [false, true, true, false, true, false, false]
        );
        // Without an English sibling, `it/` is an ordinary folder; under a folder of
        // translations, a language folder is a copy although English lives elsewhere.
        assert_eq!(
            translations(&[
                "docs/it/ops.md",
                "docs/db/x.md",
                "docs/client/oauth.md",
                "i18n/de/pages/client/oauth.md",
                "website/i18n/pt-BR/docusaurus-plugin-content-docs/current/intro.md",
                "locales/en/intro.md",
                "i18n/README.md",
            ]),
            [false, false, false, true, true, false, false]
        );
        // A name ending in a language beside the name without it is a copy; without the
        // original beside it, it is a page like any other.
        assert_eq!(
            translations(&[
                "README.md",
                "README.zh-CN.md",
                "docs/guide.md",
                "docs/guide.fr.md",
                "pki/root.ca.md",
                "notes/data.gov.uk.md",
                "docs/guide.en.md",
            ]),
            [false, true, false, true, false, false, false]
        );
        // A language folder whose page has its original beside it, the same path without
        // the folder (Mintlify's English at the root), is a copy; one without is not judged.
        assert_eq!(
            translations(&[
                "customize/custom-domain.mdx",
                "fr/customize/custom-domain.mdx",
                "fr/only-here.mdx",
                "docs/id/ops.md",
            ]),
            [false, true, false, false]
        );
    }

    fn found(verdict: Verdict) -> (Vec<String>, Confidence) {
        match verdict {
            Verdict::Found { hits, confidence } => {
                (hits.into_iter().map(|h| h.id).collect(), confidence)
            }
            Verdict::Nothing(w) => panic!("nothing: {w:?}"),
        }
    }

    #[test]
    fn covering_more_words_beats_one_rare_word() {
        // "mysql reporting database": one node holds the rare "mysql" alone, very strongly;
        // another holds all three.
        let words = [
            counted(Role::Content, 1),
            counted(Role::Content, 8),
            counted(Role::Content, 10),
        ];
        let (ids, confidence) = found(judge(
            &words,
            100,
            vec![
                evidence(0, "rare-only", &[9.0, 0.0, 0.0]),
                evidence(1, "all-three", &[4.0, 1.5, 1.2]),
            ],
        ));
        assert_eq!(ids, ["all-three", "rare-only"]);
        assert_eq!(confidence, Confidence::Strong);
    }

    #[test]
    fn hubs_and_replaced_nodes_lose_to_their_peers() {
        let words = [counted(Role::Content, 3), counted(Role::Content, 3)];
        let mut changelog = evidence(0, "CHANGELOG", &[3.0, 3.0]);
        changelog.file = "CHANGELOG.md".into();
        let mut old = evidence(1, "ADR-0003", &[3.2, 3.2]);
        old.lifecycle = Lifecycle::NotCurrent(Retired::Deprecated);
        let current = evidence(2, "ADR-0009", &[2.0, 2.0]);
        let (ids, _) = found(judge(&words, 50, vec![changelog, old, current]));
        assert_eq!(ids, ["ADR-0009", "ADR-0003", "CHANGELOG"]);
    }

    #[test]
    fn release_notes_and_translations_weigh_less() {
        let words = [counted(Role::Content, 3)];
        let mut note = evidence(0, "Release notes/v1.2.md", &[3.0]);
        note.file = "Release notes/v1.2.md".into();
        let mut translated = evidence(1, "ja/Bases/ビュー.md", &[2.9]);
        translated.title = "ビュー".into();
        let page = evidence(2, "en/Bases/Views.md", &[2.0]);
        let (ids, _) = found(judge(&words, 100, vec![note, translated, page]));
        assert_eq!(ids[0], "en/Bases/Views.md");
        assert_eq!(Script::of("Views 2"), Some(Script::Latin));
        assert_eq!(Script::of("Überblick"), Some(Script::Latin));
        assert_eq!(Script::of("ビュー"), Some(Script::Other));
        assert_eq!(Script::of("123"), None);
    }

    #[test]
    fn only_common_words_is_no_match() {
        // "add the flux capacitor": nothing holds "flux" or "capacitor"; "add" matches.
        let words = [
            counted(Role::Generic, 5),
            counted(Role::Stop, 40),
            counted(Role::Content, 0),
            counted(Role::Content, 0),
        ];
        let verdict = judge(&words, 50, vec![evidence(0, "x", &[2.0, 0.5, 0.0, 0.0])]);
        assert_eq!(verdict, Verdict::Nothing(Weakness::OnlyCommonWords));
        assert_eq!(
            judge(&[counted(Role::Content, 0)], 50, Vec::new()),
            Verdict::Nothing(Weakness::NoWord)
        );
    }

    #[test]
    fn a_version_the_nodes_hold_is_an_answer_though_it_weighs_little() {
        // "migrate to 3.12": no node says "migrate", one names 3.12.
        let words = [
            counted(Role::Content, 0),
            counted(Role::Stop, 40),
            counted(Role::Version, 2),
        ];
        let (ids, _) = found(judge(&words, 50, vec![evidence(0, "RN", &[0.0, 0.0, 4.0])]));
        assert_eq!(ids, ["RN"]);
    }

    #[test]
    fn one_common_word_of_several_is_no_match() {
        // "no such node xyz": "node" is everywhere, "xyz" nowhere... and a second word that
        // is found elsewhere but not in the best node.
        let words = [
            counted(Role::Stop, 30),
            counted(Role::Content, 20),
            counted(Role::Content, 4),
        ];
        let verdict = judge(
            &words,
            100,
            vec![
                evidence(0, "POL-1", &[0.0, 3.0, 0.0]),
                evidence(1, "B", &[0.0, 0.0, 0.2]),
            ],
        );
        assert_eq!(verdict, Verdict::Nothing(Weakness::OneWeakWord));
        // One rare word of one asked is an answer.
        let (ids, _) = found(judge(
            &[counted(Role::Content, 1)],
            100,
            vec![evidence(0, "PSP", &[5.0])],
        ));
        assert_eq!(ids, ["PSP"]);
    }

    #[test]
    fn a_partial_match_is_weak() {
        let words = [counted(Role::Content, 2), counted(Role::Content, 2)];
        let (_, confidence) = found(judge(&words, 100, vec![evidence(0, "half", &[3.0, 0.0])]));
        assert_eq!(confidence, Confidence::Weak);
    }

    #[test]
    fn scores_are_rounded_so_noise_never_decides() {
        assert_eq!(significant(1.234_567_89), 1.234_57);
        assert_eq!(significant(0.0), 0.0);
        assert_eq!(significant(f64::NAN), 0.0);
        assert!(idf(1, 100) > idf(50, 100));
        assert!(idf(100, 100) > 0.0);
    }
}
