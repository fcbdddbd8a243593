//! `elicit ask --web` through its HTTP API (no browser): what it refuses
//! (no or a wrong token, another host or origin, oversized or malformed
//! bodies, paths outside the page) without any effect on the transcript;
//! idempotent answers; a server killed with SIGKILL and started again on
//! the same transcript resumes without losing or repeating an answer, and
//! its result equals `elicit replay`'s; and the number of questions a
//! simulated person answers per procedure, with no pair shown whose numbers
//! look identical (written to `target/web-counts.md`).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/specs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("elicit-web-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A running `elicit ask --web`.
struct Server {
    child: Child,
    port: u16,
    token: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(spec: &Path, transcript: &Path, checks: usize) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_elicit"))
        .arg("ask")
        .arg(spec)
        .arg("--web")
        .arg("--transcript")
        .arg(transcript)
        .args(["--checks", &checks.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim();
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("address line {url:?}"));
    let (port, token) = rest.split_once('/').unwrap();
    Server {
        child,
        port: port.parse().unwrap(),
        token: token.trim_end_matches('/').to_string(),
    }
}

/// One raw HTTP/1.1 request; returns the status and the body.
fn raw(port: u16, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> (u16, String) {
    let mut text = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    let host = format!("127.0.0.1:{port}");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: {host}\r\n"));
    }
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    let body = body.unwrap_or(b"");
    if !body.is_empty() || method == "POST" {
        text.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    text.push_str("\r\n");
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(body);
    raw(port, &bytes)
}

impl Server {
    fn get(&self, rest: &str) -> (u16, String) {
        request(
            self.port,
            "GET",
            &format!("/{}/{rest}", self.token),
            &[],
            None,
        )
    }

    fn post(&self, rest: &str, body: &Value) -> (u16, String) {
        request(
            self.port,
            "POST",
            &format!("/{}/{rest}", self.token),
            &[("Content-Type", "application/json")],
            Some(body.to_string().as_bytes()),
        )
    }

    fn state(&self) -> Value {
        let (status, body) = self.get("api/state");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }
}

/// A simulated person: a utility over the points' coordinates.
type Utility = fn(&[f64]) -> f64;

fn coords(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().parse::<f64>().unwrap())
        .collect()
}

fn choose(q: &Value, u: Utility) -> &'static str {
    let (a, b) = (u(&coords(&q["a_point"])), u(&coords(&q["b_point"])));
    if (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0) {
        "tie"
    } else if a > b {
        "a"
    } else {
        "b"
    }
}

/// Every number a panel shows, as shown.
fn shown(panel: &Value) -> Vec<String> {
    let fmt = |v: f64, d: u64| {
        let t = format!("{v:.*}", d as usize);
        if t.trim_start_matches('-')
            .chars()
            .all(|c| c == '0' || c == '.')
        {
            t.trim_start_matches('-').to_string()
        } else {
            t
        }
    };
    let mut out = Vec::new();
    for s in panel["sections"].as_array().unwrap() {
        for r in s["rows"].as_array().unwrap() {
            out.push(fmt(
                r["value"].as_f64().unwrap(),
                r["decimals"].as_u64().unwrap(),
            ));
        }
        if let Some(m) = s.get("matrix") {
            let d = m["decimals"].as_u64().unwrap();
            for row in m["cells"].as_array().unwrap() {
                for c in row.as_array().unwrap() {
                    if let Some(v) = c.as_f64() {
                        out.push(fmt(v, d));
                    }
                }
            }
        }
    }
    out
}

fn identical_looking(q: &Value) -> bool {
    match (q["a"].get("panel"), q["b"].get("panel")) {
        (Some(a), Some(b)) => shown(a) == shown(b),
        _ => q["a"] == q["b"],
    }
}

fn binary_person(p: &[f64]) -> f64 {
    0.8 * p[0] + 0.6 * p[1]
}

/// Answers until the result, returning it with the number of questions
/// shown and those whose two classifiers looked identical.
fn answer_all(server: &Server, u: Utility) -> (Value, usize, usize) {
    let (mut asked, mut identical) = (0, 0);
    let mut state = server.state();
    for _ in 0..20_000 {
        if !state["result"].is_null() {
            return (state["result"].clone(), asked, identical);
        }
        let q = &state["question"];
        asked += 1;
        if identical_looking(q) {
            identical += 1;
        }
        let (status, body) = server.post(
            "api/answer",
            &json!({"number": q["number"], "choice": choose(q, u), "ms": 1000}),
        );
        assert_eq!(status, 200, "{body}");
        state = serde_json::from_str(&body).unwrap();
    }
    panic!("no result after 20000 answers");
}

fn replay(transcript: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_elicit"))
        .arg("replay")
        .arg(transcript)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr));
    });
    // Exit status 3 exactly when the answers leave the metric undetermined.
    let open = !v["undetermined"].as_array().unwrap().is_empty();
    assert_eq!(
        out.status.code(),
        Some(if open { 3 } else { 0 }),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

#[test]
fn refused_requests_change_nothing() {
    let transcript = tmp("refused.jsonl");
    let _ = std::fs::remove_file(&transcript);
    let server = start(&specs().join("binary-lpm-ask.toml"), &transcript, 2);
    for _ in 0..2 {
        let q = server.state()["question"].clone();
        let (status, body) = server.post(
            "api/answer",
            &json!({"number": q["number"], "choice": "a", "ms": 900}),
        );
        assert_eq!(status, 200, "{body}");
    }
    let before = std::fs::read(&transcript).unwrap();
    let token = server.token.clone();
    let port = server.port;
    let answer = json!({"number": 3, "choice": "a"}).to_string();
    let big = format!(
        "{{\"number\": 3, \"choice\": \"a\", \"pad\": \"{}\"}}",
        "x".repeat(10_000)
    );
    let json_type = ("Content-Type", "application/json");
    let evil_host = format!("evil.example:{port}");
    // (what, status expected, method, path, headers, body)
    type Case<'a> = (
        &'a str,
        u16,
        String,
        String,
        Vec<(&'a str, &'a str)>,
        Option<&'a [u8]>,
    );
    let cases: Vec<Case> = vec![
        (
            "no token",
            404,
            "GET".into(),
            "/api/state".into(),
            vec![],
            None,
        ),
        (
            "no token, answer",
            404,
            "POST".into(),
            "/api/answer".into(),
            vec![json_type],
            Some(answer.as_bytes()),
        ),
        (
            "wrong token",
            404,
            "GET".into(),
            format!("/{}/api/state", "0".repeat(32)),
            vec![],
            None,
        ),
        (
            "wrong token, answer",
            404,
            "POST".into(),
            format!("/{}/api/answer", "f".repeat(32)),
            vec![json_type],
            Some(answer.as_bytes()),
        ),
        (
            "token prefix",
            404,
            "GET".into(),
            format!("/{}/api/state", &token[..16]),
            vec![],
            None,
        ),
        (
            "other origin",
            403,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type, ("Origin", "http://evil.example")],
            Some(answer.as_bytes()),
        ),
        (
            "cross-site fetch",
            403,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type, ("Sec-Fetch-Site", "cross-site")],
            Some(answer.as_bytes()),
        ),
        (
            "other host (DNS rebinding)",
            403,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type, ("Host", evil_host.as_str())],
            Some(answer.as_bytes()),
        ),
        (
            "form post",
            415,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![("Content-Type", "application/x-www-form-urlencoded")],
            Some(b"number=3&choice=a"),
        ),
        (
            "oversized body",
            413,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(big.as_bytes()),
        ),
        (
            "malformed body",
            400,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(b"{\"number\": 3, \"choice\": "),
        ),
        (
            "unknown field",
            400,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(b"{\"number\": 3, \"choice\": \"a\", \"x\": 1}"),
        ),
        (
            "bad choice",
            400,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(b"{\"number\": 3, \"choice\": \"both\"}"),
        ),
        (
            "a later question",
            409,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(b"{\"number\": 9, \"choice\": \"a\"}"),
        ),
        (
            "an earlier answer changed",
            409,
            "POST".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(b"{\"number\": 1, \"choice\": \"b\"}"),
        ),
        (
            "undo with a bad body",
            400,
            "POST".into(),
            format!("/{token}/api/undo"),
            vec![json_type],
            Some(b"[1, 2]"),
        ),
        (
            "path outside the page",
            404,
            "GET".into(),
            format!("/{token}/../Cargo.toml"),
            vec![],
            None,
        ),
        (
            "encoded traversal",
            404,
            "GET".into(),
            format!("/{token}/%2e%2e/%2e%2e/etc/passwd"),
            vec![],
            None,
        ),
        (
            "source folder",
            404,
            "GET".into(),
            format!("/{token}/web/app.js"),
            vec![],
            None,
        ),
        (
            "absolute path",
            404,
            "GET".into(),
            "/etc/passwd".into(),
            vec![],
            None,
        ),
        (
            "answer by GET",
            404,
            "GET".into(),
            format!("/{token}/api/answer?number=3&choice=a"),
            vec![],
            None,
        ),
        (
            "other method",
            405,
            "PUT".into(),
            format!("/{token}/api/answer"),
            vec![json_type],
            Some(answer.as_bytes()),
        ),
    ];
    for (name, want, method, path, headers, body) in cases {
        let (status, text) = request(port, &method, &path, &headers, body);
        assert_eq!(status, want, "{name}: {text}");
        assert_eq!(
            std::fs::read(&transcript).unwrap(),
            before,
            "{name} changed the transcript"
        );
    }
    // A request that is not HTTP at all.
    let (status, _) = raw(port, b"\x00\x01garbage\r\n\r\n");
    assert!(status == 400 || status == 0, "garbage: {status}");
    assert_eq!(std::fs::read(&transcript).unwrap(), before);
    // The server is still there, and still at question 3.
    assert_eq!(server.state()["question"]["number"], 3);
    // The page and its assets are served under the token only, with a CSP.
    let (status, page) = server.get("");
    assert_eq!(status, 200);
    assert!(page.contains("I prefer A") && page.contains("app.js"));
    for asset in ["app.js", "style.css"] {
        assert_eq!(server.get(asset).0, 200, "{asset}");
    }
    let head = raw(
        port,
        format!("GET /{token}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(head.0, 200);
}

#[test]
fn killed_server_resumes_and_answers_once() {
    let spec = specs().join("binary-lpm-ask.toml");
    let transcript = tmp("killed.jsonl");
    let _ = std::fs::remove_file(&transcript);
    let server = start(&spec, &transcript, 3);
    let mut numbers = Vec::new();
    for _ in 0..3 {
        let q = server.state()["question"].clone();
        let choice = choose(&q, binary_person);
        let body = json!({"number": q["number"], "choice": choice, "ms": 1500});
        let (status, text) = server.post("api/answer", &body);
        assert_eq!(status, 200, "{text}");
        // A double click or a resent request: accepted, answered once.
        let lines = std::fs::read_to_string(&transcript)
            .unwrap()
            .lines()
            .count();
        let (status, text) = server.post("api/answer", &body);
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            std::fs::read_to_string(&transcript)
                .unwrap()
                .lines()
                .count(),
            lines
        );
        numbers.push(q["number"].as_u64().unwrap());
    }
    let next = server.state()["question"]["number"].clone();
    // SIGKILL: no chance to write anything more.
    drop(server);
    let server = start(&spec, &transcript, 3);
    let state = server.state();
    assert_eq!(
        state["question"]["number"], next,
        "resumes at the next question"
    );
    assert_eq!(state["answered"], 3);
    // Undo takes the last answer back, and it can be given again.
    let (status, text) = server.post("api/undo", &json!({}));
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["question"]["number"],
        json!(numbers[2])
    );
    let (result, _, identical) = answer_all(&server, binary_person);
    assert_eq!(identical, 0);
    let (status, text) = server.get("result.json");
    assert_eq!(status, 200);
    let downloaded: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(downloaded, result);
    let (status, text) = server.get("transcript.jsonl");
    assert_eq!(status, 200);
    assert_eq!(text, std::fs::read_to_string(&transcript).unwrap());
    // The page's result is `elicit replay`'s.
    assert_eq!(replay(&transcript), result);
    assert!(result["sentence"]
        .as_str()
        .unwrap()
        .contains("missed cancer"));
    // At least the 3 asked for, more while their answers decide nothing
    // (0 disagreements of 3 cannot yet tell the person from a coin).
    let asked = result["checks"]["asked"].as_u64().unwrap();
    assert!((3..=9).contains(&asked), "{result}");
    assert!(
        result["checks"]["disagree"].as_u64().unwrap() <= 1,
        "{result}"
    );
    // Every line records the side order and the response time.
    for line in std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .skip(1)
    {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(
            v.get("auto").is_some() || (v["swapped"].is_boolean() && v["ms"].is_u64()),
            "{line}"
        );
    }
    let m11 = result["elicited"]["m11"].as_f64().unwrap();
    assert!((m11 - 0.8).abs() < 0.1, "{result}");
    let (status, _) = server.post("api/quit", &json!({}));
    assert_eq!(status, 200);
}

fn dlpm_person(d: &[f64]) -> f64 {
    0.2 * d[0] + 0.5 * d[1] + 0.3 * d[2]
}

/// 004's utility over (d₁, d₂, speed, price): correct cases of each class,
/// the speed reward and the (non-positive) price.
fn cost_reward_person(x: &[f64]) -> f64 {
    0.3 * x[0] + 0.2 * x[1] + 0.1 * x[2] + 0.4 * x[3]
}

fn qpme_person(r: &[f64]) -> f64 {
    0.6 * r[0] + 0.4 * r[1] - 0.5 * (r[0] * r[0] + r[1] * r[1])
}

/// A cubic utility over the diagonal rates of 2 classes (curved, with a
/// third-order term).
fn cubic_person(r: &[f64]) -> f64 {
    0.6 * r[0] + 0.4 * r[1] - 0.5 * (r[0] * r[0] + r[1] * r[1]) + 0.3 * r[0] * r[0] * r[1]
}

/// A fair quadratic cost over two groups' diagonal rates (the groups'
/// rates concatenated, 2 per group): mistakes 1 − r (the overall rates,
/// weighted by `fair-qpme-ask.toml`'s τ = ((0.5, 0.4), (0.5, 0.6)), as
/// 000 Def. 4) plus the squared differences between the groups' rates,
/// weighed by a positive definite B: a metric of the family.
fn fair_qpme_person(r: &[f64]) -> f64 {
    let (d0, d1) = (r[0] - r[2], r[1] - r[3]);
    let mistakes =
        0.6 * (1.0 - (0.5 * r[0] + 0.5 * r[2])) + 0.8 * (1.0 - (0.4 * r[1] + 0.6 * r[3]));
    let unfair = 1.2 * d0 * d0 + 0.4 * d0 * d1 + 0.8 * d1 * d1;
    -(0.7 * mistakes + 0.3 * unfair / 2.0)
}

/// A fair cost over the groups' off-diagonal rates (all groups' rates
/// concatenated, q per group): mistakes plus differences between groups.
fn fair_person(r: &[f64]) -> f64 {
    let q = 2;
    let m = r.len() / q;
    let a = [0.7, 0.3];
    let mut cost = 0.0;
    for g in 0..m {
        for i in 0..q {
            cost += 0.7 * a[i] * r[g * q + i] / m as f64;
        }
    }
    for i in 0..q {
        cost += 0.3 * (r[i] - r[q + i]).abs();
    }
    -cost
}

/// The same over m groups and three classes (q = 6 rates per group; m from
/// the coordinates' length).
fn fair3_person(r: &[f64]) -> f64 {
    let q = 6;
    let m = r.len() / q;
    let a = [0.1, 0.3, 0.1, 0.2, 0.4, 0.2];
    let mut cost = 0.0;
    for g in 0..m {
        for i in 0..q {
            cost += 0.7 * a[i] * r[g * q + i] / m as f64;
        }
    }
    for u in 0..m {
        for v in u + 1..m {
            for i in 0..q {
                cost += 0.1 * (r[u * q + i] - r[v * q + i]).abs();
            }
        }
    }
    -cost
}

fn lpme_person(z: &[f64]) -> f64 {
    let w = [1.0, 2.0, 1.0, 3.0, 1.0, 2.0];
    -z.iter().zip(w).map(|(x, w)| x * w).sum::<f64>()
}

/// Questions a simulated person (answering by one fixed metric over the
/// classifiers' exact coordinates) is shown through the page's API at the
/// default settings, and pairs that look identical; beside them the
/// questions of the same procedure asked without the minimum visible
/// difference (as `ask` did before), counted through the library. Every
/// spec here runs in f64: the `mpfr` feature's step of `.ci/run` skips it
/// (it would repeat the same counts, about 70 s).
#[test]
#[cfg_attr(
    feature = "mpfr",
    ignore = "f64 specs only: counted by the default step"
)]
fn questions_per_procedure_through_the_page() {
    let cases: [(&str, &str, Utility); 11] = [
        ("binary-lpm", "binary-lpm-ask.toml", binary_person),
        ("dlpm", "dlpm-ask.toml", dlpm_person),
        ("qpme", "qpme-ask.toml", qpme_person),
        ("fpme (2 groups, 2 classes)", "fpme-ask.toml", fair_person),
        (
            "fpme (3 groups, 3 classes, ε = 0.001)",
            "fpme.toml",
            fair3_person,
        ),
        ("lpme on wine (dataset)", "lpme-dataset.toml", lpme_person),
        (
            "lpme on wine (dataset), a person's spec",
            "lpme-dataset-ask.toml",
            lpme_person,
        ),
        (
            "fpme on wine, red and white (dataset)",
            "fpme-dataset-ask.toml",
            fair3_person,
        ),
        (
            "cost-reward (2 classes, speed and price)",
            "cost-reward-ask.toml",
            cost_reward_person,
        ),
        (
            "fair-qpme (2 groups, 2 classes)",
            "fair-qpme-ask.toml",
            fair_qpme_person,
        ),
        ("cubic", "cubic-ask.toml", cubic_person),
    ];
    let mut table = String::from(
        "| procedure | spec | before: questions | before: identical-looking | page: questions shown | page: answered for the person (invisible) | page: identical-looking | check answers the metric agrees with |\n|---|---|---|---|---|---|---|---|\n",
    );
    // The cases are independent (each has its own spec copy, transcript
    // and server on a port of its own), so they run on every core; the
    // rows keep the cases' order. Plain threads, not rayon: tried once,
    // `par_iter` made web.rs take 191 s against 156 and 159 s with these
    // threads (two CI runs, the same idle machine). The likely reason: a
    // case's interview runs rayon work of its own, and a worker waiting on
    // it can take up another whole case, serializing the two.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let rows: Vec<std::sync::Mutex<Option<String>>> =
        cases.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(cases.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(name, file, u)) = cases.get(i) else {
                    break;
                };
                *rows[i].lock().unwrap() = Some(count_row(name, file, u));
            });
        }
    });
    for row in rows {
        table.push_str(&row.into_inner().unwrap().expect("every case ran"));
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/web-counts.md");
    let _ = std::fs::create_dir_all(out.parent().unwrap());
    std::fs::write(&out, &table).unwrap();
    eprintln!("{table}");
}

/// One procedure's row of [`questions_per_procedure_through_the_page`]:
/// the questions asked without the minimum visible difference (through the
/// library) and through the page at its defaults.
fn count_row(name: &str, file: &str, u: Utility) -> String {
    use metric_elicitation::driver::interview::{Interview, Options, Step};
    use metric_elicitation::driver::present;
    use metric_elicitation::driver::spec::Spec;
    use metric_elicitation::oracle::Preference;
    // The spec with its [oracle] (and [oracle.metric]) replaced by a person.
    let original = std::fs::read_to_string(specs().join(file)).unwrap();
    let mut text = String::new();
    let mut skipping = false;
    for line in original.lines() {
        if line.starts_with('[') {
            skipping = line.starts_with("[oracle");
        }
        if !skipping {
            text.push_str(line);
            text.push('\n');
        }
    }
    text.push_str("[oracle]\nkind = \"person\"\n");
    let spec_path = specs().join(format!(".counts-{}.toml", file.trim_end_matches(".toml")));
    std::fs::write(&spec_path, &text).unwrap();
    // Before: every pair asked.
    let spec = Spec::load(&spec_path).unwrap();
    let before_options = Options {
        min_difference: None,
        checks: 0,
        person: true,
    };
    let mut interview = Interview::start_with(spec, None, before_options).unwrap();
    let (mut before, mut before_identical) = (0, 0);
    loop {
        match interview.next().unwrap() {
            Step::Done(_) => break,
            Step::Question(q) => {
                before += 1;
                if let (Some(a), Some(b)) = (&q.first_panel, &q.second_panel) {
                    if present::identical(a, b) {
                        before_identical += 1;
                    }
                }
                let parse = |c: &[String]| {
                    c.iter()
                        .map(|x| x.parse::<f64>().unwrap())
                        .collect::<Vec<_>>()
                };
                let (x, y) = (u(&parse(&q.first_point)), u(&parse(&q.second_point)));
                let p = if (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0) {
                    Preference::Indifferent
                } else if x > y {
                    Preference::First
                } else {
                    Preference::Second
                };
                interview.answer(q.number, p).unwrap();
            }
        }
    }
    // The page, at its defaults.
    let transcript = tmp(&format!("counts-{file}.jsonl"));
    let _ = std::fs::remove_file(&transcript);
    let server = start(&spec_path, &transcript, 5);
    let first = server.state()["question"]["expected"].clone();
    let (result, shown, identical) = answer_all(&server, u);
    let _ = std::fs::remove_file(&spec_path);
    assert_eq!(
        identical, 0,
        "{name}: a pair that looks identical was shown"
    );
    assert_eq!(replay(&transcript), result, "{name}");
    format!(
        "| {name} | `{file}` | {before} | {before_identical} | {} + {} checks (about {first} at the start) | {} | {identical} | {} of {} |\n",
        result["person"]["questions"],
        shown - result["person"]["questions"].as_u64().unwrap() as usize,
        result["person"]["answered_for_the_person"],
        result["checks"]["agree"],
        result["checks"]["agree"].as_u64().unwrap() + result["checks"]["disagree"].as_u64().unwrap(),
    )
}

/// Answers from which the procedure can compute no metric (the papers'
/// fair QPME search, answered "A" every time: its last QPME has no linear
/// part) are refused as unprocessable (HTTP 422) with the procedure's
/// message, not as a failure of the server; the answers stay recorded.
#[test]
fn answers_that_give_no_metric_are_unprocessable() {
    let text = std::fs::read_to_string(specs().join("fair-qpme-ask.toml"))
        .unwrap()
        .replace("epsilon = 0.05", "engine = \"search\"\nepsilon = 0.05");
    let spec = tmp("no-metric.toml");
    std::fs::write(&spec, text).unwrap();
    let transcript = tmp("no-metric.jsonl");
    let _ = std::fs::remove_file(&transcript);
    let server = start(&spec, &transcript, 0);
    let mut state = server.state();
    let mut answered = 0;
    let (status, body) = loop {
        assert!(answered < 5000, "no end after {answered} answers");
        assert!(state["result"].is_null(), "a result: {state}");
        let q = &state["question"];
        let (status, body) = server.post(
            "api/answer",
            &json!({"number": q["number"], "choice": "a", "ms": 500}),
        );
        if status != 200 {
            break (status, body);
        }
        answered += 1;
        state = serde_json::from_str(&body).unwrap();
    };
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("ill-conditioned"), "{body}");
    let recorded = std::fs::read_to_string(&transcript).unwrap();
    assert!(recorded.lines().count() > answered, "{recorded}");
}
