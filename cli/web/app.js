// The page of `elicit ask --web`: shows the question the server holds, sends
// the answer (with the question's number, so a resent request answers once)
// and the response time, and shows the result. No other requests are made.
"use strict";

const $ = (id) => document.getElementById(id);
let state = null;
let shownAt = performance.now();
let busy = false;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v; // CSSOM: allowed by the page's CSP
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function fmt(value, decimals) {
  const t = Number(value).toFixed(decimals);
  return /^-?[0.]+$/.test(t) ? t.replace("-", "") : t;
}

function shown(row) {
  return fmt(row.value, row.decimals);
}

// Rows that show 0 for both classifiers are left out (they say nothing).
function renderPanel(target, panel, other) {
  target.replaceChildren();
  panel.sections.forEach((section, s) => {
    const otherSection = other && other.sections[s];
    const rows = section.rows.filter((row, r) => {
      const o = otherSection && otherSection.rows[r];
      return !(shown(row) === "0" && o && shown(o) === "0");
    });
    if (rows.length === 0 && !section.matrix) return;
    target.append(el("h3", {}, section.title));
    section.rows.forEach((row, r) => {
      if (!rows.includes(row)) return;
      const of = row.of || 0;
      const width = of > 0 ? Math.max(0, Math.min(100, (100 * row.value) / of)) : 0;
      const bar = el("div", { class: "bar" }, el("span", { style: `width:${width}%` }));
      target.append(
        el(
          "div",
          {
            class: `row ${row.better}`,
            "data-section": String(s),
            "data-row": String(r),
            "data-value": String(row.value),
          },
          el("span", { class: "label" }, row.label),
          el("span", { class: "value" }, shown(row)),
          of > 0 ? bar : el("span", {}),
        ),
      );
    });
    if (section.matrix) target.append(renderMatrix(section.matrix));
  });
}

function renderMatrix(m) {
  let max = 0;
  for (const row of m.cells) for (const v of row) if (v !== null && v > max) max = v;
  const table = el("table", { class: "heat" });
  table.append(
    el(
      "tr",
      {},
      el("th", {}, "true \\ labelled"),
      ...m.columns.map((c) => el("th", {}, c)),
    ),
  );
  m.cells.forEach((row, i) => {
    const tr = el("tr", {}, el("th", {}, m.rows[i]));
    row.forEach((v) => {
      if (v === null) {
        tr.append(el("td", {}, "–"));
      } else {
        const alpha = max > 0 ? (0.08 + 0.6 * v / max).toFixed(2) : 0;
        tr.append(el("td", { style: `background: rgba(183, 28, 28, ${alpha})`, "data-value": String(v) }, fmt(v, m.decimals)));
      }
    });
    table.append(tr);
  });
  return table;
}

function renderText(target, text) {
  target.replaceChildren(el("h3", {}, text.title), ...text.rows.map((r) => el("pre", {}, r)));
}

function renderQuestion(q) {
  $("result").hidden = true;
  $("question").hidden = false;
  const of = q.expected ? ` of about ${Math.max(q.expected, q.asked)}` : "";
  $("progress").textContent = `${q.check ? "Check question" : "Question"} ${q.asked}${of}`;
  $("kind").textContent = q.check
    ? "A check question: two classifiers chosen at random, to see how well the elicited metric agrees with you."
    : "Which of the two classifiers would you rather use?";
  const context = q.a.panel ? q.a.panel.context : [];
  $("context").replaceChildren(...context.map((c) => el("li", {}, c)));
  for (const [side, other] of [["a", "b"], ["b", "a"]]) {
    const option = q[side];
    $(`what-${side}`).textContent = option.panel && option.panel.what ? `It ${option.panel.what}.` : "";
    if (option.panel) renderPanel($(`numbers-${side}`), option.panel, q[other].panel);
    else renderText($(`numbers-${side}`), option.text);
  }
  $("question").dataset.number = String(q.number);
  shownAt = performance.now();
}

function drawPicture(p) {
  const box = $("picture");
  box.replaceChildren();
  if (!p) return;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const W = 420, H = 320, M = 40;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text) e.textContent = text;
    svg.append(e);
    return e;
  };
  if (p.kind === "binary") {
    const xs = p.region.map((q) => q[0]), ys = p.region.map((q) => q[1]);
    const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const sx = (x) => M + ((x - x0) / (x1 - x0 || 1)) * (W - 2 * M);
    const sy = (y) => H - M - ((y - y0) / (y1 - y0 || 1)) * (H - 2 * M);
    add("polygon", { points: p.region.map((q) => `${sx(q[0])},${sy(q[1])}`).join(" "), fill: "#e3ecf7", stroke: "#1f5fa8" });
    const [w1, w2] = p.weights;
    // Iso-lines w1*x + w2*y = c through the region.
    const values = p.region.map((q) => w1 * q[0] + w2 * q[1]);
    const lo = Math.min(...values), hi = Math.max(...values);
    for (let i = 1; i <= 6; i++) {
      const c = lo + ((hi - lo) * i) / 7;
      let pts;
      if (Math.abs(w2) > 1e-12) pts = [[x0, (c - w1 * x0) / w2], [x1, (c - w1 * x1) / w2]];
      else pts = [[c / w1, y0], [c / w1, y1]];
      add("line", { x1: sx(pts[0][0]), y1: sy(pts[0][1]), x2: sx(pts[1][0]), y2: sy(pts[1][1]), stroke: "#a8571f", "stroke-dasharray": "4 3", "clip-path": "url(#clip)" });
    }
    const clip = document.createElementNS(ns, "clipPath");
    clip.setAttribute("id", "clip");
    const rect = document.createElementNS(ns, "rect");
    for (const [k, v] of Object.entries({ x: M, y: M, width: W - 2 * M, height: H - 2 * M })) rect.setAttribute(k, v);
    clip.append(rect);
    svg.prepend(clip);
    add("circle", { cx: sx(p.best[0]), cy: sy(p.best[1]), r: 5, fill: "#2e7d32" });
    add("text", { x: W / 2, y: H - 8, "text-anchor": "middle", "font-size": 12 }, p.x);
    add("text", { x: 12, y: H / 2, "text-anchor": "middle", "font-size": 12, transform: `rotate(-90 12 ${H / 2})` }, p.y);
    add("text", { x: sx(p.best[0]) - 8, y: sy(p.best[1]) - 8, "font-size": 12, "text-anchor": "end" }, "your best classifier");
    box.append(svg);
    box.append(el("p", { class: "formula" }, "Shaded: the classifiers this data allows. Dashed: classifiers you value equally (lines of equal value)."));
  } else if (p.kind === "weights" || p.kind === "fair") {
    const labels = p.kind === "weights" ? p.labels : p.mistakes;
    const w = p.kind === "weights" ? p.weights : p.a;
    const max = Math.max(...w.map(Math.abs), 1e-12);
    const rows = labels.map((l, i) => el("div", { class: "row neutral" }, el("span", { class: "label" }, l), el("span", { class: "value" }, (w[i] / max).toFixed(2)), el("div", { class: "bar" }, el("span", { style: `width:${(100 * Math.abs(w[i])) / max}%` }))));
    box.append(el("p", { class: "formula" }, p.kind === "weights" ? "Weight of a correct case of each class (relative to the largest):" : "Cost of each mistake (relative to the largest):"), ...rows);
  } else if (p.kind === "costs") {
    const cells = p.weights.map((row) => row.map((v) => (v === null ? null : -v)));
    box.append(el("p", { class: "formula" }, "Cost of each mistake (row: true class, column: label given):"));
    box.append(renderMatrix({ cells, rows: p.labels, columns: p.labels, decimals: 2 }));
  }
}

function renderResult(r) {
  $("question").hidden = true;
  $("result").hidden = false;
  $("progress").textContent = "Done: every question is answered.";
  const open = r.undetermined || [];
  const sentence = r.sentence || r.in_words;
  $("sentence").textContent = open.length === 0
    ? sentence
    : `Your answers do not settle your metric to the precision asked (see below). One metric they allow: ${sentence}`;
  $("formula").textContent = r.in_words;
  const und = (r.undetermined_in_words || []).concat(
    (r.warnings || []).map((w) => w.message),
  );
  if (und.length === 0) und.push("Nothing beyond the procedure's tolerance.");
  $("undetermined").replaceChildren(...und.map((u) => el("li", {}, u)));
  const c = r.checks;
  if (c && c.asked > 0) {
    const judged = c.agree + c.disagree;
    let text = `The elicited metric agrees with ${c.agree} of your ${judged} check answers`;
    if (c.cant_tell) text += ` (and you could not tell ${c.cant_tell})`;
    text += ".";
    if (c.mistake_rate_95) text += ` Estimated rate of disagreement: ${Math.round(100 * c.mistake_rate)} % (95 % interval ${Math.round(100 * c.mistake_rate_95[0])}–${Math.round(100 * c.mistake_rate_95[1])} %), your mistakes and the metric's error together.`;
    $("checks").textContent = text;
  } else {
    $("checks").textContent = "No check questions were asked.";
  }
  drawPicture(r.picture);
}

function render(s) {
  state = s;
  $("error").hidden = true;
  if (s.task) $("task").textContent = s.task;
  if (s.question) renderQuestion(s.question);
  else if (s.result) renderResult(s.result);
  document.body.dataset.state = s.question ? (s.question.check ? "check" : "question") : "result";
  document.body.dataset.number = s.question ? String(s.question.number) : "";
  setBusy(false);
}

function setBusy(b) {
  busy = b;
  for (const b2 of document.querySelectorAll("button")) b2.disabled = b;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
  setBusy(false);
}

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const json = await response.json();
  if (!response.ok) {
    const error = new Error(json.error || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return json;
}

async function load() {
  try {
    render(await call("GET", "api/state"));
  } catch (e) {
    if (e.status) {
      // The server answered: the answers so far give no result (422) or
      // the request was refused; undoing the last answer is the way on.
      showError(`${e.message}. Undo the last answer (U) to answer it differently.`);
    } else {
      showError(`The server did not answer (${e.message}). If it was stopped, start it again and open the new address.`);
    }
  }
}

async function answer(choice) {
  if (busy || !state || !state.question) return;
  setBusy(true);
  const ms = Math.round(performance.now() - shownAt);
  try {
    render(await call("POST", "api/answer", { number: state.question.number, choice, ms }));
  } catch (e) {
    showError(e.message);
    load();
  }
}

async function undo() {
  if (busy) return;
  setBusy(true);
  try {
    render(await call("POST", "api/undo", {}));
  } catch (e) {
    showError(e.message);
  }
}

async function quit() {
  if (busy) return;
  setBusy(true);
  try {
    await call("POST", "api/quit", {});
  } catch (e) {
    /* the server stops either way */
  }
  $("question").hidden = true;
  $("result").hidden = true;
  $("stopped").hidden = false;
  document.body.dataset.state = "stopped";
}

for (const button of document.querySelectorAll("[data-choice]")) {
  // The second click of a double click (detail 2) answers nothing: when
  // the next question is already shown it would answer that one too.
  button.addEventListener("click", (e) => {
    if (e.detail > 1) return;
    answer(button.dataset.choice);
  });
}
$("undo").addEventListener("click", undo);
$("undo-result").addEventListener("click", undo);
$("quit").addEventListener("click", quit);
$("quit-result").addEventListener("click", quit);
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key.toLowerCase();
  if (k === "a" || k === "arrowleft") answer("a");
  else if (k === "b" || k === "arrowright") answer("b");
  else if (k === "t" || k === "=" || k === "c") answer("tie");
  else if (k === "u" || k === "backspace") undo();
  else return;
  e.preventDefault();
});
load();
