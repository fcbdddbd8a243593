//! End-to-end timing of DLPM or cost/reward elicitation on the 004 §5
//! population, in one fresh process (so that `/usr/bin/time -v` measures
//! its peak memory):
//!
//! ```text
//! cargo run --release --example synthetic_004 -- dlpm 10000000 4 paper
//! /usr/bin/time -v target/release/examples/synthetic_004 cost-reward 10000000 2 golden
//! ```
//!
//! Arguments: procedure (`dlpm` | `cost-reward`, or `generate`: only
//! generation and the faces (1, i)), rows n, classes k
//! (cost-reward: 2, Table 1's row 1), strategy (`paper` | `adaptive` |
//! `golden`), optional seed. Prints one JSON line with the phase timings
//! (generation, face preparation, elicitation), the queries, the error, the
//! population's bytes and the process's peak resident memory (VmHWM).

use metric_elicitation::population::ExpectedMulticlass;
use metric_elicitation::search::Strategy;
use metric_elicitation_lab::reproduce::cost_reward::{peak_memory, time_cost_reward, time_dlpm};
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let procedure = arg(0, "dlpm");
    let rows: usize = arg(1, "10000000").parse()?;
    let classes: usize = arg(2, "4").parse()?;
    let strategy: Strategy = arg(3, "paper").parse()?;
    let seed: u64 = arg(4, "2019").parse()?;
    if procedure == "generate" {
        let start = Instant::now();
        let pop = ExpectedMulticlass::<f64>::synthetic_004(classes, rows, seed)?;
        let generation = start.elapsed().as_secs_f64();
        let start = Instant::now();
        for i in 1..classes {
            pop.prepare(0, i)?;
        }
        println!(
            "{{\"procedure\":\"generate\",\"rows\":{rows},\"classes\":{classes},\"generation_s\":{generation:.4},\"preparation_s\":{:.4},\"peak_mb\":{:.1}}}",
            start.elapsed().as_secs_f64(),
            peak_memory().map_or(f64::NAN, |b| b as f64 / 1e6)
        );
        return Ok(());
    }
    let start = Instant::now();
    let t = match procedure.as_str() {
        "dlpm" => time_dlpm(rows, classes, seed, strategy)?,
        "cost-reward" => time_cost_reward(rows, seed, strategy)?,
        other => return Err(format!("unknown procedure {other:?} (dlpm or cost-reward)").into()),
    };
    let wall = start.elapsed().as_secs_f64();
    let error = t
        .truth
        .iter()
        .zip(&t.elicited)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "{{\"procedure\":\"{procedure}\",\"rows\":{rows},\"classes\":{},\"strategy\":\"{}\",\"generation_s\":{:.4},\"preparation_s\":{:.4},\"elicitation_s\":{:.6},\"extraction_s\":{:.6},\"total_s\":{:.4},\"wall_s\":{wall:.4},\"queries\":{},\"error\":{error:.3e},\"population_mb\":{:.1},\"peak_mb\":{:.1}}}",
        t.classes,
        strategy.name(),
        t.generation,
        t.preparation,
        t.elicitation,
        t.extraction,
        t.total(),
        t.queries,
        t.bytes as f64 / 1e6,
        peak_memory().map_or(f64::NAN, |b| b as f64 / 1e6),
    );
    Ok(())
}
