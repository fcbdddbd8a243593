//! `elicit rank`: the user's classifiers ranked by an elicited metric
//! (001 §6.2, 000 App. H.2). The work is [`metric_elicitation::driver::rank`].

use metric_elicitation::driver::rank::{rank_files, PredictionColumns};
use metric_elicitation::Error;
use std::path::Path;

/// Ranks the classifier columns of `predictions` (`columns` says which
/// they are) by the metric in `metric` (and compares with `truth`; a
/// cost/reward metric reads each classifier's attribute values from
/// `attributes`); prints JSON or a table.
///
/// # Errors
/// As [`rank_files`]: a bad file is an input error naming it.
pub fn run(
    metric: &Path,
    predictions: &Path,
    columns: &PredictionColumns,
    truth: Option<&Path>,
    attributes: Option<&Path>,
    json: bool,
) -> Result<(), Error> {
    let ranking = rank_files(metric, predictions, columns, truth, attributes)?;
    if json {
        let text = serde_json::to_string_pretty(&ranking.to_json())
            .map_err(|e| Error::invalid("output", e.to_string()))?;
        outln!("{text}");
    } else {
        out!("{}", ranking.to_text());
    }
    Ok(())
}
