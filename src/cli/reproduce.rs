//! `elicit reproduce`: runs the library's reproduction jobs at the chosen
//! precision and writes `report.md`, `results.json` and the SVG figures.

use metric_elicitation::reproduce::{self, Options, Section};
use metric_elicitation::scalar::Scalar;
use metric_elicitation::Error;
use std::io::IsTerminal;

/// Runs the selected jobs at precision `T` with a progress bar on a
/// terminal.
pub fn run_at<T: Scalar>(o: &Options) -> Result<Vec<Section>, Error> {
    let total = reproduce::jobs::<f64>(o)
        .iter()
        .filter(|j| o.only.is_empty() || o.only.iter().any(|f| j.id.starts_with(f.as_str())))
        .count();
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(total as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut started = false;
    let sections = reproduce::run::<T>(o, |id| {
        if started {
            bar.inc(1);
        }
        started = true;
        bar.set_message(id.to_string());
    })?;
    bar.finish_and_clear();
    Ok(sections)
}
