//! The spec driver (the `driver` feature): everything between a spec file
//! and the typed algorithms of [`crate::elicit`].
//!
//! * [`spec`] — elicitation specs (TOML/JSON) as typed values;
//! * [`build`] — the one builder from a spec's population to populations
//!   and query spaces;
//! * [`adapter`] — what the driver needs of a procedure beyond its
//!   algorithm: its spec fields, its truth, its report and its view;
//! * [`adapters`] — one adapter per procedure family;
//! * [`view`] — how a query point is shown to a person;
//! * [`registry`] — every procedure by spec name (one line each);
//! * [`session`] — `run`, `ask` and `replay` of any registered procedure at
//!   any precision, with transcripts;
//! * [`rank`] — ranking classifiers by an elicited metric, NDCG and
//!   Kendall τ (with the `data` feature).
//!
//! Data flows one way: spec → [`build`] → algorithm → [`session`] (oracle,
//! transcript) → estimate → [`adapter::Report`] or a ranking. Nothing in
//! [`crate::elicit`] or below imports this module.

pub mod adapter;
pub mod adapters;
pub mod build;
#[cfg(feature = "data")]
pub mod rank;
pub mod registry;
pub mod session;
pub mod spec;
pub mod view;
