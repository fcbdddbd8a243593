//! The datasets shipped in `data/` (see `data/README.md`), compiled into
//! the lab so that `elicit reproduce` needs no files beside it.

use metric_elicitation::error::{Error, Result};
use metric_elicitation::fit::Table;

/// The datasets shipped in `data/` (see `data/README.md`), compiled in.
pub const SHIPPED: [(&str, &[u8]); 7] = [
    (
        "breast_cancer_wdbc",
        include_bytes!("../data/breast_cancer_wdbc.csv.gz"),
    ),
    ("magic_gamma", include_bytes!("../data/magic_gamma.csv.gz")),
    ("vehicle", include_bytes!("../data/vehicle.csv.gz")),
    (
        "adult_numeric",
        include_bytes!("../data/adult_numeric.csv.gz"),
    ),
    (
        "wine_quality_multiclass",
        include_bytes!("../data/wine_quality_multiclass.csv.gz"),
    ),
    (
        "communities_crime_raw",
        include_bytes!("../data/communities_crime_raw.csv.gz"),
    ),
    (
        "default_credit_sample",
        include_bytes!("../data/default_credit_sample.csv.gz"),
    ),
];

/// A shipped dataset by name (the file name without `.csv.gz`).
///
/// # Errors
/// [`Error::InvalidArgument`] for an unknown name.
pub fn shipped(name: &str) -> Result<Table> {
    let (_, bytes) = SHIPPED
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| Error::invalid("dataset", format!("no shipped dataset {name:?}")))?;
    Table::from_reader(flate2::read::GzDecoder::new(*bytes), name)
}
