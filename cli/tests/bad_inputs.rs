//! Bad input never panics or aborts (issue #29, item 5): every shipped
//! example spec, broken in each of the ways below, is refused by
//! `elicit run` with exit status 2 and one line on stderr naming the field
//! (or the file and line). The table is generated from the shipped specs, so
//! a new spec or a new procedure is covered as it lands; a later change
//! cannot bring any of these back unnoticed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/specs")
}

/// One way of breaking a spec: its name, the edit, and what the one-line
/// message must name. The edit returns `false` where it does not apply
/// (e.g. a noise band on a person's oracle).
struct Breakage {
    name: &'static str,
    edit: fn(&mut toml::Table) -> bool,
    names: &'static str,
}

fn set(t: &mut toml::Table, key: &str, v: toml::Value) -> bool {
    t.insert(key.into(), v);
    true
}

fn sub<'a>(t: &'a mut toml::Table, key: &str) -> Option<&'a mut toml::Table> {
    t.get_mut(key).and_then(toml::Value::as_table_mut)
}

fn simulated(t: &mut toml::Table) -> Option<&mut toml::Table> {
    sub(t, "oracle").filter(|o| o.get("kind").and_then(toml::Value::as_str) == Some("simulated"))
}

fn breakages() -> Vec<Breakage> {
    use toml::Value as V;
    vec![
        Breakage {
            name: "epsilon = 0",
            edit: |t| set(t, "epsilon", V::Float(0.0)),
            names: "epsilon",
        },
        Breakage {
            name: "epsilon < 0",
            edit: |t| set(t, "epsilon", V::Float(-0.1)),
            names: "epsilon",
        },
        Breakage {
            name: "epsilon = true",
            edit: |t| set(t, "epsilon", V::Boolean(true)),
            names: "expected a number",
        },
        Breakage {
            name: "epsilon = \"abc\"",
            edit: |t| set(t, "epsilon", V::String("abc".into())),
            names: "epsilon",
        },
        Breakage {
            name: "epsilon = nan",
            edit: |t| set(t, "epsilon", V::Float(f64::NAN)),
            names: "epsilon is not a finite number",
        },
        Breakage {
            name: "epsilon = inf",
            edit: |t| set(t, "epsilon", V::Float(f64::INFINITY)),
            names: "epsilon is not a finite number",
        },
        Breakage {
            name: "no epsilon",
            edit: |t| t.remove("epsilon").is_some(),
            names: "epsilon",
        },
        Breakage {
            name: "an unknown field",
            edit: |t| set(t, "frobnicate", V::Integer(1)),
            names: "frobnicate",
        },
        Breakage {
            name: "an unknown procedure",
            edit: |t| set(t, "procedure", V::String("nonsense".into())),
            names: "nonsense",
        },
        Breakage {
            name: "budget = 0",
            edit: |t| set(t, "budget", V::Integer(0)),
            names: "budget",
        },
        Breakage {
            name: "an unknown precision",
            edit: |t| set(t, "precision", V::String("f16".into())),
            names: "precision",
        },
        Breakage {
            name: "an unknown search",
            edit: |t| set(t, "search", V::String("nonsense".into())),
            names: "nonsense",
        },
        Breakage {
            name: "no population",
            edit: |t| t.remove("population").is_some(),
            names: "population",
        },
        Breakage {
            name: "no oracle",
            edit: |t| t.remove("oracle").is_some(),
            names: "oracle",
        },
        Breakage {
            name: "an unknown population kind",
            edit: |t| {
                sub(t, "population").is_some_and(|p| set(p, "kind", V::String("nonsense".into())))
            },
            names: "nonsense",
        },
        Breakage {
            name: "an unknown population field",
            edit: |t| sub(t, "population").is_some_and(|p| set(p, "frobnicate", V::Integer(1))),
            names: "frobnicate",
        },
        Breakage {
            name: "an unknown oracle kind",
            edit: |t| {
                sub(t, "oracle").is_some_and(|o| set(o, "kind", V::String("nonsense".into())))
            },
            names: "nonsense",
        },
        Breakage {
            name: "a NaN in the oracle's metric",
            edit: |t| {
                simulated(t)
                    .and_then(|o| o.get_mut("metric"))
                    .and_then(toml::Value::as_array_mut)
                    .and_then(|m| m.first_mut())
                    .map(|x| *x = V::Float(f64::NAN))
                    .is_some()
            },
            names: "oracle.metric[0] is not a finite number",
        },
        Breakage {
            name: "a metric of the wrong length",
            edit: |t| {
                simulated(t)
                    .and_then(|o| o.get_mut("metric"))
                    .and_then(toml::Value::as_array_mut)
                    .filter(|m| m.iter().all(|x| x.is_float() || x.is_integer()))
                    .map(|m| m.push(V::Float(0.5)))
                    .is_some()
            },
            names: "oracle.metric",
        },
        Breakage {
            name: "a negative noise band",
            edit: |t| simulated(t).is_some_and(|o| set(o, "eps_omega", V::Float(-1.0))),
            names: "eps_omega",
        },
        Breakage {
            name: "an unknown adversary",
            edit: |t| {
                simulated(t).is_some_and(|o| {
                    set(o, "eps_omega", V::Float(1e-3));
                    set(o, "adversary", V::String("nonsense".into()))
                })
            },
            names: "adversary",
        },
        Breakage {
            name: "a class's probability column left out",
            edit: |t| {
                sub(t, "population")
                    .and_then(|p| p.get_mut("probabilities"))
                    .and_then(toml::Value::as_array_mut)
                    .filter(|c| c.len() >= 2)
                    .and_then(Vec::pop)
                    .is_some()
            },
            names: "is a class's column missing from probabilities?",
        },
        Breakage {
            name: "a missing data file",
            edit: |t| {
                sub(t, "population")
                    .filter(|p| p.contains_key("path"))
                    .is_some_and(|p| set(p, "path", V::String("no-such-file.csv".into())))
            },
            names: "no-such-file.csv",
        },
    ]
}

#[test]
fn every_example_spec_broken_every_way_exits_2_naming_the_field() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(specs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let table: toml::Table = toml::from_str(&text).unwrap();
        for b in breakages() {
            let mut broken = table.clone();
            if !(b.edit)(&mut broken) {
                continue;
            }
            // Beside the original, so that relative data paths resolve.
            let file = specs().join(format!(".bad-{}-{}.toml", std::process::id(), checked));
            std::fs::write(&file, toml::to_string(&broken).unwrap()).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_elicit"))
                .arg("run")
                .arg(&file)
                .output()
                .unwrap();
            std::fs::remove_file(&file).unwrap();
            let err = String::from_utf8_lossy(&out.stderr).to_string();
            let case = format!(
                "{} with {}",
                path.file_name().unwrap().to_string_lossy(),
                b.name
            );
            if out.status.code() != Some(2)
                || err.trim().lines().count() != 1
                || !err.contains(b.names)
            {
                failures.push(format!(
                    "{case}: exit {:?}, stderr {:?} (expected exit 2 and one line naming {:?})",
                    out.status.code(),
                    err.chars().take(300).collect::<String>(),
                    b.names
                ));
            }
            checked += 1;
        }
    }
    eprintln!("{checked} bad inputs checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} bad inputs not refused as promised:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 150, "only {checked} bad inputs");
}
