//! `elicit reproduce`: runs the library's reproduction jobs at the chosen
//! precision and writes `report.md`, `results.json` and the SVG figures.

use metric_elicitation::Error;
use metric_elicitation_lab::reproduce::{self, Options, Progress, Section};
use std::io::IsTerminal;
use std::time::Instant;

/// Runs the selected jobs at the precision `bits` names (`None`: f64). On
/// stderr, a line per job as it starts and as it ends (its time and
/// verdict), whether stderr is a terminal or a file; on a terminal the
/// start line carries an estimate of the time left (from the jobs done so
/// far, which vary widely in length: a rough guide).
pub fn run_at(o: &Options, bits: Option<u32>) -> Result<Vec<Section>, Error> {
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let sections = reproduce::run_at_precision(o, bits, &mut |p| match p {
        Progress::Started { id, index, total } => {
            let eta = if terminal && index > 0 {
                let per_job = start.elapsed().as_secs_f64() / index as f64;
                format!(
                    ", about {} left",
                    duration((total - index) as f64 * per_job)
                )
            } else {
                String::new()
            };
            say!("[{}/{total}] {id} started{eta}", index + 1);
        }
        Progress::Finished {
            section,
            index,
            total,
        } => {
            say!(
                "[{}/{total}] {} done in {}: {}",
                index + 1,
                section.id,
                duration(section.seconds),
                section.verdict
            );
        }
    })?;
    Ok(sections)
}

/// Seconds as "12.3 s", "4 min 5 s" or "1 h 2 min".
fn duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else if seconds < 3600.0 {
        format!(
            "{} min {} s",
            (seconds / 60.0) as u64,
            (seconds % 60.0) as u64
        )
    } else {
        format!(
            "{} h {} min",
            (seconds / 3600.0) as u64,
            ((seconds % 3600.0) / 60.0) as u64
        )
    }
}
