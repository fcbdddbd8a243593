"""Writes multiclass_scores.csv: 3000 rows of class probabilities, a label
and a group, from a softmax population with three classes
(X ~ U[-1, 1], eta_i(x) proportional to e^{p_i x}, p = (0, 4, 8);
label ~ Categorical(eta); group = 1 when x > 0), seeded, so the file can be
regenerated exactly. The header quotes its column names (they contain
spaces and parentheses) and lines end in CRLF, to exercise a real CSV
parser."""
import csv, math, random

rng = random.Random(2)
p = (0.0, 4.0, 8.0)
with open("multiclass_scores.csv", "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
    w.writerow(["p(class 1)", "p(class 2)", "p(class 3)", "label", "group"])
    for _ in range(3000):
        x = rng.uniform(-1.0, 1.0)
        g = [math.exp(pi * x) for pi in p]
        total = sum(g)
        eta = [gi / total for gi in g]
        u, label = rng.random(), 2
        for i, e in enumerate(eta):
            if u < e:
                label = i
                break
            u -= e
        w.writerow(eta + [label, 1 if x > 0 else 0])
