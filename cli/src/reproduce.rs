//! `elicit reproduce`: runs the library's reproduction jobs at the chosen
//! precision and writes `report.md`, `results.json` and the SVG figures.

use metric_elicitation::Error;
use metric_elicitation_lab::reproduce::{self, Options, Section};
use std::io::IsTerminal;

/// Runs the selected jobs at the precision `bits` names (`None`: f64) with
/// a progress bar on a terminal.
pub fn run_at(o: &Options, bits: Option<u32>) -> Result<Vec<Section>, Error> {
    let total = reproduce::selected_ids(o).len();
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(total as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut started = false;
    let sections = reproduce::run_at_precision(o, bits, &mut |id| {
        if started {
            bar.inc(1);
        }
        started = true;
        bar.set_message(id.to_string());
    })?;
    bar.finish_and_clear();
    Ok(sections)
}
