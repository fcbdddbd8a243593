//! `run`/`replay` for the multiclass procedures of 002 (DLPM, LPM) and the
//! general sphere LPME.

use super::ask::vector_person;
use super::run::{ask_oracle, counted, hex_bytes, new_transcript, read_transcript, Mode};
use super::spec::{Num, OracleSpec, PopulationSpec, Spec};
use metric_elicitation::elicit::lpme::{lpme, AngleOrder, LpmeSettings, Orthant};
use metric_elicitation::elicit::multiclass::elicit_dlpm;
use metric_elicitation::geometry::sphere::Sign;
use metric_elicitation::oracle::{
    Adversary, AlwaysWrong, Noisy, Oracle, PushAway, Replay, Scripted, SeededRandom,
};
use metric_elicitation::population::{LogisticMulticlass, MulticlassPopulation};
use metric_elicitation::reproduce::multiclass::sphere_for;
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::check_epsilon;
use metric_elicitation::Error;
use nalgebra::DVector;
use serde_json::{json, Map, Value};

type VectorOracle<T> = Box<dyn Oracle<DVector<T>>>;

pub fn execute<T: Scalar>(spec: &Spec, mode: Mode) -> Result<Value, Error> {
    let eps: T = spec.epsilon.to_scalar("epsilon")?;
    check_epsilon(&eps)?;
    let strategy = spec.strategy()?;
    let PopulationSpec::Synthetic002 { p } = &spec.population else {
        return Err(Error::invalid(
            "population.kind",
            "multiclass procedures need a synthetic-002 population",
        ));
    };
    let p: Vec<T> = p
        .iter()
        .enumerate()
        .map(|(i, v)| v.to_scalar(&format!("population.p[{i}]")))
        .collect::<Result<_, _>>()?;
    let population = LogisticMulticlass::new(p)?;
    let sphere = sphere_for(&population)?;
    let truth: Option<DVector<T>> = match &spec.oracle {
        OracleSpec::Simulated { metric, .. } => {
            let v: Vec<T> = metric
                .iter()
                .enumerate()
                .map(|(i, x)| x.to_scalar(&format!("oracle.metric[{i}]")))
                .collect::<Result<_, _>>()?;
            let v = DVector::from_vec(v);
            let norm = if spec.procedure == "dlpm" {
                v.iter().fold(T::int(0), |s, x| s + x.clone().abs())
            } else {
                v.norm()
            };
            if spec.procedure == "dlpm" && v.iter().any(|x| *x < T::int(0)) {
                return Err(Error::Assumption {
                    assumption: "002 Def. 5 (DLPM weights >= 0)".into(),
                    detail: "oracle.metric has a negative weight".into(),
                });
            }
            if spec.procedure == "lpm" && v.iter().any(|x| *x > T::int(0)) {
                return Err(Error::Assumption {
                    assumption: "002 §2.2 (LPM monotonically decreasing: weights <= 0)".into(),
                    detail: "oracle.metric has a positive weight; use procedure lpme for any signs"
                        .into(),
                });
            }
            if norm == T::int(0) {
                return Err(Error::invalid("oracle.metric", "all weights are zero"));
            }
            Some(v / norm)
        }
        _ => None,
    };
    let mut transcript = None;
    let oracle: VectorOracle<T> = match mode {
        Mode::Replay { records } => Box::new(Replay::new(records)),
        Mode::Ask { transcript: file } => {
            let (oracle, t) = ask_oracle(spec, file, vector_person::<T>(population.classes()))?;
            transcript = t;
            oracle
        }
        Mode::Run { transcript: file } => {
            if let Some(path) = file {
                transcript = Some(new_transcript(spec, &path)?);
            }
            match (&spec.oracle, &truth) {
                (
                    OracleSpec::Simulated {
                        eps_omega,
                        adversary,
                        seed,
                        script,
                        ..
                    },
                    Some(t),
                ) => {
                    let eps_omega: T = eps_omega
                        .clone()
                        .unwrap_or(Num::Float(0.0))
                        .to_scalar("oracle.eps_omega")?;
                    let optimum = if spec.procedure == "dlpm" {
                        None
                    } else {
                        Some(sphere.point(&(t / t.norm()))?)
                    };
                    let adversary: Box<dyn Adversary<DVector<T>>> = match adversary
                        .as_deref()
                        .unwrap_or("random")
                    {
                        "always-wrong" => Box::new(AlwaysWrong),
                        "push-away" if spec.procedure == "dlpm" => {
                            return Err(Error::invalid("oracle.adversary", "push-away needs one optimum; DLPM searches one per face (use always-wrong, random or scripted)"));
                        }
                        "push-away" => {
                            let optimum = optimum
                                .unwrap_or_else(|| DVector::from_element(sphere.dim(), T::int(0)));
                            Box::new(PushAway::new(move |z: &DVector<T>| {
                                (z - &optimum).norm_squared()
                            }))
                        }
                        "scripted" => {
                            Box::new(Scripted::new(hex_bytes(script.as_deref().unwrap_or(""))?))
                        }
                        _ => Box::new(SeededRandom::new(*seed)),
                    };
                    let t = t.clone();
                    Box::new(Noisy::new(
                        move |z: &DVector<T>| t.dot(z),
                        eps_omega,
                        adversary,
                    )?)
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
    };
    let mut oracle = counted(oracle, spec, transcript)?;
    let mut out = Map::new();
    let estimate = match spec.procedure.as_str() {
        "dlpm" => {
            let est = elicit_dlpm(
                &population,
                &mut oracle,
                &metric_elicitation::elicit::multiclass::DlpmSettings::paper(eps.clone(), strategy),
            )?;
            out.insert(
                "unidentified_faces".into(),
                json!(est
                    .unidentified_faces
                    .iter()
                    .map(|i| format!("(1, {})", i + 1))
                    .collect::<Vec<_>>()),
            );
            est.a
        }
        procedure => {
            let q = sphere.dim();
            let general = procedure == "lpme";
            let settings = LpmeSettings {
                eps: eps.clone(),
                strategy,
                cycles: spec.cycles.unwrap_or(if general { 4 } else { 2 }),
                orthant: if general {
                    Orthant::Detect
                } else {
                    Orthant::Known(vec![Sign::Negative; q])
                },
                order: AngleOrder::Paper,
                stop_early: false,
            };
            let est = lpme(&sphere, &mut oracle, &settings)?;
            out.insert(
                "sphere_radius".into(),
                json!(sphere.radius().to_f64_lossy()),
            );
            est.a
        }
    };
    out.insert("procedure".into(), json!(spec.procedure));
    out.insert("precision".into(), json!(T::backend_name()));
    out.insert("search".into(), json!(strategy.name()));
    out.insert("queries".into(), json!(oracle.queries()));
    out.insert("in_band_queries".into(), json!(oracle.in_band_queries()));
    out.insert(
        "elicited".into(),
        json!(estimate
            .iter()
            .map(|v| v.to_f64_lossy())
            .collect::<Vec<_>>()),
    );
    out.insert(
        "elicited_exact".into(),
        json!(estimate.iter().map(|v| v.encode()).collect::<Vec<_>>()),
    );
    if let Some(t) = truth {
        out.insert(
            "truth".into(),
            json!(t.iter().map(|v| v.to_f64_lossy()).collect::<Vec<_>>()),
        );
        out.insert("error".into(), json!((t - estimate).amax().to_f64_lossy()));
    }
    Ok(Value::Object(out))
}
