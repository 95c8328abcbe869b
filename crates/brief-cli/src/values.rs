//! Value parsers that know their values: the library parses each value (`FromStr`), and the
//! possible values are listed for shell completion, so `--detail <TAB>` offers
//! `full summary meta` instead of file names. Help already names the values in each
//! option's value name, so they are not listed there twice.

use std::marker::PhantomData;
use std::str::FromStr;

use brief::session::Output;
use brief::{Depth, Detail, Encoding, Format};
use clap::builder::{PossibleValue, TypedValueParser};

/// Parses with `T::from_str` and offers `names` for completion.
#[derive(Clone)]
pub(crate) struct Choice<T> {
    names: &'static [&'static str],
    of: PhantomData<fn() -> T>,
}

/// A parser of `T` whose values complete as `names`.
pub(crate) fn choice<T>(names: &'static [&'static str]) -> Choice<T> {
    Choice {
        names,
        of: PhantomData,
    }
}

impl<T> TypedValueParser for Choice<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_str().ok_or_else(|| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidUtf8,
                "the value is not valid UTF-8\n",
            )
            .with_cmd(cmd)
        })?;
        text.parse::<T>().map_err(|e| {
            let name = arg
                .and_then(|a| a.get_long())
                .map_or_else(String::new, |long| format!("--{long} "));
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value for {name}`{text}`: {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        if self.names.is_empty() {
            return None;
        }
        Some(Box::new(self.names.iter().map(|n| PossibleValue::new(*n))))
    }
}

/// A count of at least one (`--seeds`, `--limit`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AtLeastOne(usize);

impl FromStr for AtLeastOne {
    type Err = &'static str;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.parse::<usize>() {
            Ok(0) => Err("it must be at least 1"),
            Ok(n) => Ok(AtLeastOne(n)),
            Err(_) => Err("it must be a whole number, at least 1"),
        }
    }
}

/// `--seeds`, `--limit`: a whole number of at least one.
pub(crate) fn at_least_one() -> impl TypedValueParser<Value = usize> {
    choice::<AtLeastOne>(&[]).map(|n| n.0)
}

/// `--detail`.
pub(crate) fn detail() -> Choice<Detail> {
    choice(&["full", "summary", "meta"])
}

/// `--encoding`.
pub(crate) fn encoding() -> Choice<Encoding> {
    choice(&["cl100k", "o200k"])
}

/// `--depth`: any number of hops, or `full`; completion offers the usual ones.
pub(crate) fn depth() -> Choice<Depth> {
    choice(&["0", "1", "2", "3", "full"])
}

/// `--format` of the commands that print a document.
pub(crate) fn format() -> Choice<Format> {
    choice(Format::NAMES)
}

/// `--format` of the commands that print a list or a report.
pub(crate) fn list_format() -> Choice<ListFormat> {
    choice(&["text", "json"])
}

/// `--format` of the session commands.
pub(crate) fn output() -> Choice<Output> {
    choice(&["text", "json"])
}

/// `--lens`: any lens brief.toml defines; completion offers the built-in ones.
pub(crate) fn lens() -> Choice<String> {
    choice(&["general", "writing", "coding", "planning", "meeting-prep"])
}

/// Text or JSON: the formats of `search`, `check`, `explain` and `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListFormat {
    Text,
    Json,
}

impl FromStr for ListFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(ListFormat::Text),
            "json" => Ok(ListFormat::Json),
            other => Err(format!("unknown format `{other}`: use text or json")),
        }
    }
}

impl From<ListFormat> for Format {
    fn from(format: ListFormat) -> Format {
        match format {
            ListFormat::Text => Format::Text,
            ListFormat::Json => Format::Json,
        }
    }
}

/// A time limit: seconds (`30`, `2s`) or milliseconds (`500ms`); `0` means none.
#[cfg(feature = "mcp")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimeLimit(pub(crate) std::time::Duration);

#[cfg(feature = "mcp")]
impl TimeLimit {
    /// The limit, or `None` for `0`.
    pub(crate) fn get(self) -> Option<std::time::Duration> {
        (!self.0.is_zero()).then_some(self.0)
    }
}

#[cfg(feature = "mcp")]
impl FromStr for TimeLimit {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (digits, millis) = match s.strip_suffix("ms") {
            Some(digits) => (digits, true),
            None => (s.strip_suffix('s').unwrap_or(s), false),
        };
        let n: u64 = digits.parse().map_err(|_| {
            format!("`{s}` is not a time: write seconds (30, 30s) or milliseconds (500ms)")
        })?;
        Ok(TimeLimit(if millis {
            std::time::Duration::from_millis(n)
        } else {
            std::time::Duration::from_secs(n)
        }))
    }
}

/// Seconds or milliseconds (`30`, `30s`, `500ms`).
#[cfg(feature = "mcp")]
pub(crate) fn time_limit() -> Choice<TimeLimit> {
    choice(&[])
}

#[cfg(all(test, feature = "mcp"))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn time_limits_read_seconds_or_milliseconds() {
        let parse = |s: &str| s.parse::<TimeLimit>().map(|t| t.get());
        assert_eq!(parse("30"), Ok(Some(Duration::from_secs(30))));
        assert_eq!(parse("2s"), Ok(Some(Duration::from_secs(2))));
        assert_eq!(parse("250ms"), Ok(Some(Duration::from_millis(250))));
        assert_eq!(parse("0"), Ok(None));
        assert!(parse("1.5").is_err());
        assert!(parse("ms").is_err());
        assert!(parse("-3").is_err());
    }
}
