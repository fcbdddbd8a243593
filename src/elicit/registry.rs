//! Every procedure `run`, `ask` and `replay` know, by spec name. Adding a
//! procedure is one line here.

use super::procedure::Family;
use crate::error::{Error, Result};
use crate::session::{run_family, Finished, Mode};
use crate::spec::Spec;

/// A registered procedure.
pub struct Entry {
    /// The spec name.
    pub name: &'static str,
    /// One line on what it elicits.
    pub summary: &'static str,
    /// Runs it at the spec's precision.
    pub run: fn(&Spec, Mode<'_>) -> Result<Finished>,
}

const fn entry<F: Family>() -> Entry {
    Entry {
        name: F::NAME,
        summary: F::SUMMARY,
        run: run_family::<F>,
    }
}

/// The registry.
pub const PROCEDURES: &[Entry] = &[
    entry::<super::binary::procedures::BinaryLpmFamily>(),
    entry::<super::binary::procedures::BinaryLfpmFamily>(),
    entry::<super::binary::procedures::BinaryLfpmKnownP11Family>(),
    entry::<super::multiclass::procedures::DlpmFamily>(),
    entry::<super::multiclass::procedures::LpmFamily>(),
    entry::<super::lpme::procedures::LpmeFamily>(),
    entry::<super::fpme::Fpme>(),
    entry::<super::quadratic_procedures::QpmeFamily>(),
    entry::<super::quadratic_procedures::FairQpmeFamily>(),
    entry::<super::quadratic_procedures::QpmeTradeoffFamily>(),
    entry::<super::quadratic_procedures::CubicFamily>(),
    entry::<super::cost_reward::CostRewardFamily>(),
];

/// The procedure named `name`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `procedure` and listing the known
/// names.
pub fn find(name: &str) -> Result<&'static Entry> {
    PROCEDURES.iter().find(|e| e.name == name).ok_or_else(|| {
        Error::invalid(
            "procedure",
            format!(
                "unknown procedure {name:?} (expected one of {})",
                names().join(", ")
            ),
        )
    })
}

/// Every registered name, in order.
pub fn names() -> Vec<&'static str> {
    PROCEDURES.iter().map(|e| e.name).collect()
}
