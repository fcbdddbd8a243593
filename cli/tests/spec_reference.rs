//! docs/spec.md is checked against the code: every registered procedure has
//! a section; every section's TOML example runs with `elicit run` (exit 0,
//! JSON on stdout; or exit 3 where the answers leave the metric
//! undetermined and the section says so, "status 3"); every field in a procedure or population table appears
//! in its section's example; an undocumented field is refused naming it; and
//! every spec under examples/specs/ loads.
//!
//! The layout read from docs/spec.md: a section is a `## ` heading; a
//! procedure section's heading is ``## procedure `NAME` ``, a population's
//! ``## population `KIND` `` (text may follow); a table row is
//! ``| `field` | type | default | meaning |``; the example is the one
//! ```` ```toml ```` block of the section. A section with a line starting
//! `Pending:` documents something no registered procedure takes yet: its
//! example must load, and `elicit run` must refuse it (exit 2) until the mark
//! is removed.

use metric_elicitation::driver::spec::Spec;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a section documents.
#[derive(Debug, Clone, PartialEq)]
enum Subject {
    Procedure(String),
    Population(String),
    Other,
}

/// One `## ` section of docs/spec.md.
#[derive(Debug)]
struct Section {
    heading: String,
    subject: Subject,
    /// (field, meaning) of each table row.
    fields: Vec<(String, String)>,
    /// The TOML examples (one expected where there is any).
    examples: Vec<String>,
    pending: bool,
    /// The section's prose (every line outside the TOML blocks).
    body: String,
}

/// The repository's root (this crate is one of its members).
fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The text between the first pair of backticks.
fn backticked(text: &str) -> Option<String> {
    let mut parts = text.split('`');
    parts.next()?;
    let inner = parts.next()?;
    parts.next()?;
    Some(inner.to_string())
}

fn sections() -> Vec<Section> {
    let text = std::fs::read_to_string(root().join("docs/spec.md")).expect("docs/spec.md");
    let mut out: Vec<Section> = Vec::new();
    let mut in_toml: Option<String> = None;
    for line in text.lines() {
        if let Some(block) = in_toml.as_mut() {
            if line.trim_end() == "```" {
                let block = in_toml.take().unwrap();
                out.last_mut()
                    .expect("a toml block before the first section")
                    .examples
                    .push(block);
            } else {
                block.push_str(line);
                block.push('\n');
            }
            continue;
        }
        if let Some(heading) = line.strip_prefix("## ") {
            let subject = match (heading.split_whitespace().next(), backticked(heading)) {
                (Some("procedure"), Some(name)) => Subject::Procedure(name),
                (Some("population"), Some(kind)) => Subject::Population(kind),
                _ => Subject::Other,
            };
            out.push(Section {
                heading: heading.to_string(),
                subject,
                fields: Vec::new(),
                examples: Vec::new(),
                pending: false,
                body: String::new(),
            });
        } else if line.trim_end() == "```toml" {
            in_toml = Some(String::new());
        } else if let Some(section) = out.last_mut() {
            section.body.push_str(line);
            section.body.push('\n');
            if line.starts_with("Pending:") {
                section.pending = true;
            } else if line.starts_with("| `") {
                let cells: Vec<&str> = line.split(" | ").collect();
                let field = backticked(cells[0]).expect("a field in backticks");
                let meaning = cells.last().copied().unwrap_or("").to_string();
                section.fields.push((field, meaning));
            }
        }
    }
    assert!(in_toml.is_none(), "an unclosed ```toml block");
    out
}

/// The procedure and population sections (the ones with required examples).
fn subject_sections() -> Vec<Section> {
    let all = sections();
    assert!(
        all.iter().filter(|s| s.subject != Subject::Other).count() >= 10,
        "docs/spec.md lost its sections"
    );
    all.into_iter()
        .filter(|s| s.subject != Subject::Other)
        .collect()
}

/// The one example of a section, parsed.
fn example(section: &Section) -> toml::Table {
    assert_eq!(
        section.examples.len(),
        1,
        "section {:?} must hold exactly one ```toml example",
        section.heading
    );
    toml::from_str(&section.examples[0])
        .unwrap_or_else(|e| panic!("section {:?}: {e}", section.heading))
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Writes `spec` to a fresh temp dir, its data path made absolute (paths in
/// the examples are relative to the repository), and returns the file.
fn write_spec(spec: &toml::Table) -> PathBuf {
    let mut spec = spec.clone();
    if let Some(toml::Value::Table(pop)) = spec.get_mut("population") {
        if let Some(toml::Value::String(path)) = pop.get("path") {
            if Path::new(path).is_relative() {
                let abs = root().join(path).display().to_string();
                pop.insert("path".into(), toml::Value::String(abs));
            }
        }
    }
    let dir = std::env::temp_dir().join(format!(
        "spec-reference-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spec.toml");
    std::fs::write(&file, toml::to_string(&spec).unwrap()).unwrap();
    file
}

fn run(spec: &toml::Table) -> Output {
    let file = write_spec(spec);
    let out = Command::new(env!("CARGO_BIN_EXE_elicit"))
        .arg("run")
        .arg(&file)
        .output()
        .expect("elicit runs");
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_registered_procedure_has_a_section() {
    let documented: Vec<String> = subject_sections()
        .into_iter()
        .filter_map(|s| match s.subject {
            Subject::Procedure(name) => Some(name),
            _ => None,
        })
        .collect();
    for name in metric_elicitation::driver::registry::names() {
        assert!(
            documented.iter().any(|d| d == name),
            "procedure {name} has no `## procedure `{name}`` section in docs/spec.md"
        );
    }
    for name in &documented {
        assert!(
            metric_elicitation::driver::registry::find(name).is_ok(),
            "docs/spec.md documents procedure {name}, which is not registered"
        );
    }
}

#[test]
fn every_documented_field_is_in_its_example() {
    for section in subject_sections() {
        let spec = example(&section);
        let keys: &toml::Table = match &section.subject {
            Subject::Procedure(name) => {
                assert_eq!(
                    spec.get("procedure").and_then(|v| v.as_str()),
                    Some(name.as_str()),
                    "section {:?}: the example runs another procedure",
                    section.heading
                );
                &spec
            }
            Subject::Population(kind) => {
                let pop = spec
                    .get("population")
                    .and_then(|v| v.as_table())
                    .expect("a [population] table");
                assert_eq!(
                    pop.get("kind").and_then(|v| v.as_str()),
                    Some(kind.as_str()),
                    "section {:?}: the example uses another population kind",
                    section.heading
                );
                pop
            }
            Subject::Other => unreachable!(),
        };
        assert!(
            !section.fields.is_empty(),
            "section {:?} has no field table",
            section.heading
        );
        for (field, meaning) in &section.fields {
            if meaning.contains("(not in the example)") {
                continue;
            }
            assert!(
                keys.contains_key(field),
                "section {:?}: field {field} is documented but not in the example",
                section.heading
            );
        }
    }
}

#[test]
fn every_example_runs() {
    let mut ran = 0;
    for section in sections() {
        if section.subject == Subject::Other && section.examples.is_empty() {
            continue;
        }
        let spec = example(&section);
        ran += 1;
        // Every example loads as a spec file (as `elicit` reads it).
        let file = write_spec(&spec);
        let loaded = Spec::load(&file);
        let _ = std::fs::remove_dir_all(file.parent().unwrap());
        loaded.unwrap_or_else(|e| panic!("section {:?}: {e}", section.heading));
        let out = run(&spec);
        let code = out.status.code();
        if section.pending {
            assert_eq!(
                code,
                Some(2),
                "section {:?} is marked Pending: but its example {}; remove the mark",
                section.heading,
                if code == Some(0) {
                    "runs".to_string()
                } else {
                    format!("fails otherwise: {}", text(&out.stderr))
                }
            );
            let err = text(&out.stderr);
            assert!(
                err.contains("population.kind") || err.contains("procedure"),
                "section {:?}: pending example refused for another reason: {err}",
                section.heading
            );
            continue;
        }
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "section {:?}: stdout is not JSON ({e}): {}; stderr: {}",
                section.heading,
                text(&out.stdout),
                text(&out.stderr)
            )
        });
        // Exit status 0, or 3 exactly when the answers leave the metric
        // undetermined (and the section says so).
        let open = json["undetermined"]
            .as_array()
            .is_some_and(|u| !u.is_empty());
        assert_eq!(
            code,
            Some(if open { 3 } else { 0 }),
            "section {:?}: elicit run: {}",
            section.heading,
            text(&out.stderr)
        );
        if open {
            assert!(
                section.body.contains("status 3"),
                "section {:?}: its example leaves the metric undetermined; say so",
                section.heading
            );
        }
        assert!(
            json.get("elicited").is_some(),
            "section {:?}: no `elicited` in {json}",
            section.heading
        );
    }
    assert!(ran >= 10, "only {ran} examples in docs/spec.md");
}

#[test]
fn an_undocumented_field_is_refused_naming_it() {
    for section in subject_sections() {
        if section.pending {
            continue;
        }
        let mut spec = example(&section);
        let table = match section.subject {
            Subject::Procedure(_) => &mut spec,
            _ => spec
                .get_mut("population")
                .and_then(|v| v.as_table_mut())
                .unwrap(),
        };
        table.insert("not_a_field".into(), toml::Value::Integer(1));
        let out = run(&spec);
        let err = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "section {:?}: not_a_field was accepted (stdout {})",
            section.heading,
            text(&out.stdout)
        );
        assert!(
            err.contains("not_a_field"),
            "section {:?}: the error does not name the field: {err}",
            section.heading
        );
    }
}

#[test]
fn every_example_spec_file_loads() {
    let mut n = 0;
    for entry in std::fs::read_dir(root().join("examples/specs")).unwrap() {
        let path = entry.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str());
        if matches!(ext, Some("toml" | "json")) {
            Spec::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} example specs found");
}
