//! `brief hook`: an agent host's hook event (JSON on stdin) → what the host adds to the
//! agent's context. Claude Code's protocol (docs/hooks.md): `UserPromptSubmit` carries the
//! `prompt`; `PreToolUse` and `PostToolUse` carry `tool_name` and `tool_input.file_path`;
//! every event carries `hook_event_name` and `cwd`. The answer is
//! `{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}` on stdout, or
//! nothing. A hook must never stall or break the agent: it answers within its time limit or
//! not at all, and exits 0 whatever happens (a note on stderr says why it added nothing).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::Outcome;
use crate::project::Project;
use crate::Detail;
use brief_engine::Format;
use brief_engine::{ChangeSignal, Engine, EngineError};
use brief_engine::{Confidence, ContextOutput, ContextRequest};

/// The budget of a hook's context when `[hook] budget` does not say.
pub const DEFAULT_BUDGET: usize = 800;
/// How long a hook may take when `[hook] time_limit_ms` does not say.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_millis(200);
/// The most words of a prompt looked at as possible ids.
const MOST_WORDS: usize = 64;

/// `brief hook`'s input: the event as the host wrote it.
#[derive(Debug, Clone, Default)]
pub struct Hook {
    /// The event JSON, as read from stdin.
    pub event: String,
    /// Overrides `[hook] time_limit_ms` (tests, and hosts with their own bound).
    pub time_limit: Option<Duration>,
}

/// A hook event brief answers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Event {
    /// The user submitted a prompt.
    Prompt { prompt: String },
    /// A file is about to change, or just changed.
    File { phase: Phase, path: String },
}

/// Which side of a tool call a file event is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Before,
    After,
}

impl Phase {
    fn event_name(self) -> &'static str {
        match self {
            Phase::Before => "PreToolUse",
            Phase::After => "PostToolUse",
        }
    }
}

/// What the context is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ask {
    /// A node the prompt names by its id.
    Named(String),
    /// The prompt's words.
    Words(String),
    /// A file of the project, relative to the root.
    File(String),
}

/// The tools that change a file, and where their input names it.
const FILE_TOOLS: [(&str, &str); 4] = [
    ("Edit", "file_path"),
    ("Write", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// Runs one hook: `root` as `--root` gives it, else the project is found from the event's
/// `cwd` (else `cwd`).
pub(super) fn run(hook: &Hook, root: Option<&Path>, cwd: &Path) -> Outcome {
    let started = Instant::now();
    let parsed: Value = match serde_json::from_str(&hook.event) {
        Ok(value) => value,
        Err(e) => return quiet(format!("the event on stdin is not JSON ({e})")),
    };
    let Some((name, event)) = event(&parsed) else {
        return Outcome::default();
    };
    let start = parsed
        .get("cwd")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .unwrap_or_else(|| cwd.to_path_buf());
    let project = match Project::open(root, &start) {
        Ok(project) => project,
        Err(e) => return quiet(format!("no project to ask ({e})")),
    };
    let budget = project.hook.budget.unwrap_or(DEFAULT_BUDGET);
    let limit = hook
        .time_limit
        .or(project.hook.time_limit_ms.map(Duration::from_millis))
        .unwrap_or(DEFAULT_TIME_LIMIT);
    let root = absolute(&start, &project.root);
    let (done, answer) = mpsc::channel();
    // The work runs on a thread of its own so that the hook answers in time whatever it
    // meets; a thread still working when the process exits is ended with it (the index is
    // written in transactions, so nothing is left half-written).
    std::thread::spawn(move || {
        let _ = done.send(context_for(&root, &event, budget));
    });
    let left = limit.saturating_sub(started.elapsed());
    match answer.recv_timeout(left) {
        Ok(Ok(Some(text))) => Outcome {
            text: answer_json(name, &text),
            ..Outcome::default()
        },
        Ok(Ok(None)) => Outcome::default(),
        Ok(Err(why)) => quiet(why),
        Err(_) => quiet(format!(
            "no context within {} ms, so none was added; keep `brief watch` running in the \
             project (or raise [hook] time_limit_ms in brief.toml)",
            limit.as_millis()
        )),
    }
}

/// Nothing for the agent, and a note for whoever reads the host's log.
fn quiet(why: String) -> Outcome {
    Outcome {
        notes: vec![format!("brief hook: {why}")],
        ..Outcome::default()
    }
}

/// The event's name and what it asks, for the events brief answers.
fn event(parsed: &Value) -> Option<(&'static str, Event)> {
    let text = |key: &str| parsed.get(key).and_then(Value::as_str);
    match text("hook_event_name")? {
        "UserPromptSubmit" => {
            let prompt = text("prompt")?.trim();
            (!prompt.is_empty()).then(|| {
                (
                    "UserPromptSubmit",
                    Event::Prompt {
                        prompt: prompt.to_string(),
                    },
                )
            })
        }
        name @ ("PreToolUse" | "PostToolUse") => {
            let phase = if name == "PreToolUse" {
                Phase::Before
            } else {
                Phase::After
            };
            let tool = text("tool_name")?;
            let (_, key) = FILE_TOOLS.iter().find(|(t, _)| *t == tool)?;
            let path = parsed.get("tool_input")?.get(*key)?.as_str()?;
            Some((
                phase.event_name(),
                Event::File {
                    phase,
                    path: path.to_string(),
                },
            ))
        }
        _ => None,
    }
}

/// `path` made absolute against `base`.
fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    joined.canonicalize().unwrap_or(joined)
}

/// The context to add for `event`, if one is worth adding; `Err` says why none could be
/// made.
fn context_for(root: &Path, event: &Event, budget: usize) -> Result<Option<String>, String> {
    let mut engine = Engine::open(Some(root), root).map_err(|e| reason(&e))?;
    // A running `brief watch` vouches for the index: no check of every file.
    engine.consult_watcher();
    // One check (or the watcher's word) for the whole hook: the first request makes it,
    // and a signal nothing marks tells the lookups and the context after it not to repeat it.
    engine.identity_id().map_err(|e| reason(&e))?;
    engine.refresh_on(ChangeSignal::default());
    let Some(ask) = ask(&mut engine, root, event) else {
        return Ok(None);
    };
    let target = match &ask {
        Ask::Named(id) => id.clone(),
        Ask::Words(words) => words.clone(),
        Ask::File(path) => path.clone(),
    };
    let request = ContextRequest {
        target,
        budget: Some(budget),
        format: Format::Markdown,
        ..ContextRequest::default()
    };
    match engine.context(&request) {
        Ok(out) => Ok(worth_adding(&ask, &out).then_some(out.text)),
        // Nothing matched: nothing to add, and nothing went wrong.
        Err(e) if e.exit_code() == 1 => Ok(None),
        Err(e) => Err(reason(&e)),
    }
}

/// What to ask the engine for: a node the prompt names by id, else its words; the file as a
/// path of the project (`None` for a file outside it).
fn ask(engine: &mut Engine, root: &Path, event: &Event) -> Option<Ask> {
    match event {
        Event::Prompt { prompt } => Some(
            named_id(engine, prompt)
                .map(Ask::Named)
                .unwrap_or_else(|| Ask::Words(prompt.clone())),
        ),
        Event::File { path, .. } => {
            let file = absolute(root, Path::new(path));
            let relative = file.strip_prefix(root).ok()?;
            Some(Ask::File(relative.to_string_lossy().replace('\\', "/")))
        }
    }
}

/// The first word of `prompt` that is the id of a node (case ignored).
fn named_id(engine: &mut Engine, prompt: &str) -> Option<String> {
    let words = prompt
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')))
        .map(|w| w.trim_matches(['.', '/']))
        // Ids carry a digit or a separator; plain words are searched, not looked up.
        .filter(|w| {
            w.len() >= 3
                && w.chars()
                    .any(|c| c.is_ascii_digit() || c == '-' || c == '_')
        })
        .take(MOST_WORDS);
    for word in words {
        if let Ok(shown) = engine.show(word, Detail::Meta, Format::Json, None) {
            let id = serde_json::from_str::<Value>(&shown)
                .ok()
                .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_string));
            return Some(id.unwrap_or_else(|| word.to_string()));
        }
    }
    None
}

/// Whether the context found for `ask` is worth putting in front of the agent: the one
/// decision of how sure a match must be. A node the prompt names is the prompt's subject.
/// Words match some node in almost every project, so a prompt's words, or a file's path read
/// as words, count only when the engine is sure of its match (a file that is a node's own,
/// or words the best node holds most of); a weak match adds nothing.
fn worth_adding(ask: &Ask, out: &ContextOutput) -> bool {
    match ask {
        Ask::Named(_) => true,
        Ask::Words(_) | Ask::File(_) => {
            matches!(out.confidence, Confidence::Exact | Confidence::Strong)
        }
    }
}

/// One line for stderr: why no context was made.
fn reason(error: &EngineError) -> String {
    let lines = error.describe(Path::new("."));
    lines.last().cloned().unwrap_or_else(|| error.to_string())
}

/// The host's answer: the context for the agent.
fn answer_json(event_name: &str, context: &str) -> String {
    let answer = json!({
        "hookSpecificOutput": {
            "hookEventName": event_name,
            "additionalContext": context,
        }
    });
    format!("{answer}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_brief_answers() {
        let prompt = json!({"hook_event_name": "UserPromptSubmit", "prompt": " fix CHECKOUT-01 ",
            "session_id": "s", "cwd": "/p"});
        assert_eq!(
            event(&prompt),
            Some((
                "UserPromptSubmit",
                Event::Prompt {
                    prompt: "fix CHECKOUT-01".into()
                }
            ))
        );
        let edit = json!({"hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": "/p/src/a.rs", "old_string": "a", "new_string": "b"}});
        assert_eq!(
            event(&edit),
            Some((
                "PreToolUse",
                Event::File {
                    phase: Phase::Before,
                    path: "/p/src/a.rs".into()
                }
            ))
        );
        let notebook = json!({"hook_event_name": "PostToolUse", "tool_name": "NotebookEdit",
            "tool_input": {"notebook_path": "/p/n.ipynb"}});
        assert!(matches!(
            event(&notebook),
            Some(("PostToolUse", Event::File { .. }))
        ));
        for other in [
            json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
            json!({"hook_event_name": "Stop"}),
            json!({"hook_event_name": "UserPromptSubmit", "prompt": "  "}),
            json!({"prompt": "no event name"}),
        ] {
            assert_eq!(event(&other), None, "{other}");
        }
    }

    #[test]
    fn the_answer_is_the_hosts_json() {
        let text = answer_json("UserPromptSubmit", "# CHECKOUT-01\n");
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            parsed["hookSpecificOutput"]["hookEventName"],
            "UserPromptSubmit"
        );
        assert_eq!(
            parsed["hookSpecificOutput"]["additionalContext"],
            "# CHECKOUT-01\n"
        );
        assert!(text.ends_with('\n'));
    }
}
