// End-to-end test of `elicit ask --web` in a real browser: Debian's headless
// Chromium driven by playwright-core (no browser download, no network
// beyond 127.0.0.1). A scripted person answers a binary, a DLPM and a fair
// spec by clicking, with a tie, an undo, a double click, a reload and a
// server killed with SIGKILL and started again on the same transcript; the
// result shown equals `elicit replay` of the transcript. Screenshots of the
// question and result pages go to out/.
//
// Run: `npm ci && node --test browser.test.mjs` in this folder, with ELICIT
// set to the `elicit` binary (default: ../../../target/debug/elicit, or
// $CARGO_TARGET_DIR/debug/elicit) and CHROMIUM to the browser (default
// /usr/bin/chromium).

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, mkdirSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const specs = join(root, "examples/specs");
const targetDir = process.env.CARGO_TARGET_DIR || join(root, "target");
const elicit = process.env.ELICIT || join(targetDir, "debug/elicit");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const out = join(here, "out");
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), "elicit-browser-"));

assert.ok(existsSync(elicit), `no elicit binary at ${elicit} (build it, or set ELICIT)`);

// A fresh profile per run (Playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "chromium-profile-")), {
  executablePath,
  headless: true,
  viewport: { width: 1150, height: 900 },
  timeout: 60_000,
  // headless: true passes --headless itself; the rest keep it off the network.
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
browser.setDefaultTimeout(30_000);
// Every server started, killed when the tests end (a failed test must not
// leave one running: the runner would wait for it).
const servers = new Set();
after(async () => {
  for (const child of servers) child.kill("SIGKILL");
  await browser.close();
});

// Starts `elicit ask SPEC --web`, resolves with the process and its address.
function serve(spec, transcript, checks = 3) {
  const child = spawn(elicit, ["ask", spec, "--web", "--transcript", transcript, "--checks", String(checks)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  servers.add(child);
  child.once("exit", () => servers.delete(child));
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolveUrl, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => resolveUrl({ child, url: line.trim() }));
    child.once("exit", (code) => reject(new Error(`elicit exited ${code}: ${stderr}`)));
  });
}

// Poll every 20 ms (requestAnimationFrame, the default, is throttled in a
// headless page).
const POLL = { polling: 20 };

// Resolves when the child has exited (at once if it already has).
function exited(child) {
  return new Promise((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once("exit", () => done())));
}

function killed(child) {
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGKILL");
  });
}

function lines(file) {
  return readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).length;
}

// The numbers of one option as the page shows them: section -> row -> value
// (the exact value the page holds in data-value; rows 0 for both are absent).
async function numbers(page, side) {
  return page.$$eval(`#numbers-${side} .row`, (rows) =>
    rows.map((r) => ({ s: Number(r.dataset.section), r: Number(r.dataset.row), v: Number(r.dataset.value) })),
  );
}

function value(list, s, r) {
  const hit = list.find((x) => x.s === s && x.r === r);
  return hit ? hit.v : 0;
}

// Utilities of three scripted people, from the page's numbers.
const people = {
  // 0.8 TP + 0.6 TN, from "Of 100 patients in all" (section 2: found, ..., correct).
  binary: (n) => 0.8 * value(n, 2, 0) + 0.6 * value(n, 2, 3),
  // Correct cases out of all (section 1), weights 0.2 / 0.5 / 0.3.
  dlpm: (n) => 0.2 * value(n, 1, 0) + 0.5 * value(n, 1, 1) + 0.3 * value(n, 1, 2),
  // Per group (section g) correct per class: mistakes weigh 0.7, the
  // groups' differences 0.3 (a cost, negated).
  fair: (n) => {
    const a = [0.7, 0.3];
    let cost = 0;
    for (let g = 0; g < 2; g++) for (let i = 0; i < 2; i++) cost += (0.7 * a[i] * (100 - value(n, g, i))) / 2;
    for (let i = 0; i < 2; i++) cost += 0.3 * Math.abs(value(n, 0, i) - value(n, 1, i));
    return -cost;
  },
};

async function current(page) {
  if (process.env.TRACE) console.log("current", await page.evaluate(() => document.body.dataset.state + " " + document.body.dataset.number));
  await page.waitForFunction(
    () => document.body.dataset.state === "result" || (["question", "check"].includes(document.body.dataset.state) && !document.querySelector("#prefer-a").disabled),
    undefined,
    POLL,
  );
  return page.evaluate(() => ({ state: document.body.dataset.state, number: document.body.dataset.number }));
}

async function choose(page, person) {
  const [a, b] = [person(await numbers(page, "a")), person(await numbers(page, "b"))];
  if (Math.abs(a - b) < 1e-9) return "#tie";
  return a > b ? "#prefer-a" : "#prefer-b";
}

async function click(page, selector) {
  const before = await page.evaluate(() => document.body.dataset.number + document.body.dataset.state);
  await page.click(selector);
  await page.waitForFunction((b) => document.body.dataset.number + document.body.dataset.state !== b && !document.querySelector("#prefer-a").disabled, before, POLL);
}

// Answers until the result page; returns the number of questions answered.
async function answerAll(page, person, limit = 400) {
  for (let i = 0; i < limit; i++) {
    const { state } = await current(page);
    if (state === "result") return i;
    await click(page, await choose(page, person));
  }
  throw new Error("no result");
}

async function resultOf(page) {
  return page.evaluate(async () => (await (await fetch("api/state")).json()).result);
}

function replay(transcript) {
  const run = spawnSync(elicit, ["replay", transcript], { encoding: "utf8" });
  const result = JSON.parse(run.stdout);
  // Exit status 3 exactly when the answers leave the metric undetermined.
  assert.equal(run.status, result.undetermined.length > 0 ? 3 : 0, run.stderr);
  return result;
}

test("binary: a tie, an undo, a double click, a reload and a killed server", async () => {
  const spec = join(specs, "binary-lpm-ask.toml");
  const transcript = join(work, "binary.jsonl");
  let { child, url } = await serve(spec, transcript);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
  const page = await browser.newPage();
  await page.goto(url);
  await current(page);
  assert.match(await page.textContent("#task"), /biopsy/);
  assert.match(await page.textContent("#numbers-a"), /labelled cancer \(found\)/);
  assert.match(await page.textContent("#progress"), /Question 1 of about \d+/);
  await page.screenshot({ path: join(out, "binary-question.png"), fullPage: true });

  // Question 1: "I can't tell".
  await click(page, "#tie");
  assert.equal(lines(transcript), 2);
  assert.match(readFileSync(transcript, "utf8").split("\n")[1], /"answer":"indifferent"/);
  // Question 2: a double click answers once.
  const before = lines(transcript);
  const target = await choose(page, people.binary);
  await page.dblclick(target);
  await page.waitForFunction(() => document.body.dataset.number === "3" && !document.querySelector("#prefer-a").disabled, undefined, POLL);
  assert.equal(lines(transcript), before + 1, "a double click answered once");
  // Question 3 answered, then undone with the keyboard, then answered again.
  await click(page, await choose(page, people.binary));
  assert.equal((await current(page)).number, "4");
  await page.keyboard.press("u");
  await page.waitForFunction(() => document.body.dataset.number === "3", undefined, POLL);
  assert.equal(lines(transcript), 3);
  await click(page, await choose(page, people.binary));
  // A reload shows the same question.
  const shown = (await current(page)).number;
  await page.reload();
  assert.equal((await current(page)).number, shown);
  // The server is killed (SIGKILL) and started again on the same transcript.
  const recorded = lines(transcript);
  await killed(child);
  ({ child, url } = await serve(spec, transcript));
  await page.goto(url);
  assert.equal((await current(page)).number, shown, "resumes at the same question");
  assert.equal(lines(transcript), recorded, "nothing lost, nothing repeated");
  // Keyboard answers for the rest.
  await answerAll(page, people.binary);
  const result = await resultOf(page);
  assert.match(await page.textContent("#sentence"), /missed cancer/);
  assert.ok(await page.$("#picture svg"), "the iso-line picture");
  assert.match(await page.textContent("#checks"), /agrees with \d+ of your \d+ check answers/);
  await page.screenshot({ path: join(out, "binary-result.png"), fullPage: true });
  assert.deepEqual(replay(transcript), result, "the page's result is elicit replay's");
  const download = await page.evaluate(async () => (await fetch("result.json")).json());
  assert.deepEqual(download, result);
  assert.ok(result.person.cant_tell >= 1);
  await page.click("#quit-result");
  await exited(child);
  await page.close();
});

test("dlpm: three named classes", async () => {
  const spec = join(specs, "dlpm-ask.toml");
  const transcript = join(work, "dlpm.jsonl");
  const { child, url } = await serve(spec, transcript);
  const page = await browser.newPage();
  await page.goto(url);
  await current(page);
  // The spec's class names (the engine's first face pairs two of them).
  const numbers = await page.textContent("#numbers-a");
  assert.match(numbers, /billing|bug report|feature request/);
  assert.doesNotMatch(numbers, /class \d/);
  await page.screenshot({ path: join(out, "dlpm-question.png"), fullPage: true });
  await answerAll(page, people.dlpm);
  const result = await resultOf(page);
  assert.match(result.sentence, /bug report/);
  await page.screenshot({ path: join(out, "dlpm-result.png"), fullPage: true });
  assert.deepEqual(replay(transcript), result);
  await page.click("#quit-result");
  await exited(child);
  await page.close();
});

test("fair: two named groups", async () => {
  const spec = join(specs, "fpme-ask.toml");
  const transcript = join(work, "fair.jsonl");
  let { child, url } = await serve(spec, transcript);
  const page = await browser.newPage();
  await page.goto(url);
  await current(page);
  assert.match(await page.textContent("#numbers-a"), /women: labelled correctly/);
  await page.screenshot({ path: join(out, "fair-question.png"), fullPage: true });
  // A few answers, a kill and a restart, then the rest.
  for (let i = 0; i < 4; i++) await click(page, await choose(page, people.fair));
  const shown = (await current(page)).number;
  await killed(child);
  ({ child, url } = await serve(spec, transcript));
  await page.goto(url);
  assert.equal((await current(page)).number, shown);
  await answerAll(page, people.fair, 600);
  const result = await resultOf(page);
  assert.match(result.sentence, /unfairness/);
  await page.screenshot({ path: join(out, "fair-result.png"), fullPage: true });
  assert.deepEqual(replay(transcript), result);
  await page.click("#quit-result");
  await exited(child);
  await page.close();
});
