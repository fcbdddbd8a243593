"""Choose a model by an elicited metric, end to end (run by CI).

On the shipped Vehicle data (846 silhouettes; bus, opel, saab, van):
train three scikit-learn classifiers, elicit a person's metric from
questions about classifiers built on one model's probabilities (a
simulated person who errs on one answer in ten, as in the user study, and
the Bayesian engine), rank the three by the elicited metric, and build the
Bayes-optimal classifier for that metric from the same probabilities. It
prints each model's value under the elicited metric and under the person's
true metric, and exits 1 if the Bayes-optimal classifier does not beat the
three on the held-out rows.

    python py/examples/choose_a_model.py
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import metric_elicitation as me

ROOT = Path(__file__).resolve().parents[2]
CLASSES = ["bus", "opel", "saab", "van"]
# What the simulated person cares about: getting a saab right matters most,
# an opel next (the two cars are the hard pair), buses and vans little.
TRUTH = [0.05, 0.30, 0.60, 0.05]


def main() -> int:
    with gzip.open(ROOT / "lab" / "data" / "vehicle.csv.gz", "rt") as f:
        data = np.loadtxt(f, delimiter=",", skiprows=1)
    X, y = data[:, :-1], data[:, -1].astype(int)
    X_train, X_rest, y_train, y_rest = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    X_val, X_test, y_val, y_test = train_test_split(X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=0)

    models = {
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "random forest": RandomForestClassifier(n_estimators=200, random_state=0),
        "naive Bayes": GaussianNB(),
    }
    for model in models.values():
        model.fit(X_train, y_train)

    # The questions are about classifiers built on the logistic regression's
    # probabilities for the validation rows (its probabilities are the best
    # calibrated of the three here).
    source = models["logistic regression"]
    spec = {
        "procedure": "dlpm",
        "engine": "bayes",
        "epsilon": 0.02,
        "population": me.population.from_estimator(source, X_val, y_val),
        "oracle": {"kind": "simulated", "metric": TRUTH, "mistake_rate": 0.1, "seed": 7},
        "task": {"labels": CLASSES},
    }
    result = me.run(spec)
    print(f"elicited in {result.queries} questions: {result.in_words}")
    metric = result.metric_allowing_undetermined() if not result.determined else result.metric
    if not result.determined:
        print("note: the answers leave part of the metric open:", "; ".join(result.undetermined))
    truth = me.Metric.from_result({"procedure": "dlpm", "metric": TRUTH})

    predictions = {name: model.predict(X_test) for name, model in models.items()}
    predictions["Bayes-optimal for the elicited metric"] = metric.predict(source.predict_proba(X_test))
    print(f"\n{'model':42} {'elicited metric':>16} {'true metric':>12}")
    for name, value in metric.rank(predictions, y_test):
        print(f"{name:42} {value:16.4f} {truth.score(y_test, predictions[name]):12.4f}")

    best = predictions.pop("Bayes-optimal for the elicited metric")
    ok = all(metric.score(y_test, best) > metric.score(y_test, h) for h in predictions.values())
    ok_truth = all(truth.score(y_test, best) > truth.score(y_test, h) for h in predictions.values())
    print(
        f"\nThe Bayes-optimal classifier beats the three models on the elicited metric: {'yes' if ok else 'NO'}; "
        f"on the person's true metric: {'yes' if ok_truth else 'no'}."
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
