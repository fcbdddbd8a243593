//! Reproductions of the papers' tables and theorem checks, as data.
//!
//! Each function re-runs one table (or checks one theorem empirically) and
//! returns [`Row`]s carrying the paper's numbers beside ours; the tests
//! assert on them and the `elicit reproduce` command renders them.
//!
//! Every family module registers its tables as [`Job`]s (`jobs::<T>()`):
//! an id, a title, the rows, a verdict and an optional figure. [`jobs`]
//! lists all of them; [`run`] runs a selection; [`report`] and [`summary`]
//! render the result. A new family is one module and one line in [`jobs`].

pub mod binary;
pub mod cost_reward;
pub mod fair;
pub mod multiclass;
pub mod noise;
pub mod plots;
pub mod quadratic;
pub mod ranking;
pub mod real;
pub mod shard;

use metric_elicitation::error::{Error, Result};
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::Strategy;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One reproduced row (the schema of `results.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Row {
    /// Paper prefix and table or theorem, e.g. `003-table1`.
    pub table: String,
    /// Row label within the table.
    pub row: String,
    /// The hidden metric's parameters.
    pub truth: Vec<f64>,
    /// The elicited parameters.
    pub elicited: Vec<f64>,
    /// The paper's elicited parameters, where it printed them.
    pub paper: Vec<f64>,
    /// Oracle queries used (per trial, for theorem rows: the largest).
    pub queries: usize,
    /// The error measure of the row (‖truth − elicited‖∞ unless stated).
    pub error: f64,
    /// Scalar backend (`f64`, `mpfr:256`).
    pub precision: String,
    /// Search strategy.
    pub search: String,
    /// LFPM rows: mean of φ̂/φ over the ∂C+ confusions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// LFPM rows: standard deviation of φ̂/φ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// LFPM rows: the paper's α and σ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper_alpha_sigma: Option<(f64, f64)>,
    /// Theorem rows: number of trials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials: Option<usize>,
    /// Theorem rows: the theorem's right-hand side for this setting (the
    /// smallest over the trials when it depends on the trial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// Theorem rows: the largest error over the trials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_error: Option<f64>,
    /// Theorem rows: the largest error/bound ratio over the trials (≤ 1
    /// when the theorem held in every trial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_ratio: Option<f64>,
    /// Theorem rows: trials in which the bound was violated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violations: Option<usize>,
    /// 002 Thm. 1 rows: the largest error divided by the trial's own
    /// instance bound (see `multiclass::dlpm_instance_bound`); ≤ 1 when every
    /// trial met it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_ratio: Option<f64>,
    /// 002 Thm. 1 rows: the constant with each trial divided by the
    /// conditioning of Alg. 1's estimator (max(1, κ)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditioned_ratio: Option<f64>,
    /// Query-count rows: trials whose searches met a tie (a plateau), after
    /// which golden section finishes by halving (so its count may exceed
    /// ⌈log_φ(L/ε)⌉ + 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tied_trials: Option<usize>,
    /// MPFR runs: ‖elicited − elicited at f64‖∞ for the same row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f64_difference: Option<f64>,
    /// Wall time of the row's own run, seconds, where the row measures it
    /// (shown as a column of the table when any row of a section has it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Noise rows (issue #28): the setting's fractions, coverage and
    /// questions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<noise::NoiseStats>,
    /// Free-form notes (settings, why a value differs).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl Row {
    /// A row with the identifying fields set and the rest empty.
    pub fn new(table: &str, row: impl Into<String>, precision: String, search: &str) -> Self {
        Row {
            table: table.into(),
            row: row.into(),
            truth: Vec::new(),
            elicited: Vec::new(),
            paper: Vec::new(),
            queries: 0,
            error: 0.0,
            precision,
            search: search.into(),
            alpha: None,
            sigma: None,
            paper_alpha_sigma: None,
            trials: None,
            bound: None,
            worst_error: None,
            worst_ratio: None,
            violations: None,
            instance_ratio: None,
            conditioned_ratio: None,
            tied_trials: None,
            f64_difference: None,
            seconds: None,
            noise: None,
            note: String::new(),
        }
    }
}

/// ‖a − b‖∞ over two equally long slices.
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Maps `f` over `items` in parallel on rayon's work-stealing pool (all
/// cores, or `--jobs N`), keeping the order; the first error wins. Every
/// sweep gives each item its own seeded generator, so the result does not
/// depend on the number of threads.
///
/// # Errors
/// The first error any call returned.
pub fn parallel_map<I: Sync, R: Send>(
    items: &[I],
    f: impl Fn(&I) -> metric_elicitation::Result<R> + Sync + Send,
) -> metric_elicitation::Result<Vec<R>> {
    use rayon::prelude::*;
    items.par_iter().map(f).collect()
}

/// Settings shared by every reproduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Only jobs whose id starts with one of these (all when empty).
    pub only: Vec<String>,
    /// The search strategy of the tables that take one.
    pub search: Strategy,
    /// Random metrics per setting in the theorem checks.
    pub trials: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// The noise jobs' elicitations per trial, in report order (every
    /// one by default; the other jobs ignore it).
    pub engines: Vec<noise::Way>,
    /// The noise jobs' engine particles (`None`: the engine's default,
    /// 1 000; the other jobs ignore it).
    pub particles: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            only: Vec::new(),
            search: Strategy::Paper,
            trials: 1000,
            seed: 2019,
            engines: noise::Way::ALL.to_vec(),
            particles: None,
        }
    }
}

/// How a section's rows are laid out in `report.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One row per table row: truth, paper, ours, queries, error.
    Table,
    /// One row per setting of a sweep: trials, worst error, bound, ratio.
    Sweep,
    /// One row per setting and engine of a noise job: within ε, silent,
    /// flagged, coverage, questions against the bound.
    Noise,
}

/// A figure of a section: the file name and the function drawing it.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// File name within the output folder (`fig-….svg`).
    pub file: &'static str,
    /// Draws the section into the file.
    pub draw: fn(&Section, &Path) -> std::result::Result<(), String>,
}

/// The rows of a job.
pub type Rows = Box<dyn Fn() -> Result<Vec<Row>> + Send + Sync>;

/// A job's verdict on its rows.
pub type Verdict = Box<dyn Fn(&[Row]) -> String + Send + Sync>;

/// One reproduced table or theorem check, ready to run.
pub struct Job {
    /// `paper-table`, e.g. `003-table1`; `--only` matches its prefix.
    pub id: &'static str,
    /// The heading in the report.
    pub title: &'static str,
    /// What the reader needs to interpret the rows (settings, differences).
    pub explanation: &'static str,
    /// Computes the rows.
    pub rows: Rows,
    /// One line judging the rows against the paper.
    pub verdict: Verdict,
    /// Report layout.
    pub layout: Layout,
    /// The figure drawn from the rows, if any.
    pub figure: Option<Figure>,
    /// MPFR runs also compute the rows in `f64` and record the difference.
    pub compare_f64: bool,
    /// A sweep whose settings a shard splits (through
    /// [`shard::sharded_map`]); any other job is run whole by one shard, as
    /// is a sweep compared with its `f64` run at MPFR precision (the `f64`
    /// run's sweep would be split too).
    pub by_items: bool,
}

impl Job {
    /// A job whose verdict is `verdict(id, rows)`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: &'static str,
        title: &'static str,
        explanation: &'static str,
        layout: Layout,
        rows: Rows,
        figure: Option<Figure>,
        compare_f64: bool,
        verdict: fn(&str, &[Row]) -> String,
    ) -> Self {
        Job {
            id,
            title,
            explanation,
            rows,
            verdict: Box::new(move |r: &[Row]| verdict(id, r)),
            layout,
            figure,
            compare_f64,
            // The theorem sweeps map their settings through `sharded_map`.
            by_items: layout == Layout::Sweep,
        }
    }
}

impl Job {
    /// The job run whole by one shard, though its layout is a sweep's (a
    /// sweep with no [`shard::sharded_map`] call, too short to split).
    #[must_use]
    pub fn whole(mut self) -> Self {
        self.by_items = false;
        self
    }
}

/// The signature of [`Job::maker`]'s constructor: id, title, explanation,
/// layout, rows, figure, `compare_f64`.
pub type JobMaker =
    dyn Fn(&'static str, &'static str, &'static str, Layout, Rows, Option<Figure>, bool) -> Job;

impl Job {
    /// The constructor of one family's jobs, all judged by `verdict`.
    pub fn maker(verdict: fn(&str, &[Row]) -> String) -> Box<JobMaker> {
        Box::new(
            move |id, title, explanation, layout, rows, figure, compare_f64| {
                Job::new(
                    id,
                    title,
                    explanation,
                    layout,
                    rows,
                    figure,
                    compare_f64,
                    verdict,
                )
            },
        )
    }
}

/// A job's result.
#[derive(Debug, Clone)]
pub struct Section {
    /// The job's id.
    pub id: &'static str,
    /// The job's title.
    pub title: &'static str,
    /// The rows.
    pub rows: Vec<Row>,
    /// The verdict.
    pub verdict: String,
    /// Wall time of the rows, seconds.
    pub seconds: f64,
    /// The job's explanation.
    pub explanation: &'static str,
    /// Report layout.
    pub layout: Layout,
    /// The figure, if any.
    pub figure: Option<Figure>,
}

/// Every job of every family at precision `T`, in report order.
pub fn jobs<T: Scalar>(o: &Options) -> Vec<Job> {
    let mut all = binary::jobs::<T>(o);
    all.extend(multiclass::jobs::<T>(o));
    all.extend(real::jobs::<T>(o));
    all.extend(fair::jobs::<T>(o));
    all.extend(quadratic::jobs::<T>(o));
    all.extend(cost_reward::jobs::<T>(o));
    all.extend(noise::jobs::<T>(o));
    all
}

/// The ids of every job (for `--only` validation).
pub fn ids() -> Vec<&'static str> {
    // Every job, including those run only when `--only` names them.
    let all = Options {
        only: vec![String::new()],
        ..Options::default()
    };
    jobs::<f64>(&all).into_iter().map(|j| j.id).collect()
}

/// The ids of the jobs `o.only` selects, in the order they run.
pub fn selected_ids(o: &Options) -> Vec<&'static str> {
    jobs::<f64>(o)
        .into_iter()
        .filter(|j| o.only.is_empty() || o.only.iter().any(|f| j.id.starts_with(f.as_str())))
        .map(|j| j.id)
        .collect()
}

/// Runs `$body` with `$t` bound to the scalar type `bits` names: `f64` for
/// `None`, `Mpfr<bits>` otherwise (in a build with the `mpfr` feature; an
/// error naming `--precision` without it). The dispatch lives here, not in
/// the binary, so the generic jobs are compiled once, in the library.
macro_rules! at_precision {
    ($bits:expr, $t:ident => $body:expr) => {{
        match $bits {
            None => {
                type $t = f64;
                $body
            }
            Some(bits) => {
                #[cfg(feature = "mpfr")]
                {
                    use metric_elicitation::scalar::Mpfr;
                    match bits {
                        64 => {
                            type $t = Mpfr<64>;
                            $body
                        }
                        128 => {
                            type $t = Mpfr<128>;
                            $body
                        }
                        256 => {
                            type $t = Mpfr<256>;
                            $body
                        }
                        512 => {
                            type $t = Mpfr<512>;
                            $body
                        }
                        _ => {
                            type $t = Mpfr<1024>;
                            $body
                        }
                    }
                }
                #[cfg(not(feature = "mpfr"))]
                {
                    Err(metric_elicitation::Error::invalid(
                        "--precision",
                        format!("mpfr:{bits} needs the MPFR feature: cargo run --release --features mpfr -- reproduce --precision mpfr:{bits}"),
                    ))
                }
            }
        }
    }};
}

/// Runs the jobs `o.only` selects at the precision `--precision` names:
/// `None` for `f64`, `Some(bits)` for `Mpfr<bits>` (64, 128, 256, 512 or
/// 1024; see [`metric_elicitation::scalar::precision_bits`]).
///
/// # Errors
/// The first job that fails, or an MPFR precision in a build without the
/// `mpfr` feature.
pub fn run_at_precision(
    o: &Options,
    bits: Option<u32>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Vec<Section>> {
    at_precision!(bits, T => run::<T>(o, &mut *progress))
}

/// Runs the part `shard` of the jobs `o.only` selects at the precision
/// `bits` names (see [`run_at_precision`]); `precision` is its name, kept in
/// the part. See [`shard`].
///
/// # Errors
/// The first job that fails, or an MPFR precision in a build without the
/// `mpfr` feature.
pub fn shard_at_precision(
    o: &Options,
    bits: Option<u32>,
    precision: &str,
    part: shard::Shard,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<shard::Part> {
    at_precision!(bits, T => run_shard::<T>(o, precision, part, &mut *progress))
}

/// Merges the parts of a sharded run (checked with
/// [`shard::check_parts`]) into the sections a single run with the same
/// options computes; returns the options and the sections. The parts'
/// contents are moved out (each recorded result is held once).
///
/// # Errors
/// Parts that do not belong together (named), or an MPFR precision in a
/// build without the `mpfr` feature.
pub fn merge_parts(
    parts: &mut [(String, shard::Part)],
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(Options, Vec<Section>)> {
    let first = shard::check_parts(parts)?;
    let o = Options {
        only: first.only.clone(),
        search: first.search.parse()?,
        trials: first.trials,
        seed: first.seed,
        engines: noise::Way::parse_list(&first.engines)?,
        particles: first.particles,
    };
    let bits = metric_elicitation::scalar::precision_bits(&first.precision, "precision")?;
    let mut parts: Vec<&mut shard::Part> = parts.iter_mut().map(|(_, p)| p).collect();
    let sections = at_precision!(bits, T => merge::<T>(&o, &mut parts, &mut *progress))?;
    Ok((o, sections))
}

/// Where a run of the jobs is, for a progress display.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// Job `index` (0-based) of `total` starts.
    Started {
        /// The job's id.
        id: &'a str,
        /// Its place in the run.
        index: usize,
        /// How many jobs the run has.
        total: usize,
    },
    /// Job `index` of `total` is done: its section (rows, time, verdict).
    Finished {
        /// The job's section.
        section: &'a Section,
        /// Its place in the run.
        index: usize,
        /// How many jobs the run has.
        total: usize,
    },
    /// A shard's share of job `index` is done (no verdict: the rows are
    /// partial until the merge).
    Shared {
        /// The job's id.
        id: &'a str,
        /// What the shard computed: "3 of 12 items" (settings, or blocks of trials), "the whole job",
        /// "nothing (another shard runs it)".
        what: &'a str,
        /// Wall time, seconds.
        seconds: f64,
        /// Its place in the run.
        index: usize,
        /// How many jobs the run has.
        total: usize,
    },
}

/// The selected jobs at precision `T`, in run order, and for MPFR
/// precisions the `f64` jobs their rows are compared with.
fn selected_jobs<T: Scalar>(o: &Options) -> (Vec<Job>, Option<Vec<Job>>) {
    let ids = selected_ids(o);
    let selected: Vec<Job> = jobs::<T>(o)
        .into_iter()
        .filter(|j| ids.contains(&j.id))
        .collect();
    let reference = (T::backend_name() != "f64").then(|| jobs::<f64>(o));
    (selected, reference)
}

/// A job's rows; for MPFR runs of a [`Job::compare_f64`] job each row
/// records its difference from the `f64` run.
fn job_rows(job: &Job, reference: Option<&Vec<Job>>) -> Result<Vec<Row>> {
    let mut rows = (job.rows)()?;
    if let (true, Some(reference)) = (job.compare_f64, reference) {
        if let Some(base) = reference.iter().find(|j| j.id == job.id) {
            for (row, base) in rows.iter_mut().zip((base.rows)()?) {
                row.f64_difference = Some(max_abs_diff(&row.elicited, &base.elicited));
            }
        }
    }
    Ok(rows)
}

fn section(job: &Job, rows: Vec<Row>, seconds: f64) -> Section {
    Section {
        id: job.id,
        title: job.title,
        verdict: (job.verdict)(&rows),
        rows,
        seconds,
        explanation: job.explanation,
        layout: job.layout,
        figure: job.figure,
    }
}

/// Runs the jobs `o.only` selects at precision `T`; for MPFR precisions
/// the jobs marked [`Job::compare_f64`] are also run in `f64` and each row
/// records its difference. `progress` is told when each job starts and
/// when it is done ([`Progress`]).
///
/// # Errors
/// The first job that fails.
pub fn run<T: Scalar>(o: &Options, mut progress: impl FnMut(Progress<'_>)) -> Result<Vec<Section>> {
    let (selected, reference) = selected_jobs::<T>(o);
    let mut sections: Vec<Section> = Vec::new();
    let total = selected.len();
    for (index, job) in selected.into_iter().enumerate() {
        progress(Progress::Started {
            id: job.id,
            index,
            total,
        });
        let start = Instant::now();
        let rows = job_rows(&job, reference.as_ref())?;
        sections.push(section(&job, rows, start.elapsed().as_secs_f64()));
        if let Some(section) = sections.last() {
            progress(Progress::Finished {
                section,
                index,
                total,
            });
        }
    }
    Ok(sections)
}

/// Runs the part `part` of the jobs `o.only` selects at precision `T`
/// (see [`shard`]): a sweep's items the part owns, a whole job it owns.
///
/// # Errors
/// The first job that fails.
pub fn run_shard<T: Scalar>(
    o: &Options,
    precision: &str,
    part: shard::Shard,
    mut progress: impl FnMut(Progress<'_>),
) -> Result<shard::Part> {
    use shard::Content;
    let (selected, reference) = selected_jobs::<T>(o);
    let total = selected.len();
    let mut jobs = Vec::with_capacity(total);
    for (index, job) in selected.iter().enumerate() {
        progress(Progress::Started {
            id: job.id,
            index,
            total,
        });
        let start = Instant::now();
        let split = job.by_items && !(job.compare_f64 && reference.is_some());
        let (content, what) = if split {
            let (rows, calls) = shard::in_shard(part, index, || job_rows(job, reference.as_ref()));
            let rows = rows?;
            if !calls.is_empty() {
                let own: usize = calls.iter().map(|c| c.results.len()).sum();
                let all: usize = calls.iter().map(|c| c.items).sum();
                (Content::Calls(calls), format!("{own} of {all} items"))
            } else if part.owns_job(index) {
                (Content::Rows(rows), "the whole job".to_string())
            } else {
                (Content::Nothing, "nothing (another shard keeps it)".into())
            }
        } else if part.owns_job(index) {
            (
                Content::Rows(job_rows(job, reference.as_ref())?),
                "the whole job".to_string(),
            )
        } else {
            (Content::Nothing, "nothing (another shard runs it)".into())
        };
        let seconds = start.elapsed().as_secs_f64();
        progress(Progress::Shared {
            id: job.id,
            what: &what,
            seconds,
            index,
            total,
        });
        jobs.push(shard::PartJob {
            id: job.id.to_string(),
            seconds,
            content,
        });
    }
    Ok(shard::Part {
        format: shard::FORMAT,
        build: shard::build_id(),
        precision: precision.to_string(),
        only: o.only.clone(),
        search: o.search.name().to_string(),
        trials: o.trials,
        seed: o.seed,
        engines: noise::Way::list(&o.engines),
        particles: o.particles,
        shard: part,
        jobs,
    })
}

/// The sections of a sharded run at precision `T` from its parts: a whole
/// job's rows as its shard computed them, a sweep's rows from its own code
/// replayed on every shard's items. A section's time is the sum of the
/// shards' times for it. Each job's content is moved out of the parts.
///
/// # Errors
/// A job that no part (or more than one) holds, or whose parts disagree.
pub fn merge<T: Scalar>(
    o: &Options,
    parts: &mut [&mut shard::Part],
    mut progress: impl FnMut(Progress<'_>),
) -> Result<Vec<Section>> {
    use shard::Content;
    let (selected, _) = selected_jobs::<T>(o);
    let total = selected.len();
    for part in parts.iter() {
        let ids: Vec<&str> = part.jobs.iter().map(|j| j.id.as_str()).collect();
        let expected: Vec<&str> = selected.iter().map(|j| j.id).collect();
        if ids != expected {
            return Err(Error::invalid(
                "merge",
                format!(
                    "shard {} holds the jobs {} where this build selects {} with the same options",
                    part.shard,
                    ids.join(", "),
                    expected.join(", ")
                ),
            ));
        }
    }
    let mut sections = Vec::with_capacity(total);
    for (index, job) in selected.iter().enumerate() {
        progress(Progress::Started {
            id: job.id,
            index,
            total,
        });
        let seconds: f64 = parts.iter().map(|p| p.jobs[index].seconds).sum();
        let (mut whole, mut calls) = (Vec::new(), Vec::new());
        for part in parts.iter_mut() {
            match std::mem::replace(&mut part.jobs[index].content, Content::Nothing) {
                Content::Rows(rows) => whole.push(rows),
                Content::Calls(recorded) => calls.push(recorded),
                Content::Nothing => {}
            }
        }
        let count = parts.len();
        let bad = |message: String| Error::invalid("merge", format!("job {}: {message}", job.id));
        let rows = match (whole.len(), calls.len()) {
            (1, 0) => whole.pop().unwrap_or_default(),
            (0, n) if n == count => {
                let combined = shard::combine_calls(job.id, calls)?;
                let expected = combined.len();
                let (rows, used) = shard::replaying(combined, || (job.rows)());
                let rows = rows?;
                if used != expected {
                    return Err(bad(format!(
                        "the shards recorded {expected} sweep calls and the job made {used}"
                    )));
                }
                rows
            }
            (0, 0) => return Err(bad("no shard holds it".into())),
            (w, c) => {
                return Err(bad(format!(
                    "{w} shards hold it whole and {c} hold its settings"
                )))
            }
        };
        sections.push(section(job, rows, seconds));
        if let Some(section) = sections.last() {
            progress(Progress::Finished {
                section,
                index,
                total,
            });
        }
    }
    Ok(sections)
}

/// Draws every figure of `sections` into `out`; returns the files written.
///
/// # Errors
/// [`Error::Io`] naming the figure that could not be drawn.
pub fn figures(sections: &[Section], out: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for s in sections {
        if let Some(figure) = s.figure {
            let path = out.join(figure.file);
            (figure.draw)(s, &path).map_err(|message| Error::Io {
                path: path.display().to_string(),
                message,
            })?;
            written.push(path);
        }
    }
    Ok(written)
}

fn vec(v: &[f64]) -> String {
    let inner: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    format!("({})", inner.join(", "))
}

/// Renders `report.md`; `command` is the command line that produced it.
pub fn report(sections: &[Section], command: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Reproduction report\n");
    let _ = writeln!(
        md,
        "`{command}`. Each section gives the paper's numbers beside ours, the queries, the wall time and a verdict.\n"
    );
    for s in sections {
        let _ = writeln!(md, "## {}\n", s.title);
        let _ = writeln!(md, "**Verdict:** {} ({:.2} s)\n", s.verdict, s.seconds);
        let _ = writeln!(md, "{}\n", s.explanation);
        match s.layout {
            Layout::Table => {
                let timed = s.rows.iter().any(|r| r.seconds.is_some());
                let time_head = if timed { " time (s) |" } else { "" };
                let time_rule = if timed { "---|" } else { "" };
                // An LFPM row's error is σ (the spread of φ̂/φ); say so.
                let error_head = if s.rows.iter().any(|r| r.sigma.is_some()) {
                    "error = σ"
                } else {
                    "error"
                };
                let _ = writeln!(md, "| row | truth | paper | ours | queries | {error_head} | α / σ (paper's α / σ) | vs f64 |{time_head} note |");
                let _ = writeln!(md, "|---|---|---|---|---|---|---|---|{time_rule}---|");
                for r in &s.rows {
                    let ab = match (r.alpha, r.sigma, r.paper_alpha_sigma) {
                        (Some(a), Some(sg), Some((pa, ps))) => {
                            format!("{a:.3} / {sg:.4} ({pa} / {ps})")
                        }
                        _ => String::new(),
                    };
                    let paper = if r.paper.is_empty() {
                        "-".into()
                    } else {
                        vec(&r.paper)
                    };
                    let diff = r
                        .f64_difference
                        .map_or(String::new(), |d| format!("{d:.1e}"));
                    let time = if timed {
                        format!(
                            " {} |",
                            r.seconds.map_or(String::new(), |t| format!("{t:.3e}"))
                        )
                    } else {
                        String::new()
                    };
                    // A row that compares nothing has error NaN: "-".
                    let error = if r.error.is_nan() {
                        "-".to_string()
                    } else {
                        format!("{:.4}", r.error)
                    };
                    let _ = writeln!(
                        md,
                        "| {} | {} | {paper} | {} | {} | {error} | {ab} | {diff} |{time} {} |",
                        r.row,
                        vec(&r.truth),
                        vec(&r.elicited),
                        r.queries,
                        r.note
                    );
                }
            }
            Layout::Sweep => sweep_table(&mut md, s),
            Layout::Noise => noise_table(&mut md, s),
        }
        let _ = writeln!(md);
    }
    md
}

/// Sweeps longer than this are summarized in report.md (one row per
/// setting, the adversaries folded in); every row stays in results.json.
const DETAIL_ROWS: usize = 40;

/// A sweep's table: every row, or for a long sweep one row per setting and
/// search with the adversaries folded in (worst error, worst ratio and
/// violations over them).
fn sweep_table(md: &mut String, s: &Section) {
    let adversary = |row: &str| -> Option<usize> {
        let (head, last) = row.rsplit_once(", ")?;
        metric_elicitation::driver::spec::ADVERSARIES
            .iter()
            .chain(["none", "exact", "seeded-random"].iter())
            .any(|a| *a == last)
            .then_some(head.len())
    };
    let mut groups: Vec<(String, &str, Vec<&Row>)> = Vec::new();
    for r in &s.rows {
        let key = adversary(&r.row).map_or(r.row.as_str(), |n| &r.row[..n]);
        match groups
            .iter_mut()
            .find(|(k, search, _)| k == key && *search == r.search)
        {
            Some(g) => g.2.push(r),
            None => groups.push((key.to_string(), &r.search, vec![r])),
        }
    }
    if s.rows.len() <= DETAIL_ROWS || groups.len() * 2 > s.rows.len() {
        let _ = writeln!(md, "| setting | search | trials | max queries | worst error | bound | worst error/bound | violations | note |");
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
        for r in &s.rows {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {:.4} | {} | {} | {} | {} |",
                r.row,
                r.search,
                r.trials.unwrap_or(0),
                r.queries,
                r.worst_error.unwrap_or(r.error),
                r.bound.map_or("-".into(), |b| format!("{b:.4}")),
                r.worst_ratio.map_or("-".into(), |x| format!("{x:.3}")),
                r.violations.map_or("-".into(), |v| v.to_string()),
                r.note
            );
        }
        return;
    }
    let _ = writeln!(
        md,
        "Summary: one row per setting and search, the worst over the adversaries ({} rows; every row, with its note, is in results.json under `\"table\": \"{}\"`).\n",
        s.rows.len(),
        s.id
    );
    let _ = writeln!(md, "| setting | search | adversaries | trials | max queries | worst error | worst error/bound | violations |");
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for (key, search, rows) in &groups {
        let worst = |f: &dyn Fn(&Row) -> Option<f64>| {
            rows.iter()
                .filter_map(|r| f(r))
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))))
        };
        let trials: usize = rows.iter().map(|r| r.trials.unwrap_or(0)).sum();
        let violations: Option<usize> = rows.iter().map(|r| r.violations).sum::<Option<usize>>();
        let _ = writeln!(
            md,
            "| {key} | {search} | {} | {trials} | {} | {} | {} | {} |",
            rows.len(),
            rows.iter().map(|r| r.queries).max().unwrap_or(0),
            worst(&|r| Some(r.worst_error.unwrap_or(r.error)))
                .map_or("-".into(), |x| format!("{x:.4}")),
            worst(&|r| r.worst_ratio).map_or("-".into(), |x| format!("{x:.3}")),
            violations.map_or("-".into(), |v| v.to_string()),
        );
    }
}

/// A noise job's table: one row per setting and engine.
fn noise_table(md: &mut String, s: &Section) {
    let pct = |x: f64| format!("{:.1} %", x * 100.0);
    let _ = writeln!(md, "| setting | engine | trials | within eps | wrong, silent | flagged | 95 % radius covers | questions median / p90 / max | bound | median/bound | mean questions | any procedure, mean ≥ | worst error | ms/question |");
    let _ = writeln!(
        md,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in &s.rows {
        let Some(st) = &r.noise else { continue };
        let bound = r.bound.unwrap_or(f64::NAN);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} / {} / {} | {bound:.1} | {:.2} | {:.1} | {} | {:.3} | {:.2} |",
            r.row,
            r.search,
            r.trials.unwrap_or(0),
            pct(st.within),
            pct(st.silent),
            pct(st.flagged),
            st.coverage.map_or("-".into(), pct),
            st.median_questions,
            st.p90_questions,
            r.queries,
            st.median_questions / bound,
            st.mean_questions,
            st.floor.map_or("-".into(), |f| format!("{f:.1}")),
            r.worst_error.unwrap_or(r.error),
            st.ms_per_question
        );
    }
}

/// The terminal summary: one line per section.
pub fn summary(sections: &[Section]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<14} {:>5} {:>8}  verdict", "table", "rows", "time");
    for s in sections {
        let _ = writeln!(
            out,
            "{:<14} {:>5} {:>7.2}s  {}",
            s.id,
            s.rows.len(),
            s.seconds,
            s.verdict
        );
    }
    let _ = writeln!(out, "{}", verdict_count(sections));
    out
}

/// The closing line: how many verdicts match the paper ("matches", "holds",
/// "within" an allowance), how many differ ("differs", "exceeded", "exceeds"),
/// and how many have no paper number to compare ("measured"); a verdict
/// with none of these words is counted apart, so a new job without one shows.
pub fn verdict_count(sections: &[Section]) -> String {
    let words: [(&[&str], &str); 3] = [
        (&["matches", "holds", "within"], "match"),
        (&["differs", "exceeded", "exceeds"], "differ"),
        (&["measured"], "have no paper number"),
    ];
    let mut counts = vec![0usize; words.len()];
    let mut unworded = 0;
    for s in sections {
        match words
            .iter()
            .position(|(w, _)| w.iter().any(|w| s.verdict.starts_with(w)))
        {
            Some(i) => counts[i] += 1,
            None => unworded += 1,
        }
    }
    let mut parts: Vec<String> = words
        .iter()
        .zip(&counts)
        .map(|((_, name), n)| format!("{n} {name}"))
        .collect();
    if unworded > 0 {
        parts.push(format!(
            "{unworded} without a verdict word (read their lines)"
        ));
    }
    format!("verdicts of {} jobs: {}", sections.len(), parts.join(", "))
}
