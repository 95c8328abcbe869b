//! How a message names what the user passed. A message that tells the user to change a
//! parameter holds the parameter as a [`Param`], never as flag text, and is written out for the
//! front end that asked: `--budget` on the command line, `budget` for an MCP tool. Everything
//! else in the message (the user's own input among it) is written as it is.

use std::fmt;

/// Who asked: decides how parameters are named in messages, and where named files are
/// looked up (`check --baseline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontEnd {
    /// The `brief` command: flags such as `--budget`.
    Cli,
    /// The MCP server: tool parameters such as `budget`.
    Mcp,
}

/// A parameter a message names: its command-line flag and, when a tool takes it, its MCP name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Param {
    /// `--agent` / `agent`.
    Agent,
    /// `--budget` / `budget`.
    Budget,
    /// `--consumers` / `consumers`.
    Consumers,
    /// `--depth` / `depth`.
    Depth,
    /// `--file` / `file`.
    File,
    /// `--format` / `format`.
    Format,
    /// `--from` / `from`.
    From,
    /// `--hash` / `hash`.
    Hash,
    /// `--iteration` / `iteration`.
    Iteration,
    /// `--lens` / `lens`.
    Lens,
    /// `--limit` / `limit`.
    Limit,
    /// `--message` / `message`.
    Message,
    /// `--older-than` (no tool takes it).
    OlderThan,
    /// `--seeds` / `seeds`.
    Seeds,
    /// `--since` / `since`.
    Since,
    /// `--solution` / `solution`.
    Solution,
    /// `--summary` / `summary`.
    Summary,
    /// `--supersedes` / `supersedes`.
    Supersedes,
    /// `--task` / `task`.
    Task,
    /// `--to` / `to`.
    To,
    /// `--window` / `window`.
    Window,
}

impl Param {
    /// Every parameter, for the tests that hold each front end to its names.
    pub const ALL: [Param; 21] = [
        Param::Agent,
        Param::Budget,
        Param::Consumers,
        Param::Depth,
        Param::File,
        Param::Format,
        Param::From,
        Param::Hash,
        Param::Iteration,
        Param::Lens,
        Param::Limit,
        Param::Message,
        Param::OlderThan,
        Param::Seeds,
        Param::Since,
        Param::Solution,
        Param::Summary,
        Param::Supersedes,
        Param::Task,
        Param::To,
        Param::Window,
    ];

    /// The command-line flag, with its dashes.
    pub fn flag(self) -> &'static str {
        match self {
            Param::Agent => "--agent",
            Param::Budget => "--budget",
            Param::Consumers => "--consumers",
            Param::Depth => "--depth",
            Param::File => "--file",
            Param::Format => "--format",
            Param::From => "--from",
            Param::Hash => "--hash",
            Param::Iteration => "--iteration",
            Param::Lens => "--lens",
            Param::Limit => "--limit",
            Param::Message => "--message",
            Param::OlderThan => "--older-than",
            Param::Seeds => "--seeds",
            Param::Since => "--since",
            Param::Solution => "--solution",
            Param::Summary => "--summary",
            Param::Supersedes => "--supersedes",
            Param::Task => "--task",
            Param::To => "--to",
            Param::Window => "--window",
        }
    }

    /// The MCP tool parameter, when a tool takes one.
    pub fn mcp(self) -> Option<&'static str> {
        match self {
            Param::OlderThan => None,
            // Every other parameter is named alike, without the dashes.
            other => Some(&other.flag()[2..]),
        }
    }

    /// The parameter as `front_end` names it (the flag where no tool takes it).
    pub fn named(self, front_end: FrontEnd) -> &'static str {
        match front_end {
            FrontEnd::Cli => self.flag(),
            FrontEnd::Mcp => self.mcp().unwrap_or(self.flag()),
        }
    }
}

/// A message that may name parameters: text and [`Param`]s in order. `Display` writes it as
/// the command line says it; [`Said::to`] as a given front end does.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Said(Vec<Part>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Param(Param),
}

impl Said {
    /// An empty message, to build with [`Said::param`] and [`Said::text`].
    pub fn new() -> Said {
        Said::default()
    }

    /// The message followed by `param`, named as the front end names it.
    pub fn param(mut self, param: Param) -> Said {
        self.0.push(Part::Param(param));
        self
    }

    /// The message followed by `text`, written as it is.
    pub fn text(mut self, text: impl Into<String>) -> Said {
        self.0.push(Part::Text(text.into()));
        self
    }

    /// The message as `front_end` says it.
    pub fn to(&self, front_end: FrontEnd) -> String {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Param(param) => out.push_str(param.named(front_end)),
            }
        }
        out
    }
}

impl From<String> for Said {
    fn from(text: String) -> Said {
        Said::new().text(text)
    }
}

impl From<&str> for Said {
    fn from(text: &str) -> Said {
        Said::new().text(text)
    }
}

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to(FrontEnd::Cli))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_front_end_names_the_parameter_and_keeps_the_rest() {
        let said = Said::new()
            .param(Param::File)
            .text(" `../--budget` must be a path; ")
            .param(Param::OlderThan);
        assert_eq!(
            said.to(FrontEnd::Cli),
            "--file `../--budget` must be a path; --older-than"
        );
        assert_eq!(
            said.to(FrontEnd::Mcp),
            "file `../--budget` must be a path; --older-than"
        );
        assert_eq!(said.to_string(), said.to(FrontEnd::Cli));
    }

    #[test]
    fn every_flag_is_a_flag_and_every_tool_name_plain() {
        for param in Param::ALL {
            let flag = param.flag();
            assert!(flag.starts_with("--") && flag.len() > 2, "{flag}");
            if let Some(name) = param.mcp() {
                assert!(
                    name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                    "{name}"
                );
            }
        }
    }
}
