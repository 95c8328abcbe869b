//! `brief-eval`: the context-quality table of BENCHMARKS.md.
//!
//! ```sh
//! cargo run --release -p brief-eval
//! ```
//!
//! prints the tables (Markdown) and the headline; `--budgets 500,2000` measures fewer
//! budgets. Exits 1 if brief ever left out a hard constraint that fit at meta detail.

use std::path::Path;
use std::process::ExitCode;

use brief_eval::{run, BUDGETS};

const USAGE: &str = "usage: brief-eval [--budgets B1,B2,…]";

fn main() -> ExitCode {
    let mut budgets = BUDGETS.to_vec();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--budgets" => {
                let parsed: Result<Vec<usize>, _> = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(str::parse)
                    .collect();
                match parsed {
                    Ok(list) if !list.is_empty() => budgets = list,
                    _ => {
                        eprintln!(
                            "brief-eval: --budgets takes numbers separated by commas\n{USAGE}"
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("brief-eval: unknown argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let examples = crate_dir.join("../../examples");
    let labels = crate_dir.join("labels");
    let scratch = std::env::temp_dir().join(format!("brief-eval-{}", std::process::id()));
    let report = match run(&examples, &labels, &scratch, &budgets) {
        Ok(report) => report,
        Err(message) => {
            eprintln!("brief-eval: {message}");
            return ExitCode::from(2);
        }
    };
    print!("{}", report.markdown(&budgets));
    if report.violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        for violation in &report.violations {
            eprintln!("brief-eval: {violation}");
        }
        ExitCode::from(1)
    }
}
