//! Elicitation procedures, one module per family of the papers.
//!
//! * [`binary`] — 003: Alg. 1 and 2 (boundary search), LPM elicitation
//!   (§5.1, App. C), LFPM elicitation (§5.2: Prop. 4, Alg. 3, Cor. 1), and
//!   the constants of Thm. 2;
//! * [`multiclass`] — 002: DLPM (Alg. 1) and LPM (Alg. 2) elicitation;
//! * [`lpme`] — the general sphere LPME subroutine (001/000 App. A).

pub mod binary;
pub mod lpme;
pub mod multiclass;
