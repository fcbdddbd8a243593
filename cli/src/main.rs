//! `elicit`: reproduce the papers, run a spec, replay a transcript, elicit
//! from a person. See the README for a tour.

/// `eprintln!` that never panics: when stderr is a closed pipe
/// (`elicit … 2>&1 | head`) the line is lost, not the run.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// `print!` on stdout that never panics (a closed pipe loses the text).
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

/// `println!` on stdout that never panics.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod ask;
mod rank;
mod reproduce;
mod web;

use clap::{Parser, Subcommand};
use metric_elicitation::driver;
use metric_elicitation::driver::rank::PredictionColumns;
use metric_elicitation::driver::session::{Finished, Mode};
use metric_elicitation::driver::spec::Spec;
use metric_elicitation::search::Strategy;
use metric_elicitation::Error;
use metric_elicitation_lab::reproduce::Options;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "elicit",
    version,
    about = "Metric elicitation from pairwise classifier preferences"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Re-run every table and theorem check; write report.md, results.json and SVG figures.
    Reproduce {
        /// Only these families or tables (e.g. 003, 003-table1).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
        /// Output folder.
        #[arg(long, default_value = "reproduction")]
        out: PathBuf,
        /// f64 or mpfr:BITS (64, 128, 256, 512, 1024; needs --features mpfr).
        #[arg(long, default_value = "f64")]
        precision: String,
        /// Search strategy for the tables: paper, adaptive or golden.
        #[arg(long, default_value = "paper")]
        search: String,
        /// Random metrics per setting in the theorem checks.
        #[arg(long, default_value_t = 1000)]
        trials: usize,
        /// Seed of every random choice.
        #[arg(long, default_value_t = 2019)]
        seed: u64,
        /// Worker threads for the sweeps (default: every core). The results
        /// are the same for every value.
        #[arg(long)]
        jobs: Option<usize>,
        /// Run only the I-th of N disjoint parts (1 <= I <= N) and write it to
        /// --out as shard-I-of-N.cbor; `elicit merge` combines the N parts
        /// into what a single run writes, byte for byte.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// The noise jobs' elicitations per trial: known (the engine told
        /// the person's model), flips (flips at an unknown rate: the
        /// default for a simulated oracle that only flips), person (the
        /// person model: a person's default), search (the papers');
        /// comma-separated (default:
        /// all four). The rows kept are the same as in a run of all four.
        #[arg(long, value_name = "LIST")]
        engines: Option<String>,
        /// The noise jobs' engine particles (64 to 100000; default: the
        /// engine's 1000). More give a credible radius that covers the
        /// truth more nearly as often as its level says, at about
        /// proportionally more time per question.
        #[arg(long, value_name = "N")]
        particles: Option<usize>,
    },
    /// Combine the parts of `reproduce --shard I/N` (folders or .cbor files) into report.md, results.json and the figures.
    Merge {
        /// Folders holding shard-*.cbor files, or the files themselves.
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// Output folder.
        #[arg(long, default_value = "reproduction")]
        out: PathBuf,
    },
    /// Run the procedure a spec (TOML or JSON) describes; print the result as JSON.
    Run {
        /// The spec file (.toml, or JSON).
        spec: PathBuf,
        /// Write every query and answer to this file (JSON lines, flushed per answer).
        #[arg(long)]
        transcript: Option<PathBuf>,
        /// Exit 0 even when the answers leave the metric undetermined (the result, with its `undetermined` list, is printed either way; without this flag the exit status is then 3).
        #[arg(long)]
        allow_undetermined: bool,
    },
    /// Elicit from the person at the terminal (or in the browser with --web); resumes from --transcript if it exists. A spec naming no engine is asked by the Bayesian engine, which allows for slips and for confusion between classifiers of nearly equal value (the person model, unless the spec names assumed_mistake_rate), where the procedure has it (binary-lpm, dlpm, lpme, fpme, qpme, fair-qpme, cubic, cost-reward; binary-lfpm, binary-lfpm-known-p11, lpm and qpme-tradeoff are asked by the papers' search).
    Ask {
        /// The spec file (its oracle is the person).
        spec: PathBuf,
        /// Record every answer here and resume from it if it exists.
        #[arg(long)]
        transcript: Option<PathBuf>,
        /// Serve a page on 127.0.0.1 instead of asking at the terminal; prints its address (with a per-session token).
        #[arg(long)]
        web: bool,
        /// The port of --web (default: a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Check questions asked after the elicitation (random pairs of the classifiers shown): at least this many, up to 3 times as many while their answers decide nothing.
        #[arg(long, default_value_t = metric_elicitation::driver::interview::DEFAULT_CHECKS)]
        checks: usize,
        /// Exit 0 even when the answers leave the metric undetermined (exit status 3 otherwise).
        #[arg(long)]
        allow_undetermined: bool,
    },
    /// Re-run a recorded elicitation from its transcript and print the identical result.
    Replay {
        /// A transcript written by run or ask.
        transcript: PathBuf,
        /// Exit 0 even when the answers leave the metric undetermined (exit status 3 otherwise).
        #[arg(long)]
        allow_undetermined: bool,
    },
    /// Rank classifiers by an elicited metric, best first (and compare with a true metric).
    Rank {
        /// The metric: the JSON result of run or ask (its procedure and elicited).
        #[arg(long)]
        metric: PathBuf,
        /// CSV with one column per classifier (its predicted class per row), the label and optional group columns.
        #[arg(long)]
        predictions: PathBuf,
        /// The label column.
        #[arg(long, default_value = "label")]
        label: String,
        /// The group column (fair metrics; a column named group, group_* or *_group is never ranked as a classifier).
        #[arg(long)]
        group: Option<String>,
        /// The classifier columns, comma-separated (default: every column but the label and the group).
        #[arg(long, value_delimiter = ',')]
        classifiers: Option<Vec<String>>,
        /// A true metric (same form): adds NDCG and Kendall tau-b between the two rankings.
        #[arg(long)]
        truth: Option<PathBuf>,
        /// Cost/reward metrics: CSV with a classifier column and one column per attribute.
        #[arg(long)]
        attributes: Option<PathBuf>,
        /// Print JSON: {"ranking": [{"classifier": NAME, "value": ...}, ...], ...}.
        #[arg(long)]
        json: bool,
    },
}

/// Errors caused by what the user gave (exit status 2) rather than by a run.
fn is_input_error(e: &Error) -> bool {
    matches!(
        e.root_cause(),
        Error::InvalidEpsilon { .. }
            | Error::InvalidNoise { .. }
            | Error::InvalidInterval { .. }
            | Error::InvalidArgument { .. }
            | Error::Assumption { .. }
            | Error::Parse { .. }
            | Error::Spec { .. }
            | Error::MalformedTranscript { .. }
            | Error::TranscriptMismatch { .. }
            | Error::TranscriptExhausted { .. }
            | Error::ZeroBudget
            | Error::Io { .. }
    )
}

/// The exit status of a result whose `undetermined` list is not empty
/// (the result is printed all the same), unless `--allow-undetermined`.
const UNDETERMINED: u8 = 3;

/// How a command ended without an error.
enum Outcome {
    /// Exit status 0.
    Done,
    /// The result was printed, but the answers leave the metric
    /// undetermined: exit status 3.
    Undetermined,
}

/// The library's progress records (the `log` facade, level info and
/// above, targets under `metric_elicitation`) on stderr, one line each:
/// a long search (the sphere search on a large dataset) says how far it
/// is.
struct Progress;

impl log::Log for Progress {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::Level::Info && metadata.target().starts_with("metric_elicitation")
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            say!("{}", record.args());
        }
    }

    fn flush(&self) {}
}

static PROGRESS: Progress = Progress;

fn main() -> ExitCode {
    if log::set_logger(&PROGRESS).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    let args = Args::parse();
    match run(args.command) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Undetermined) => ExitCode::from(UNDETERMINED),
        Err(e) => {
            say!("error: {e}");
            ExitCode::from(if is_input_error(&e) { 2 } else { 1 })
        }
    }
}

fn print(value: &serde_json::Value) -> Result<(), Error> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| Error::invalid("output", e.to_string()))?;
    // A closed pipe (`elicit run … | head`) ends the output quietly.
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Io {
            path: "stdout".into(),
            message: e.to_string(),
        }),
        _ => Ok(()),
    }
}

/// Prints a result; says on stderr what the answers leave undetermined,
/// and whether that sets the exit status.
fn done(value: &serde_json::Value, allow_undetermined: bool) -> Result<Outcome, Error> {
    print(value)?;
    let open: Vec<&str> = value
        .get("undetermined")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .collect();
    if open.is_empty() {
        return Ok(Outcome::Done);
    }
    for line in &open {
        say!("undetermined: {line}");
    }
    if allow_undetermined {
        Ok(Outcome::Done)
    } else {
        say!(
            "the answers leave the metric undetermined (the result above is one metric they allow): exit status {UNDETERMINED}; --allow-undetermined exits 0"
        );
        Ok(Outcome::Undetermined)
    }
}

fn finish(result: Finished, spec: &Path, allow_undetermined: bool) -> Result<Outcome, Error> {
    match result {
        Finished::Done(value) => done(&value, allow_undetermined),
        Finished::Stopped {
            answered,
            transcript,
        } => {
            match transcript {
                Some(t) => say!(
                    "stopped: {answered} answers recorded in {}; resume with: elicit ask {} --transcript {}",
                    t.display(),
                    spec.display(),
                    t.display()
                ),
                None => say!(
                    "stopped after {answered} answers; they were not saved (pass --transcript FILE to keep them)"
                ),
            }
            Ok(Outcome::Done)
        }
    }
}

fn run(command: Command) -> Result<Outcome, Error> {
    match command {
        Command::Run {
            spec,
            transcript,
            allow_undetermined,
        } => finish(
            driver::run(&Spec::load(&spec)?, Mode::Run { transcript })?,
            &spec,
            allow_undetermined,
        ),
        Command::Ask {
            spec,
            transcript,
            web,
            port,
            checks,
            allow_undetermined,
        } => {
            let loaded = Spec::load(&spec)?;
            if web {
                return web::serve(&spec, loaded, transcript, checks, port).map(|()| Outcome::Done);
            }
            match ask::run(loaded, transcript.as_deref(), checks)? {
                ask::Ended::Done(value) => finish(Finished::Done(value), &spec, allow_undetermined),
                ask::Ended::Stopped {
                    answered,
                    transcript,
                } => finish(
                    Finished::Stopped {
                        answered,
                        transcript,
                    },
                    &spec,
                    allow_undetermined,
                ),
            }
        }
        Command::Replay {
            transcript,
            allow_undetermined,
        } => done(&driver::replay(&transcript)?, allow_undetermined),
        Command::Rank {
            metric,
            predictions,
            label,
            group,
            classifiers,
            truth,
            attributes,
            json,
        } => rank::run(
            &metric,
            &predictions,
            &PredictionColumns {
                label,
                group,
                classifiers,
            },
            truth.as_deref(),
            attributes.as_deref(),
            json,
        )
        .map(|()| Outcome::Done),
        Command::Reproduce {
            only,
            out,
            precision,
            search,
            trials,
            seed,
            jobs,
            shard,
            engines,
            particles,
        } => {
            let engines = match engines {
                Some(list) => metric_elicitation_lab::reproduce::noise::Way::parse_list(&list)?,
                None => metric_elicitation_lab::reproduce::noise::Way::ALL.to_vec(),
            };
            let shard = shard
                .as_deref()
                .map(metric_elicitation_lab::reproduce::shard::Shard::parse)
                .transpose()?;
            if let Some(n) = jobs {
                if n == 0 {
                    return Err(Error::invalid("--jobs", "needs at least one thread"));
                }
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build_global()
                    .map_err(|e| Error::invalid("--jobs", e.to_string()))?;
            }
            let known = metric_elicitation_lab::reproduce::ids();
            for name in &only {
                if !known.iter().any(|id| id.starts_with(name.as_str())) {
                    return Err(Error::invalid(
                        "--only",
                        format!("no table or family {name:?} (known: {})", known.join(", ")),
                    ));
                }
            }
            if trials == 0 {
                return Err(Error::invalid("--trials", "needs at least one trial"));
            }
            if let Some(n) = particles {
                let most = metric_elicitation::driver::adapters::bayes::MAX_PARTICLES;
                if !(64..=most).contains(&n) {
                    return Err(Error::invalid(
                        "--particles",
                        format!("must be between 64 and {most}, got {n}"),
                    ));
                }
            }
            let search: Strategy = search.parse()?;
            if search.needs_symmetry() {
                return Err(Error::invalid(
                    "--search",
                    "bisection needs a metric symmetric along each search, which the tables' boundary and face searches are not; the LPME rows that use it name it",
                ));
            }
            let options = Options {
                only,
                search,
                trials,
                seed,
                engines,
                particles,
            };
            let command = reproduce::command_line(&precision, &options);
            match shard {
                Some(part) => reproduce::shard(&options, &precision, part, &out),
                None => reproduce_at_precision(&options, &precision, &out, &command),
            }
            .map(|()| Outcome::Done)
        }
        Command::Merge { parts, out } => reproduce::merge(&parts, &out).map(|()| Outcome::Done),
    }
}

fn reproduce_at_precision(
    o: &Options,
    precision: &str,
    out: &Path,
    command: &str,
) -> Result<(), Error> {
    let bits = metric_elicitation::scalar::precision_bits(precision, "--precision")?;
    #[cfg(not(feature = "mpfr"))]
    if bits.is_some() {
        // Refused before anything is computed or created.
        return reproduce::run_at(o, bits).map(|_| ());
    }
    prepare_out(out)?;
    let sections = reproduce::run_at(o, bits)?;
    write_reproduction(&sections, out, command)
}

/// Writes report.md, results.json and the figures of `sections` into `out`
/// and prints the summary.
pub(crate) fn write_reproduction(
    sections: &[metric_elicitation_lab::reproduce::Section],
    out: &Path,
    command: &str,
) -> Result<(), Error> {
    let write = |name: &str, text: String| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    };
    write(
        "report.md",
        metric_elicitation_lab::reproduce::report(sections, command),
    )?;
    let rows: Vec<_> = sections.iter().flat_map(|s| s.rows.iter()).collect();
    write(
        "results.json",
        serde_json::to_string_pretty(&rows)
            .map_err(|e| Error::invalid("results", e.to_string()))?,
    )?;
    let figures = metric_elicitation_lab::reproduce::figures(sections, out)?;
    out!("{}", metric_elicitation_lab::reproduce::summary(sections));
    outln!(
        "wrote {}/report.md, results.json and {} figures",
        out.display(),
        figures.len()
    );
    Ok(())
}

/// Checks before any computing that `out` is (or can be made) a writable
/// folder.
pub(crate) fn prepare_out(out: &Path) -> Result<(), Error> {
    let io = |message: String| Error::Io {
        path: out.display().to_string(),
        message,
    };
    if out.exists() && !out.is_dir() {
        return Err(io(
            "is an existing file; --out needs a folder for report.md, results.json and the figures"
                .into(),
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| io(format!("cannot create the folder: {e}")))?;
    let probe = out.join(".elicit-write-check");
    std::fs::write(&probe, b"").map_err(|e| io(format!("not writable: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
