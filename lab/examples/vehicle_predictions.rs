//! Writes `examples/predictions/vehicle.csv`, the predictions file of the
//! README's quick start (data → elicit → rank): 8 classifiers of the lab's
//! pool (trees and forests, [`metric_elicitation_lab::pool::build`])
//! trained on a seeded 60 % of the shipped Vehicle data (k = 4) and
//! predicting the other 40 %, one column of predicted classes per
//! classifier, then `label`.
//!
//! ```text
//! cargo run --release -p metric-elicitation-lab --example vehicle_predictions [-- OUT]
//! ```
//!
//! The pool is deterministic: the same file every run.

use metric_elicitation::fit::{Columns, Split};
use metric_elicitation_lab::data::shipped;
use metric_elicitation_lab::pool;
use std::path::PathBuf;

/// The seed of the split and of the pool.
const SEED: u64 = 3;
/// The classifiers written.
const POOL: usize = 8;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> metric_elicitation::Result<()> {
    let out = std::env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/predictions/vehicle.csv"),
        PathBuf::from,
    );
    let data = shipped("vehicle")?.prepare(&Columns {
        label: "label".into(),
        ..Columns::default()
    })?;
    let split = Split::random(data.len(), 0.6, SEED)?;
    let (train, test) = (data.subset(&split.fit), data.subset(&split.held_out));
    let members = pool::build(&train, &test, POOL, SEED)?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| metric_elicitation::Error::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
    }
    pool::write_predictions(&out, &members, &test.labels, None)?;
    println!(
        "{}: {} classifiers, {} rows",
        out.display(),
        members.len(),
        test.len()
    );
    Ok(())
}
