//! Confirming a value given to a secret-named key, flag or header: where the name starts,
//! whether the match is an assignment at all, the quotes and operator around the value, and
//! how strong the value must be for the name it is given to.

use std::ops::Range;

use super::checks::{self, Strength};
use super::rules::{Check, PASSWORD_NAMES};
use super::Candidate;

/// The bytes to replace when `candidate`'s value is a secret under `check`.
pub(super) fn confirm(check: Check, text: &str, candidate: &Candidate) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let name = candidate.name.clone().map(|word| Name::around(text, word));
    let strength = strength(check, name.as_ref())?;
    let secret = &candidate.secret;
    let (mut start, mut end, quoted) = unquote(bytes, secret.start, secret.end);
    let context_ok = match check {
        Check::Value => assignment_context(text, name.as_ref(), secret.start, quoted),
        Check::Flag => flag_context(text, name.as_ref()),
        _ => true,
    };
    if !context_ok {
        return None;
    }
    if check == Check::Literal {
        // Markup keeps the layout around a value (`<password>\n  x\n</password>`).
        let value = &text[start..end];
        let (lead, trail) = (
            value.len() - value.trim_start().len(),
            value.len() - value.trim_end().len(),
        );
        if lead == value.len() {
            return None;
        }
        (start, end) = (start + lead, end - trail);
    }
    let operator = operator(text, candidate.whole.start, name.as_ref(), secret.start);
    // In a URL query, a bare value ends at the next parameter.
    let in_query = name
        .as_ref()
        .is_some_and(|n| n.full.start > 0 && matches!(bytes[n.full.start - 1], b'?' | b'&'));
    if !quoted && in_query {
        if let Some(amp) = text[start..end].find(['&', '#']) {
            end = start + amp;
        }
    }
    if start >= end {
        return None;
    }
    let form = match (quoted, check) {
        (true, _) | (false, Check::Literal) => checks::Form::Literal,
        (false, _) => checks::Form::Unquoted,
    };
    let value = &text[start..end];
    if !checks::secret_value(value, form, operator, &text[end..], strength) {
        return None;
    }
    // `Password: correct horse battery staple`: a passphrase runs to the end of its words.
    if strength == Strength::Password && !quoted && operator == ":" {
        end = checks::passphrase_end(text, end);
    }
    Some(start..end)
}

/// A key's or flag's name: all of it (`DB_PASSWORD`, `--db-password`) and the secret word the
/// pattern matched (`PASSWORD`).
struct Name<'t> {
    full: Range<usize>,
    full_text: &'t str,
    word: &'t str,
}

impl<'t> Name<'t> {
    /// The name whose last word is `word`: the word and the name bytes before it.
    fn around(text: &'t str, word: Range<usize>) -> Name<'t> {
        let bytes = text.as_bytes();
        let mut from = word.start;
        while from > 0 && name_byte(bytes[from - 1]) {
            from -= 1;
        }
        Name {
            full_text: &text[from..word.end],
            full: from..word.end,
            word: &text[word],
        }
    }
}

/// A byte of a key's name (`DB_PASSWORD`, `spring.datasource.password`, `X-Api-Key`).
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// How strong the value must be, or `None` when the name is no secret's name after all
/// (`compass`, `bypass`: the word `pass` counts only as a whole word of the name).
fn strength(check: Check, name: Option<&Name<'_>>) -> Option<Strength> {
    match check {
        Check::Password => return Some(Strength::Password),
        Check::Token => return Some(Strength::Token),
        Check::Credential => return Some(Strength::Credential),
        _ => {}
    }
    let word = name.map_or(String::new(), |n| n.word.to_ascii_lowercase());
    if word == "pass" {
        let full = name.map_or("", |n| n.full_text);
        return pass_name(full).then_some(Strength::Password);
    }
    if PASSWORD_NAMES.iter().any(|w| word.ends_with(w)) {
        Some(Strength::Password)
    } else {
        Some(Strength::Token)
    }
}

/// Whether a name ending in `pass` names a password (`pass`, `db_pass`, `-storepass`), not a
/// word that ends in it (`bypass`, `compass`).
fn pass_name(full: &str) -> bool {
    let name = full.trim_start_matches('-').to_ascii_lowercase();
    name == "pass"
        || ["_pass", "-pass", ".pass", "storepass", "keypass"]
            .iter()
            .any(|end| name.ends_with(end))
}

/// Whether the name is a command-line flag: `-password`, `--db-password`, after a blank,
/// a quote or a bracket (not the end of a word in prose).
fn flag_context(text: &str, name: Option<&Name<'_>>) -> bool {
    let Some(name) = name else { return false };
    let flag = &text[name.full.clone()];
    let dashes = flag.len() - flag.trim_start_matches('-').len();
    let before = name.full.start.checked_sub(1).map(|i| text.as_bytes()[i]);
    (1..=2).contains(&dashes)
        && before.is_none_or(|b| b.is_ascii_whitespace() || b"\"'([=".contains(&b))
}

/// The secret without its quotes, and whether it had any.
fn unquote(bytes: &[u8], start: usize, end: usize) -> (usize, usize, bool) {
    let quote = bytes[start];
    if end - start >= 2 && matches!(quote, b'"' | b'\'' | b'`') && bytes[end - 1] == quote {
        (start + 1, end - 1, true)
    } else {
        (start, end, false)
    }
}

/// The operator between the name and the value (`=`, `:`, `=>`, …; a blank for a flag).
fn operator<'a>(
    text: &'a str,
    match_start: usize,
    name: Option<&Name<'_>>,
    value_start: usize,
) -> &'a str {
    let from = name.map_or(match_start, |n| n.full.end);
    let between = text[from..value_start].trim_matches(|c: char| c == '"' || c == '\'' || c == '`');
    let op = between.trim();
    if op.is_empty() {
        " "
    } else {
        op
    }
}

/// Whether a `name = value` match is an assignment rather than text that happens to look
/// like one: not a variable being read (`$PWD`, unless a literal is given to it, as in PHP's
/// `$db_password = '…'`), not a comparison (`==`), not a path (`Token::Eof`), and not inside
/// a string whose quote the value would close (`"Password: " + x`).
fn assignment_context(
    text: &str,
    name: Option<&Name<'_>>,
    value_start: usize,
    quoted: bool,
) -> bool {
    let bytes = text.as_bytes();
    let Some(name) = name else { return true };
    let before = name.full.start.checked_sub(1).map(|i| bytes[i]);
    if matches!(before, Some(b'%')) || matches!(before, Some(b'$' | b'@')) && !quoted {
        return false;
    }
    if matches!(bytes.get(value_start), Some(b'=' | b':')) {
        return false;
    }
    if let Some(q @ (b'"' | b'\'' | b'`')) = before {
        let closed_before_operator = bytes.get(name.full.end) == Some(&q);
        if !closed_before_operator && bytes.get(value_start) == Some(&q) {
            return false;
        }
    }
    true
}
