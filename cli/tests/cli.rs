//! The `elicit` binary end to end: every example spec, transcripts and
//! replay, `ask` with scripted input (including a killed and resumed
//! session), `reproduce`, and bad input exiting with status 2.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn elicit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_elicit"))
}

fn specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/specs")
}

/// An example spec on the shipped wine data, its data path made absolute
/// (to be written elsewhere).
fn wine_spec(file: &str) -> String {
    let text = std::fs::read_to_string(specs().join(file)).unwrap();
    let data = specs().join("../../lab/data/wine_quality_multiclass.csv.gz");
    text.replace(
        "\"../../lab/data/wine_quality_multiclass.csv.gz\"",
        &format!("{:?}", data.display().to_string()),
    )
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("elicit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Answers that follow no metric, said so: either the person model's
/// consistency checks stopped the elicitation (no check questions after)
/// or the check questions after it contradict the metric; in both cases
/// the result is undetermined as contradictory, a sentence names one
/// metric the answers allow, and none is presented as the person's.
fn contradiction_said(v: &serde_json::Value, err: &str) {
    let said = |start: &str, also: &str| {
        v["undetermined"].as_array().unwrap().iter().any(|u| {
            let u = u.as_str().unwrap();
            u.starts_with(start) && u.contains(also)
        })
    };
    assert!(v["sentence"].is_string(), "{v}");
    if v["stop"] == "contradicted" {
        assert!(said("contradictory: ", "consistency checks"), "{v}");
        assert_eq!(v["checks"]["asked"], 0, "{v}");
        assert!(
            err.contains("Your answers do not settle one metric")
                && err.contains("consistency questions went against them")
                && err.contains("One metric the rest allow: "),
            "the sentence: {err}"
        );
    } else {
        assert!(said("contradictory: the check questions", ""), "{v}");
        assert!(
            err.contains("Your answers do not settle your metric")
                && err.contains("One metric they allow: "),
            "the sentence: {err}"
        );
    }
}

/// The JSON result of a command run with `--allow-undetermined`: exit
/// status 0 whatever the result leaves undetermined.
fn json_allowed(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A command's JSON result; its exit status is 0, or 3 exactly when the
/// result lists what the answers leave undetermined.
fn json(out: &Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("stderr: {}", String::from_utf8_lossy(&out.stderr));
    });
    let open = v["undetermined"].as_array().is_some_and(|u| !u.is_empty());
    assert_eq!(
        out.status.code(),
        Some(if open { 3 } else { 0 }),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

/// The shipped specs whose answers leave the metric undetermined at their
/// ε, each saying so in its header: finite samples (a step function along
/// the boundary or a face: contradictions and plateaus) and the paper's
/// QPME setting (ill-conditioned).
const UNDETERMINED_EXAMPLES: [&str; 4] = [
    "binary-lpm-dataset.toml",
    "dlpm-csv.toml",
    "dlpm-dataset.toml",
    "qpme-paper.toml",
];

#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn every_example_spec_runs() {
    let mut ran = 0;
    for entry in std::fs::read_dir(specs()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let is_spec = name.ends_with(".toml") || name.ends_with(".json");
        if !is_spec || name.contains("-ask") {
            continue;
        }
        let out = elicit().arg("run").arg(&path).output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        let open = v["undetermined"].as_array().expect("undetermined listed");
        if UNDETERMINED_EXAMPLES.contains(&name.as_str()) {
            // Printed all the same, exit status 3, said in words.
            assert_eq!(out.status.code(), Some(3), "{name}: {v}");
            assert!(!open.is_empty(), "{name}");
            assert!(
                v["in_words"]
                    .as_str()
                    .unwrap()
                    .starts_with("undetermined ("),
                "{name}"
            );
            let header = std::fs::read_to_string(&path).unwrap();
            assert!(
                header.contains("exits with status 3"),
                "{name}: its header says so"
            );
            let allowed = elicit()
                .arg("run")
                .arg(&path)
                .arg("--allow-undetermined")
                .output()
                .unwrap();
            assert_eq!(allowed.status.code(), Some(0), "{name}");
            assert_eq!(allowed.stdout, out.stdout, "{name}: the same result");
        } else {
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(open.is_empty(), "{name}: {v}");
        }
        assert!(
            v["procedure"].is_string() && !v["elicited"].is_null(),
            "{name}: {v}"
        );
        assert!(v["queries"].as_u64().unwrap() > 0, "{name}");
        assert!(
            !v["truth"].is_null() && v["error"].is_number(),
            "{name}: simulated oracles report truth and error"
        );
        ran += 1;
    }
    assert!(ran >= 5);
}

#[test]
fn run_results_are_what_the_procedures_promise() {
    let v = json(
        &elicit()
            .arg("run")
            .arg(specs().join("binary-lpm.toml"))
            .output()
            .unwrap(),
    );
    assert!(v["error"].as_f64().unwrap() <= 0.01);
    assert_eq!(v["queries"], 29); // 28 + the App. C monotonicity query
    let v = json(
        &elicit()
            .arg("run")
            .arg(specs().join("binary-lfpm.toml"))
            .output()
            .unwrap(),
    );
    assert!(
        v["sigma"].as_f64().unwrap() <= 0.02,
        "003 Table 2 row 5: paper sigma 0.01 (+0.01)"
    );
}

#[test]
fn transcript_replays_to_the_identical_result() {
    let file = tmp("noisy.jsonl");
    let first = run_with_transcript(specs().join("binary-lpm-noisy.toml"), &file);
    let v = json(&first);
    let lines = std::fs::read_to_string(&file).unwrap().lines().count();
    assert_eq!(
        lines as u64,
        1 + v["queries"].as_u64().unwrap(),
        "header + one line per query"
    );
    let replay = elicit().arg("replay").arg(&file).output().unwrap();
    assert!(replay.status.success());
    assert_eq!(first.stdout, replay.stdout, "bit-for-bit identical output");
}

#[test]
fn replay_refuses_a_mismatching_or_truncated_transcript() {
    let file = tmp("mismatch.jsonl");
    json(&run_with_transcript(specs().join("binary-lpm.toml"), &file));
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // Query 2 (line 4) recorded with a different first point.
    let mut record: serde_json::Value = serde_json::from_str(&lines[3]).unwrap();
    record["first"][0] = serde_json::json!("1.25e-1");
    lines[3] = record.to_string();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = elicit().arg("replay").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("query 2"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one-line message: {err}");

    let truncated = tmp("truncated.jsonl");
    let keep: Vec<&str> = text.lines().take(10).collect();
    std::fs::write(&truncated, keep.join("\n")).unwrap();
    let out = elicit().arg("replay").arg(&truncated).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("transcript ended after 9 answers"));
}

fn bad_spec(name: &str, body: &str) -> (Option<i32>, String) {
    let path = tmp(name);
    std::fs::write(&path, body).unwrap();
    let out = elicit().arg("run").arg(&path).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn bad_specs_exit_2_with_a_message_naming_the_field() {
    let base = |procedure: &str, eps: &str, metric: &str| {
        format!(
            "procedure = \"{procedure}\"\nepsilon = {eps}\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = {metric}\n"
        )
    };
    let cases = [
        (
            "unknown.toml",
            base("binary-lmp", "0.02", "[0.8, 0.2]"),
            "procedure",
        ),
        (
            "temperature0.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]\ntemperature = 0"),
            "oracle.temperature",
        ),
        (
            "eps0.toml",
            base("binary-lpm", "0.0", "[0.8, 0.2]"),
            "epsilon",
        ),
        (
            "epsneg.toml",
            base("binary-lpm", "-1.0", "[0.8, 0.2]"),
            "epsilon",
        ),
        (
            "nan.toml",
            base("binary-lpm", "0.02", "[nan, 0.2]"),
            "oracle.metric[0]",
        ),
        (
            "inf.toml",
            base("binary-lpm", "0.02", "[0.8, inf]"),
            "oracle.metric[1]",
        ),
        (
            "dims.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2, 0.1]"),
            "oracle.metric",
        ),
        (
            "assumption2.toml",
            base("binary-lfpm", "0.05", "[0.5, 0.5, 0.7, 0.0, 0.15]"),
            "p11 >= q11",
        ),
        (
            "typo.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]").replace("epsilon", "epsilom"),
            "epsilom",
        ),
        (
            "script-without-scripted.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]") + "eps_omega = 0.01\nscript = \"ff\"\n",
            "oracle.script",
        ),
        (
            "group-column.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]").replace(
                "kind = \"synthetic-003\"",
                &format!(
                    "kind = \"csv\"\npath = {:?}\ngroup_column = \"g\"",
                    specs().join("scores.csv").display().to_string()
                ),
            ),
            "population.group_column",
        ),
        (
            "seed-without-random.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]")
                + "eps_omega = 0.01\nadversary = \"always-wrong\"\nseed = 3\n",
            "oracle.seed",
        ),
        (
            "missing.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]")
                .replace("[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.2]\n", ""),
            "oracle",
        ),
        (
            "strategy.toml",
            format!(
                "search = \"binary\"\n{}",
                base("binary-lpm", "0.02", "[0.8, 0.2]")
            ),
            "search",
        ),
        (
            "zero-metric.toml",
            base("binary-lpm", "0.02", "[0.0, 0.0]"),
            "m",
        ),
        (
            "a.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]").replace(
                "kind = \"synthetic-003\"",
                "kind = \"synthetic-003\"\na = -1.0",
            ),
            "a",
        ),
        (
            "csv.toml",
            base("binary-lpm", "0.02", "[0.8, 0.2]").replace(
                "kind = \"synthetic-003\"",
                "kind = \"csv\"\npath = \"nope.csv\"",
            ),
            "nope.csv",
        ),
        (
            "budget.toml",
            format!("budget = 0\n{}", base("binary-lpm", "0.02", "[0.8, 0.2]")),
            "budget",
        ),
    ];
    for (name, body, needle) in cases {
        let (code, err) = bad_spec(name, &body);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(
            err.contains(needle),
            "{name}: message should name {needle:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{name}: one line: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let out = elicit()
        .arg("replay")
        .arg(tmp("does-not-exist.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let garbage = tmp("garbage.jsonl");
    std::fs::write(&garbage, "{\"header\": {\"spec\": {}}}\n").unwrap();
    let out = elicit().arg("replay").arg(&garbage).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[cfg(not(feature = "mpfr"))]
#[test]
fn mpfr_precision_without_the_feature_is_a_clear_error() {
    let (code, err) = bad_spec(
        "mpfr.toml",
        "procedure = \"binary-lpm\"\nepsilon = 0.02\nprecision = \"mpfr:256\"\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.2]\n",
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("--features mpfr"), "{err}");
}

#[cfg(feature = "mpfr")]
#[test]
fn mpfr_spec_runs_at_256_bits_and_replays_bit_for_bit() {
    let spec = tmp("mpfr.toml");
    std::fs::write(&spec, "procedure = \"binary-lpm\"\nepsilon = \"1e-20\"\nprecision = \"mpfr:256\"\nmonotonicity = \"increasing\"\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [\"0.87\", \"0.5\"]\n").unwrap();
    let file = tmp("mpfr.jsonl");
    let first = run_with_transcript(&spec, &file);
    let v = json(&first);
    assert_eq!(v["precision"], "mpfr:256");
    assert!(v["error"].as_f64().unwrap() < 1e-20);
    assert!(
        v["elicited_exact"]["m11"].as_str().unwrap().len() > 60,
        "full 256-bit digits"
    );
    let replay = elicit().arg("replay").arg(&file).output().unwrap();
    assert_eq!(first.stdout, replay.stdout);
}

fn ask(spec: &Path, transcript: &Path, answers: &str) -> Output {
    let mut child = elicit()
        .arg("ask")
        .arg(spec)
        .arg("--transcript")
        .arg(transcript)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A session that ends (or fails) before reading every answer closes
    // its input: the rest is not needed.
    match child.stdin.take().unwrap().write_all(answers.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    child.wait_with_output().unwrap()
}

/// `binary-lpm-ask.toml` with the flips model named
/// (`assumed_mistake_rate = "unknown"`), written to `name`.
fn binary_ask_with_flips(name: &str) -> PathBuf {
    let path = tmp(name);
    let text = std::fs::read_to_string(specs().join("binary-lpm-ask.toml")).unwrap();
    std::fs::write(
        &path,
        text.replace(
            "monotonicity = \"increasing\"",
            "monotonicity = \"increasing\"\nassumed_mistake_rate = \"unknown\"",
        ),
    )
    .unwrap();
    path
}

#[test]
fn ask_with_scripted_answers() {
    let spec = specs().join("binary-lpm-ask.toml");
    let file = tmp("ask.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&spec, &file, &"A\nx\nB\n".repeat(40));
    let v = json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("classifier A") && err.contains("labelled cancer (found)"),
        "shows the two classifiers in the task's words: {err}"
    );
    assert!(
        err.contains("\"x\" is not A, B, =, u or q"),
        "bad answers are re-asked: {err}"
    );
    // A person gets the engine that models mistakes (issue 28), assuming
    // flips and confusion near ties (the person model, pinned in what is
    // recorded). A and B in turn follow no metric (the sides are drawn at
    // random): no metric is presented, and the person is told why, by
    // the consistency checks during the elicitation (stopped as
    // contradicted, no check questions after) or by the check questions
    // after it (these answers: 14 consistency checks with 3 against the
    // posterior, then 4 of 5 check answers against the metric).
    assert_eq!(v["engine"], "bayes", "{v}");
    assert_eq!(v["answer_model"], "person", "{v}");
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        v["consistency_checks"]["judged"].as_u64().unwrap() >= 5,
        "{v}"
    );
    contradiction_said(&v, &err);
    assert!(err.contains("Question 2 of about"), "{err}");
    assert_eq!(v["procedure"], "binary-lpm");
    let header = std::fs::read_to_string(&file).unwrap();
    assert!(
        header
            .lines()
            .next()
            .unwrap()
            .contains("\"assumed_mistake_rate\":\"person\""),
        "the model is pinned in the header: {header}"
    );
    // The flips model, named: it has no consistency checks, so the same
    // answers reach the check questions after the elicitation, which say
    // so before the sentence.
    let flips = binary_ask_with_flips("binary-lpm-flips-ask.toml");
    let file = tmp("ask-flips.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&flips, &file, &"A\nB\n".repeat(40));
    let v = json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(v["answer_model"], "unknown", "{v}");
    assert!(
        err.contains("One metric they allow: "),
        "the sentence: {err}"
    );
    assert!(
        v["undetermined"].as_array().unwrap().iter().any(|u| u
            .as_str()
            .unwrap()
            .starts_with("contradictory: the check questions")),
        "{v}"
    );
    // At least 5 check questions, more while their verdict is open.
    assert!(
        v["sentence"].is_string() && v["checks"]["asked"].as_u64().unwrap() >= 5,
        "{v}"
    );
    // Quitting keeps what was answered, exits cleanly and says how to resume.
    let quit = tmp("quit.jsonl");
    let _ = std::fs::remove_file(&quit);
    let out = ask(&spec, &quit, "A\nB\nq\n");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("stopped: 2 answers recorded") && err.contains("resume with: elicit ask"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&quit).unwrap().lines().count(),
        1 + 2
    );
    // End of input stops the same way.
    let eof = tmp("eof.jsonl");
    let _ = std::fs::remove_file(&eof);
    let out = ask(&spec, &eof, "A\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stopped: 1 answers recorded"));
}

/// Issue 29, item 3: a person who answers "can't tell" to every question
/// has not determined a metric. The result is printed and recorded, says
/// so (`undetermined`, `in_words`), reports the centre of the consistent
/// angle interval rather than an edge of it, and exits with status 3;
/// `replay` gives the same result and status, `--allow-undetermined` 0.
/// `ask` answered "can't tell" throughout into a new `file`: exit status 3
/// (undetermined), and the result.
fn cant_tell_throughout(spec: &Path, file: &Path) -> (std::process::Output, serde_json::Value) {
    let _ = std::fs::remove_file(file);
    let out = ask(spec, file, &"=\n".repeat(200));
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&out.stdout).unwrap();
    (out, v)
}

#[test]
fn cant_tell_to_everything_is_undetermined_not_a_metric() {
    // The papers' search, named (a person gets the Bayesian engine by
    // default: below).
    let text = std::fs::read_to_string(specs().join("binary-lpm-ask.toml")).unwrap();
    let spec = tmp("ties-search.toml");
    std::fs::write(&spec, format!("engine = \"search\"\n{text}")).unwrap();
    let file = tmp("ties.jsonl");
    let (out, v) = cant_tell_throughout(&spec, &file);
    let open: Vec<&str> = v["undetermined"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert!(open.iter().any(|u| u.starts_with("plateau: ")), "{v}");
    assert!(
        open.iter().all(|u| !u.contains("finite sample")),
        "the person's ties are not blamed on a finite sample: {v}"
    );
    assert!(
        v["in_words"]
            .as_str()
            .unwrap()
            .starts_with("undetermined (plateau"),
        "{v}"
    );
    // The consistent interval is the whole quarter circle; its centre is
    // pi/4, m = (1, 1)/sqrt 2 (before: 0.9997 TP + 0.02454 TN, an edge).
    let theta = v["consistent"]["theta"].as_array().unwrap();
    assert!(
        theta[0].as_f64().unwrap() < 0.01 && theta[1].as_f64().unwrap() > 1.56,
        "{v}"
    );
    let (m11, m00) = (
        v["elicited"]["m11"].as_f64().unwrap(),
        v["elicited"]["m00"].as_f64().unwrap(),
    );
    assert!((m11 - m00).abs() < 0.02, "the centre, not an edge: {v}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("do not settle your metric"), "{err}");
    assert!(err.contains("exit status 3"), "{err}");
    // Recorded: replay gives the same result and status.
    let replay = elicit().arg("replay").arg(&file).output().unwrap();
    assert_eq!(replay.status.code(), Some(3));
    assert_eq!(replay.stdout, out.stdout);
    let allowed = elicit()
        .args(["replay", "--allow-undetermined"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0));
    assert_eq!(allowed.stdout, out.stdout);

    // The default for a person, the Bayesian engine: its near-tie model
    // alone would settle on a metric (before: 0.745 TP + 0.667 TN, exit 0);
    // with no preference at all it is undetermined.
    let spec = specs().join("binary-lpm-ask.toml");
    let file = tmp("ties-bayes.jsonl");
    let (out, v) = cant_tell_throughout(&spec, &file);
    assert_eq!(v["engine"], "bayes");
    assert!(
        v["undetermined"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u.as_str().unwrap().starts_with("unidentifiable: all")),
        "{v}"
    );
    let replay = elicit().arg("replay").arg(&file).output().unwrap();
    assert_eq!(replay.status.code(), Some(3));
    assert_eq!(replay.stdout, out.stdout);
}

/// Issue 29, item 3, for DLPM: faces whose optimum is a vertex leave the
/// weights undetermined; the result reports the centre of the box of
/// weights consistent with the answers (each weight's interval's midpoint,
/// normalized), not the edge where the searches stopped, says so in
/// `in_words`, and exits 3.
#[test]
fn an_undetermined_dlpm_reports_the_centre_of_its_consistent_box() {
    let out = run_spec(
        "dlpm-vertex.toml",
        "procedure = \"dlpm\"\nepsilon = 0.01\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]\n[oracle]\nkind = \"simulated\"\nmetric = [0.6, 0.3, 0.1]\n",
    );
    assert_eq!(out.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["undetermined"][0]
            .as_str()
            .unwrap()
            .starts_with("vertex-optimum: "),
        "{v}"
    );
    assert!(
        v["in_words"].as_str().unwrap().starts_with("undetermined"),
        "{v}"
    );
    let centre: Vec<f64> = v["consistent"]["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b[0].as_f64().unwrap() + b[1].as_f64().unwrap()) / 2.0)
        .collect();
    let sum: f64 = centre.iter().sum();
    for (i, c) in centre.iter().enumerate() {
        let e = v["elicited"][i].as_f64().unwrap();
        assert!(
            (e - c / sum).abs() < 1e-12,
            "{i}: {e} against {}: {v}",
            c / sum
        );
    }
}

/// Issue 29, item 3, for LPME: a person who answers "can't tell" to every
/// question leaves every angle anywhere in its range. The result says so
/// (exit 3, `plateau` under `undetermined`) and reports the metric at the
/// centre of each angle's consistent interval, not where the searches
/// stopped.
#[test]
fn an_undetermined_lpme_reports_the_centre_of_its_angles() {
    let spec = tmp("lpme-ties.toml");
    std::fs::write(
        &spec,
        "procedure = \"lpme\"\nepsilon = 0.05\nsearch = \"golden\"\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]\n[oracle]\nkind = \"person\"\n",
    )
    .unwrap();
    let file = tmp("lpme-ties.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&spec, &file, &"=\n".repeat(400));
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert!(
        v["undetermined"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u.as_str().unwrap().starts_with("plateau: ")),
        "{v}"
    );
    // mu(theta) at the midpoints of the consistent angle intervals.
    let theta: Vec<f64> = v["consistent"]["angles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b[0].as_f64().unwrap() + b[1].as_f64().unwrap()) / 2.0)
        .collect();
    let mut centre = Vec::new();
    let mut sines = 1.0;
    for t in &theta {
        centre.push(sines * t.cos());
        sines *= t.sin();
    }
    centre.push(sines);
    let elicited: Vec<f64> = v["elicited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        v["in_words"]
            .as_str()
            .unwrap()
            .starts_with("undetermined (plateau): "),
        "each cause named once: {v}"
    );
    assert_eq!(elicited.len(), 6, "{v}");
    for (i, (e, c)) in elicited.iter().zip(&centre).enumerate() {
        assert!((e - c).abs() < 1e-9, "{i}: {e} against {c}: {v}");
    }
}

/// Issue 29 item 4 / issue 28: a simulated truth with weights of opposite
/// signs (its optimum a trivial classifier) is said to leave the metric
/// undetermined by either engine: before, the Bayesian engine returned
/// 1·TP + 0.0088·TN, 0.61 from the truth, with exit 0 and no warning.
#[test]
fn a_mixed_sign_truth_is_undetermined_with_either_engine() {
    for engine in ["search", "bayes"] {
        let out = run_spec(
            &format!("mixed-{engine}.toml"),
            &format!(
                "procedure = \"binary-lpm\"\nengine = \"{engine}\"\nepsilon = 0.02\n[population]\nkind = \"synthetic-003\"\na = 5.0\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, -0.6]\n"
            ),
        );
        assert_eq!(
            out.status.code(),
            Some(3),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            v["undetermined"]
                .as_array()
                .unwrap()
                .iter()
                .any(|u| u.as_str().unwrap().starts_with("vertex-optimum: ")),
            "{engine}: {v}"
        );
    }
}

/// `ask` on a real dataset (issue 13): the questions show the held-out
/// classifiers' rates from the fitted η̂, and the session ends with the
/// procedure's result and its consistent set.
#[test]
fn ask_on_a_dataset_shows_real_classifiers() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lab/data/breast_cancer_wdbc.csv.gz");
    let spec = tmp("ask-dataset.toml");
    std::fs::write(
        &spec,
        format!(
            "procedure = \"binary-lpm\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\n[population]\nkind = \"dataset\"\npath = {:?}\nlabel = \"label\"\nsplit = 0.5\nseed = 1\nregularization = 1.0\nconfusions = \"labelled\"\n[oracle]\nkind = \"person\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let file = tmp("ask-dataset.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&spec, &file, &"A\nB\n".repeat(40));
    let v = json(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("classifier A") && err.contains("labelled class 1 (found)"),
        "{err}"
    );
    assert_eq!(v["procedure"], "binary-lpm");
    assert_eq!(v["engine"], "bayes", "a person's default: {v}");
    assert!(v["credible"]["radius"].as_f64().is_some(), "{v}");
}

/// `ask` with its standard input on a pseudo-terminal, as a person meets
/// it (util-linux `script` allocates the terminal; skipped where it is
/// missing): the prompts, a resume and the result work as through a pipe.
#[test]
fn ask_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: util-linux `script` is not installed");
        return;
    }
    let spec = specs().join("binary-lpm-ask.toml");
    let file = tmp("ask-tty.jsonl");
    let _ = std::fs::remove_file(&file);
    let command = format!(
        "{} ask {} --transcript {}",
        env!("CARGO_BIN_EXE_elicit"),
        spec.display(),
        file.display()
    );
    let run = |answers: &str| {
        let mut child = Command::new("script")
            .args(["-q", "-e", "-c", &command, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // One answer at a time, as typed, until the session ends.
        for line in answers.lines() {
            if stdin.write_all(format!("{line}\n").as_bytes()).is_err() || stdin.flush().is_err() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(stdin);
        child.wait_with_output().unwrap()
    };
    let first = run("A\nB\nq\n");
    let text = String::from_utf8_lossy(&first.stdout);
    assert_eq!(first.status.code(), Some(0), "{text}");
    assert!(text.contains("Question 1 of about"), "{text}");
    assert!(text.contains("stopped: 2 answers recorded"), "{text}");
    let done = run(&"A\nB\n".repeat(40));
    let text = String::from_utf8_lossy(&done.stdout);
    // A and B in turn follow no metric: exit status 3 and the person is
    // told, by the person model's consistency checks or by the check
    // questions after the elicitation (see `contradiction_said`; with the
    // flips model before the person model the Bayesian engine exited 0,
    // 1 of 5 check answers agreeing).
    assert_eq!(done.status.code(), Some(3), "{text}");
    assert!(
        text.contains("do not settle")
            && (text.contains("consistency questions went against them")
                || text.contains("check questions disagree")),
        "{text}"
    );
    assert!(!text.contains("finite sample"), "the person's ties: {text}");
    assert!(
        text.contains("resuming: 2 answers already recorded"),
        "{text}"
    );
    assert!(
        text.contains("binary-lpm") && text.contains("elicited"),
        "{text}"
    );
}

#[test]
fn ask_multiclass_shows_k_class_confusions_and_resumes() {
    let spec = specs().join("dlpm-ask.toml");
    let file = tmp("ask-dlpm.jsonl");
    let _ = std::fs::remove_file(&file);
    let first = ask(&spec, &file, "A\nB\nq\n");
    assert_eq!(first.status.code(), Some(0), "quit after two answers");
    let err = String::from_utf8_lossy(&first.stderr);
    assert!(
        err.contains("labelled correctly") && err.contains("feature request"),
        "{err}"
    );
    let done = ask(&spec, &file, &"B\nA\n".repeat(30));
    let v = json(&done);
    assert_eq!(v["procedure"], "dlpm");
    assert!(String::from_utf8_lossy(&done.stderr).contains("resuming: 2 answers already recorded"));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count() as u64,
        1 + v["queries"].as_u64().unwrap() + v["checks"]["asked"].as_u64().unwrap()
    );
}

/// `ask` for the families added after the binary and DLPM ones: each spec
/// of `examples/specs/` with its simulated oracle replaced by a person
/// answering A and B in turn. Each session ends with the procedure's JSON
/// result, and the questions show what a person judges in that family:
/// the groups' error rates side by side (fpme, fair QPME, the trade-off),
/// the rates (QPME, cubic), the per-class accuracies and named attributes
/// (cost/reward), the k×k mistakes (LPM and LPME on the 004 population).
/// Fair QPME is stopped after three answers (`q`): answers that follow no
/// fair metric (A and B in turn, or always the same) leave a QPME with no
/// linear part along τ ⊙ â, a typed error at the end.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn ask_shows_every_family_what_a_person_judges() {
    let cases: [(&str, &str, &[&str]); 8] = [
        (
            "fpme.toml",
            "fpme",
            &["group 1: labelled correctly", "group 2: labelled correctly"],
        ),
        (
            "qpme-ask.toml",
            "qpme",
            &["Of each true class: labelled correctly"],
        ),
        (
            "fair-qpme.toml",
            "fair-qpme",
            &["in each group", "group 1: labelled correctly"],
        ),
        ("qpme-tradeoff.toml", "qpme-tradeoff", &["in each group"]),
        (
            "cubic.toml",
            "cubic",
            &["Of each true class: labelled correctly"],
        ),
        (
            "cost-reward-table1-row1.toml",
            "cost-reward",
            &["labelled correctly", "Other qualities"],
        ),
        (
            "lpm-004",
            "lpm",
            &["class 1 labelled class 2", "Of 100 cases in all:"],
        ),
        (
            "lpme-004",
            "lpme",
            &["class 1 labelled class 2", "Of 100 cases in all:"],
        ),
    ];
    for (name, procedure, shown) in cases {
        let body = match name {
            "lpm-004" | "lpme-004" => format!(
                "procedure = \"{procedure}\"\nepsilon = 0.05\n[population]\nkind = \"synthetic-004\"\nclasses = 3\nrows = 20000\nseed = 3\n"
            ),
            _ => {
                let text = std::fs::read_to_string(specs().join(name)).unwrap();
                let cut = text
                    .find("\n[oracle]")
                    .expect("every example spec has an oracle");
                text[..cut].to_string()
            }
        };
        let spec = tmp(&format!("ask-{procedure}.toml"));
        std::fs::write(&spec, format!("{body}\n[oracle]\nkind = \"person\"\n")).unwrap();
        let file = tmp(&format!("ask-{procedure}.jsonl"));
        let _ = std::fs::remove_file(&file);
        let stop = procedure == "fair-qpme";
        let answers = if stop {
            "A\nB\nA\nq\n".to_string()
        } else {
            "A\nB\n".repeat(2000)
        };
        let out = ask(&spec, &file, &answers);
        let err = String::from_utf8_lossy(&out.stderr);
        for text in shown {
            assert!(
                err.contains(text),
                "{name}: {text:?} not shown in\n{}",
                &err[..err.len().min(3000)]
            );
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let answered = text
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with("{\"check\""))
            .count() as u64;
        if stop {
            assert_eq!(out.status.code(), Some(0), "{err}");
            assert!(err.contains("stopped: 3 answers recorded"), "{err}");
            assert_eq!(answered, 3);
        } else {
            let v = json(&out);
            assert_eq!(v["procedure"], procedure, "{name}");
            assert_eq!(
                answered,
                v["queries"].as_u64().unwrap(),
                "{name}: one line per answer"
            );
        }
    }
}

#[test]
fn ask_killed_mid_session_resumes_without_re_asking() {
    let spec = specs().join("binary-lpm-ask.toml");
    // Reference: an uninterrupted session answering "A" throughout.
    let reference_file = tmp("reference.jsonl");
    let _ = std::fs::remove_file(&reference_file);
    let reference = json(&ask(&spec, &reference_file, &"A\n".repeat(100)));
    let total = reference["queries"].as_u64().unwrap() as usize;

    let file = tmp("killed.jsonl");
    let _ = std::fs::remove_file(&file);
    let mut child = elicit()
        .arg("ask")
        .arg(&spec)
        .arg("--transcript")
        .arg(&file)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all("A\n".repeat(5).as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Wait until the five answers are on disk, then kill the process while it
    // waits for the sixth.
    let start = Instant::now();
    while std::fs::read_to_string(&file).map_or(0, |t| t.lines().count()) < 1 + 5 {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "answers never reached the transcript"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count(),
        1 + 5
    );

    let resumed = ask(&spec, &file, &"A\n".repeat(100));
    let err = String::from_utf8_lossy(&resumed.stderr).to_string();
    let v = json(&resumed);
    assert!(
        err.contains("resuming: 5 answers already recorded"),
        "{err}"
    );
    let shown = reference["person"]["questions"].as_u64().unwrap() as usize;
    assert_eq!(
        err.matches("Question").count(),
        shown - 5,
        "nothing answered is asked again"
    );
    assert_eq!(v["elicited"], reference["elicited"]);
    assert_eq!(v["queries"], reference["queries"]);
    assert_eq!(v["checks"], reference["checks"]);
    let checks = reference["checks"]["asked"].as_u64().unwrap() as usize;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count(),
        1 + total + checks
    );
}

#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn reproduce_writes_report_results_and_figures() {
    let out_dir = tmp("reproduction");
    let out = elicit()
        .args(["reproduce", "--only", "003", "--trials", "20", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    for id in [
        "003-table1",
        "003-table2",
        "003-thm2",
        "003-lemma2",
        "003-finite",
    ] {
        assert!(summary.contains(id), "{summary}");
    }
    // Issue 29, item 7: a closing line counting the verdicts by their word.
    // (003 Thm. 2's bound is exceeded in 12 of these 2880 trials: a
    // verdict that differs.)
    assert!(
        summary.contains("verdicts of 7 jobs: 4 match, 3 differ, 0 have no paper number")
            && summary.contains("003-thm2         144")
            && summary.contains("exceeded in 12 of 2880 trials")
            && !summary.contains("without a verdict word"),
        "{summary}"
    );
    // Issue 29, item 7: with output to a file, a line per job as it starts
    // and as it ends (its time and verdict) on stderr.
    let progress = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = progress.lines().collect();
    assert!(
        lines.len() >= 10 && lines[0].starts_with("[1/") && lines[0].ends_with(" started"),
        "{progress}"
    );
    assert!(
        lines[1].contains(" done in ") && lines[1].contains(": "),
        "{progress}"
    );
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("003 Table 1") && report.contains("Verdict"));
    // The 144-row Thm. 2 sweep is summarized per setting in report.md; its
    // rows are in results.json.
    assert!(report.contains("Summary: one row per setting"), "{report}");
    assert!(
        !report.contains("eps_omega=0.001, always-wrong |"),
        "{report}"
    );
    assert!(report.contains("error = σ"), "{report}");
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("results.json")).unwrap())
            .unwrap();
    for row in &rows {
        for field in [
            "table",
            "row",
            "truth",
            "elicited",
            "paper",
            "queries",
            "error",
            "precision",
            "search",
        ] {
            assert!(row.get(field).is_some(), "row lacks {field}: {row}");
        }
        let table = row["table"].as_str().unwrap();
        if table == "003-table2" {
            assert!(row["alpha"].is_number() && row["sigma"].is_number());
        }
        if table == "003-thm2" {
            assert!(row["trials"].is_number() && row.get("worst_error").is_some());
        }
    }
    for fig in [
        "fig-003-lfpm-upper-boundary.svg",
        "fig-003-thm2-error-vs-noise.svg",
        "fig-003-queries.svg",
    ] {
        let svg = std::fs::read_to_string(out_dir.join(fig)).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("polyline"), "{fig}");
    }
    let bad = elicit()
        .args(["reproduce", "--only", "999"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

fn run_spec(name: &str, body: &str) -> Output {
    let path = tmp(name);
    std::fs::write(&path, body).unwrap();
    elicit().arg("run").arg(&path).output().unwrap()
}

/// `elicit run SPEC --transcript FILE`.
fn run_with_transcript(spec: impl AsRef<std::ffi::OsStr>, file: &Path) -> Output {
    elicit()
        .arg("run")
        .arg(spec)
        .arg("--transcript")
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn csv_scores_must_be_probabilities() {
    let csv = tmp("bad-scores.csv");
    std::fs::write(&csv, "score,label\n0.2,0\n1.5,1\n0.7,1\n").unwrap();
    let spec = format!(
        "procedure = \"binary-lpm\"\nepsilon = 0.02\n[population]\nkind = \"csv\"\npath = {:?}\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.2]\n",
        csv.display().to_string()
    );
    let out = run_spec("bad-scores.toml", &spec);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad-scores.csv:3") && err.contains("1.5"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    let csv = tmp("bad-rows.csv");
    std::fs::write(
        &csv,
        "\"p 1\",\"p 2\",label\r\n0.25,0.75,1\r\n0.5,0.6,0\r\n",
    )
    .unwrap();
    let spec = format!(
        "procedure = \"dlpm\"\nepsilon = 0.02\n[population]\nkind = \"csv\"\npath = {:?}\nprobabilities = [\"p 1\", \"p 2\"]\n[oracle]\nkind = \"simulated\"\nmetric = [0.5, 0.5]\n",
        csv.display().to_string()
    );
    let out = run_spec("bad-rows.toml", &spec);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad-rows.csv:3") && err.contains("sum to 1.1"),
        "{err}"
    );
}

#[test]
fn a_finite_sample_with_ties_reports_what_it_could_not_decide() {
    // Scores on a coarse grid: many rows share a threshold, so the boundary
    // is a staircase of few steps and whole ranges of angles give the same
    // confusion.
    let csv = tmp("coarse.csv");
    let mut text = String::from("score,label\n");
    for i in 0..400u32 {
        let s = f64::from(i % 5) / 4.0;
        let y = u8::from((i * 7919) % 100 < (s * 100.0) as u32);
        text.push_str(&format!("{s},{y}\n"));
    }
    std::fs::write(&csv, text).unwrap();
    let spec = format!(
        "procedure = \"binary-lpm\"\nepsilon = 0.001\nmonotonicity = \"increasing\"\n[population]\nkind = \"csv\"\npath = {:?}\n[oracle]\nkind = \"simulated\"\nmetric = [0.6, 0.8]\n",
        csv.display().to_string()
    );
    let v = json(&run_spec("coarse.toml", &spec));
    let theta = v["consistent"]["theta"].as_array().unwrap();
    let width = theta[1].as_f64().unwrap() - theta[0].as_f64().unwrap();
    assert!(width > 0.001, "consistent set {theta:?}");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w["cause"] == "plateau"),
        "{warnings:?}"
    );
    assert!(
        v["known_answers"].as_u64().unwrap() > 0,
        "identical confusions were not asked"
    );
}

#[test]
fn fields_that_do_not_apply_to_the_procedure_are_refused() {
    let out = run_spec(
        "dlpm-cycles.toml",
        "procedure = \"dlpm\"\nepsilon = 0.02\ncycles = 3\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0]\n[oracle]\nkind = \"simulated\"\nmetric = [0.5, 0.5]\n",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cycles") && err.contains("dlpm"), "{err}");
    let out = run_spec(
        "dlpm-push.toml",
        "procedure = \"dlpm\"\nepsilon = 0.02\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0]\n[oracle]\nkind = \"simulated\"\nmetric = [0.5, 0.5]\neps_omega = 0.001\nadversary = \"push-away\"\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("push-away"));
    let out = run_spec(
        "script.toml",
        "procedure = \"dlpm\"\nepsilon = 0.02\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0]\n[oracle]\nkind = \"simulated\"\nmetric = [0.5, 0.5]\neps_omega = 0.001\nadversary = \"scripted\"\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("oracle.script"));
}

#[test]
fn ask_never_shows_two_identical_classifiers() {
    // The 002 §6.1 logistic population: near the faces' ends whole ranges of
    // m give the same classifier; a person always answering B drives the
    // search there.
    let spec = tmp("logistic-ask.toml");
    std::fs::write(
        &spec,
        "procedure = \"dlpm\"\nepsilon = 0.01\nsearch = \"paper\"\nreference = 1\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]\n[oracle]\nkind = \"person\"\n",
    )
    .unwrap();
    let file = tmp("logistic-ask.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&spec, &file, &"B\n".repeat(100));
    let v = json(&out);
    assert!(v["known_answers"].as_u64().unwrap() > 0);
    let text = std::fs::read_to_string(&file).unwrap();
    for line in text.lines().skip(1) {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_ne!(
            r["first"], r["second"],
            "a person was shown identical classifiers"
        );
    }
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .matches("Question")
            .count() as u64,
        v["person"]["questions"].as_u64().unwrap()
    );
}

#[test]
fn reproduce_checks_precision_and_out_before_computing() {
    let file = tmp("an-existing-file");
    std::fs::write(&file, "x").unwrap();
    let out = elicit()
        .args(["reproduce", "--only", "003-table1", "--out"])
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("existing file") && err.lines().count() == 1,
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing computed");

    let out = elicit()
        .args(["reproduce", "--only", "003-table1", "--precision", "f32"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--precision") && err.contains("f32 is not supported"),
        "{err}"
    );
    assert!(!err.contains("MPFR feature"), "{err}");

    let (code, err) = bad_spec(
        "f32.toml",
        "procedure = \"binary-lpm\"\nepsilon = 0.02\nprecision = \"f32\"\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.2]\n",
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("precision") && err.contains("f32 is not supported"),
        "{err}"
    );
    // What it proposes, this build accepts (issue 29, item 6).
    if cfg!(feature = "mpfr") {
        assert!(err.contains("use f64 or mpfr:BITS"), "{err}");
    } else {
        assert!(
            err.contains("use f64 (mpfr:BITS needs a build with --features mpfr)"),
            "{err}"
        );
    }
}

/// The causes of a result's warnings, in order.
fn causes(v: &serde_json::Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["cause"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn degenerate_epsilons_are_refused_or_warned_about() {
    let spec = |eps: &str| {
        format!("procedure = \"binary-lpm\"\nepsilon = {eps}\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.2]\n")
    };
    // ε not smaller than the search interval: refused (issue 29, item 5),
    // not a one-query "metric".
    for eps in ["1", "2"] {
        let out = run_spec("coarse.toml", &spec(eps));
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("epsilon")
                && err.contains("search intervals")
                && err.trim().lines().count() == 1,
            "{err}"
        );
    }
    // f64 reaches its resolution before ε = 1e-300.
    let v = json(&run_spec("fine.toml", &spec("1e-300")));
    assert!(causes(&v).contains(&"resolution".to_string()), "{v}");
    // ... and only that: answers crossing within rounding are not reported
    // as contradictions, nor rounding's width as a plateau.
    assert!(causes(&v).iter().all(|c| c == "resolution"), "{v}");
    // reference = "auto" at that ε, with faces at a vertex searched once
    // more: the population-only bisection that picks the second face stops
    // at the working precision (it looped for ever before).
    let auto = "procedure = \"dlpm\"\nepsilon = 1e-300\n[population]\nkind = \"synthetic-002\"\np = [1.0, 2.0, 3.5, 5.0, 8.0]\n[oracle]\nkind = \"simulated\"\nmetric = [0.0869, 0.0941, 0.3889, 0.3622, 0.0679]\n";
    let path = tmp("fine-auto.toml");
    std::fs::write(&path, auto).unwrap();
    let mut child = elicit()
        .arg("run")
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("dlpm auto at eps = 1e-300 did not finish in 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(causes(&v).iter().all(|c| c == "resolution"), "{v}");
    let faces = v["consistent"]["faces"].as_array().unwrap();
    assert!(
        faces.iter().any(|f| f["used"] == false),
        "a second search: {v}"
    );
    assert!(v["error"].as_f64().unwrap() < 1e-6, "{v}");
    let dlpm = "procedure = \"dlpm\"\nepsilon = 1e-300\n[population]\nkind = \"synthetic-002\"\np = [1.0, 2.0, 3.0]\nscores = \"softmax\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.2, 0.3, 0.5]\n";
    let v = json(&run_spec("fine-dlpm.toml", dlpm));
    assert!(
        !causes(&v).is_empty() && causes(&v).iter().all(|c| c == "resolution"),
        "{v}"
    );
    // An ordinary ε: neither.
    let v = json(&run_spec("ordinary.toml", &spec("0.02")));
    assert!(causes(&v).is_empty(), "{v}");
    // A population parameter that flattens the boundary (η within 3e-10 of
    // 1/2): warned, still exit 0; a = 5 (the paper's) is not.
    let flat = spec("0.02").replace(
        "kind = \"synthetic-003\"",
        "kind = \"synthetic-003\"\na = 1e-9",
    );
    let v = json(&run_spec("flat.toml", &flat));
    assert!(
        causes(&v).contains(&"degenerate-population".to_string()),
        "{v}"
    );
    let paper = spec("0.02").replace(
        "kind = \"synthetic-003\"",
        "kind = \"synthetic-003\"\na = 5.0",
    );
    assert!(causes(&json(&run_spec("paper-a.toml", &paper))).is_empty());
}

// ---- elicit rank ----

/// A predictions CSV of `pool` classifiers on `n` rows of k classes (a
/// seeded generator; each classifier is right with its own probability)
/// and its label column.
fn predictions_csv(path: &Path, k: usize, n: usize, pool: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let labels: Vec<usize> = (0..n).map(|_| (next() % k as u64) as usize).collect();
    let preds: Vec<Vec<usize>> = (0..pool)
        .map(|c| {
            labels
                .iter()
                .map(|&y| {
                    if next() % 100 < 30 + 2 * c as u64 {
                        y
                    } else {
                        (next() % k as u64) as usize
                    }
                })
                .collect()
        })
        .collect();
    let mut text = (0..pool).map(|c| format!("c{c},")).collect::<String>() + "label\n";
    for r in 0..n {
        for p in &preds {
            text.push_str(&format!("{},", p[r]));
        }
        text.push_str(&format!("{}\n", labels[r]));
    }
    std::fs::write(path, text).unwrap();
    (labels, preds)
}

fn rank_cli(args: &[&std::ffi::OsStr]) -> Output {
    elicit().arg("rank").args(args).output().unwrap()
}

#[test]
fn rank_orders_classifiers_as_a_brute_force_evaluation() {
    let (k, n) = (4, 300);
    let csv = tmp("rank-pool.csv");
    let (labels, preds) = predictions_csv(&csv, k, n, 12);
    let count = |h: &[usize], i: usize, j: usize| {
        labels
            .iter()
            .zip(h)
            .filter(|(y, p)| **y == i && **p == j)
            .count() as f64
    };
    // The metric: a DLPM elicited by `run` on a real dataset (Vehicle, k = 4).
    let result = elicit()
        .arg("run")
        .arg(specs().join("dlpm-dataset.toml"))
        .arg("--allow-undetermined")
        .output()
        .unwrap();
    let v = json_allowed(&result);
    let a: Vec<f64> = v["elicited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let metric = tmp("rank-dlpm.json");
    std::fs::write(&metric, &result.stdout).unwrap();
    // An LPME metric on the off-diagonal joint confusions (q = 12).
    let w: Vec<f64> = (0..12).map(|i| ((i * 7) % 5) as f64 / 4.0 - 0.5).collect();
    let lpme = tmp("rank-lpme.json");
    std::fs::write(
        &lpme,
        serde_json::json!({"procedure": "lpme", "elicited": w}).to_string(),
    )
    .unwrap();
    let brute = |name: &str, h: &[usize]| -> f64 {
        if name == "dlpm" {
            (0..k).map(|i| a[i] * count(h, i, i) / n as f64).sum()
        } else {
            let mut s = 0.0;
            let mut idx = 0;
            for i in 0..k {
                for j in (0..k).filter(|j| *j != i) {
                    s += w[idx] * count(h, i, j) / n as f64;
                    idx += 1;
                }
            }
            s
        }
    };
    for (name, file) in [("dlpm", &metric), ("lpme", &lpme)] {
        let out = rank_cli(&[
            "--metric".as_ref(),
            file.as_os_str(),
            "--predictions".as_ref(),
            csv.as_os_str(),
            "--json".as_ref(),
        ]);
        let got = json(&out);
        let ranking = got["ranking"].as_array().unwrap();
        assert_eq!(ranking.len(), preds.len());
        let mut expected: Vec<(usize, f64)> = preds
            .iter()
            .enumerate()
            .map(|(c, h)| (c, brute(name, h)))
            .collect();
        expected.sort_by(|x, y| y.1.total_cmp(&x.1));
        for (entry, (c, value)) in ranking.iter().zip(&expected) {
            let got_value = entry["value"].as_f64().unwrap();
            assert!(
                (got_value - value).abs() < 1e-12,
                "{name}: {entry} vs {value}"
            );
            // Equal values may come in either order; distinct ones may not.
            let same = expected.iter().filter(|e| e.1 == *value).count();
            if same == 1 {
                assert_eq!(entry["classifier"], format!("c{c}"), "{name}");
            }
        }
        // Ranking against itself as the truth: NDCG 1 and tau 1.
        let out = rank_cli(&[
            "--metric".as_ref(),
            file.as_os_str(),
            "--predictions".as_ref(),
            csv.as_os_str(),
            "--truth".as_ref(),
            file.as_os_str(),
            "--json".as_ref(),
        ]);
        let got = json(&out);
        assert!((got["ndcg_exponential"].as_f64().unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(got["kendall_tau_b"].as_f64(), Some(1.0));
    }
    // The text form lists every classifier, best first.
    let out = rank_cli(&[
        "--metric".as_ref(),
        metric.as_os_str(),
        "--predictions".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  1. c") && text.contains(" 12. c"), "{text}");
}

#[test]
fn rank_with_a_bad_file_exits_2_naming_it() {
    let csv = tmp("rank-bad-pool.csv");
    predictions_csv(&csv, 2, 20, 3);
    let metric = tmp("rank-bad-metric.json");
    std::fs::write(
        &metric,
        r#"{"procedure": "binary-lpm", "elicited": {"m11": 0.6, "m00": 0.8}}"#,
    )
    .unwrap();
    let bad_cell = tmp("rank-bad-cell.csv");
    std::fs::write(&bad_cell, "c0,c1,label\n1,0,1\n0,0.5,0\n").unwrap();
    let not_json = tmp("rank-not-json.json");
    std::fs::write(
        &not_json,
        "{\"procedure\": \"dlpm\",\n \"elicited\": [1, 2,]}",
    )
    .unwrap();
    let unknown = tmp("rank-unknown.json");
    std::fs::write(&unknown, r#"{"procedure": "magic", "elicited": [1]}"#).unwrap();
    let wrong_k = tmp("rank-wrong-k.json");
    std::fs::write(
        &wrong_k,
        r#"{"procedure": "dlpm", "elicited": [0.2, 0.3, 0.5]}"#,
    )
    .unwrap();
    let missing = tmp("rank-missing.csv");
    let cases: Vec<(Vec<&std::ffi::OsStr>, &str)> = vec![
        (
            vec![metric.as_os_str(), bad_cell.as_os_str()],
            "row 3: c1 = 0.5 is not a class code",
        ),
        (vec![not_json.as_os_str(), csv.as_os_str()], "line 2"),
        (vec![unknown.as_os_str(), csv.as_os_str()], "procedure"),
        (vec![wrong_k.as_os_str(), csv.as_os_str()], "k = 2"),
        (
            vec![metric.as_os_str(), missing.as_os_str()],
            "rank-missing.csv",
        ),
    ];
    for (files, needle) in cases {
        let out = rank_cli(&[
            "--metric".as_ref(),
            files[0],
            "--predictions".as_ref(),
            files[1],
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{needle}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
    // A label column that is not there.
    let out = rank_cli(&[
        "--metric".as_ref(),
        metric.as_os_str(),
        "--predictions".as_ref(),
        csv.as_os_str(),
        "--label".as_ref(),
        "y".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"y\""));
}

#[test]
fn rank_a_cost_reward_metric_with_attribute_values() {
    let (k, n) = (3, 200);
    let csv = tmp("rank-cr-pool.csv");
    let (labels, preds) = predictions_csv(&csv, k, n, 6);
    let a = [0.5, 0.3, 0.2];
    let (w_speed, w_cost) = (0.05, 0.8);
    let metric = tmp("rank-cr.json");
    std::fs::write(
        &metric,
        serde_json::json!({"procedure": "cost-reward",
            "elicited": {"accuracy": a, "speed": w_speed, "cost": w_cost}})
        .to_string(),
    )
    .unwrap();
    let speed = |c: usize| c as f64 * 0.7;
    let cost = |c: usize| -0.05 * (c % 3) as f64;
    let attributes = tmp("rank-cr-attributes.csv");
    let mut text = String::from("classifier,speed,cost\n");
    for c in 0..preds.len() {
        text.push_str(&format!("c{c},{},{}\n", speed(c), cost(c)));
    }
    std::fs::write(&attributes, text).unwrap();
    let mut expected: Vec<(String, f64)> = preds
        .iter()
        .enumerate()
        .map(|(c, h)| {
            let d: f64 = (0..k)
                .map(|i| {
                    a[i] * labels
                        .iter()
                        .zip(h)
                        .filter(|(y, p)| **y == i && **p == i)
                        .count() as f64
                        / n as f64
                })
                .sum();
            (format!("c{c}"), d + w_speed * speed(c) + w_cost * cost(c))
        })
        .collect();
    expected.sort_by(|x, y| y.1.total_cmp(&x.1));
    let got = json(&rank_cli(&[
        "--metric".as_ref(),
        metric.as_os_str(),
        "--predictions".as_ref(),
        csv.as_os_str(),
        "--attributes".as_ref(),
        attributes.as_os_str(),
        "--json".as_ref(),
    ]));
    for (entry, (name, value)) in got["ranking"].as_array().unwrap().iter().zip(&expected) {
        assert_eq!(entry["classifier"], name.as_str());
        assert!((entry["value"].as_f64().unwrap() - value).abs() < 1e-12);
    }
    // Without the attribute values the ranking is refused, naming the option.
    let out = rank_cli(&[
        "--metric".as_ref(),
        metric.as_os_str(),
        "--predictions".as_ref(),
        csv.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--attributes"));
}

#[test]
fn a_setting_of_the_wrong_type_is_named() {
    let body = |setting: &str| {
        format!("procedure = \"lpme\"\nepsilon = 0.01\n{setting}\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5, 0.5]\nradius = 0.1\n[oracle]\nkind = \"simulated\"\nmetric = [0.6, 0.8, 0.0]\n")
    };
    for (setting, field) in [
        ("order = \"backwards\"", "order"),
        ("cycles = \"two\"", "cycles"),
        ("stop_early = 1", "stop_early"),
    ] {
        let (code, err) = bad_spec("wrong-type.toml", &body(setting));
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains(field) && err.lines().count() == 1,
            "{setting}: {err}"
        );
    }
}

#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = elicit()
        .arg("run")
        .arg(specs().join("dlpm.toml"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before any output
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.success(), "{err}");
}

#[test]
fn a_bad_population_parameter_names_its_spec_field() {
    let (code, err) = bad_spec(
        "a-zero.toml",
        "procedure = \"binary-lpm\"\nepsilon = 0.02\n[population]\nkind = \"synthetic-003\"\na = 0\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.2]\n",
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("population.a"), "{err}");
}

#[test]
fn bisection_runs_lpme_and_is_refused_where_searches_are_not_symmetric() {
    let lpme = "procedure = \"lpme\"\nepsilon = 0.005\nsearch = \"bisection\"\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5, 0.5, 0.5, 0.5]\nradius = 0.1\n[oracle]\nkind = \"simulated\"\nmetric = [0.3, -0.5, 0.1, 0.7, -0.4]\n";
    let v = json(&run_spec("bisection-lpme.toml", lpme));
    assert_eq!(v["search"], "bisection");
    // q orthant queries, then ⌈log₂((π/2)/ε)⌉ = 9 per angle, one cycle.
    assert_eq!(v["queries"].as_u64(), Some(5 + 4 * 9), "{v}");
    assert!(v["error"].as_f64().unwrap() < 0.005, "{v}");
    let dlpm = "procedure = \"dlpm\"\nepsilon = 0.01\nsearch = \"bisection\"\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]\n[oracle]\nkind = \"simulated\"\nmetric = [0.4, 0.3, 0.3]\n";
    let out = run_spec("bisection-dlpm.toml", dlpm);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("search") && err.contains("bisection"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // QPME's searches run on small spheres, where a smooth metric is nearly
    // symmetric: accepted, and as accurate as golden section here.
    let qpme = std::fs::read_to_string(specs().join("qpme.toml"))
        .unwrap()
        .replace(
            "epsilon = 0.005",
            "epsilon = 0.0025\nsearch = \"bisection\"",
        );
    let v = json(&run_spec("bisection-qpme.toml", &qpme));
    assert_eq!(v["search"], "bisection");
    assert!(v["error"].as_f64().unwrap() < 0.05, "{v}");
    // The trade-off search over lambda is not symmetric: refused.
    let tradeoff = std::fs::read_to_string(specs().join("qpme-tradeoff.toml"))
        .unwrap()
        .replace("epsilon = 0.001", "epsilon = 0.001\nsearch = \"bisection\"");
    let out = run_spec("bisection-tradeoff.toml", &tradeoff);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("search") && err.contains("qpme-tradeoff"),
        "{err}"
    );
}

// ---- elicit rank ranks what the user meant (issue #29, item 2) ----

/// `elicit rank` with `args` refused: exit status 2 and one line on
/// stderr, which is returned.
fn rank_refused(args: &[&std::ffi::OsStr]) -> String {
    let out = rank_cli(args);
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A metric file with `text` in the temporary folder.
fn metric_file(name: &str, text: &str) -> PathBuf {
    let path = tmp(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn binary_lpm() -> PathBuf {
    metric_file(
        "meant-binary.json",
        r#"{"procedure": "binary-lpm", "elicited": {"m11": 0.6, "m00": 0.8}}"#,
    )
}

/// Borrowed arguments of owned ones.
fn args(v: &[std::ffi::OsString]) -> Vec<&std::ffi::OsStr> {
    v.iter().map(std::ffi::OsString::as_os_str).collect()
}

/// The classifiers of a `--json` ranking, best first.
fn ranked_names(out: &Output) -> Vec<String> {
    json(out)["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["classifier"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rank_never_ranks_a_group_column_the_user_did_not_name() {
    let csv = tmp("meant-group.csv");
    std::fs::write(
        &csv,
        "c0,c1,group,label\n1,0,1,1\n0,0,0,0\n1,1,1,0\n0,1,0,1\n",
    )
    .unwrap();
    let metric = binary_lpm();
    let base = |extra: &[&str]| -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = vec![
            "--metric".into(),
            metric.clone().into(),
            "--predictions".into(),
            csv.clone().into(),
            "--json".into(),
        ];
        v.extend(extra.iter().map(Into::into));
        v
    };
    // No --group, no --classifiers: `group` is not silently ranked.
    let plain = base(&[]);
    let err = rank_refused(&args(&plain));
    assert!(
        err.contains("\"group\"") && err.contains("--classifiers") && err.contains("--group"),
        "{err}"
    );
    // Named classifiers: exactly those are ranked.
    let named = base(&["--classifiers", "c0,c1"]);
    let mut got = ranked_names(&rank_cli(&args(&named)));
    got.sort();
    assert_eq!(got, ["c0", "c1"]);
    let one = base(&["--classifiers", "c1"]);
    assert_eq!(ranked_names(&rank_cli(&args(&one))), ["c1"]);
    // The group column named as the groups: not a classifier either.
    let grouped = base(&["--group", "group"]);
    let mut got = ranked_names(&rank_cli(&args(&grouped)));
    got.sort();
    assert_eq!(got, ["c0", "c1"]);
    // --classifiers naming the label, or a column that is not there.
    for (list, needle) in [("c0,label", "label column"), ("c0,c9", "\"c9\"")] {
        let bad = base(&["--classifiers", list]);
        let err = rank_refused(&args(&bad));
        assert!(
            err.contains("--classifiers") && err.contains(needle),
            "{err}"
        );
    }
}

#[test]
fn rank_refuses_a_column_named_twice_naming_it() {
    let csv = tmp("meant-twice.csv");
    std::fs::write(&csv, "c0,c1,c0,label\n1,0,1,1\n0,0,0,0\n").unwrap();
    let err = rank_refused(&[
        "--metric".as_ref(),
        binary_lpm().as_os_str(),
        "--predictions".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(
        err.contains("\"c0\"") && err.contains("twice") && err.contains("meant-twice.csv:1"),
        "{err}"
    );
}

#[test]
fn rank_refuses_a_metric_that_ranks_nothing() {
    let csv = tmp("meant-zero.csv");
    predictions_csv(&csv, 3, 30, 3);
    for (name, text) in [
        (
            "meant-zero-dlpm.json",
            r#"{"procedure": "dlpm", "elicited": [0, 0, 0]}"#,
        ),
        (
            "meant-zero-lpme.json",
            r#"{"procedure": "lpme", "elicited": [0, 0, 0, 0, 0, 0]}"#,
        ),
    ] {
        let metric = metric_file(name, text);
        let err = rank_refused(&[
            "--metric".as_ref(),
            metric.as_os_str(),
            "--predictions".as_ref(),
            csv.as_os_str(),
        ]);
        assert!(
            err.contains("--metric") && err.contains(name) && err.contains("ranks nothing"),
            "{err}"
        );
    }
}

#[test]
fn rank_messages_name_the_file_option_row_and_value() {
    let csv = tmp("meant-pool.csv");
    predictions_csv(&csv, 2, 20, 3);
    let metric = binary_lpm();
    let run = |metric: &Path, predictions: &Path, extra: &[&str]| -> String {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "--metric".as_ref(),
            metric.as_os_str(),
            "--predictions".as_ref(),
            predictions.as_os_str(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        rank_refused(&args)
    };
    // A predictions-file problem names the predictions file and its line,
    // not a spec field.
    let short_row = tmp("meant-short-row.csv");
    std::fs::write(&short_row, "c0,c1,label\n1,0,1\n0,0\n").unwrap();
    let err = run(&metric, &short_row, &[]);
    assert!(
        err.contains("--predictions") && err.contains("meant-short-row.csv:3"),
        "{err}"
    );
    assert!(!err.contains("population"), "{err}");
    // A bad --truth file names --truth (and the file).
    let bad_truth = metric_file(
        "meant-bad-truth.json",
        r#"{"procedure": "binary-lpm", "elicited": {"m11": "x", "m00": 0.8}}"#,
    );
    let err = run(&metric, &csv, &["--truth", bad_truth.to_str().unwrap()]);
    assert!(
        err.contains("--truth") && err.contains("meant-bad-truth.json") && err.contains("m11"),
        "{err}"
    );
    assert!(!err.contains("--metric"), "{err}");
    // A label outside the metric's classes names the row and the value.
    let three = tmp("meant-label-3.csv");
    std::fs::write(&three, "c0,c1,label\n1,0,1\n0,0,0\n1,1,2\n0,1,1\n").unwrap();
    let err = run(&metric, &three, &[]);
    assert!(
        err.contains("meant-label-3.csv:4") && err.contains("label = 2"),
        "{err}"
    );
    // A binary metric against 3-class predictions says so plainly.
    assert!(err.contains("k = 2 classes"), "{err}");
    let predictions3 = tmp("meant-k3.csv");
    predictions_csv(&predictions3, 3, 30, 3);
    let err = run(&metric, &predictions3, &[]);
    assert!(
        err.contains("meant-k3.csv:")
            && err.contains(" = 2 is not a class")
            && err.contains("k = 2 classes"),
        "{err}"
    );
    // A fair metric without --group says that --group is required.
    let fair = metric_file(
        "meant-fair.json",
        r#"{"procedure": "fpme", "elicited": {"a": [0.6, 0.8], "B": [[0.5, 0.5]], "lambda": 0.3}}"#,
    );
    let err = run(&fair, &csv, &[]);
    assert!(err.contains("--group is required"), "{err}");
}

#[test]
fn rank_text_shows_only_the_statistic_the_metric_reads() {
    let csv = tmp("meant-text.csv");
    predictions_csv(&csv, 3, 60, 4);
    let text = |metric: &Path| -> String {
        let out = rank_cli(&[
            "--metric".as_ref(),
            metric.as_os_str(),
            "--predictions".as_ref(),
            csv.as_os_str(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    // The entries in brackets on each ranked line.
    let entries = |text: &str| -> Vec<usize> {
        text.lines()
            .filter(|l| {
                l.trim_start()
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
            })
            .map(|l| {
                let inside = &l[l.rfind('[').unwrap() + 1..l.rfind(']').unwrap()];
                inside.split(", ").count()
            })
            .collect()
    };
    // A diagonal linear metric reads P(Y = i, h = i): three joint
    // confusions per line, and the header says so.
    let dlpm = metric_file(
        "meant-text-dlpm.json",
        r#"{"procedure": "dlpm", "elicited": [0.5, 0.3, 0.2]}"#,
    );
    let t = text(&dlpm);
    assert!(t.contains("P(Y = i, h = i)"), "{t}");
    assert!(
        !t.contains("P(h = j | Y = i)") && !t.contains("P(h = i | Y = i)"),
        "{t}"
    );
    assert_eq!(entries(&t), vec![3; 4], "{t}");
    // An off-diagonal one: six joint confusions P(Y = i, h = j).
    let lpme = metric_file(
        "meant-text-lpme.json",
        r#"{"procedure": "lpme", "elicited": [-0.3, 0.1, -0.5, 0.2, -0.7, -0.1]}"#,
    );
    let t = text(&lpme);
    assert!(t.contains("P(Y = i, h = j)") && !t.contains('|'), "{t}");
    assert_eq!(entries(&t), vec![6; 4], "{t}");
    // QPME reads the rates on the diagonal, P(h = i | Y = i): three each.
    let qpme = metric_file(
        "meant-text-qpme.json",
        r#"{"procedure": "qpme", "elicited": {"a": [0.5, 0.3, 0.2], "B": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}}"#,
    );
    let t = text(&qpme);
    assert!(
        t.contains("P(h = i | Y = i)") && !t.contains("P(Y = i"),
        "{t}"
    );
    assert_eq!(entries(&t), vec![3; 4], "{t}");
}

#[test]
fn the_readme_quick_start_ranks_the_shipped_predictions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let predictions = root.join("examples/predictions/vehicle.csv");
    assert!(
        readme.contains("rank --metric m.json --predictions examples/predictions/vehicle.csv"),
        "the README's quick start ranks the shipped predictions"
    );
    assert!(
        readme.contains("run examples/specs/dlpm-dataset.toml --allow-undetermined > m.json"),
        "the README's quick start says what the data leave undetermined"
    );
    // data → elicit: the README's spec, run from the repository's root.
    let result = elicit()
        .current_dir(&root)
        .args([
            "run",
            "examples/specs/dlpm-dataset.toml",
            "--allow-undetermined",
        ])
        .output()
        .unwrap();
    json_allowed(&result);
    let metric = tmp("quick-start-m.json");
    std::fs::write(&metric, &result.stdout).unwrap();
    // elicit → rank.
    let out = rank_cli(&[
        "--metric".as_ref(),
        metric.as_os_str(),
        "--predictions".as_ref(),
        predictions.as_os_str(),
        "--json".as_ref(),
    ]);
    let names = ranked_names(&out);
    let header = std::fs::read_to_string(&predictions).unwrap();
    let columns: Vec<&str> = header.lines().next().unwrap().split(',').collect();
    assert_eq!(names.len(), columns.len() - 1, "every column but the label");
    assert!(names
        .iter()
        .all(|n| columns.contains(&n.as_str()) && n != "label"));
}

/// Issue 29, item 5: a transcript replays from any working directory (its
/// header records the spec's folder as an absolute path), and a header of
/// another format version is refused naming it.
#[test]
fn a_transcript_replays_from_anywhere_and_names_a_foreign_version() {
    let dir = tmp("replay-anywhere");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["binary-lpm-csv.json", "scores.csv"] {
        std::fs::copy(specs().join(f), dir.join(f)).unwrap();
    }
    let first = elicit()
        .current_dir(&dir)
        .args(["run", "binary-lpm-csv.json", "--transcript", "t.jsonl"])
        .output()
        .unwrap();
    json(&first);
    let elsewhere = std::env::temp_dir();
    let replay = elicit()
        .current_dir(&elsewhere)
        .arg("replay")
        .arg(dir.join("t.jsonl"))
        .output()
        .unwrap();
    assert_eq!(
        json(&replay),
        json(&first),
        "the same result from another folder"
    );
    let text = std::fs::read_to_string(dir.join("t.jsonl")).unwrap();
    let foreign = dir.join("v7.jsonl");
    std::fs::write(
        &foreign,
        text.replacen("\"elicit_transcript\":2", "\"elicit_transcript\":7", 1),
    )
    .unwrap();
    let out = elicit().arg("replay").arg(&foreign).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("version 7") && err.trim().lines().count() == 1,
        "{err}"
    );
}

/// Issue 29, item 5: a population larger than the machine's memory is
/// refused before anything is allocated, naming the field and what fits.
#[test]
fn a_population_too_large_for_memory_is_refused_before_allocating() {
    for rows in ["1000000000000", "100000000000"] {
        let out = run_spec(
            "huge.toml",
            &format!("procedure = \"dlpm\"\nepsilon = 0.05\n[population]\nkind = \"synthetic-004\"\nclasses = 3\nrows = {rows}\n[oracle]\nkind = \"simulated\"\nmetric = [0.5, 0.3, 0.2]\n"),
        );
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("population.rows") && err.contains("GB") && err.contains("at most about"),
            "{err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// Issue 29, item 4: where the simulated truth is known, it is checked
/// against the procedure's assumptions before the run (refused, naming the
/// field) or reported with the result (a warning that leaves the metric
/// undetermined); a band that holds every answer is said to say nothing;
/// weights near the ends of f64's range are normalized without overflow.
#[test]
fn a_simulated_truth_against_the_procedures_assumptions_is_not_silent() {
    let spec = |metric: &str, extra: &str| {
        format!("procedure = \"binary-lpm\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = {metric}\n{extra}")
    };
    // Against the declared monotonicity: refused.
    let out = run_spec("against.toml", &spec("[-0.8, -0.5]", ""));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("monotonicity")
            && err.contains("oracle.metric")
            && err.trim().lines().count() == 1,
        "{err}"
    );
    // Opposite signs: the optimum is a vertex, said so (exit 3).
    let v = json(&run_spec("mixed.toml", &spec("[0.8, -0.5]", "")));
    assert!(
        v["undetermined"][0]
            .as_str()
            .unwrap()
            .starts_with("vertex-optimum: "),
        "{v}"
    );
    // A band wider than the metric's range: every answer the adversary's.
    let v = json(&run_spec(
        "band.toml",
        &spec("[0.8, 0.5]", "eps_omega = 10"),
    ));
    assert_eq!(v["in_band_queries"], v["queries"]);
    assert!(
        v["undetermined"][0]
            .as_str()
            .unwrap()
            .starts_with("unidentifiable: every one"),
        "{v}"
    );
    // A known part the oracle's metric contradicts: refused, naming it.
    for (file, from, to, names) in [
        (
            "binary-lfpm-known-p11.toml",
            "p11 = 1.0",
            "p11 = 0.7",
            "Cor. 1",
        ),
        (
            "qpme-tradeoff.toml",
            "a = [0.6, 0.8]\n",
            "a = [0.8, 0.6]\n",
            "known a and B",
        ),
    ] {
        let text = std::fs::read_to_string(specs().join(file)).unwrap();
        assert!(text.contains(from), "{file}");
        let out = run_spec(file, &text.replacen(from, to, 1));
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(names) && err.trim().lines().count() == 1,
            "{err}"
        );
    }
    // Weights near 1e300 and 1e-320: the truth normalized, not 0 or null.
    for metric in ["[1e300, 5e299]", "[1e-320, 5e-321]"] {
        let v = json(&run_spec("extreme.toml", &spec(metric, "")));
        let (t11, t00) = (
            v["truth"]["m11"].as_f64().unwrap(),
            v["truth"]["m00"].as_f64().unwrap(),
        );
        assert!(
            (t11 - 0.894).abs() < 1e-3 && (t00 - 0.447).abs() < 1e-3,
            "{metric}: {v}"
        );
        assert!(v["error"].as_f64().unwrap() < 0.05, "{metric}: {v}");
    }
    // The same for LPME (unit ℓ2: its norm overflowed to a truth of 0, or
    // underflowed to "all weights are zero") and DLPM (unit ℓ1: the sum of
    // weights near 1e308 overflowed).
    for (procedure, metric, truth) in [
        ("lpme", "[3e300, -4e300]", &[0.6, -0.8][..]),
        ("lpme", "[3e-321, -4e-321]", &[0.6, -0.8]),
        ("dlpm", "[5e307, 5e307, 1e308]", &[0.25, 0.25, 0.5]),
    ] {
        let population = if procedure == "lpme" {
            "kind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.2"
        } else {
            "kind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]"
        };
        let v = json(&run_spec(
            "extreme-multiclass.toml",
            &format!("procedure = \"{procedure}\"\nepsilon = 0.01\n[population]\n{population}\n[oracle]\nkind = \"simulated\"\nmetric = {metric}\n"),
        ));
        let got: Vec<f64> = v["truth"]
            .as_array()
            .unwrap_or_else(|| panic!("{metric}: {v}"))
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            got.len() == truth.len() && got.iter().zip(truth).all(|(g, t)| (g - t).abs() < 1e-2),
            "{procedure} {metric}: {v}"
        );
        assert!(v["error"].as_f64().unwrap() < 0.05, "{metric}: {v}");
    }
    // And QPME (000 Def. 3's ‖a‖² + ‖B‖²_F = 1: NaN near 1e300, "a
    // constant metric" near 1e-320): the same truth as at unit size.
    let qpme = |scale: &str| {
        json(&run_spec(
            "extreme-qpme.toml",
            &format!("procedure = \"qpme\"\nepsilon = 0.01\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.2\n[oracle]\nkind = \"simulated\"\nmetric = {{ a = [0.6{scale}, 0.4{scale}], B = [[-1{scale}, 0.2{scale}], [0.2{scale}, -0.8{scale}]] }}\n"),
        ))
    };
    let unit = qpme("");
    for scale in ["e300", "e-318"] {
        let v = qpme(scale);
        for (got, want) in [
            (&v["truth"]["a"][0], &unit["truth"]["a"][0]),
            (&v["truth"]["B"][1][1], &unit["truth"]["B"][1][1]),
        ] {
            assert!(
                (got.as_f64().unwrap() - want.as_f64().unwrap()).abs() < 1e-3,
                "{scale}: {v}"
            );
        }
    }
}

/// Issue 28: a simulated Bradley–Terry person (`oracle.temperature`) gets
/// the Bayesian engine by default, and its answers are seeded: the same
/// spec gives the same result; the papers' search, named, runs behind the
/// same person.
#[test]
fn a_bradley_terry_person_from_a_spec() {
    let spec = |extra: &str| {
        format!("procedure = \"binary-lpm\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\n{extra}[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.6]\ntemperature = 0.005\nseed = 4\n")
    };
    let first = run_spec("bt.toml", &spec(""));
    let v = json(&first);
    assert_eq!(v["engine"], "bayes", "{v}");
    assert!(v["credible"]["radius"].as_f64().is_some(), "{v}");
    let again = run_spec("bt.toml", &spec(""));
    assert_eq!(first.stdout, again.stdout);
    let v = json(&run_spec("bt-search.toml", &spec("engine = \"search\"\n")));
    assert_eq!(v["search"], "golden", "{v}");
}

/// Issue 28: the person model watches with consistency checks. People
/// answering by a coin (six seeded coins) under `assumed_mistake_rate =
/// "person"` all end with exit 3: those still asked when the checks judge are
/// stopped as contradicted long before the budget of 400 questions, with
/// no check questions after and the result saying why in the person's
/// words (`replay` gives the same result from the transcript); those whose
/// answers happened to converge earlier are judged by the check questions
/// after the elicitation, as before.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn ask_with_the_person_model_stops_answers_that_follow_no_metric() {
    let base = std::fs::read_to_string(specs().join("binary-lpm-ask.toml")).unwrap();
    let spec = tmp("person-coin.toml");
    std::fs::write(
        &spec,
        base.replacen(
            "monotonicity = \"increasing\"",
            "monotonicity = \"increasing\"\nassumed_mistake_rate = \"person\"",
            1,
        ),
    )
    .unwrap();
    let mut contradicted = 0;
    for seed in 1..=6u64 {
        let file = tmp(&format!("person-coin-{seed}.jsonl"));
        let _ = std::fs::remove_file(&file);
        // A coin: the high bit of a linear congruential sequence.
        let mut x = seed;
        let answers: String = (0..400)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                if x >> 63 == 1 {
                    "A\n"
                } else {
                    "B\n"
                }
            })
            .collect();
        let out = ask(&spec, &file, &answers);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "coin {seed}: {err}");
        let v = json(&out);
        if v["stop"] != "contradicted" {
            assert!(v["queries"].as_u64().unwrap() < 30, "coin {seed}: {v}");
            assert_eq!(v["checks"]["asked"], 5, "coin {seed}: {v}");
            continue;
        }
        contradicted += 1;
        let q = v["queries"].as_u64().unwrap();
        assert!((10..150).contains(&q), "coin {seed}: {q} questions");
        assert!(
            v["consistency_checks"]["judged"].as_u64().unwrap() >= 5,
            "{v}"
        );
        assert_eq!(v["checks"]["asked"], 0, "no check questions after: {v}");
        assert!(
            v["undetermined"][0]
                .as_str()
                .unwrap()
                .starts_with("contradictory: binary LPM"),
            "{v}"
        );
        assert!(
            err.contains("too many of the consistency questions went against them"),
            "{err}"
        );
        assert!(
            v["undetermined_in_words"][0]
                .as_str()
                .unwrap()
                .contains("may not follow one metric"),
            "{v}"
        );
        let replay = elicit().arg("replay").arg(&file).output().unwrap();
        assert_eq!(replay.status.code(), Some(3));
        assert_eq!(json(&replay), v);
    }
    assert!(
        contradicted >= 3,
        "{contradicted} of 6 coins stopped as contradicted"
    );
}

/// Issue 28: `assumed_mistake_rate = "person"` (flips and near-tie
/// confusion, both unknown) behind Bradley–Terry people the engine is not
/// told about: over these 6 seeds at most one result is outside ε without
/// saying so (its 95 % credible set can miss), none by more than 2ε; a
/// value that is neither a probability, "unknown" nor "person" is refused
/// naming the field.
#[test]
fn the_person_model_from_a_spec_is_not_silently_wrong_behind_a_bradley_terry_person() {
    let spec = |seed: u64, rate: &str| {
        format!("procedure = \"binary-lpm\"\nengine = \"bayes\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\nassumed_mistake_rate = {rate}\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.6]\ntemperature = 0.01\nseed = {seed}\n")
    };
    let mut silent = Vec::new();
    for seed in 1..=6 {
        let out = run_spec("person-model.toml", &spec(seed, "\"person\""));
        let v = json(&out);
        assert_eq!(v["engine"], "bayes", "{v}");
        let error = v["error"].as_f64().unwrap();
        assert!(error <= 0.1, "seed {seed}: {v}");
        if v["undetermined"].as_array().unwrap().is_empty() && error > 0.05 {
            silent.push((seed, error));
        }
        assert!(v["mistake_rate_estimate"].as_f64().is_some(), "{v}");
    }
    assert!(silent.len() <= 1, "silently wrong: {silent:?}");
    let path = tmp("person-model-bad.toml");
    std::fs::write(&path, spec(1, "\"sometimes\"")).unwrap();
    let out = elicit().arg("run").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("assumed_mistake_rate") && err.contains("\"person\""),
        "{err}"
    );
}

/// Issue 28: the spec's `particles` reaches the engine of every Bayesian
/// procedure's fields (binary-lpm's, dlpm's shared by lpme and fpme,
/// qpme's shared by cubic): the result says how many particles its
/// credible set was computed from (1 000 by default), a run with other
/// particles asks other questions and replays bit for bit, and a count
/// outside [64, 100 000] or not a count is refused, exit 2, naming the
/// field (with the papers' search, saying it is the Bayesian engine's).
#[test]
fn the_engines_particles_come_from_the_spec() {
    let binary = |extra: &str| {
        format!("procedure = \"binary-lpm\"\nengine = \"bayes\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\n{extra}[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.6]\nmistake_rate = 0.1\nseed = 4\n")
    };
    let dlpm = |extra: &str| {
        format!("procedure = \"dlpm\"\nengine = \"bayes\"\nepsilon = 0.05\n{extra}[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]\nscores = \"softmax\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.2, 0.5, 0.3]\nmistake_rate = 0.1\nseed = 2\n")
    };
    let qpme = |extra: &str| {
        format!("procedure = \"qpme\"\nengine = \"bayes\"\nepsilon = 0.05\n{extra}[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.2\n[oracle]\nkind = \"simulated\"\nmetric = {{ a = [0.6, 0.3], B = [[-0.4, 0.1], [0.1, -0.3]] }}\n")
    };
    let v = json(&run_spec("particles-default.toml", &binary("")));
    assert_eq!(v["credible"]["particles"], 1000, "{v}");
    let v4 = json(&run_spec(
        "particles-4000.toml",
        &binary("particles = 4000\n"),
    ));
    assert_eq!(v4["credible"]["particles"], 4000, "{v4}");
    assert_ne!(
        v["credible"]["radius"], v4["credible"]["radius"],
        "{v} {v4}"
    );
    for (name, spec) in [("dlpm", dlpm as fn(&str) -> String), ("qpme", qpme)] {
        let v = json(&run_spec(
            &format!("particles-{name}.toml"),
            &spec("particles = 256\n"),
        ));
        assert_eq!(v["engine"], "bayes", "{name}: {v}");
        assert_eq!(v["credible"]["particles"], 256, "{name}: {v}");
    }
    // Other particles replay bit for bit.
    let path = tmp("particles-t.toml");
    std::fs::write(&path, dlpm("particles = 300\n")).unwrap();
    let file = tmp("particles.jsonl");
    let first = run_with_transcript(&path, &file);
    json(&first);
    let replay = elicit().arg("replay").arg(&file).output().unwrap();
    assert_eq!(replay.stdout, first.stdout);
    for bad in [
        "particles = 10\n",
        "particles = 1000000\n",
        "particles = \"many\"\n",
        "particles = -5\n",
    ] {
        for (name, spec) in [
            ("binary", binary as fn(&str) -> String),
            ("dlpm", dlpm),
            ("qpme", qpme),
        ] {
            let out = run_spec("particles-bad.toml", &spec(bad));
            assert_eq!(out.status.code(), Some(2), "{name} {bad:?}");
            assert!(out.stdout.is_empty(), "{name} {bad:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("particles"), "{name} {bad:?}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{name} {bad:?}: {err}");
        }
    }
    // With the papers' search the field is refused, saying whose it is.
    let search = dlpm("particles = 4000\n").replace("engine = \"bayes\"", "engine = \"search\"");
    let out = run_spec("particles-search.toml", &search);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("particles") && err.contains("engine = \"bayes\""),
        "{err}"
    );
}

/// Issue 28 (driver): `engine = "bayes"` elicits binary-lpm from a
/// simulated person who errs (`oracle.mistake_rate`), reports its credible
/// radius and the estimated mistake rate, and replays bit for bit. Over
/// these 10 seeded people who err one time in ten, each result it does not
/// list as undetermined is within epsilon (its 95 % credible set can miss:
/// 1 in 100 random metrics did, docs/measurements/bayes-noise.md).
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn the_bayesian_engine_runs_from_a_spec_and_says_when_it_is_unsure() {
    let spec = |seed: u64, extra: &str| {
        format!("procedure = \"binary-lpm\"\nengine = \"bayes\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\n{extra}[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.6]\nmistake_rate = 0.1\nseed = {seed}\n")
    };
    let mut within = 0;
    for seed in 1..=10 {
        let out = run_spec("bayes.toml", &spec(seed, ""));
        let v = json(&out);
        assert_eq!(v["engine"], "bayes");
        assert!(v.get("search").is_none(), "{v}");
        let error = v["error"].as_f64().unwrap();
        let radius = v["credible"]["radius"].as_f64().unwrap();
        if error <= 0.05 {
            within += 1;
        }
        if v["undetermined"].as_array().unwrap().is_empty() {
            assert!(radius <= 0.05 && error <= 0.05, "seed {seed}: {v}");
        }
        assert!(v["mistake_rate_estimate"].as_f64().is_some(), "{v}");
    }
    assert!(within >= 9, "{within} of 10 within epsilon");
    // A transcript replays bit for bit.
    let file = tmp("bayes.jsonl");
    let path = tmp("bayes-t.toml");
    std::fs::write(&path, spec(3, "")).unwrap();
    let first = run_with_transcript(&path, &file);
    json(&first);
    let replay = elicit().arg("replay").arg(&file).output().unwrap();
    assert_eq!(replay.stdout, first.stdout);
    // Out of questions: said, exit 3.
    let v = json(&run_spec("bayes-1.toml", &spec(3, "max_questions = 1\n")));
    assert_eq!(v["stop"], "budget");
    assert!(
        v["undetermined"][0]
            .as_str()
            .unwrap()
            .starts_with("unidentifiable: "),
        "{v}"
    );
    // DLPM (k = 3) from a person erring one time in ten.
    let v = json(&run_spec(
        "bayes-dlpm.toml",
        "procedure = \"dlpm\"\nengine = \"bayes\"\nepsilon = 0.05\n[population]\nkind = \"synthetic-002\"\np = [1.0, 3.0, 5.0]\nscores = \"softmax\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.2, 0.5, 0.3]\nmistake_rate = 0.1\nseed = 2\n",
    ));
    assert_eq!(v["engine"], "bayes");
    assert!(v["error"].as_f64().unwrap() <= 0.05, "{v}");
    assert_eq!(v["elicited"].as_array().unwrap().len(), 3);
    // LPME (q = 3, any signs) on a sphere, from people erring one time in
    // ten: never wrong without saying so.
    for seed in 1..=3 {
        let out = run_spec(
            "bayes-lpme.toml",
            &format!("procedure = \"lpme\"\nengine = \"bayes\"\nepsilon = 0.05\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5, 0.5]\nradius = 0.2\n[oracle]\nkind = \"simulated\"\nmetric = [0.6, -0.48, 0.64]\nmistake_rate = 0.1\nseed = {seed}\n"),
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["engine"], "bayes");
        assert_eq!(v["elicited"].as_array().unwrap().len(), 3);
        assert!(
            v["error"].as_f64().unwrap() <= 0.05
                || !v["undetermined"].as_array().unwrap().is_empty(),
            "seed {seed}: {v}"
        );
    }
    // FPME, two groups and two classes, from people erring one time in
    // ten: never wrong without saying so.
    for seed in 1..=3 {
        let out = run_spec(
            "bayes-fpme.toml",
            &format!("procedure = \"fpme\"\nengine = \"bayes\"\nepsilon = 0.05\n[population]\nkind = \"groups\"\nclasses = 2\ntau = [[0.5, 0.4], [0.5, 0.6]]\n[oracle]\nkind = \"simulated\"\nmistake_rate = 0.1\nseed = {seed}\n[oracle.metric]\na = [0.6, 0.8]\nb = [[0.8, 0.6]]\nlambda = 0.3\n"),
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["engine"], "bayes");
        assert!(v["elicited"]["lambda"].as_f64().is_some(), "{v}");
        assert!(
            v["error"].as_f64().unwrap() <= 0.05
                || !v["undetermined"].as_array().unwrap().is_empty(),
            "seed {seed}: {v}"
        );
    }
    // QPME (q = 2, a + B with a negative definite B) from people erring
    // one time in ten: never wrong without saying so, and a replay asks
    // the same.
    for seed in 1..=3 {
        let text = format!("procedure = \"qpme\"\nengine = \"bayes\"\nepsilon = 0.05\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.2\n[oracle]\nkind = \"simulated\"\nmistake_rate = 0.1\nseed = {seed}\n[oracle.metric]\na = [0.6, 0.4]\nB = [[-1, 0.2], [0.2, -0.8]]\n");
        let out = run_spec("bayes-qpme.toml", &text);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["engine"], "bayes");
        assert_eq!(v["elicited"]["B"].as_array().unwrap().len(), 2, "{v}");
        assert!(
            v["error"].as_f64().unwrap() <= 0.05
                || !v["undetermined"].as_array().unwrap().is_empty(),
            "seed {seed}: {v}"
        );
    }
    // Refused where it is not available, and an unknown engine.
    let out = run_spec(
        "bayes-lpm.toml",
        "procedure = \"lpm\"\nengine = \"bayes\"\nepsilon = 0.05\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.1\n[oracle]\nkind = \"simulated\"\nmetric = [-0.4, -0.3]\n",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("engine")
            && err.contains("binary-lpm, dlpm, lpme, fpme, qpme, cost-reward, fair-qpme, cubic"),
        "{err}"
    );
    let out = run_spec(
        "bayes-x.toml",
        &spec(3, "").replace("\"bayes\"", "\"magic\""),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("engine"));
}

/// The fair procedures on one's own data (#29 item 1): fpme, fair-qpme and
/// qpme-tradeoff run on a `dataset` with a group column, with τ and the
/// sphere read off the held-out rows; without the group column the spec is
/// refused naming `population.group`.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn fair_procedures_run_on_a_dataset_with_a_group_column() {
    let example = specs().join("fpme-dataset.toml");
    let out = elicit().arg("run").arg(&example).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["error"].as_f64().unwrap() <= 0.01, "{}", v["error"]);
    let rho = v["sphere_radius"].as_f64().unwrap();
    assert!(rho > 0.0 && rho <= 1.0 / 3.0, "{rho}");
    let tau = v["tau"].as_array().unwrap();
    assert_eq!(tau.len(), 2);
    for i in 0..3 {
        let column: f64 = tau.iter().map(|row| row[i].as_f64().unwrap()).sum();
        assert!((column - 1.0).abs() < 1e-12, "{tau:?}");
    }
    let here = wine_spec("fpme-dataset.toml");
    // The fair quadratic procedures on the same data and groups.
    let quadratic = "[oracle]\nkind = \"simulated\"\nmetric = { a = [0.6, 0.48, 0.64], B = [[[1.4310835055998654, 0.0, 0.0], [0.0, 1.073312629199899, 0.0], [0.0, 0.0, 0.8944271909999159]]], lambda = 0.4 }\n";
    let population = &here[here.find("[population]").unwrap()..here.find("[oracle]").unwrap()];
    for (procedure, fields, tolerance) in [
        ("fair-qpme", "epsilon = 0.005\n", 0.02),
        (
            "qpme-tradeoff",
            "epsilon = 0.005\na = [0.6, 0.48, 0.64]\nB = [[[1.4310835055998654, 0.0, 0.0], [0.0, 1.073312629199899, 0.0], [0.0, 0.0, 0.8944271909999159]]]\n",
            0.005,
        ),
    ] {
        let spec = format!("procedure = \"{procedure}\"\n{fields}\n{population}\n{quadratic}");
        let out = run_spec(&format!("{procedure}-dataset.toml"), &spec);
        assert!(out.status.success(), "{procedure}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["error"].as_f64().unwrap() <= tolerance, "{procedure}: {}", v["error"]);
        assert_eq!(v["tau"].as_array().unwrap().len(), 2, "{procedure}");
    }
    // No group column: refused, naming the field.
    let out = run_spec(
        "fpme-dataset-no-group.toml",
        &here.replace("group = \"group\"", "exclude = [\"group\"]"),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("population.group"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// Output into a closed pipe (`elicit run … 2>&1 | head -1`) loses the
/// text, not the run: the exit status is the run's (3 for this
/// undetermined example, a vertex optimum, whose stderr says why), never a panic's 101.
#[test]
fn a_closed_pipe_never_panics() {
    let spec = tmp("closed-pipe.toml");
    std::fs::write(
        &spec,
        "procedure = \"binary-lpm\"\nepsilon = 0.05\nmonotonicity = \"increasing\"\n[population]\nkind = \"synthetic-003\"\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, -0.5]\n",
    )
    .unwrap();
    for (closed_stdout, closed_stderr) in [(true, false), (false, true), (true, true)] {
        let closed = || {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            std::process::Stdio::from(writer)
        };
        let status = elicit()
            .arg("run")
            .arg(&spec)
            .stdout(if closed_stdout {
                closed()
            } else {
                std::process::Stdio::null()
            })
            .stderr(if closed_stderr {
                closed()
            } else {
                std::process::Stdio::null()
            })
            .status()
            .unwrap();
        assert_eq!(
            status.code(),
            Some(3),
            "stdout closed {closed_stdout}, stderr closed {closed_stderr}"
        );
    }
}

/// Rows whose labels do not follow their probabilities (#29's finding: a
/// DLPM there ended "determined" with error 0.33): the reliability check
/// runs before any question, the result carries a `miscalibrated` warning
/// and exits 3. The same rows with labels drawn from their probabilities
/// carry none. Arrays (dlpm) and a binary CSV (binary-lpm).
#[test]
fn labels_the_probabilities_do_not_describe_are_reported() {
    // A small deterministic generator (no randomness crate in these tests).
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut rows = Vec::new();
    let (mut drawn, mut independent) = (Vec::new(), Vec::new());
    for _ in 0..400 {
        let raw: Vec<f64> = (0..3).map(|_| uniform().powi(3) + 0.01).collect();
        let total: f64 = raw.iter().sum();
        let p: Vec<f64> = raw.iter().map(|v| v / total).collect();
        let u = uniform();
        drawn.push(if u < p[0] {
            0
        } else if u < p[0] + p[1] {
            1
        } else {
            2
        });
        independent.push((uniform() * 3.0) as usize % 3);
        rows.push(format!("[{}, {}, {}]", p[0], p[1], 1.0 - p[0] - p[1]));
    }
    let spec = |labels: &[usize]| {
        format!(
            "procedure = \"dlpm\"\nepsilon = 0.02\n[population]\nkind = \"arrays\"\nprobabilities = [{}]\nlabels = {labels:?}\n[oracle]\nkind = \"simulated\"\nmetric = [0.2, 0.5, 0.3]\n",
            rows.join(", ")
        )
    };
    let causes = |out: &Output| causes(&serde_json::from_slice(&out.stdout).unwrap());
    let out = run_spec("miscalibrated-arrays.toml", &spec(&independent));
    assert_eq!(out.status.code(), Some(3));
    assert!(
        causes(&out).contains(&"miscalibrated".into()),
        "{:?}",
        causes(&out)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("undetermined: miscalibrated: the probabilities do not describe the labels"),
        "{err}"
    );
    let out = run_spec("calibrated-arrays.toml", &spec(&drawn));
    assert!(
        !causes(&out).contains(&"miscalibrated".into()),
        "{:?}",
        causes(&out)
    );
    // A binary CSV whose labels contradict its scores.
    let csv = tmp("miscalibrated.csv");
    let mut text = String::from("score,label\n");
    for r in 0..300 {
        let s = uniform();
        let y = usize::from(uniform() < 0.5);
        text.push_str(&format!(
            "{s},{}\n",
            if r % 2 == 0 { y } else { usize::from(s < 0.5) }
        ));
    }
    std::fs::write(&csv, text).unwrap();
    let binary = format!(
        "procedure = \"binary-lpm\"\nepsilon = 0.02\n[population]\nkind = \"csv\"\npath = {:?}\n[oracle]\nkind = \"simulated\"\nmetric = [0.8, 0.6]\n",
        csv.display().to_string()
    );
    let out = run_spec("miscalibrated-csv.toml", &binary);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        causes(&out).contains(&"miscalibrated".into()),
        "{:?}",
        causes(&out)
    );
}

/// A large k with a metric of the wrong length is refused at once, before
/// the population is built (it took 49 s at k = 10⁵ and 1000 rows): here
/// the population could not be built at all (10¹⁵ rows are refused as too
/// large for memory), so the error names the metric only if it is checked
/// first.
#[test]
fn a_metric_of_the_wrong_length_is_refused_before_the_population_is_built() {
    for (procedure, expected) in [("dlpm", "100000"), ("lpme", "9999900000")] {
        let body = format!(
            "procedure = \"{procedure}\"\nepsilon = 0.02\n\n[population]\nkind = \"synthetic-004\"\nclasses = 100000\nrows = 1000000000000000\n\n[oracle]\nkind = \"simulated\"\nmetric = [0.1, 0.3, 0.6]\n"
        );
        let out = run_spec(&format!("large-k-{procedure}.toml"), &body);
        assert_eq!(out.status.code(), Some(2), "{procedure}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("oracle.metric") && err.contains(&format!("expected {expected} numbers")),
            "{err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// A person's QPME left undetermined (here by a budget of 8 questions) is
/// still judged on its check questions, against the metric it reports, as
/// the other Bayesian procedures are (before: "0 judged").
#[test]
fn an_undetermined_bayesian_qpme_is_judged_on_its_check_questions() {
    let spec = tmp("qpme-budget.toml");
    std::fs::write(
        &spec,
        "procedure = \"qpme\"\nepsilon = 0.05\nmax_questions = 8\n[population]\nkind = \"sphere\"\ncenter = [0.5, 0.5]\nradius = 0.2\n[oracle]\nkind = \"person\"\n",
    )
    .unwrap();
    let file = tmp("qpme-budget.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&spec, &file, &"A\nB\nA\n".repeat(10));
    let v = json(&out);
    assert_eq!(v["engine"], "bayes", "{v}");
    assert!(!v["undetermined"].as_array().unwrap().is_empty(), "{v}");
    let checks = &v["checks"];
    assert_eq!(checks["asked"], 5, "{v}");
    assert_eq!(
        checks["agree"].as_u64().unwrap() + checks["disagree"].as_u64().unwrap(),
        5,
        "{v}"
    );
}

/// Issue #30: a sphere found in data is centred toward the data's most
/// accurate classifier by default (`query_center = "accurate"`), so the
/// classifiers a person judges misclassify fewer cases than the uniform
/// classifier's neighbours; `uniform` keeps 001 App. B.1's sphere (the
/// reproductions name it); another value is refused naming the field.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn a_dataset_sphere_is_centred_toward_the_accurate_classifier() {
    let here = wine_spec("lpme-dataset.toml");
    assert!(here.contains("query_center = \"uniform\""));
    let run = |name: &str, body: &str| -> serde_json::Value {
        let out = run_spec(name, body);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let uniform = run("centre-uniform.toml", &here);
    let accurate = run(
        "centre-accurate.toml",
        &here.replace("query_center = \"uniform\"", ""),
    );
    assert_eq!(uniform["query_center_t"], 0.0);
    let t = accurate["query_center_t"].as_f64().unwrap();
    assert!(t > 0.0 && t < 1.0, "{t}");
    let (r0, r) = (
        uniform["sphere_radius"].as_f64().unwrap(),
        accurate["sphere_radius"].as_f64().unwrap(),
    );
    assert!(r >= r0 / 2.0 && r > 0.0, "{r} against {r0}");
    // A linear metric's answers depend on directions only: the search
    // recovers the same metric about either centre.
    assert!(accurate["error"].as_f64().unwrap() <= 0.01);
    let out = run_spec(
        "centre-bad.toml",
        &here.replace("query_center = \"uniform\"", "query_center = \"best\""),
    );
    assert_eq!(out.status.code(), Some(2));
    // The field and the values it takes, on one line.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("population.query_center: `accurate` or `uniform`, got `best`")
            && err.trim().lines().count() == 1,
        "{err}"
    );
}

/// Issue #28: cost-reward has the Bayesian engine. A simulated person who
/// errs on one answer in ten gets it by default (the spec names no engine)
/// and ends within ε in each of three seeds; a person answering through
/// `ask` sees the attributes with their names and units, the result is a
/// sentence in the task's words, and `replay` of the transcript gives the
/// same weights.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn cost_reward_has_the_bayesian_engine() {
    let body = |oracle: &str| {
        format!(
            "procedure = \"cost-reward\"\nepsilon = 0.05\nattributes = [\n  {{ name = \"speed\", kind = \"reward\", lower = 0, upper = 5, unit = \"pages/s\" }},\n  {{ name = \"cost\", kind = \"cost\", lower = -0.3, upper = 0, unit = \"USD\" }},\n]\n[population]\nkind = \"synthetic-004\"\nclasses = 2\nrows = 100000\nseed = 2021\n[oracle]\n{oracle}"
        )
    };
    for seed in 0..3 {
        let out = run_spec(
            "bayes-cost-reward.toml",
            &body(&format!(
                "kind = \"simulated\"\nmetric = {{ accuracy = [0.3, 0.2], speed = 0.1, cost = 0.4 }}\nmistake_rate = 0.1\nseed = {seed}\n"
            )),
        );
        let v = json(&out);
        assert_eq!(v["engine"], "bayes", "{v}");
        assert!(v["error"].as_f64().unwrap() <= 0.05, "seed {seed}: {v}");
        for key in ["accuracy", "speed", "cost"] {
            assert!(v["elicited"].get(key).is_some(), "{v}");
        }
    }
    let spec = tmp("bayes-cost-reward-ask.toml");
    std::fs::write(&spec, body("kind = \"person\"\n")).unwrap();
    let file = tmp("bayes-cost-reward-ask.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = ask(&spec, &file, &"A\nB\nB\n".repeat(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("speed (pages/s)") && err.contains("cost (USD)"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engine"], "bayes", "{v}");
    let sentence = v["sentence"].as_str().unwrap_or_default().to_string();
    assert!(
        sentence.contains("matters most") && sentence.contains("pages/s"),
        "{v}"
    );
    let replay = elicit()
        .args(["replay", file.to_str().unwrap()])
        .output()
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(r["elicited"], v["elicited"]);
}

/// Fair QPME and the cubic metric have the Bayesian engine (#28): a fair
/// quadratic metric from people erring one time in ten is never wrong
/// without saying so, and replays to the same result; a cubic metric,
/// whose third-order part no visible question on a ball of radius 0.2
/// tells apart, is reported undetermined (exit 3), not as the metric.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn fair_qpme_and_cubic_have_the_bayesian_engine() {
    for seed in 1..=3 {
        let path = tmp("bayes-fair-qpme.toml");
        std::fs::write(
            &path,
            format!("procedure = \"fair-qpme\"\nepsilon = 0.05\n[population]\nkind = \"groups\"\nclasses = 2\ntau = [[0.5, 0.4], [0.5, 0.6]]\nradius = 0.2\n[oracle]\nkind = \"simulated\"\nmistake_rate = 0.1\nseed = {seed}\n[oracle.metric]\na = [0.6, 0.8]\nB = [[[1.6, 0.0], [0.0, 1.2]]]\nlambda = 0.4\n"),
        )
        .unwrap();
        let file = tmp("bayes-fair-qpme.jsonl");
        let _ = std::fs::remove_file(&file);
        let out = run_with_transcript(&path, &file);
        let v = json(&out);
        assert_eq!(
            v["engine"], "bayes",
            "a person who errs gets the engine: {v}"
        );
        assert!(v["elicited"]["lambda"].as_f64().is_some(), "{v}");
        assert_eq!(v["elicited"]["B"].as_array().unwrap().len(), 1, "{v}");
        assert!(
            v["error"].as_f64().unwrap() <= 0.05
                || !v["undetermined"].as_array().unwrap().is_empty(),
            "seed {seed}: {v}"
        );
        let replay = elicit()
            .args(["replay", file.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(json(&replay)["elicited"], v["elicited"]);
    }
    let text = std::fs::read_to_string(specs().join("cubic.toml")).unwrap();
    let out = run_spec(
        "bayes-cubic.toml",
        &text
            .replace("epsilon = 0.00001", "engine = \"bayes\"\nepsilon = 0.05")
            .replace("search = \"bisection\"\n", "")
            .replace("design = \"minimal\"\n", ""),
    );
    let v = json(&out);
    assert_eq!(v["engine"], "bayes", "{v}");
    assert_eq!(out.status.code(), Some(3), "{v}");
    assert!(
        v["undetermined"][0]
            .as_str()
            .unwrap()
            .contains("no visible question splits the posterior"),
        "{v}"
    );
    assert!(v["credible"]["radius"].as_f64().unwrap() > 0.05, "{v}");
}

/// Rewrites the transcript `file` as an older version wrote it: `edit`
/// changes its header's spec, whose hash is then recomputed. Returns the
/// file's new text.
fn as_recorded_before(file: &Path, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    use sha2::{Digest, Sha256};
    let transcript = std::fs::read_to_string(file).unwrap();
    let (first, rest) = transcript.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    edit(&mut header["header"]["spec"]);
    let stored = header["header"]["spec"].to_string();
    let hash = Sha256::digest(stored.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    header["header"]["spec_sha256"] = serde_json::json!(hex);
    let text = format!("{header}\n{rest}");
    std::fs::write(file, &text).unwrap();
    text
}

/// A transcript recorded before `query_center` existed (its header's
/// population has no such field) replays as it was recorded: about the
/// uniform classifier, not about the new default centre.
#[test]
fn a_transcript_from_before_query_center_replays_about_o() {
    let here = wine_spec("lpme-dataset.toml");
    let spec = tmp("old-centre.toml");
    std::fs::write(&spec, &here).unwrap();
    let file = tmp("old-centre.jsonl");
    let _ = std::fs::remove_file(&file);
    let out = run_with_transcript(&spec, &file);
    let recorded = json(&out);
    // The header as an older version wrote it: no `query_center`, and
    // its hash over that spec.
    as_recorded_before(&file, |stored| {
        assert_eq!(stored["population"]["query_center"], "uniform");
        stored["population"]
            .as_object_mut()
            .unwrap()
            .remove("query_center");
    });
    let out = elicit().arg("replay").arg(&file).output().unwrap();
    let replayed = json(&out);
    assert_eq!(replayed["elicited"], recorded["elicited"]);
    assert_eq!(replayed["sphere_radius"], recorded["sphere_radius"]);
    assert_eq!(replayed["query_center_t"], 0.0);
}

/// A person's transcript recorded before the answer model was pinned (its
/// header's spec names no `assumed_mistake_rate`; the default was then the
/// flips model) replays as it was recorded, and resuming it with a spec
/// that names no model says which one to name instead of asking other
/// questions.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn a_transcript_from_before_the_answer_model_was_pinned_replays_with_the_flips_model() {
    let original = specs().join("binary-lpm-ask.toml");
    let spec = binary_ask_with_flips("old-model.toml");
    let file = tmp("old-model.jsonl");
    let _ = std::fs::remove_file(&file);
    // A person who answers A whenever asked (the sides are drawn at
    // random, so these answers follow no metric; the flips model settles
    // on one after 81 questions and the check questions disagree).
    let recorded = json(&ask(&spec, &file, &"A\n".repeat(120)));
    assert_eq!(recorded["answer_model"], "unknown", "{recorded}");
    let old = as_recorded_before(&file, |stored| {
        assert_eq!(stored["assumed_mistake_rate"], "unknown");
        stored
            .as_object_mut()
            .unwrap()
            .remove("assumed_mistake_rate");
    });
    let replayed = json(&elicit().arg("replay").arg(&file).output().unwrap());
    assert_eq!(replayed["answer_model"], "unknown", "{replayed}");
    assert_eq!(replayed["queries"], recorded["queries"]);
    assert_eq!(replayed["elicited"], recorded["elicited"]);
    // Resumed with the example spec, which names no model (a person's
    // default is now the person model): refused, the field named, the
    // file kept as it was.
    let out = ask(&original, &file, "A\n");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("assumed_mistake_rate = \"unknown\""), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), old);
}

#[test]
fn ask_s_help_names_the_procedures_the_bayesian_engine_asks_as_the_registry_has_them() {
    use metric_elicitation::driver::registry::PROCEDURES;
    use metric_elicitation::driver::spec::Engine;
    let out = elicit().args(["ask", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap().replace('\n', " ");
    let (bayes, search) = help
        .split_once("where the procedure has it (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(list, _)| list.split_once(';'))
        .unwrap_or_else(|| panic!("no list of procedures in: {help}"));
    let names = |list: &str| -> Vec<String> {
        let mut v: Vec<String> = list
            .replace(" are asked by the papers' search", "")
            .replace(" and ", ", ")
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        v.sort();
        v
    };
    let registry = |with: bool| -> Vec<String> {
        let mut v: Vec<String> = PROCEDURES
            .iter()
            .filter(|e| e.engine == Engine::Search)
            .filter(|e| {
                PROCEDURES
                    .iter()
                    .any(|b| b.name == e.name && b.engine == Engine::Bayes && b.by_default)
                    == with
            })
            .map(|e| e.name.to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(bayes), registry(true), "{help}");
    assert_eq!(names(search), registry(false), "{help}");
}
