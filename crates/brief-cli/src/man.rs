//! Man pages from the clap definition: one page per command (`brief(1)`, `brief-context(1)`,
//! `brief-session-package-add(1)`, …), each with its options, and the examples of its help
//! kept line for line (roff would fill them into one paragraph).

use std::path::Path;

use clap_mangen::roff::{roman, Roff};
use clap_mangen::Man;

/// The command named by `path` (`[]`: brief itself), built, with its page name.
fn find(mut command: clap::Command, path: &[String]) -> Result<clap::Command, String> {
    command = command.disable_help_subcommand(true);
    command.build();
    for name in path {
        let known: Vec<String> = command
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        command = command.find_subcommand(name).cloned().ok_or_else(|| {
            let at = command.get_bin_name().unwrap_or("brief").to_string();
            if known.is_empty() {
                format!("error: `{at}` has no command `{name}`")
            } else {
                format!(
                    "error: `{at}` has no command `{name}`; it has {}",
                    known.join(", ")
                )
            }
        })?;
    }
    Ok(command)
}

/// The page of `command` in roff.
fn page(command: clap::Command) -> Result<Vec<u8>, std::io::Error> {
    let has_subcommands = command.has_subcommands();
    let has_version = command.get_version().is_some() || command.get_long_version().is_some();
    let extra = command
        .get_after_long_help()
        .or_else(|| command.get_after_help())
        .map(|text| text.to_string());
    let man = Man::new(command).source(format!("brief {}", env!("CARGO_PKG_VERSION")));
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    if has_subcommands {
        man.render_subcommands_section(&mut out)?;
    }
    if let Some(text) = extra {
        let mut roff = Roff::default();
        roff.control("SH", ["EXTRA"]);
        // No filling: examples and tables keep their lines.
        roff.control("nf", [] as [&str; 0]);
        for line in text.lines() {
            roff.text([roman(line)]);
        }
        roff.control("fi", [] as [&str; 0]);
        roff.to_writer(&mut out)?;
    }
    if has_version {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

/// The page of the command `path` names.
pub(crate) fn one(root: clap::Command, path: &[String]) -> Result<Vec<u8>, String> {
    let command = find(root, path)?;
    page(command).map_err(|e| format!("error: cannot render the man page: {e}"))
}

/// Writes every page into `dir`; returns how many.
pub(crate) fn all(root: clap::Command, dir: &Path) -> Result<usize, String> {
    let root = find(root, &[])?;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
    let mut written = 0;
    let mut pending = vec![root];
    while let Some(command) = pending.pop() {
        pending.extend(
            command
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .cloned(),
        );
        let name = format!(
            "{}.1",
            command.get_display_name().unwrap_or(command.get_name())
        );
        let bytes = page(command).map_err(|e| format!("error: cannot render {name}: {e}"))?;
        let path = dir.join(&name);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
        written += 1;
    }
    Ok(written)
}
