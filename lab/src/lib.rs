//! # metric-elicitation-lab
//!
//! The reproduction lab of [`metric_elicitation`]: every table, figure and
//! theorem check of the five papers as data ([`reproduce::Job`],
//! [`reproduce::Row`]), the real-data experiments with their classifier
//! pools ([`pool`]) and shipped datasets, the report's prose and the SVG
//! figures. `elicit reproduce` runs it; its tests re-run the theorem sweeps.
#![warn(missing_docs)]

pub mod data;
pub mod pool;
pub mod reproduce;
