//! `brief-corpus`: writes a Spec Graph or Markdown-artifact project of any size, the same for
//! the same seed, for brief's benchmarks and scale tests.
//!
//! ```sh
//! cargo run --release -p brief-corpus -- --kind specgraph --nodes 100000 --out /tmp/sg100k
//! cargo run --release -p brief-corpus -- --kind artifacts --nodes 100000 --out /tmp/art100k
//! cargo run --release -p brief-corpus -- --kind tana --nodes 1000000 --out /tmp/tana1m
//! cargo run --release -p brief-corpus -- --kind notes --nodes 10000 --out /tmp/notes10k
//! cargo run --release -p brief-corpus -- --kind layered --nodes 100000 --out /tmp/layered100k
//! cargo run --release -p brief-corpus -- --kind dense --nodes 25000 --out /tmp/dense25k
//! cargo run --release -p brief-corpus -- --kind speckit --nodes 2500 --out /tmp/speckit50
//! # and what 20 of its targets must see, in /tmp/sg400/labels.json
//! cargo run --release -p brief-corpus -- --kind specgraph --nodes 400 --out /tmp/sg400 --labels 20
//! ```
//!
//! The shapes are described in the library (`brief_corpus::generate`), the labels in
//! `brief_corpus::generate_labelled`.

use std::path::PathBuf;
use std::process::ExitCode;

use brief_corpus::{generate, generate_labelled, Shape, LABELS_FILE};

const USAGE: &str = "usage: brief-corpus --kind specgraph|artifacts|tana|notes|layered|dense|speckit --nodes N --out DIR [--seed S] [--labels TARGETS]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("brief-corpus: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut kind = None;
    let mut nodes = None;
    let mut out = None;
    let mut seed = 7u64;
    let mut labels = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--kind" => kind = Some(value()?),
            "--nodes" => {
                nodes = Some(
                    value()?
                        .parse::<usize>()
                        .map_err(|e| format!("--nodes: {e}"))?,
                )
            }
            "--out" => out = Some(PathBuf::from(value()?)),
            "--seed" => seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--labels" => {
                labels = Some(
                    value()?
                        .parse::<usize>()
                        .map_err(|e| format!("--labels: {e}"))?,
                )
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let nodes = nodes.ok_or("--nodes is required")?.max(10);
    let out = out.ok_or("--out is required")?;
    if out.exists()
        && std::fs::read_dir(&out)
            .map_err(|e| e.to_string())?
            .next()
            .is_some()
    {
        return Err(format!("{} exists and is not empty", out.display()));
    }
    let shape = match kind.as_deref() {
        Some("specgraph") => Shape::SpecGraph,
        Some("artifacts") => Shape::Artifacts,
        Some("tana") => Shape::Tana,
        Some("notes") => Shape::Notes,
        Some("layered") => Shape::Layered,
        Some("dense") => Shape::Dense,
        Some("speckit") => Shape::SpecKit,
        _ => {
            return Err(
                "--kind must be specgraph, artifacts, tana, notes, layered, dense or speckit"
                    .into(),
            )
        }
    };
    let written = match labels {
        Some(targets) => {
            let (written, labels) = generate_labelled(shape, nodes, &out, seed, targets)?;
            eprintln!(
                "labelled {} targets in {}",
                labels.targets.len(),
                out.join(LABELS_FILE).display()
            );
            written
        }
        None => generate(shape, nodes, &out, seed)?,
    };
    eprintln!("wrote {written} nodes to {}", out.display());
    Ok(())
}
