"""What the Python package costs above the Rust it runs (py/benches).

    python py/benches/overhead.py [--elicit target/release/elicit] [--repeat 7]

Prints, each the median of interleaved repeats on this machine:
1. a Python callable oracle's cost per comparison above the callable itself:
   the same spec (DLPM k = 5 on the softmax population, and LPME q = 6 on
   a sphere, ε = 10⁻⁴) run with a simulated oracle and with a callable
   answering from the same metric (the same answers, checked), minus the
   callable's own time on the same questions, per question: the median and
   quartiles of paired repeats;
2. a spec run through Python against ``elicit run`` of the same spec: the
   command's wall time minus its start-up (``elicit run`` of a spec refused
   at once), beside ``me.run``'s;
3. the import time of ``metric_elicitation`` and the extension's size.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import metric_elicitation as me

ROOT = Path(__file__).resolve().parents[2]
METRIC = [0.1, 0.3, 0.15, 0.25, 0.2]
DLPM = {
    "procedure": "dlpm",
    "epsilon": 0.0001,
    "population": {"kind": "synthetic-002", "p": [1, 2, 3, 4, 5], "scores": "softmax"},
}


def answer_from(metric):
    total = sum(metric)
    w = [x / total for x in metric]

    def oracle(q):
        fa = fb = 0.0
        for wi, a, b in zip(w, q.a, q.b):
            fa += wi * float(a)
            fb += wi * float(b)
        return "a" if fa > fb else "b" if fa < fb else "tie"

    return oracle


LPME = {
    "procedure": "lpme",
    "epsilon": 0.0001,
    "population": {"kind": "sphere", "center": [0.5] * 6, "radius": 0.1},
}
LPME_METRIC = [0.3, 0.1, 0.25, 0.05, 0.2, 0.1]
CASES = [
    ("DLPM k = 5 (softmax population)", DLPM, METRIC),
    ("LPME q = 6 (a sphere: the procedure's own work is small)", LPME, LPME_METRIC),
]


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def callable_overhead(name, template, metric, repeat):
    """Per comparison: (callable run) − (simulated run) − (the callable's
    own time on the same questions), each repeat a paired, interleaved
    triple; the median and quartiles of the repeats."""
    simulated = dict(template, oracle={"kind": "simulated", "metric": metric})
    person = dict(template, oracle={"kind": "person"})
    oracle = answer_from(metric)
    questions = []
    r_person = me.run(person, oracle=lambda q: (questions.append(q), oracle(q))[1])
    r_sim = me.run(simulated)
    assert r_person.elicited == r_sim.elicited and r_person.queries == r_sim.queries == len(questions)
    n = len(questions)
    sim_t, person_t, own_t, over = [], [], [], []
    for _ in range(repeat):  # interleaved, paired
        s = timed(lambda: me.run(simulated))[0]
        p = timed(lambda: me.run(person, oracle=oracle))[0]
        o = timed(lambda: [oracle(q) for q in questions])[0]
        sim_t.append(s)
        person_t.append(p)
        own_t.append(o)
        over.append((p - s - o) / n)
    s, p, o = (statistics.median(x) for x in (sim_t, person_t, own_t))
    lo, mid, hi = quartiles(over)
    print(f"1. callable oracle, {name}, {n} comparisons per run, {repeat} paired repeats:")
    print(f"   simulated oracle {s * 1e3:.3f} ms; callable oracle {p * 1e3:.3f} ms; the callable itself {o * 1e3:.3f} ms (medians)")
    print(f"   overhead per comparison above the callable: median {mid * 1e6:.2f} µs (quartiles {lo * 1e6:.2f} to {hi * 1e6:.2f})")


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--elicit", default=str(ROOT / "target" / "release" / "elicit"))
    ap.add_argument("--repeat", type=int, default=51)
    args = ap.parse_args()

    for name, template, metric in CASES:
        callable_overhead(name, template, metric, args.repeat)

    if os.path.exists(args.elicit):
        with tempfile.TemporaryDirectory() as d:
            bad = Path(d) / "bad.json"
            bad.write_text('{"procedure": "dlpm", "epsilon": -1}')
            for name in ["lpme-dataset.toml", "dlpm.toml"]:
                spec = ROOT / "examples" / "specs" / name
                loaded = me.Spec.load(spec)
                cli_t, start_t, py_t, native_t = [], [], [], []
                for _ in range(args.repeat):  # interleaved
                    cli_t.append(timed(lambda: subprocess.run([args.elicit, "run", "--allow-undetermined", str(spec)], capture_output=True, check=True))[0])
                    start_t.append(timed(lambda: subprocess.run([args.elicit, "run", str(bad)], capture_output=True))[0])
                    py_t.append(timed(lambda: me.run(spec))[0])
                    native_t.append(timed(lambda: me._native.run(loaded._json, loaded._base, None, None))[0])
                c, st, py, nat = (statistics.median(x) for x in (cli_t, start_t, py_t, native_t))
                print(f"2. {name}: elicit run {c * 1e3:.2f} ms wall, start-up {st * 1e3:.2f} ms, so {(c - st) * 1e3:.2f} ms in-process;")
                print(f"   me.run {py * 1e3:.2f} ms ({py / (c - st):.3f} × the command's in-process time); "
                      f"the driver alone through the native module {nat * 1e3:.2f} ms (me.run {py / nat:.3f} × that)")
    else:
        print(f"2. skipped: no {args.elicit} (cargo build --release)")

    imp = []
    base = []
    for _ in range(args.repeat):
        imp.append(timed(lambda: subprocess.run([sys.executable, "-c", "import metric_elicitation"], check=True))[0])
        base.append(timed(lambda: subprocess.run([sys.executable, "-c", "import numpy"], check=True))[0])
    so = Path(me._native.__file__)
    print(f"3. import metric_elicitation: {statistics.median(imp) * 1e3:.0f} ms (python -c 'import numpy' alone: {statistics.median(base) * 1e3:.0f} ms)")
    print(f"   extension {so.name}: {so.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
