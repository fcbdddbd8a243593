//! `elicit ask SPEC --web`: the same interview as the terminal's, as a
//! page in the browser.
//!
//! A small synchronous HTTP server ([`tiny_http`]) listens on 127.0.0.1
//! only and prints its address, `http://127.0.0.1:PORT/TOKEN/`, on a line
//! of its own; TOKEN is 32 random hex digits drawn per session. Every
//! request must name the token as the first path segment and carry a
//! `Host` of 127.0.0.1 or localhost at that port; a request that changes
//! anything (POST) must also come from the page's own origin (an `Origin`
//! header, when sent, equal to it), be JSON (`Content-Type:
//! application/json`) and have a body of at most [`MAX_BODY`] bytes that
//! parses into the expected fields. Anything else is refused with a 4xx
//! status and no effect. The page, its script and its style are embedded
//! in the binary (no file is read to serve them, so no path can reach
//! outside them), and the page loads nothing from anywhere else (its
//! Content-Security-Policy says so).
//!
//! The API (JSON): `GET api/state` (the question, or the result),
//! `POST api/answer {"number", "choice": "a" | "b" | "tie", "ms"}`,
//! `POST api/undo {}`, `POST api/quit {}` (stops the server; the
//! transcript keeps every answer), `GET result.json`, `GET
//! transcript.jsonl`. Answers are idempotent by question number, every
//! answer is on disk (fsync) before the reply, and the server resumes from
//! the transcript after a kill at any moment.

use metric_elicitation::driver::interview::{Given, Interview, Options, Question, Step};
use metric_elicitation::driver::spec::Spec;
use metric_elicitation::oracle::Preference;
use metric_elicitation::Error;
use serde::Deserialize;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tiny_http::{Header, Method, Request, Response, Server};

/// The largest request body accepted, in bytes.
pub const MAX_BODY: usize = 4096;

const INDEX: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const STYLE: &str = include_str!("../web/style.css");

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The state of a served interview.
struct Served {
    interview: Interview,
    spec_path: PathBuf,
    transcript: Option<PathBuf>,
    /// The last step shown, with the question's number.
    result: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    number: usize,
    choice: String,
    #[serde(default)]
    ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

/// A refusal or a failure, as an HTTP status and a message.
struct Refused(u16, String);

impl From<Error> for Refused {
    fn from(e: Error) -> Self {
        let status = match e.root_cause() {
            Error::InvalidArgument { .. } => 409,
            // The answers leave no metric the procedure can compute (a
            // search's estimate from answers no metric of its family
            // gives): the request was understood, its content cannot be
            // processed; not a failure of the server.
            Error::IllConditioned { .. } | Error::Assumption { .. } => 422,
            _ => 500,
        };
        Refused(status, e.to_string())
    }
}

fn header(name: &str, value: &str) -> Header {
    // Names and values here are ASCII constants or digits.
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .unwrap_or_else(|()| Header::from_bytes(&b"X-Invalid"[..], &b"1"[..]).expect("ascii"))
}

fn respond(
    request: Request,
    status: u16,
    content_type: &str,
    body: Vec<u8>,
    extra: &[(&str, String)],
) {
    let mut response = Response::from_data(body)
        .with_status_code(status)
        .with_header(header("Content-Type", content_type))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header("Referrer-Policy", "no-referrer"))
        .with_header(header("X-Frame-Options", "DENY"))
        .with_header(header("Content-Security-Policy", CSP));
    for (name, value) in extra {
        response = response.with_header(header(name, value));
    }
    // A client that went away is not an error of the server.
    let _ = request.respond(response);
}

fn json_response(request: Request, status: u16, value: &Value) {
    respond(
        request,
        status,
        "application/json; charset=utf-8",
        value.to_string().into_bytes(),
        &[],
    );
}

fn refuse(request: Request, Refused(status, message): Refused) {
    json_response(request, status, &json!({ "error": message }));
}

/// The value of a request header (the first).
fn get_header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

/// Compares two strings in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The side a choice names, as the algorithm's preference.
fn preference(choice: &str, swapped: bool) -> Result<Preference, Refused> {
    Ok(match (choice, swapped) {
        ("a", false) | ("b", true) => Preference::First,
        ("b", false) | ("a", true) => Preference::Second,
        ("tie", _) => Preference::Indifferent,
        _ => {
            return Err(Refused(
                400,
                format!("choice must be \"a\", \"b\" or \"tie\", got {choice:?}"),
            ))
        }
    })
}

fn side(
    panel: Option<&metric_elicitation::driver::present::Panel>,
    view: &metric_elicitation::driver::view::View,
) -> Value {
    match panel {
        Some(p) => json!({ "panel": p }),
        None => json!({ "text": { "title": view.title, "rows": view.rows } }),
    }
}

fn question_json(q: &Question) -> Value {
    let (left, right) = if q.swapped {
        (
            side(q.second_panel.as_ref(), &q.second),
            side(q.first_panel.as_ref(), &q.first),
        )
    } else {
        (
            side(q.first_panel.as_ref(), &q.first),
            side(q.second_panel.as_ref(), &q.second),
        )
    };
    let (pa, pb) = if q.swapped {
        (&q.second_point, &q.first_point)
    } else {
        (&q.first_point, &q.second_point)
    };
    json!({
        "number": q.number,
        "asked": q.asked,
        "expected": q.expected,
        "check": q.check,
        "a": left,
        "b": right,
        // What each option is, exactly (the coordinates the procedure asks
        // about; the panels show them rounded).
        "a_point": pa,
        "b_point": pb,
    })
}

impl Served {
    fn state(&mut self) -> Result<Value, Refused> {
        let step = self.interview.next()?;
        let (question, result) = match step {
            Step::Question(q) => (question_json(&q), Value::Null),
            Step::Done(result) => {
                self.result = Some(result.clone());
                (Value::Null, result)
            }
        };
        let spec = self.interview.spec();
        Ok(json!({
            "procedure": spec.procedure,
            "task": spec.task.as_ref().and_then(|t| t.description.clone()),
            "question": question,
            "result": result,
            "answered": self.interview.asked(),
            "can_undo": self.interview.asked() > 0,
            "resumed": self.interview.notices(),
        }))
    }

    /// The side order of question `number` (current or recorded).
    fn swapped(&mut self, number: usize) -> Result<bool, Refused> {
        let n = self.interview.answers().len();
        if number >= 1 && number <= n {
            return Ok(self.interview.extras()[number - 1].swapped.unwrap_or(false));
        }
        if number > n && number <= n + self.interview.checks().len() {
            return Ok(self.interview.checks()[number - n - 1]
                .swapped
                .unwrap_or(false));
        }
        match self.interview.next()? {
            Step::Question(q) if q.number == number => Ok(q.swapped),
            Step::Question(q) => Err(Refused(
                409,
                format!(
                    "question {number} is not the next one (question {} is)",
                    q.number
                ),
            )),
            Step::Done(_) => Err(Refused(
                409,
                "the elicitation is over: every question is answered".into(),
            )),
        }
    }

    fn answer(&mut self, body: AnswerBody) -> Result<Value, Refused> {
        let swapped = self.swapped(body.number)?;
        let p = preference(&body.choice, swapped)?;
        let ms = body.ms.map(|m| m.min(24 * 3600 * 1000));
        self.interview.answer_with(body.number, p, Given { ms })?;
        self.state()
    }
}

/// Reads a POST's JSON body after the checks of the module docs.
fn body<T: for<'de> Deserialize<'de>>(
    request: &mut Request,
    origin: &[String],
) -> Result<T, Refused> {
    if let Some(o) = get_header(request, "Origin") {
        if !origin.iter().any(|allowed| allowed == o) {
            return Err(Refused(
                403,
                format!("requests from origin {o:?} are refused"),
            ));
        }
    }
    if let Some(site) = get_header(request, "Sec-Fetch-Site") {
        if site != "same-origin" && site != "none" {
            return Err(Refused(
                403,
                format!("cross-site requests ({site}) are refused"),
            ));
        }
    }
    let json = get_header(request, "Content-Type").is_some_and(|c| {
        c.trim()
            .to_ascii_lowercase()
            .starts_with("application/json")
    });
    if !json {
        return Err(Refused(415, "the body must be application/json".into()));
    }
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(Refused(
            413,
            format!("the body is larger than {MAX_BODY} bytes"),
        ));
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Refused(400, format!("the body cannot be read: {e}")))?;
    if bytes.len() > MAX_BODY {
        return Err(Refused(
            413,
            format!("the body is larger than {MAX_BODY} bytes"),
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| Refused(400, format!("malformed body: {e}")))
}

/// What to do after a request.
enum Next {
    Go,
    Stop,
}

fn handle(
    served: &mut Served,
    mut request: Request,
    token: &str,
    hosts: &[String],
    origins: &[String],
) -> Next {
    let host_ok = get_header(&request, "Host").is_some_and(|h| hosts.iter().any(|a| a == h));
    if !host_ok {
        refuse(request, Refused(403, "unknown host".into()));
        return Next::Go;
    }
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("");
    let rest = path
        .strip_prefix('/')
        .and_then(|p| p.split_once('/'))
        .filter(|(t, _)| same(t, token))
        .map(|(_, rest)| rest.to_string());
    let Some(rest) = rest else {
        refuse(request, Refused(404, "not found".into()));
        return Next::Go;
    };
    let method = request.method().clone();
    match (method, rest.as_str()) {
        (Method::Get, "" | "index.html") => {
            respond(
                request,
                200,
                "text/html; charset=utf-8",
                INDEX.as_bytes().to_vec(),
                &[],
            );
        }
        (Method::Get, "app.js") => respond(
            request,
            200,
            "text/javascript; charset=utf-8",
            SCRIPT.as_bytes().to_vec(),
            &[],
        ),
        (Method::Get, "style.css") => {
            respond(
                request,
                200,
                "text/css; charset=utf-8",
                STYLE.as_bytes().to_vec(),
                &[],
            );
        }
        (Method::Get, "api/state") => match served.state() {
            Ok(v) => json_response(request, 200, &v),
            Err(r) => refuse(request, r),
        },
        (Method::Post, "api/answer") => {
            let outcome = body::<AnswerBody>(&mut request, origins).and_then(|b| served.answer(b));
            match outcome {
                Ok(v) => json_response(request, 200, &v),
                Err(r) => refuse(request, r),
            }
        }
        (Method::Post, "api/undo") => {
            let outcome = body::<Empty>(&mut request, origins).and_then(|Empty {}| {
                served.interview.undo()?;
                served.result = None;
                served.state()
            });
            match outcome {
                Ok(v) => json_response(request, 200, &v),
                Err(r) => refuse(request, r),
            }
        }
        (Method::Post, "api/quit") => match body::<Empty>(&mut request, origins) {
            Ok(Empty {}) => {
                json_response(request, 200, &json!({ "stopped": true }));
                return Next::Stop;
            }
            Err(r) => refuse(request, r),
        },
        (Method::Get, "result.json") => match served.state() {
            Ok(_) if served.result.is_some() => {
                let text = serde_json::to_string_pretty(&served.result).unwrap_or_default();
                respond(
                    request,
                    200,
                    "application/json; charset=utf-8",
                    text.into_bytes(),
                    &[(
                        "Content-Disposition",
                        "attachment; filename=\"result.json\"".into(),
                    )],
                );
            }
            Ok(_) => refuse(request, Refused(409, "the elicitation is not over".into())),
            Err(r) => refuse(request, r),
        },
        (Method::Get, "transcript.jsonl") => match &served.transcript {
            Some(path) => match std::fs::read(path) {
                Ok(bytes) => respond(
                    request,
                    200,
                    "application/x-ndjson; charset=utf-8",
                    bytes,
                    &[(
                        "Content-Disposition",
                        "attachment; filename=\"transcript.jsonl\"".into(),
                    )],
                ),
                Err(e) => refuse(request, Refused(500, e.to_string())),
            },
            None => refuse(
                request,
                Refused(
                    404,
                    "no transcript: start with --transcript FILE to keep one".into(),
                ),
            ),
        },
        (Method::Get | Method::Post, _) => refuse(request, Refused(404, "not found".into())),
        _ => refuse(request, Refused(405, "method not allowed".into())),
    }
    Next::Go
}

/// Serves the interview of `spec` until the person quits (or the process
/// is stopped: every answer is already on disk).
///
/// # Errors
/// The interview's errors at the start; [`Error::Io`] when the port cannot
/// be bound.
pub fn serve(
    spec_path: &Path,
    spec: Spec,
    transcript: Option<PathBuf>,
    checks: usize,
    port: u16,
) -> Result<(), Error> {
    use rand::Rng;
    let options = Options {
        checks,
        ..Options::person()
    };
    let interview = Interview::start_with(spec, transcript.as_deref(), options)?;
    let server = Server::http(("127.0.0.1", port)).map_err(|e| Error::Io {
        path: format!("127.0.0.1:{port}"),
        message: e.to_string(),
    })?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .ok_or_else(|| Error::Io {
            path: "127.0.0.1".into(),
            message: "the server has no IP address".into(),
        })?;
    let mut bytes = [0u8; 16];
    rand::rng().fill(&mut bytes);
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    let origins: Vec<String> = hosts.iter().map(|h| format!("http://{h}")).collect();
    for notice in interview.notices() {
        say!("{notice}");
    }
    say!("Open this address in a browser on this machine (answers are saved as you go; stop with the page's Quit button or Ctrl-C):");
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "http://127.0.0.1:{port}/{token}/");
        let _ = out.flush();
    }
    let mut served = Served {
        interview,
        spec_path: spec_path.to_path_buf(),
        transcript,
        result: None,
    };
    for request in server.incoming_requests() {
        if let Next::Stop = handle(&mut served, request, &token, &hosts, &origins) {
            break;
        }
    }
    match (&served.transcript, served.result.is_some()) {
        (_, true) => say!("done: the result is in the page (result.json)"),
        (Some(t), false) => say!(
            "stopped: {} answers recorded in {}; resume with: elicit ask {} --web --transcript {}",
            served.interview.asked(),
            t.display(),
            served.spec_path.display(),
            t.display()
        ),
        (None, false) => say!(
            "stopped after {} answers; they were not saved (pass --transcript FILE to keep them)",
            served.interview.asked()
        ),
    }
    Ok(())
}
