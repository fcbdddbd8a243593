//! Executes a spec at the chosen precision: builds the population and the
//! oracle, runs the procedure, and returns the result as JSON.

use super::ask::binary_person;
use super::spec::{Num, OracleSpec, PopulationSpec, Spec};
use metric_elicitation::elicit::binary::{
    alg3_confusions, elicit_lfpm, elicit_lfpm_known_p11, elicit_lpm, maximize_upper, ratio_stats,
    Alg3Settings, Monotonicity,
};
use metric_elicitation::geometry::binary::bayes_confusion;
use metric_elicitation::metric::binary::{Lfpm, Lpm};
use metric_elicitation::oracle::{
    Adversary, AlwaysWrong, Counted, Noisy, Oracle, PushAway, Record, Replay, ReplayThen, Scripted,
    SeededRandom, Simulated, Transcript,
};
use metric_elicitation::population::{
    BinaryConfusion, BinaryPopulation, FiniteBinary, LogisticUniform,
};
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::{check_epsilon, Strategy};
use metric_elicitation::Error;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the answers come from and where they go.
pub enum Mode {
    /// The spec's oracle; optionally record to a transcript file.
    Run { transcript: Option<PathBuf> },
    /// The person at the terminal; resume from / record to a transcript.
    Ask { transcript: Option<PathBuf> },
    /// Answers from these recorded records (`elicit replay`).
    Replay { records: Vec<Record> },
}

/// Runs `spec` in `mode` at the spec's precision.
pub fn execute(spec: &Spec, mode: Mode) -> Result<Value, Error> {
    let precision = spec.precision.as_str();
    if precision == "f64" {
        return execute_at::<f64>(spec, mode);
    }
    let bits = precision
        .strip_prefix("mpfr:")
        .and_then(|b| b.parse::<u32>().ok())
        .ok_or_else(|| {
            Error::invalid(
                "precision",
                format!("{precision:?} is not f64 or mpfr:BITS"),
            )
        })?;
    execute_mpfr(spec, mode, bits)
}

#[cfg(feature = "mpfr")]
fn execute_mpfr(spec: &Spec, mode: Mode, bits: u32) -> Result<Value, Error> {
    use metric_elicitation::scalar::Mpfr;
    match bits {
        64 => execute_at::<Mpfr<64>>(spec, mode),
        128 => execute_at::<Mpfr<128>>(spec, mode),
        256 => execute_at::<Mpfr<256>>(spec, mode),
        512 => execute_at::<Mpfr<512>>(spec, mode),
        1024 => execute_at::<Mpfr<1024>>(spec, mode),
        _ => Err(Error::invalid(
            "precision",
            format!("mpfr:{bits} is not built in (use 64, 128, 256, 512 or 1024)"),
        )),
    }
}

#[cfg(not(feature = "mpfr"))]
fn execute_mpfr(_: &Spec, _: Mode, bits: u32) -> Result<Value, Error> {
    Err(Error::invalid(
        "precision",
        format!("mpfr:{bits} needs a build with the MPFR feature: cargo run --release --features mpfr -- ..."),
    ))
}

type Population<T> = Box<dyn BinaryPopulation<T>>;
type BinaryOracle<T> = Box<dyn Oracle<BinaryConfusion<T>>>;

fn population<T: Scalar>(spec: &PopulationSpec) -> Result<Population<T>, Error> {
    match spec {
        PopulationSpec::Synthetic003 { a } => Ok(Box::new(LogisticUniform::new(
            a.to_scalar::<T>("population.a")?,
        )?)),
        PopulationSpec::Csv {
            path,
            score_column,
            label_column,
        } => Ok(Box::new(read_csv::<T>(path, score_column, label_column)?)),
        PopulationSpec::Synthetic002 { .. } => Err(Error::invalid(
            "population.kind",
            "synthetic-002 is a multiclass population",
        )),
    }
}

/// Reads (score, label) pairs from a CSV file with a header row.
pub fn read_csv<T: Scalar>(
    path: &Path,
    score: &str,
    label: &str,
) -> Result<FiniteBinary<T>, Error> {
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let text = std::fs::read_to_string(path).map_err(io)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let column = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            Error::invalid(
                "population",
                format!(
                    "{}: no column {name:?} (columns: {})",
                    path.display(),
                    header.join(", ")
                ),
            )
        })
    };
    let (si, li) = (column(score)?, column(label)?);
    let mut pairs = Vec::new();
    for (n, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = |what: &str| {
            Error::invalid(
                "population",
                format!("{} line {}: {what}", path.display(), n + 2),
            )
        };
        let s = cells.get(si).ok_or_else(|| bad("missing score"))?;
        let s = T::decode(s).map_err(|_| bad(&format!("score {s:?} is not a number")))?;
        let y = match cells.get(li).copied() {
            Some("1") | Some("1.0") => true,
            Some("0") | Some("0.0") => false,
            other => return Err(bad(&format!("label {other:?} is not 0 or 1"))),
        };
        pairs.push((s, y));
    }
    FiniteBinary::new(pairs)
}

/// The hidden metric of a simulated oracle, when the spec gives one.
enum Truth<T> {
    Lpm(Lpm<T>),
    Lfpm(Lfpm<T>),
}

fn truth<T: Scalar>(spec: &Spec, zeta: &T) -> Result<Option<Truth<T>>, Error> {
    let OracleSpec::Simulated { metric, .. } = &spec.oracle else {
        return Ok(None);
    };
    let v: Vec<T> = metric
        .iter()
        .enumerate()
        .map(|(i, x)| x.to_scalar::<T>(&format!("oracle.metric[{i}]")))
        .collect::<Result<_, _>>()?;
    Ok(Some(if spec.procedure == "binary-lpm" {
        Truth::Lpm(Lpm::new(v[0].clone(), v[1].clone(), T::int(0))?)
    } else {
        let m = Lfpm::new(
            v[0].clone(),
            v[1].clone(),
            v[2].clone(),
            v[3].clone(),
            v[4].clone(),
        )?;
        m.check_assumption2(zeta)?;
        Truth::Lfpm(m)
    }))
}

pub fn hex_bytes(script: &str) -> Result<Vec<u8>, Error> {
    let clean: String = script.chars().filter(|c| !c.is_whitespace()).collect();
    if !clean.len().is_multiple_of(2) {
        return Err(Error::invalid("oracle.script", "hex string of odd length"));
    }
    (0..clean.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&clean[i..i + 2], 16).map_err(|_| {
                Error::invalid("oracle.script", format!("not hex: {:?}", &clean[i..i + 2]))
            })
        })
        .collect()
}

fn simulated_oracle<T: Scalar>(
    spec: &Spec,
    truth: &Truth<T>,
    population: &dyn BinaryPopulation<T>,
) -> Result<BinaryOracle<T>, Error> {
    let OracleSpec::Simulated {
        eps_omega,
        adversary,
        seed,
        script,
        ..
    } = &spec.oracle
    else {
        unreachable!("called for simulated oracles only");
    };
    let eps_omega: T = eps_omega
        .clone()
        .unwrap_or(Num::Float(0.0))
        .to_scalar("oracle.eps_omega")?;
    // The optimum, for the push-away adversary.
    let optimum = match truth {
        Truth::Lpm(m) => bayes_confusion(population, &m.m11, &m.m00)?,
        Truth::Lfpm(m) => {
            let fine = T::epsilon().sqrt();
            maximize_upper(
                population,
                &mut Simulated::new(m.clone()),
                &fine,
                Strategy::Golden,
            )?
            .confusion
        }
    };
    let adversary: Box<dyn Adversary<BinaryConfusion<T>>> =
        match adversary.as_deref().unwrap_or("random") {
            "always-wrong" => Box::new(AlwaysWrong),
            "push-away" => Box::new(PushAway::new(move |c: &BinaryConfusion<T>| {
                (c.tp.clone() - optimum.tp.clone()).powi(2)
                    + (c.tn.clone() - optimum.tn.clone()).powi(2)
            })),
            "scripted" => Box::new(Scripted::new(hex_bytes(script.as_deref().unwrap_or(""))?)),
            _ => Box::new(SeededRandom::new(*seed)),
        };
    Ok(match truth {
        Truth::Lpm(m) => Box::new(Noisy::new(m.clone(), eps_omega, adversary)?),
        Truth::Lfpm(m) => Box::new(Noisy::new(m.clone(), eps_omega, adversary)?),
    })
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The header line of a transcript: the spec, so `elicit replay` can re-run.
fn header_line(spec: &Spec) -> String {
    json!({ "header": { "elicit_transcript": 1, "spec": spec } }).to_string()
}

/// Reads a transcript file: (spec from the header, records).
pub fn read_transcript(path: &Path) -> Result<(Option<Spec>, Vec<Record>), Error> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    let (header, records) = Transcript::read(&text).map_err(|e| match e {
        Error::MalformedTranscript { line, reason } => Error::MalformedTranscript {
            line,
            reason: format!("{} ({reason})", path.display()),
        },
        other => other,
    })?;
    let spec = match header {
        Some(h) => Some(
            serde_json::from_value::<Spec>(h["spec"].clone()).map_err(|e| {
                Error::MalformedTranscript {
                    line: 1,
                    reason: format!("{}: header spec: {e}", path.display()),
                }
            })?,
        ),
        None => None,
    };
    Ok((spec, records))
}

/// The oracle behind the counting wrapper, with the spec's budget and the
/// transcript (if any).
pub fn counted<O>(
    oracle: O,
    spec: &Spec,
    transcript: Option<Transcript>,
) -> Result<Counted<O>, Error> {
    let mut oracle = Counted::new(oracle);
    if let Some(budget) = spec.budget {
        oracle = oracle.with_budget(budget)?;
    }
    if let Some(t) = transcript {
        oracle = oracle.with_transcript(t);
    }
    Ok(oracle)
}

/// The person (behind the replay of earlier answers) and the transcript.
pub type AskOracle<Q> = (Box<dyn Oracle<Q>>, Option<Transcript>);

/// The person oracle of `elicit ask`, resuming from `file` when it holds
/// earlier answers for the same spec, and the transcript to record to.
pub fn ask_oracle<Q, P>(
    spec: &Spec,
    file: Option<PathBuf>,
    person: P,
) -> Result<AskOracle<Q>, Error>
where
    Q: metric_elicitation::oracle::QueryPoint + 'static,
    P: Oracle<Q> + 'static,
{
    Ok(match file {
        Some(path) if path.exists() => {
            let (recorded_spec, records) = read_transcript(&path)?;
            if recorded_spec.as_ref() != Some(spec) {
                return Err(Error::invalid(
                    "transcript",
                    format!(
                        "{} was recorded for a different spec; use another file",
                        path.display()
                    ),
                ));
            }
            let f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .map_err(io_error(&path))?;
            eprintln!(
                "resuming: {} answers already recorded in {}",
                records.len(),
                path.display()
            );
            let n = records.len();
            (
                Box::new(ReplayThen::new(records, person)),
                Some(Transcript::appending_to(Box::new(f), n)),
            )
        }
        Some(path) => (Box::new(person), Some(new_transcript(spec, &path)?)),
        None => (Box::new(person), None),
    })
}

/// A fresh transcript file holding the spec's header line.
pub fn new_transcript(spec: &Spec, path: &Path) -> Result<Transcript, Error> {
    let mut f = std::fs::File::create(path).map_err(io_error(path))?;
    writeln!(f, "{}", header_line(spec)).map_err(io_error(path))?;
    f.flush().map_err(io_error(path))?;
    Ok(Transcript::writing_to(Box::new(f)))
}

fn execute_at<T: Scalar>(spec: &Spec, mode: Mode) -> Result<Value, Error> {
    if super::spec::is_multiclass(&spec.procedure) {
        return super::multiclass::execute::<T>(spec, mode);
    }
    let eps: T = spec.epsilon.to_scalar("epsilon")?;
    check_epsilon(&eps)?;
    let strategy = spec.strategy()?;
    let population = population::<T>(&spec.population)?;
    let zeta = population.zeta();
    let truth = truth::<T>(spec, &zeta)?;

    // The oracle, and where its answers are recorded.
    let mut transcript = None;
    let oracle: BinaryOracle<T> = match mode {
        Mode::Replay { records } => Box::new(Replay::new(records)),
        Mode::Run { transcript: file } => {
            if let Some(path) = file {
                transcript = Some(new_transcript(spec, &path)?);
            }
            match (&spec.oracle, &truth) {
                (OracleSpec::Simulated { .. }, Some(t)) => {
                    simulated_oracle(spec, t, population.as_ref())?
                }
                (OracleSpec::Replay { transcript: path }, _) => {
                    Box::new(Replay::new(read_transcript(path)?.1))
                }
                _ => {
                    return Err(Error::invalid(
                        "oracle",
                        "a person answers through `elicit ask`, not `elicit run`",
                    ))
                }
            }
        }
        Mode::Ask { transcript: file } => {
            let (oracle, t) = ask_oracle(spec, file, binary_person(zeta.clone()))?;
            transcript = t;
            oracle
        }
    };
    let mut oracle = counted(oracle, spec, transcript)?;

    let mut elicited = Map::new();
    let mut exact = Map::new();
    let mut put = |name: &str, v: &T| {
        elicited.insert(name.into(), json!(v.to_f64_lossy()));
        exact.insert(name.into(), json!(v.encode()));
    };
    let mut out = Map::new();
    match spec.procedure.as_str() {
        "binary-lpm" => {
            let monotonicity = match spec.monotonicity.as_deref() {
                Some("increasing") => Monotonicity::Increasing,
                Some("decreasing") => Monotonicity::Decreasing,
                _ => Monotonicity::Unknown,
            };
            let est = elicit_lpm(
                population.as_ref(),
                &mut oracle,
                &eps,
                strategy,
                monotonicity,
            )?;
            put("m11", &est.m11);
            put("m00", &est.m00);
            out.insert("theta".into(), json!(est.search.theta.to_f64_lossy()));
            if let Some(Truth::Lpm(m)) = &truth {
                let u = m.unit();
                out.insert(
                    "truth".into(),
                    json!({"m11": u.m11.to_f64_lossy(), "m00": u.m00.to_f64_lossy()}),
                );
                let err = (u.m11 - est.m11).abs().max((u.m00 - est.m00).abs());
                out.insert("error".into(), json!(err.to_f64_lossy()));
            }
        }
        procedure => {
            let settings = Alg3Settings {
                confusions_per_side: spec.alg3_confusions.unwrap_or(1000),
                steps: spec.alg3_steps.unwrap_or(100),
            };
            let est = if procedure == "binary-lfpm" {
                elicit_lfpm(population.as_ref(), &mut oracle, &eps, strategy, settings)?
            } else {
                let p11: T = spec
                    .p11
                    .clone()
                    .unwrap_or(Num::Float(1.0))
                    .to_scalar("p11")?;
                elicit_lfpm_known_p11(population.as_ref(), &mut oracle, &p11, &eps, strategy)?
            };
            let m = &est.metric;
            for (name, v) in [
                ("p11", &m.p11),
                ("p00", &m.p00),
                ("q11", &m.q11),
                ("q00", &m.q00),
                ("q0", &m.q0),
            ] {
                put(name, v);
            }
            if let Some(Truth::Lfpm(t)) = &truth {
                let (upper, _) =
                    alg3_confusions(population.as_ref(), settings.confusions_per_side)?;
                let (alpha, sigma) = ratio_stats(m, t, &upper)?;
                out.insert(
                    "truth".into(),
                    json!({"p11": t.p11.to_f64_lossy(), "p00": t.p00.to_f64_lossy(), "q11": t.q11.to_f64_lossy(), "q00": t.q00.to_f64_lossy(), "q0": t.q0.to_f64_lossy()}),
                );
                out.insert("alpha".into(), json!(alpha.to_f64_lossy()));
                out.insert("sigma".into(), json!(sigma.to_f64_lossy()));
                out.insert("error".into(), json!(sigma.to_f64_lossy()));
            }
        }
    }
    out.insert("procedure".into(), json!(spec.procedure));
    out.insert("precision".into(), json!(T::backend_name()));
    out.insert("search".into(), json!(strategy.name()));
    out.insert("queries".into(), json!(oracle.queries()));
    out.insert("in_band_queries".into(), json!(oracle.in_band_queries()));
    out.insert("elicited".into(), Value::Object(elicited));
    out.insert("elicited_exact".into(), Value::Object(exact));
    Ok(Value::Object(out))
}
