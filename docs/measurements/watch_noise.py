"""The person model's consistency checks through `elicit run`, behind simulated people.

usage: python3 docs/measurements/watch_noise.py ELICIT FAMILY PERSON N [JOBS]

ELICIT is the elicit binary; FAMILY binary or dlpm; PERSON "random"
(oracle.mistake_rate = 0.5: every answer a fair coin), "exact",
"p=<rate>" (independent flips) or "bt=<tau>" (Bradley-Terry,
oracle.temperature); N the number of runs, JOBS how many run at once
(default 1). Run k (1..N) runs engine_noise.py's spec of run k (the
same metric, population, epsilon = 0.05 and oracle seed k) with
`engine = "bayes"` and `assumed_mistake_rate = "person"` (which watches
with consistency checks since they exist). Prints the runs within epsilon, wrong with
exit status 0 (silently), ended as contradictory, other exit 3
(undetermined), the questions (median, 90th percentile, max) and the
consistency checks asked (sum). VERBOSE=1 prints each run first.
"""
import json, math, random, subprocess, sys, os, tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from engine_noise import make_spec  # noqa: E402

E, fam, person, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
jobs = int(sys.argv[5]) if len(sys.argv) > 5 else 1
if fam not in ("binary", "dlpm"):
    sys.exit(f"unknown family {fam!r}")
rate, tau = 0.0, None
if person == "random":
    rate = 0.5
elif person.startswith("p="):
    rate = float(person[2:])
elif person.startswith("bt="):
    tau = float(person[3:])
elif person != "exact":
    sys.exit(f"unknown person {person!r}")


def spec(k):
    """engine_noise.py's spec of run k, with the person model (and a
    Bradley-Terry person's temperature instead of a mistake rate)."""
    text = make_spec("bayes", rate, k, fam)
    text = text.replace('engine = "bayes"\n', 'engine = "bayes"\nassumed_mistake_rate = "person"\n', 1)
    if tau is not None:
        text = text.replace(f"mistake_rate = {rate}\n", f"temperature = {tau}\n", 1)
    return text


def run(k):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(spec(k))
    out = subprocess.run([E, "run", f.name], capture_output=True, text=True)
    os.unlink(f.name)
    if out.returncode not in (0, 3):
        return (out.returncode, None, None, None, None)
    d = json.loads(out.stdout)
    checks = (d.get("consistency_checks") or {}).get("asked", 0)
    return (out.returncode, d["error"], d["queries"], d["stop"], checks)


with ThreadPoolExecutor(jobs) as pool:
    rows = list(pool.map(run, range(1, n + 1)))
if os.environ.get("VERBOSE"):
    for k, r in enumerate(rows, 1):
        print(f"run {k}: exit {r[0]}, error {r[1]}, questions {r[2]}, stop {r[3]}, checks {r[4]}")
failed = sum(r[1] is None for r in rows)
rows = [r for r in rows if r[1] is not None]
m = len(rows)
within = sum(e <= 0.05 and rc == 0 for rc, e, *_ in rows)
silent = sum(e > 0.05 and rc == 0 for rc, e, *_ in rows)
contra = sum(st == "contradicted" for *_, st, _ in rows)
other3 = sum(rc == 3 and st != "contradicted" for rc, _, _, st, _ in rows)
q = sorted(r[2] for r in rows)
checks = sum(r[4] for r in rows)
print(
    f"{fam} {person}: within eps (exit 0) {within}/{m}; wrong and silent {silent}; "
    f"contradicted {contra}; other exit 3 {other3}; questions median {q[m // 2]}, "
    f"90th pct {q[int(0.9 * m)]}, max {q[-1]}; consistency checks asked {checks}"
    + (f"; failed {failed}" if failed else "")
)
