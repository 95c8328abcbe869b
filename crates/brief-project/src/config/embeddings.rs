//! `[embeddings]`: the OpenAI-compatible endpoint brief asks for vectors, from `brief.toml`
//! and, key by key over it, from the environment (`BRIEF_EMBEDDINGS_URL`, …) for one-off
//! use. Off unless both a URL and a model are set; `BRIEF_EMBEDDINGS=off` turns it off for
//! one run.
//!
//! ```toml
//! [embeddings]
//! url = "http://localhost:11434/v1"  # a base URL, or the full …/v1/embeddings
//! model = "nomic-embed-text"
//! dimensions = 256                   # optional: ask for shorter vectors
//! api_key_env = "OPENAI_API_KEY"     # the NAME of the variable holding the key
//! query_prefix = "query: "           # E5-style models
//! passage_prefix = "passage: "
//! input_type = false                 # send "input_type": "query"/"passage"
//! timeout_ms = 500                   # connect, and one query's whole request
//! batch = 32                         # texts per request while indexing
//! ```

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

/// The embeddings endpoint as configured: where, which model, what to ask and how long to
/// wait. Plain data; the client that uses it is `brief-embed`. The API key itself is never
/// here, only the name of the environment variable that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingsConfig {
    /// An OpenAI-compatible base URL (`http://localhost:11434/v1`) or the full embeddings
    /// URL (`…/v1/embeddings`).
    pub url: String,
    /// The model every request names.
    pub model: String,
    /// The vector length to ask for (models that can shorten their vectors).
    pub dimensions: Option<u32>,
    /// The environment variable that holds the API key, if the endpoint wants one.
    pub api_key_env: Option<String>,
    /// Put before every query (`"query: "` for E5 models).
    pub query_prefix: String,
    /// Put before every node's text (`"passage: "` for E5 models).
    pub passage_prefix: String,
    /// Whether requests carry `"input_type": "query"` / `"passage"`.
    pub input_type: bool,
    /// Milliseconds to connect, and for one query's whole request (`None`: the client's
    /// default).
    pub timeout_ms: Option<u64>,
    /// Texts per request while indexing (`None`: the client's default).
    pub batch: Option<usize>,
}

/// `[embeddings]` as written, every value with its place in the file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EmbeddingsTable {
    url: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    dimensions: Option<Spanned<i64>>,
    api_key_env: Option<Spanned<String>>,
    /// Never accepted: refused with a message that says where a key belongs.
    api_key: Option<Spanned<toml::Value>>,
    query_prefix: Option<String>,
    passage_prefix: Option<String>,
    input_type: Option<bool>,
    timeout_ms: Option<Spanned<i64>>,
    batch: Option<Spanned<i64>>,
}

/// Why the settings cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// A value of `brief.toml`, at this byte range.
    InFile { span: Range<usize>, message: String },
    /// An environment variable.
    InEnvironment { variable: String, message: String },
}

/// The most dimensions asked for.
const MAX_DIMENSIONS: i64 = 65_536;
/// The longest time-out, in milliseconds (ten minutes).
const MAX_TIMEOUT_MS: i64 = 600_000;
/// The largest batch (OpenAI's limit of inputs per request).
const MAX_BATCH: i64 = 2048;

/// One setting, wherever it came from.
struct Setting<T> {
    value: T,
    from: Place,
}

/// Where a setting came from, for its message.
#[derive(Clone)]
enum Place {
    File(Range<usize>),
    Environment(String),
}

impl Place {
    fn invalid(&self, message: String) -> Invalid {
        match self {
            Place::File(span) => Invalid::InFile {
                span: span.clone(),
                message,
            },
            Place::Environment(variable) => Invalid::InEnvironment {
                variable: variable.clone(),
                message,
            },
        }
    }
}

/// Reads the environment: `BRIEF_EMBEDDINGS_<KEY>`, unset or empty as `None` (prefixes:
/// empty is a value, "no prefix").
struct Environment<'a> {
    get: &'a dyn Fn(&str) -> Option<String>,
}

impl Environment<'_> {
    fn text(&self, key: &str, empty_is_value: bool) -> Option<Setting<String>> {
        let variable = format!("BRIEF_EMBEDDINGS_{key}");
        let value = (self.get)(&variable)?;
        (empty_is_value || !value.trim().is_empty()).then_some(Setting {
            value,
            from: Place::Environment(variable),
        })
    }

    fn number(&self, key: &str) -> Result<Option<Setting<i64>>, Invalid> {
        let Some(text) = self.text(key, false) else {
            return Ok(None);
        };
        match text.value.trim().parse::<i64>() {
            Ok(value) => Ok(Some(Setting {
                value,
                from: text.from,
            })),
            Err(_) => Err(text
                .from
                .invalid(format!("`{}` is not a whole number", text.value))),
        }
    }
}

fn from_file<T: Clone>(spanned: &Option<Spanned<T>>) -> Option<Setting<T>> {
    spanned.as_ref().map(|s| Setting {
        value: s.get_ref().clone(),
        from: Place::File(s.span()),
    })
}

impl EmbeddingsTable {
    /// The settings of `table` (with its span) and the environment `env` (which wins, key
    /// by key), checked; `None` when embeddings are off.
    pub(crate) fn resolve(
        table: Option<&Spanned<EmbeddingsTable>>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<EmbeddingsConfig>, Invalid> {
        let environment = Environment { get: env };
        if let Some(switch) = env("BRIEF_EMBEDDINGS") {
            match switch.trim() {
                "off" => return Ok(None),
                "" | "on" => {}
                other => {
                    return Err(Invalid::InEnvironment {
                        variable: "BRIEF_EMBEDDINGS".into(),
                        message: format!("`{other}` is neither `off` nor `on`"),
                    })
                }
            }
        }
        let empty = EmbeddingsTable::default();
        let file = table.map(|t| t.get_ref()).unwrap_or(&empty);
        if let Some(key) = &file.api_key {
            return Err(Invalid::InFile {
                span: key.span(),
                message: "brief never reads an API key from brief.toml: put the key in an \
                          environment variable and name that variable in \
                          `api_key_env` (e.g. api_key_env = \"OPENAI_API_KEY\")"
                    .into(),
            });
        }
        let url = environment
            .text("URL", false)
            .or_else(|| from_file(&file.url));
        let model = environment
            .text("MODEL", false)
            .or_else(|| from_file(&file.model));
        let (url, model) = match (url, model) {
            (Some(url), Some(model)) => (url, model),
            (None, None) if table.is_none() => return Ok(None),
            (url, model) => return Err(incomplete(table, url, model)),
        };
        let whole =
            |key: &str, of: &Option<Spanned<i64>>| -> Result<Option<Setting<i64>>, Invalid> {
                Ok(environment.number(key)?.or_else(|| from_file(of)))
            };
        let dimensions = whole("DIMENSIONS", &file.dimensions)?;
        let timeout_ms = whole("TIMEOUT_MS", &file.timeout_ms)?;
        let batch = whole("BATCH", &file.batch)?;
        let api_key_env = environment
            .text("API_KEY_ENV", false)
            .or_else(|| from_file(&file.api_key_env));
        let input_type = match environment.text("INPUT_TYPE", false) {
            Some(text) => match text.value.trim() {
                "true" => true,
                "false" => false,
                other => {
                    return Err(text
                        .from
                        .invalid(format!("`{other}` is neither `true` nor `false`")))
                }
            },
            None => file.input_type.unwrap_or(false),
        };
        let prefix = |key: &str, of: &Option<String>| {
            environment
                .text(key, true)
                .map(|s| s.value)
                .or_else(|| of.clone())
                .unwrap_or_default()
        };
        Ok(Some(EmbeddingsConfig {
            url: checked_url(url)?,
            model: checked_model(model)?,
            dimensions: in_range(dimensions, 1, MAX_DIMENSIONS, "dimensions")?.map(|d| d as u32),
            api_key_env: api_key_env.map(checked_variable).transpose()?,
            query_prefix: prefix("QUERY_PREFIX", &file.query_prefix),
            passage_prefix: prefix("PASSAGE_PREFIX", &file.passage_prefix),
            input_type,
            timeout_ms: in_range(timeout_ms, 1, MAX_TIMEOUT_MS, "timeout_ms")?.map(|t| t as u64),
            batch: in_range(batch, 1, MAX_BATCH, "batch")?.map(|b| b as usize),
        }))
    }
}

/// A URL and a model are both needed: says which is missing, where.
fn incomplete(
    table: Option<&Spanned<EmbeddingsTable>>,
    url: Option<Setting<String>>,
    model: Option<Setting<String>>,
) -> Invalid {
    let missing = if url.is_none() { "url" } else { "model" };
    let variable = format!("BRIEF_EMBEDDINGS_{}", missing.to_ascii_uppercase());
    let message = format!(
        "embeddings need both a url and a model: set `{missing}` in [embeddings] or {variable}"
    );
    match (table, url.or(model)) {
        (
            _,
            Some(Setting {
                from: Place::Environment(from),
                ..
            }),
        ) => Invalid::InEnvironment {
            variable: from,
            message,
        },
        (Some(table), _) => Invalid::InFile {
            span: table.span(),
            message,
        },
        (None, _) => Invalid::InEnvironment { variable, message },
    }
}

fn checked_url(url: Setting<String>) -> Result<String, Invalid> {
    let value = url.value.trim();
    let lower = value.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"));
    match rest {
        Some(rest)
            if !rest.is_empty()
                && !rest.starts_with('/')
                && !value.contains(char::is_whitespace) =>
        {
            Ok(value.to_string())
        }
        _ => Err(url.from.invalid(format!(
            "url `{value}` is not an http:// or https:// URL of an OpenAI-compatible API \
             (e.g. http://localhost:11434/v1)"
        ))),
    }
}

fn checked_model(model: Setting<String>) -> Result<String, Invalid> {
    let value = model.value.trim();
    if value.is_empty() {
        return Err(model.from.invalid("model is empty".into()));
    }
    Ok(value.to_string())
}

/// The name of an environment variable, refusing what looks like a key instead.
fn checked_variable(name: Setting<String>) -> Result<String, Invalid> {
    let value = name.value.trim();
    let is_name = value
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if is_name {
        return Ok(value.to_string());
    }
    Err(name.from.invalid(
        "api_key_env names the environment variable that holds the key (e.g. OPENAI_API_KEY), \
         never the key itself"
            .into(),
    ))
}

fn in_range(
    setting: Option<Setting<i64>>,
    low: i64,
    high: i64,
    key: &str,
) -> Result<Option<i64>, Invalid> {
    match setting {
        None => Ok(None),
        Some(s) if (low..=high).contains(&s.value) => Ok(Some(s.value)),
        Some(s) => Err(s.from.invalid(format!(
            "{key} must be from {low} to {high}, not {}",
            s.value
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[derive(Deserialize)]
    struct File {
        embeddings: Option<Spanned<EmbeddingsTable>>,
    }

    /// Resolves `text` (a brief.toml) under the environment `vars`.
    fn resolve(text: &str, vars: &[(&str, &str)]) -> Result<Option<EmbeddingsConfig>, Invalid> {
        let file: File = toml::from_str(text).unwrap();
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        EmbeddingsTable::resolve(file.embeddings.as_ref(), &|k| vars.get(k).cloned())
    }

    fn at(text: &str, invalid: Invalid) -> (String, String) {
        match invalid {
            Invalid::InFile { span, message } => (text[span].to_string(), message),
            Invalid::InEnvironment { variable, message } => (variable, message),
        }
    }

    #[test]
    fn off_unless_configured() {
        assert_eq!(resolve("", &[]), Ok(None));
        assert_eq!(resolve("[context]\nbudget = 3\n", &[]), Ok(None));
    }

    #[test]
    fn the_documented_table() {
        let text = r#"
[embeddings]
url = "http://localhost:11434/v1"
model = "nomic-embed-text"
dimensions = 256
api_key_env = "OPENAI_API_KEY"
query_prefix = "query: "
passage_prefix = "passage: "
input_type = true
timeout_ms = 800
batch = 16
"#;
        let config = resolve(text, &[]).unwrap().unwrap();
        assert_eq!(
            config,
            EmbeddingsConfig {
                url: "http://localhost:11434/v1".into(),
                model: "nomic-embed-text".into(),
                dimensions: Some(256),
                api_key_env: Some("OPENAI_API_KEY".into()),
                query_prefix: "query: ".into(),
                passage_prefix: "passage: ".into(),
                input_type: true,
                timeout_ms: Some(800),
                batch: Some(16),
            }
        );
    }

    #[test]
    fn the_environment_wins_key_by_key_and_alone_is_enough() {
        let text =
            "[embeddings]\nurl = \"http://a/v1\"\nmodel = \"m\"\nquery_prefix = \"query: \"\n";
        let config = resolve(
            text,
            &[
                ("BRIEF_EMBEDDINGS_MODEL", "n"),
                ("BRIEF_EMBEDDINGS_QUERY_PREFIX", ""),
                ("BRIEF_EMBEDDINGS_BATCH", "4"),
            ],
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.url, "http://a/v1");
        assert_eq!(config.model, "n");
        assert_eq!(config.query_prefix, "", "an empty prefix is a value");
        assert_eq!(config.batch, Some(4));
        let config = resolve(
            "",
            &[
                ("BRIEF_EMBEDDINGS_URL", "https://h/v1/embeddings"),
                ("BRIEF_EMBEDDINGS_MODEL", "m"),
                ("BRIEF_EMBEDDINGS_INPUT_TYPE", "true"),
            ],
        )
        .unwrap()
        .unwrap();
        assert_eq!(config.url, "https://h/v1/embeddings");
        assert!(config.input_type);
        assert_eq!(config.timeout_ms, None);
        assert_eq!(
            resolve(text, &[("BRIEF_EMBEDDINGS", "off")]),
            Ok(None),
            "switched off for one run"
        );
    }

    #[test]
    fn a_key_in_the_file_is_refused_where_it_is_written() {
        let text = "[embeddings]\nurl = \"http://a/v1\"\nmodel = \"m\"\napi_key = \"sk-123\"\n";
        let (place, message) = at(text, resolve(text, &[]).unwrap_err());
        assert_eq!(place, "\"sk-123\"");
        assert!(message.contains("api_key_env"), "{message}");
        let text =
            "[embeddings]\nurl = \"http://a/v1\"\nmodel = \"m\"\napi_key_env = \"sk-abc-123\"\n";
        let (place, message) = at(text, resolve(text, &[]).unwrap_err());
        assert_eq!(place, "\"sk-abc-123\"");
        assert!(message.contains("never the key itself"), "{message}");
    }

    #[test]
    fn bad_values_are_refused_where_they_are_written() {
        for (line, key) in [
            ("url = \"localhost:11434\"", "url"),
            ("url = \"http://\"", "url"),
            ("dimensions = 0", "dimensions"),
            ("timeout_ms = -5", "timeout_ms"),
            ("batch = 100000", "batch"),
        ] {
            let url = if key == "url" {
                ""
            } else {
                "url = \"http://a/v1\"\n"
            };
            let text = format!("[embeddings]\n{url}model = \"m\"\n{line}\n");
            let (place, message) = at(&text, resolve(&text, &[]).unwrap_err());
            assert_eq!(place, line.split(" = ").nth(1).unwrap(), "{line}");
            assert!(message.contains(key), "{message}");
        }
        let text = "[embeddings]\nmodel = \"m\"\n";
        let (place, message) = at(text, resolve(text, &[]).unwrap_err());
        assert!(
            place.starts_with("[embeddings]") || place.contains("model"),
            "{place}"
        );
        assert!(message.contains("url"), "{message}");
    }

    #[test]
    fn bad_environment_values_name_their_variable() {
        let (variable, message) = at(
            "",
            resolve("", &[("BRIEF_EMBEDDINGS_URL", "http://a/v1")]).unwrap_err(),
        );
        assert_eq!(variable, "BRIEF_EMBEDDINGS_URL");
        assert!(message.contains("BRIEF_EMBEDDINGS_MODEL"), "{message}");
        let ok = [
            ("BRIEF_EMBEDDINGS_URL", "http://a/v1"),
            ("BRIEF_EMBEDDINGS_MODEL", "m"),
        ];
        for (variable, value) in [
            ("BRIEF_EMBEDDINGS_TIMEOUT_MS", "soon"),
            ("BRIEF_EMBEDDINGS_BATCH", "0"),
            ("BRIEF_EMBEDDINGS_INPUT_TYPE", "yes"),
            ("BRIEF_EMBEDDINGS", "maybe"),
        ] {
            let mut vars = ok.to_vec();
            vars.push((variable, value));
            let (named, _) = at("", resolve("", &vars).unwrap_err());
            assert_eq!(named, variable);
        }
    }
}
