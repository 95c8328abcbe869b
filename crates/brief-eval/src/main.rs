//! `brief-eval`: the context-quality tables of BENCHMARKS.md.
//!
//! ```sh
//! cargo run --release -p brief-eval
//! cargo run --release -p brief-eval -- words fetch --mirrors MIRRORS --repos DIR
//! cargo run --release -p brief-eval -- words --repos DIR
//! ```
//!
//! Without a subcommand: the tables on the examples and generated projects, by id
//! (`--budgets 500,2000` measures fewer budgets); exits 1 if brief ever left out a hard
//! constraint that fit at meta detail. `words`: the evaluation of tasks in words on the
//! repositories materialised under `--repos` (`words fetch` writes them from git mirrors at
//! the commits the task files pin).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use brief_eval::words::{self, Method, Options};
use brief_eval::{run, BUDGETS};

const USAGE: &str = "usage: brief-eval [--budgets B1,B2,…]
       brief-eval words --repos DIR [--tasks DIR] [--repo NAME,…] [--budgets B1,…] [--seeds N] [--dense]
                 [--embeddings URL MODEL] [--verbose]
       brief-eval words fetch --mirrors DIR --repos DIR [--tasks DIR]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let result = match args.first().map(String::as_str) {
        Some("words") if args.get(1).map(String::as_str) == Some("fetch") => fetch(&args[2..]),
        Some("words") => words_eval(&args[1..]),
        _ => by_id(&args),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("brief-eval: {message}");
            ExitCode::from(2)
        }
    }
}

/// The flags of one invocation.
#[derive(Default)]
struct Flags {
    budgets: Option<Vec<usize>>,
    repos: Option<PathBuf>,
    mirrors: Option<PathBuf>,
    tasks: Option<PathBuf>,
    repo: Option<String>,
    seeds: Option<usize>,
    verbose: bool,
    dense: bool,
    /// `--embeddings URL MODEL`: the endpoint brief + embeddings and dense retrieval use.
    embeddings: Option<(String, String)>,
}

fn parse(args: &[String], allowed: &[&str]) -> Result<Flags, String> {
    let mut flags = Flags::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if !allowed.contains(&arg.as_str()) {
            return Err(format!("unknown argument `{arg}`\n{USAGE}"));
        }
        if arg == "--verbose" {
            flags.verbose = true;
            continue;
        }
        if arg == "--dense" {
            flags.dense = true;
            continue;
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{arg} takes a value\n{USAGE}"))?;
        if arg == "--embeddings" {
            let model = args
                .next()
                .ok_or_else(|| format!("--embeddings takes a URL and a model\n{USAGE}"))?;
            flags.embeddings = Some((value.clone(), model.clone()));
            continue;
        }
        match arg.as_str() {
            "--budgets" => flags.budgets = Some(numbers(value)?),
            "--seeds" => {
                flags.seeds = Some(value.parse().map_err(|_| "--seeds takes a number")?);
            }
            "--repos" => flags.repos = Some(PathBuf::from(value)),
            "--mirrors" => flags.mirrors = Some(PathBuf::from(value)),
            "--tasks" => flags.tasks = Some(PathBuf::from(value)),
            _ => flags.repo = Some(value.clone()),
        }
    }
    Ok(flags)
}

fn numbers(value: &str) -> Result<Vec<usize>, String> {
    let parsed: Result<Vec<usize>, _> = value.split(',').map(str::parse).collect();
    match parsed {
        Ok(list) if !list.is_empty() && !list.contains(&0) => Ok(list),
        _ => Err(format!(
            "--budgets takes positive numbers separated by commas\n{USAGE}"
        )),
    }
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The evaluation by id on the examples and generated projects.
fn by_id(args: &[String]) -> Result<ExitCode, String> {
    let flags = parse(args, &["--budgets"])?;
    let budgets = flags.budgets.unwrap_or_else(|| BUDGETS.to_vec());
    let examples = crate_dir().join("../../examples");
    let labels = crate_dir().join("labels");
    let scratch = std::env::temp_dir().join(format!("brief-eval-{}", std::process::id()));
    let report = run(&examples, &labels, &scratch, &budgets)?;
    print!("{}", report.markdown(&budgets));
    for violation in &report.violations {
        eprintln!("brief-eval: {violation}");
    }
    Ok(if report.violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The task files: `--tasks`, else this crate's `words/`; `--repo` keeps the repositories it
/// names (`owner/name` or `name`, separated by commas).
fn task_files(flags: &Flags) -> Result<Vec<words::TaskFile>, String> {
    let dir = flags
        .tasks
        .clone()
        .unwrap_or_else(|| crate_dir().join("words"));
    let mut files = words::read_dir(&dir)?;
    if let Some(only) = &flags.repo {
        let names: Vec<&str> = only.split(',').collect();
        for name in &names {
            if !files.iter().any(|f| f.repo == *name || f.name() == *name) {
                return Err(format!("no task file in {} is for `{name}`", dir.display()));
            }
        }
        files.retain(|f| names.iter().any(|n| f.repo == *n || f.name() == *n));
    }
    Ok(files)
}

/// `words`: the evaluation of tasks in words.
fn words_eval(args: &[String]) -> Result<ExitCode, String> {
    let flags = parse(
        args,
        &[
            "--repos",
            "--tasks",
            "--repo",
            "--budgets",
            "--seeds",
            "--verbose",
            "--dense",
            "--embeddings",
        ],
    )?;
    let repos = flags
        .repos
        .clone()
        .ok_or_else(|| format!("words needs --repos DIR\n{USAGE}"))?;
    let files = task_files(&flags)?;
    let options = Options {
        budgets: flags
            .budgets
            .clone()
            .unwrap_or_else(|| words::BUDGETS.to_vec()),
        methods: if let Some((url, model)) = &flags.embeddings {
            // Read when each project opens; the other settings (prefixes, `input_type`,
            // time-out) come from the environment as they would for brief.
            std::env::set_var("BRIEF_EMBEDDINGS_URL", url);
            std::env::set_var("BRIEF_EMBEDDINGS_MODEL", model);
            Method::WITH_EMBEDDINGS.to_vec()
        } else if flags.dense {
            Method::WITH_DENSE.to_vec()
        } else {
            Method::ALL.to_vec()
        },
        seeds: flags.seeds,
    };
    let report = words::evaluate(&repos, &files, &options, &mut |line| eprintln!("{line}"))?;
    print!(
        "{}",
        report.markdown(&options.budgets, &options.methods, flags.verbose)
    );
    Ok(ExitCode::SUCCESS)
}

/// `words fetch`: materialises every task file's repository at its commit.
fn fetch(args: &[String]) -> Result<ExitCode, String> {
    let flags = parse(args, &["--mirrors", "--repos", "--tasks", "--repo"])?;
    let (Some(mirrors), Some(repos)) = (&flags.mirrors, &flags.repos) else {
        return Err(format!(
            "words fetch needs --mirrors DIR and --repos DIR\n{USAGE}"
        ));
    };
    for file in task_files(&flags)? {
        let Some(commit) = &file.commit else {
            continue;
        };
        let git = words::git_dir(mirrors, &file.folder());
        let into = repos.join(file.folder());
        let written =
            words::materialise(&git, commit, &into).map_err(|e| format!("{}: {e}", file.repo))?;
        eprintln!(
            "{} {commit}: {} files into {} ({} absent from the mirror)",
            file.repo,
            written.files,
            into.display(),
            written.missing
        );
    }
    Ok(ExitCode::SUCCESS)
}
