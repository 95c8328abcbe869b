//! How an outcome names parameters, per front end. The library's messages name a parameter
//! by its command-line flag (`--budget`); this table is the one description of which flag is
//! which MCP parameter, so a tool error says `budget` where the CLI says `--budget`.

use super::Outcome;

/// Who asked: decides how parameters are named in messages, and where named files are
/// looked up (`check --baseline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontEnd {
    /// The `brief` command: flags such as `--budget`.
    Cli,
    /// The MCP server: tool parameters such as `budget`.
    Mcp,
}

/// Command-line flags with an MCP twin, and the twin's name. Flags without one (`--root`,
/// `--write-baseline`, `--older-than`, `--list-rules`) are left as they are.
const PARAMETERS: &[(&str, &str)] = &[
    ("agent", "agent"),
    ("baseline", "baseline"),
    ("budget", "budget"),
    ("consumers", "consumers"),
    ("depth", "depth"),
    ("detail", "detail"),
    ("encoding", "encoding"),
    ("file", "file"),
    ("for", "for"),
    ("format", "format"),
    ("from", "from"),
    ("group", "group"),
    ("hash", "hash"),
    ("include-fields", "include_fields"),
    ("iteration", "iteration"),
    ("kind", "kind"),
    ("lens", "lens"),
    ("limit", "limit"),
    ("message", "message"),
    ("model", "model"),
    ("no-identity", "no_identity"),
    ("no-include-fields", "include_fields"),
    ("no-redact", "no_redact"),
    ("priority", "priority"),
    ("producer", "producer"),
    ("project", "project"),
    ("rule", "rules"),
    ("seeds", "seeds"),
    ("session", "session"),
    ("since", "since"),
    ("solution", "solution"),
    ("summary", "summary"),
    ("supersedes", "supersedes"),
    ("task", "task"),
    ("to", "to"),
    ("type", "type"),
    ("used-tokens", "used_tokens"),
    ("window", "window"),
];

/// `flag` (without its dashes) as `front_end` names it.
pub(crate) fn parameter(flag: &str, front_end: FrontEnd) -> String {
    match front_end {
        FrontEnd::Cli => format!("--{flag}"),
        FrontEnd::Mcp => PARAMETERS
            .iter()
            .find(|(cli, _)| *cli == flag)
            .map_or_else(|| format!("--{flag}"), |(_, mcp)| mcp.to_string()),
    }
}

/// The outcome's messages in `front_end`'s words. The text is output, never reworded.
pub(super) fn speak(mut outcome: Outcome, front_end: FrontEnd) -> Outcome {
    if front_end == FrontEnd::Mcp {
        for line in outcome.notes.iter_mut() {
            *line = reword(line, front_end);
        }
        outcome.terminal_notes.clear();
    }
    outcome
}

/// `line` with every known `--flag` named as `front_end` names it, except inside a quoted
/// command (`` `brief …` ``): that is a command to run, and keeps its flags.
fn reword(line: &str, front_end: FrontEnd) -> String {
    line.split('`')
        .enumerate()
        .map(|(at, part)| {
            let quoted_command = at % 2 == 1 && part.starts_with("brief ");
            if quoted_command {
                part.to_string()
            } else {
                reword_flags(part, front_end)
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// `text` with every known `--flag` named as `front_end` names it.
fn reword_flags(line: &str, front_end: FrontEnd) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("--") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let starts_word = out
            .chars()
            .last()
            .is_none_or(|c| !c.is_alphanumeric() && c != '-');
        let name_len = from[2..]
            .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
            .unwrap_or(from.len() - 2);
        let name = from[2..2 + name_len].trim_end_matches('-');
        if starts_word && !name.is_empty() && PARAMETERS.iter().any(|(cli, _)| *cli == name) {
            out.push_str(&parameter(name, front_end));
            rest = &from[2 + name.len()..];
        } else {
            out.push_str("--");
            rest = &from[2..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_messages_name_tool_parameters() {
        assert_eq!(
            reword(
                "error: a budget of 10 tokens is too small (use --budget 412)",
                FrontEnd::Mcp
            ),
            "error: a budget of 10 tokens is too small (use budget 412)"
        );
        assert_eq!(
            reword(
                "error: --used-tokens and --no-redact; --root DIR",
                FrontEnd::Mcp
            ),
            "error: used_tokens and no_redact; --root DIR"
        );
        // Not a flag: inside a word, or a YAML fence.
        assert_eq!(reword("a--budget ---", FrontEnd::Mcp), "a--budget ---");
        // A command to run keeps its flags; a flag quoted alone is a parameter.
        assert_eq!(
            reword(
                "no package 4 (see `brief session package list --session s9`; `--budget`)",
                FrontEnd::Mcp
            ),
            "no package 4 (see `brief session package list --session s9`; `budget`)"
        );
    }

    #[test]
    fn cli_messages_keep_their_flags() {
        let line = "error: --seeds must be at least 1";
        assert_eq!(reword(line, FrontEnd::Cli), line);
        assert_eq!(parameter("used-tokens", FrontEnd::Cli), "--used-tokens");
        assert_eq!(parameter("used-tokens", FrontEnd::Mcp), "used_tokens");
    }
}
