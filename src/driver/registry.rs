//! Every procedure `run`, `ask`, `replay` and `rank` know, by spec name.
//! Adding a procedure is one line here.

use super::adapter::Family;
use super::adapters::{binary, cost_reward, fair, lpme, multiclass, quadratic};
use super::rank::Rankability;
use super::session::{conduct_family, run_family, ConductBox, Finished, Mode};
use super::spec::Spec;
use crate::error::{Error, Result};

/// A registered procedure.
pub struct Entry {
    /// The spec name.
    pub name: &'static str,
    /// One line on what it elicits.
    pub summary: &'static str,
    /// Runs it at the spec's precision.
    pub run: fn(&Spec, Mode<'_>) -> Result<Finished>,
    /// Builds it at the spec's precision for an interview, one answer at a
    /// time ([`crate::driver::interview::Interview`]).
    pub conduct: fn(&Spec) -> Result<Box<dyn ConductBox>>,
    /// How `rank` reads its result as a metric, or why it cannot
    /// ([`Family::RANK`]).
    pub rank: Rankability,
}

const fn entry<F: Family>() -> Entry {
    Entry {
        name: F::NAME,
        summary: F::SUMMARY,
        run: run_family::<F>,
        conduct: conduct_family::<F>,
        rank: F::RANK,
    }
}

/// The registry.
pub const PROCEDURES: &[Entry] = &[
    entry::<binary::BinaryLpmFamily>(),
    entry::<binary::BinaryLfpmFamily>(),
    entry::<binary::BinaryLfpmKnownP11Family>(),
    entry::<multiclass::DlpmFamily>(),
    entry::<lpme::LpmFamily>(),
    entry::<lpme::LpmeFamily>(),
    entry::<fair::FpmeFamily>(),
    entry::<quadratic::QpmeFamily>(),
    entry::<quadratic::FairQpmeFamily>(),
    entry::<quadratic::QpmeTradeoffFamily>(),
    entry::<quadratic::CubicFamily>(),
    entry::<cost_reward::CostRewardFamily>(),
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
