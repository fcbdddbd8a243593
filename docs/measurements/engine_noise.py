"""The two engines through `elicit run`, against simulated people who err.

usage: python3 docs/measurements/engine_noise.py ELICIT ENGINE P N [dlpm | lpme | fpme | fair-qpme [EPS]]

ELICIT is the elicit binary, ENGINE search or bayes, P the simulated
person's mistake rate (oracle.mistake_rate), N the number of runs. Run k
(1..N) elicits binary-lpm at epsilon = 0.05 (monotonicity increasing, the
synthetic-003 population) for the metric (cos t, sin t), t drawn uniformly
in [0.1, pi/2 - 0.1] by random.Random(1000 + k), with oracle seed k; with
"dlpm", a DLPM of k = 3 classes (synthetic-002, p = (1, 3, 5), softmax
scores) for weights drawn uniformly on the simplex by the same generator,
at the same epsilon (max |a - a^|, both l1-normalized); with "lpme", an
LPME of q = 6 weights of any signs on the sphere S(0.5·1, 0.2) (the
search: its defaults, one-cycle bisection) for a direction drawn uniformly
on the unit sphere (normalized Gaussians) by the same generator, at the
same epsilon (max |a - a^|, both unit); with "fpme", a fair metric of two
groups and two classes (tau = ((0.5, 0.4), (0.5, 0.6))) whose a and b are
unit directions drawn uniformly in the positive quadrant and lambda
uniformly in [0.1, 0.9] by the same generator, at the same epsilon (the
largest of ||a - a^||, ||b - b^|| and |lambda - lambda^|); with
"fair-qpme", a fair quadratic metric (000 Def. 4) of the same two groups
in diagonal rates (query radius 0.2) whose a is a unit direction drawn
uniformly in the positive quadrant, B = L L' with L's entries standard
normal scaled to 1/2 ||B||_F = 1, lambda uniform in [0.1, 0.9], at the
same epsilon (the largest of ||a - a^||, ||B - B^||_F, |lambda - lambda^|;
a run the search refuses, exit 2, because the metric breaks one of Alg.
4's assumptions, is counted as refused, and one that ends in an error
computing its estimate, exit 1, as "no result"). EPS (fair-qpme only) is the
spec's epsilon (default 0.05: for the search an LPME interval's width,
not the error; 0.005 gives the search errors about 0.05); "within eps"
still means an error at most 0.05. Prints
how many runs end within epsilon of the truth, how many are wrong with exit
status 0 (silently), how many exit 3 (undetermined), and the questions.
"""
import json, math, random, subprocess, sys, os, tempfile


def make_spec(eng, p, s, family="binary", spec_eps=0.05):
    """The spec of run s (family: binary, dlpm, lpme, fpme or fair-qpme), as described above."""
    dlpm, lpme, fpme, fqpme = (family == f for f in ("dlpm", "lpme", "fpme", "fair-qpme"))
    r=random.Random(1000+s)
    if fqpme:
        ta = r.uniform(0, math.pi/2); lam = r.uniform(0.1, 0.9)
        l11, l21, l22 = r.gauss(0, 1), r.gauss(0, 1), r.gauss(0, 1)
        b11, b12, b22 = l11*l11, l11*l21, l21*l21 + l22*l22
        fro = math.sqrt(b11*b11 + 2*b12*b12 + b22*b22) / 2
        b11, b12, b22 = b11/fro, b12/fro, b22/fro
        spec=f'''procedure = "fair-qpme"
engine = "{eng}"
epsilon = {spec_eps}
rates = "diagonal"
[population]
kind = "groups"
classes = 2
tau = [[0.5, 0.4], [0.5, 0.6]]
radius = 0.2
[oracle]
kind = "simulated"
mistake_rate = {p}
seed = {s}
[oracle.metric]
a = [{math.cos(ta)}, {math.sin(ta)}]
B = [[[{b11}, {b12}], [{b12}, {b22}]]]
lambda = {lam}
'''
    elif fpme:
        ta, tb = r.uniform(0, math.pi/2), r.uniform(0, math.pi/2); lam = r.uniform(0.1, 0.9)
        spec=f'''procedure = "fpme"
engine = "{eng}"
epsilon = 0.05
[population]
kind = "groups"
classes = 2
tau = [[0.5, 0.4], [0.5, 0.6]]
[oracle]
kind = "simulated"
mistake_rate = {p}
seed = {s}
[oracle.metric]
a = [{math.cos(ta)}, {math.sin(ta)}]
b = [[{math.cos(tb)}, {math.sin(tb)}]]
lambda = {lam}
'''
    elif lpme:
        g=[r.gauss(0, 1) for _ in range(6)]; norm=math.sqrt(sum(x*x for x in g)); w=[x/norm for x in g]
        spec=f'''procedure = "lpme"
engine = "{eng}"
epsilon = 0.05
[population]
kind = "sphere"
center = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
radius = 0.2
[oracle]
kind = "simulated"
metric = {w}
mistake_rate = {p}
seed = {s}
'''
    elif dlpm:
        u=sorted([r.random(), r.random()]); w=[u[0], u[1]-u[0], 1-u[1]]
        spec=f'''procedure = "dlpm"
engine = "{eng}"
epsilon = 0.05
[population]
kind = "synthetic-002"
p = [1.0, 3.0, 5.0]
scores = "softmax"
[oracle]
kind = "simulated"
metric = {w}
mistake_rate = {p}
seed = {s}
'''
    else:
        th=r.uniform(0.1, math.pi/2-0.1)
        spec=f'''procedure = "binary-lpm"
engine = "{eng}"
epsilon = 0.05
monotonicity = "increasing"
[population]
kind = "synthetic-003"
[oracle]
kind = "simulated"
metric = [{math.cos(th)}, {math.sin(th)}]
mistake_rate = {p}
seed = {s}
'''
    return spec


if __name__ == "__main__":
    E, eng, p, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    family = sys.argv[5] if len(sys.argv) > 5 else "binary"
    dlpm, lpme, fpme, fqpme = (family == f for f in ("dlpm", "lpme", "fpme", "fair-qpme"))
    spec_eps = float(sys.argv[6]) if len(sys.argv) > 6 else 0.05
    rows=[]
    refused=0
    failed=0
    for s in range(1, n+1):
        spec = make_spec(eng, p, s, family, spec_eps)
        f=os.path.join(tempfile.gettempdir(), f"engine-noise-{eng}-{os.getpid()}.toml")
        open(f,"w").write(spec)
        out=subprocess.run([E,"run",f],capture_output=True,text=True)
        if out.returncode == 2:
            refused += 1
            continue
        if out.returncode == 1:
            failed += 1
            continue
        d=json.loads(out.stdout)
        rows.append((out.returncode, d["error"], d["queries"]))
    n=len(rows)
    within=sum(e<=0.05 for _,e,_ in rows)
    silent=sum(e>0.05 and rc==0 for rc,e,_ in rows)
    flagged=sum(rc==3 for rc,_,_ in rows)
    q=sorted(x for *_,x in rows)
    print(f"{'fair-qpme (2, 2)' if fqpme else 'fpme (2, 2)' if fpme else 'lpme q=6' if lpme else 'dlpm k=3' if dlpm else 'binary'} {eng} p={p}: within eps {within}/{n}; wrong and silent {silent}; flagged undetermined {flagged}; questions median {q[n//2]}, 90th pct {q[int(0.9*n)]}, max {q[-1]}" + (f"; refused (exit 2) {refused}" if refused else "") + (f"; no result (exit 1) {failed}" if failed else ""))
