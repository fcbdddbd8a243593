//! `elicit reproduce`: re-runs every table and theorem check, writes
//! `report.md`, `results.json` and SVG figures, prints a summary.

use metric_elicitation::elicit::binary::Alg3Settings;
use metric_elicitation::reproduce::binary::{
    finite_sample, query_counts, table1, table2, theorem2, Theorem2Sweep,
};
use metric_elicitation::reproduce::multiclass as mc;
use metric_elicitation::reproduce::{max_abs_diff, Row};
use metric_elicitation::scalar::Scalar;
use metric_elicitation::search::Strategy;
use metric_elicitation::Error;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `elicit reproduce`.
pub struct Options {
    pub only: Vec<String>,
    pub out: PathBuf,
    pub precision: String,
    pub search: Strategy,
    pub trials: usize,
    pub seed: u64,
}

/// One reproduced table or theorem.
pub struct Section {
    pub id: &'static str,
    pub title: &'static str,
    pub rows: Vec<Row>,
    pub verdict: String,
    pub seconds: f64,
    pub explanation: &'static str,
}

/// The families `--only` accepts.
pub const FAMILIES: [&str; 2] = ["003", "002"];

type Job = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn Fn() -> Result<Vec<Row>, Error>>,
);

fn jobs<T: Scalar>(o: &Options) -> Vec<Job> {
    let (search, trials, seed) = (o.search, o.trials, o.seed);
    let sweep = Theorem2Sweep {
        trials,
        seed,
        ..Theorem2Sweep::default()
    };
    vec![
        ("003-table1", "003 Table 1: LPM elicitation (eps = 0.02 rad, a = 5)", EXPLAIN_T1, Box::new(move || table1::<T>(search))),
        ("003-table2", "003 Table 2 (synthetic): LFPM elicitation (eps = 0.05, Alg. 3 on 2000 confusions, Delta = 0.01)", EXPLAIN_T2, Box::new(move || table2::<T>(search, Alg3Settings::default()))),
        ("003-thm2", "003 Theorem 2: ||m* - m^||_inf <= sqrt(2) eps + (2/k0) sqrt(2 k1 eps_Omega)", EXPLAIN_THM2, Box::new(move || theorem2::<T>(&sweep))),
        ("003-lemma2", "003 Theorem 1 (iii) / Lemma 2: queries against the lower bound log2(L/eps)", EXPLAIN_L2, Box::new(move || query_counts::<T>(trials.min(200), seed))),
        ("003-finite", "003 Table 1's procedure on finite samples (n = 1e5, 1e6)", EXPLAIN_FIN, Box::new(move || {
            let mut rows = finite_sample::<T>(100_000, seed, search)?;
            rows.extend(finite_sample::<T>(1_000_000, seed, search)?);
            Ok(rows)
        })),
        ("002-table2", "002 Table 2: DLPM elicitation (eps = 0.01, 002 §6.1 population)", EXPLAIN_002_T2, Box::new(move || mc::table2::<T>(search))),
        ("002-table3", "002 Table 3: LPM elicitation over a sphere (eps = 0.01, T = 2(q - 1))", EXPLAIN_002_T3, Box::new(move || mc::table3::<T>(search))),
        ("002-thm1", "002 Theorem 1: DLPM, ||a* - a^||inf / (eps + sqrt(eps_Omega))", EXPLAIN_002_THM1, Box::new(move || mc::theorem1::<T>(&mc::Sweep { trials, seed, ..mc::Sweep::noise_levels() }))),
        ("002-thm2", "002 Theorem 2: LPM (Alg. 2), ||a* - a^||2 / (sqrt(q)(eps + sqrt(eps_Omega/lambda)))", EXPLAIN_002_THM2, Box::new(move || mc::theorem2::<T>(&mc::Sweep { trials, seed, ..mc::Sweep::default() }, false))),
        ("002-thm2-lpme", "002 Theorem 2 for the general LPME (001 App. A: orthant detection, 4 cycles)", EXPLAIN_002_THM2, Box::new(move || mc::theorem2::<T>(&mc::Sweep { trials, seed, ..mc::Sweep::default() }, true))),
        ("002-queries", "002: queries of DLPM and LPME per strategy against the lower bound", EXPLAIN_002_Q, Box::new(move || mc::query_counts::<T>(trials.min(100), seed))),
    ]
}

const EXPLAIN_002_T2: &str = "Rows marked 'softmax scores' rerun the paper's four metrics on the same slopes with eta_i proportional to e^{p_i x}. The paper's population (X ~ U[-1, 1], eta_i proportional to 1/(1 + e^{p_i x}); normalized here, which leaves every RBO decision unchanged) bounds g_i/g_1 on [-1, 1] by 1.33 (p = (1, 3)), 1.49 (1, 5), 1.54 (1, 6) and 1.66 (1, 10). So on a face (1, i) the RBO classifier predicts class 1 everywhere once a_1/a_i exceeds that bound, and every such m gives the same confusion and the same oracle answers: a_i/a_1 is only bounded. Rows 2-4 have such faces (row 2: a_1/a_2 = 1.53; row 3: 1.69 and 1.57; row 4 on all three faces, a_1/a_i = 3.4, 7.3 and 3.2), so no procedure that queries only RBO classifiers of the faces (1, i) can recover them on this population; the procedure reports them (unidentified_faces) and returns the plateau's edge. The paper prints exact recovery, which its population as written does not allow. With softmax scores on the same slopes the ratios g_i/g_1 sweep [e^{-(p_i - p_1)}, e^{p_i - p_1}], every Table 2 ratio is inside, and Alg. 1 recovers all four rows within 0.01 with the paper's query counts, 4 (k - 1) ceil(log2(1/eps)) = 56 and 84.";
const EXPLAIN_002_T3: &str = "The printed true metrics are normalized to unit length. The sphere is centred at the confusion of the uniform random classifier with radius min zeta_i / (4k) (the paper's radius from its App. D is not in the text; with an exact oracle the result does not depend on it). Queries: 4 T ceil(log2((pi/2)/eps)) = 320 and 704.";
const EXPLAIN_002_THM1: &str = "Random a* uniform on the simplex, 1000 per k, eps = 0.01, eps_Omega in {1e-6, 1e-4, 1e-3}, every adversary and strategy, on three population settings. pair-blocks: k - 1 copies of the 003 App. A problem (a = 5), one per face (1, i), so every face has the same shape for every k. pair-blocks-relative: the same with eps_Omega scaled by 2/(k(k - 1)), the factor by which a face's metric range shrinks (a_1 + a_i is about 2/k and the face's mass 1/(k - 1)), so the noise is the same fraction of what the oracle compares for every k. softmax: eta_i proportional to e^{p_i x}, p_i = 30 i/(k - 1), where other classes dilute each face more as k grows. Every trial is also checked against its own instance bound: for paper and adaptive the exact worst case over every eps_Omega-noisy oracle (all answers to in-band comparisons explored on each face, then the worst corner of the box of reachable m^), for golden the concave-face band (estimate within eps of {m : g(m) >= g(m*) - c eps_Omega/(a_1 + a_i)}, c = 6). No trial exceeds its bound, and the tested adversaries reach it (error/bound up to 1.00). The constant max ||a* - a^||inf/(eps + sqrt(eps_Omega)) grows with k at a fixed absolute eps_Omega, for two measured reasons. (1) Conditioning: a^_i = (1 - m^_i)/m^_i a^_1 then l1-normalization has |da^_i/dm^_i| = kappa_i = (1 - a_i)(a_1 + a_i)^2/a_1, exactly 1 for k = 2 and unbounded as a_1 -> 0 for k >= 3; the '/kappa' constants divide each trial by max(1, kappa). (2) Scale: with ||a*||_1 = 1 the metric differences on a face shrink like 1/k^2, so a fixed eps_Omega is a relative noise growing like k^2 and the face error like k. With both accounted for (pair-blocks-relative, /kappa) the constant is flat in k (about 2.6-3.1 at eps_Omega = 1e-4 and 4.1-5.4 at 1e-3 for k = 3..5, against 1.8-2.1 and 2.9-3.4 at k = 2). Thm 1's O() therefore hides a factor that depends on k and a*; the theorem does not claim otherwise, but its constant is not uniform in k for an absolute eps_Omega.";
const EXPLAIN_002_THM2: &str = "1000 random unit metrics per k (negative for LPM, any signs for LPME), eps = 0.01, eps_Omega = 1e-4, every adversary and strategy. The observed constant levels off (k = 3..5) instead of growing with k.";
const EXPLAIN_002_Q: &str = "DLPM lower bound (k - 1) log2(1/eps); LPME lower bound (q - 1) log2((pi/2)/eps) for one pass. Golden section with the paper's 4 cycles reaches the paper's accuracy with about 2.8x fewer queries; fewer cycles lose accuracy (see the worst error in each note).";

const EXPLAIN_T1: &str = "The paper prints two decimals; m* = (cos k*pi/18, sin k*pi/18). Queries: 4*ceil(log2((pi/2)/eps)) = 28 with the paper strategy (the App. C monotonicity query would add one).";
const EXPLAIN_T2: &str = "alpha, sigma: mean and standard deviation of phi^/phi over the upper-boundary confusions of Alg. 3 (the two vertices excluded, where both metrics can vanish). Prop. 4 fixes the hyperplane's scale to |m| = 1, while the true metric solves system (9) at scale ||p - tau q||; the elicited metric is therefore only approximately a multiple of the truth even with an exact oracle (F1 via Cor. 1 with an exact hyperplane: alpha 0.915, sigma 0.037, the paper's row 1). Differences in the third decimal come from where the search stops inside the eps interval.";
const EXPLAIN_THM2: &str = "With an exact oracle the bound holds in every trial, including theta* near the App. A plateaus (theta < atan(e^-a) or > atan(e^a), where thresholds leave the range of eta and Assumption 1 fails): ties there are resolved by Alg. 1's default order (line 7). With noise, in-band errors at successive halvings accumulate (loss up to c eps_Omega, c about 4 for halving and 5.6 for golden, see tests/search_properties.rs), while the proof of Thm. 1 (ii) takes the loss below eps_Omega; the noise term then grows by at most sqrt(c), which covers every observed ratio (at most 1.07 for the paper strategy, 1.17 for golden). Trials where Assumption 4 fails (k0 = 0: the window leaves the support of eta(X), e.g. every trial at eps_Omega = 1e-2) have no bound.";
const EXPLAIN_L2: &str = "paper: exactly 4 ceil(log2(L/eps)); adaptive: at most 3 per halving; golden: ceil(log_phi(L/eps)) + 1 at most, about 1.44 log2(L/eps), the optimum for comparison-based unimodal search.";
const EXPLAIN_FIN: &str = "Scores are the true eta of the App. A model. The sample acts as an eps_Omega = 2 Delta noise source (Delta = max deviation of phi* between sample and population along the boundary), so the allowance is the half-width of {theta : phi*(C_theta) >= max - c 2 Delta} plus eps. It is loose because phi* is flat in theta near its peak; the note also gives the sample's own best angle, which no method can beat.";

fn verdict(id: &str, rows: &[Row]) -> String {
    match id {
        "003-table1" => {
            let worst = rows.iter().map(|r| r.error).fold(0.0, f64::max);
            let paper = rows
                .iter()
                .map(|r| max_abs_diff(&r.elicited, &r.paper))
                .fold(0.0, f64::max);
            if worst <= 0.01 + 1e-12 && paper <= 0.01 {
                format!("matches: every m^ within eps/2 of m* (worst {worst:.4}); within {paper:.4} of the paper's two-decimal values")
            } else {
                format!("differs: worst error {worst:.4}, worst distance to the paper {paper:.4}")
            }
        }
        "003-table2" => {
            let bad: Vec<&str> = rows
                .iter()
                .filter(|r| {
                    r.sigma.unwrap_or(f64::INFINITY)
                        > r.paper_alpha_sigma.map_or(0.0, |p| p.1) + 0.01
                })
                .map(|r| r.row.as_str())
                .collect();
            if bad.is_empty() {
                "matches: sigma <= the paper's sigma + 0.01 on every row".into()
            } else {
                format!(
                    "differs: sigma above the paper's + 0.01 on rows {}",
                    bad.join(", ")
                )
            }
        }
        "003-thm2" => {
            let violations: usize = rows.iter().filter_map(|r| r.violations).sum();
            let worst = rows
                .iter()
                .filter_map(|r| r.worst_ratio)
                .fold(0.0, f64::max);
            let trials: usize = rows.iter().filter_map(|r| r.trials).sum();
            if violations == 0 {
                format!("holds in all {trials} trials with a bound")
            } else {
                format!("holds in {} of {trials} trials; largest error/bound {worst:.3} (see why below)", trials - violations)
            }
        }
        "002-table2" | "002-table3" => {
            let worst = rows
                .iter()
                .filter(|r| r.note.starts_with("eps"))
                .map(|r| r.error)
                .fold(0.0, f64::max);
            let flagged: Vec<&str> = rows
                .iter()
                .filter(|r| !r.note.starts_with("eps"))
                .map(|r| r.row.as_str())
                .collect();
            let tol = if id == "002-table2" { 0.01 } else { 0.02 };
            if id == "002-table2" {
                let softmax = rows.iter().filter(|r| r.row.contains("softmax"));
                let (n, worst_softmax) =
                    softmax.fold((0, 0f64), |(n, w), r| (n + 1, w.max(r.error)));
                format!(
                    "rows {} of the §6.1 population unidentifiable by Alg. 1 (a face optimum at a vertex, see below), the others within {worst:.4}; with softmax scores on the same slopes all {n} rows within {worst_softmax:.4}; 56 and 84 queries",
                    flagged.join("; ")
                )
            } else if flagged.is_empty() && worst <= tol {
                format!("matches: every coordinate within {tol} (worst {worst:.4}); query counts as in the paper")
            } else {
                format!("differs on {}: a face optimum at a vertex leaves a_i/a_1 unidentified (see below); identifiable rows within {worst:.4}", flagged.join(", "))
            }
        }
        "002-thm1" => {
            let mut parts = Vec::new();
            for family in ["pair-blocks", "pair-blocks-relative", "softmax"] {
                let mine: Vec<&Row> = rows
                    .iter()
                    .filter(|r| r.row.split(", ").next() == Some(family))
                    .collect();
                // k -> (largest constant, largest constant / kappa)
                let mut by_k = std::collections::BTreeMap::new();
                for r in &mine {
                    let k = r.row.split(", ").nth(1).unwrap_or("").to_string();
                    let v = by_k.entry(k).or_insert((0f64, 0f64));
                    v.0 = v.0.max(r.worst_ratio.unwrap_or(0.0));
                    v.1 = v.1.max(r.conditioned_ratio.unwrap_or(0.0));
                }
                let list: Vec<String> = by_k
                    .iter()
                    .map(|(k, v)| format!("{k} {:.1}", v.0))
                    .collect();
                let cond: Vec<String> = by_k
                    .iter()
                    .map(|(k, v)| format!("{k} {:.1}", v.1))
                    .collect();
                let instance = mine
                    .iter()
                    .filter_map(|r| r.instance_ratio)
                    .fold(0.0, f64::max);
                let violations: usize = mine.iter().filter_map(|r| r.violations).sum();
                parts.push(format!(
                    "{family}: constant {} (/kappa: {}), error/instance bound <= {instance:.2} ({violations} violations)",
                    list.join(", "),
                    cond.join(", ")
                ));
            }
            parts.join("; ")
        }
        "002-thm2" | "002-thm2-lpme" | "002-queries" => {
            let mut by_k = std::collections::BTreeMap::new();
            for r in rows {
                let k = r.row.split([',', ' ']).next().unwrap_or("").to_string();
                let v = by_k.entry(k).or_insert(0f64);
                *v = v.max(
                    r.worst_ratio
                        .unwrap_or(r.queries as f64 / r.bound.unwrap_or(1.0)),
                );
            }
            let list: Vec<String> = by_k.iter().map(|(k, v)| format!("{k}: {v:.2}")).collect();
            if id == "002-queries" {
                format!("max queries / lower bound: {}", list.join(", "))
            } else {
                format!("observed constants {}", list.join(", "))
            }
        }
        "003-lemma2" => {
            let above = rows
                .iter()
                .all(|r| r.queries as f64 >= r.bound.unwrap_or(0.0));
            format!(
                "{}: every strategy at or above log2(L/eps); golden closest",
                if above { "matches" } else { "differs" }
            )
        }
        _ => {
            let ok = rows
                .iter()
                .all(|r| r.error <= r.bound.unwrap_or(f64::INFINITY));
            let worst = rows.iter().map(|r| r.error).fold(0.0, f64::max);
            format!(
                "{}: worst error {worst:.4}",
                if ok {
                    "within the staircase allowance"
                } else {
                    "exceeds the allowance"
                }
            )
        }
    }
}

/// Runs the selected sections at precision `T`.
pub fn run_at<T: Scalar>(o: &Options) -> Result<Vec<Section>, Error> {
    let selected: Vec<Job> = jobs::<T>(o)
        .into_iter()
        .filter(|(id, ..)| o.only.is_empty() || o.only.iter().any(|f| id.starts_with(f.as_str())))
        .collect();
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(selected.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut sections = Vec::new();
    let reference = if T::backend_name() != "f64" {
        Some(jobs::<f64>(o))
    } else {
        None
    };
    for (id, title, explanation, job) in selected {
        bar.set_message(id);
        let start = Instant::now();
        let mut rows = job()?;
        let seconds = start.elapsed().as_secs_f64();
        // MPFR runs: the same rows at f64, for the per-row difference.
        if let Some(reference) = &reference {
            if ["003-table1", "003-table2", "002-table2", "002-table3"].contains(&id) {
                if let Some((.., f64_job)) = reference.iter().find(|j| j.0 == id) {
                    for (row, base) in rows.iter_mut().zip(f64_job()?) {
                        row.f64_difference = Some(max_abs_diff(&row.elicited, &base.elicited));
                    }
                }
            }
        }
        let verdict = verdict(id, &rows);
        sections.push(Section {
            id,
            title,
            rows,
            verdict,
            seconds,
            explanation,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(sections)
}

fn vec(v: &[f64]) -> String {
    let inner: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    format!("({})", inner.join(", "))
}

/// Renders `report.md`.
pub fn report(sections: &[Section], o: &Options) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Reproduction report\n");
    let _ = writeln!(
        md,
        "`elicit reproduce --precision {} --search {} --trials {} --seed {}`. Each section gives the paper's numbers beside ours, the queries, the wall time and a verdict.\n",
        o.precision,
        o.search.name(),
        o.trials,
        o.seed
    );
    for s in sections {
        let _ = writeln!(md, "## {}\n", s.title);
        let _ = writeln!(md, "**Verdict:** {} ({:.2} s)\n", s.verdict, s.seconds);
        let _ = writeln!(md, "{}\n", s.explanation);
        match s.id {
            "003-table1" | "003-table2" | "003-finite" | "002-table2" | "002-table3" => {
                let _ = writeln!(md, "| row | truth | paper | ours | queries | error | alpha / sigma (paper) | vs f64 | note |");
                let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
                for r in &s.rows {
                    let ab = match (r.alpha, r.sigma, r.paper_alpha_sigma) {
                        (Some(a), Some(sg), Some((pa, ps))) => {
                            format!("{a:.3} / {sg:.4} ({pa} / {ps})")
                        }
                        _ => String::new(),
                    };
                    let paper = if r.paper.is_empty() {
                        "-".into()
                    } else {
                        vec(&r.paper)
                    };
                    let diff = r
                        .f64_difference
                        .map_or(String::new(), |d| format!("{d:.1e}"));
                    let note = if s.id == "003-finite" {
                        r.note.clone()
                    } else {
                        String::new()
                    };
                    let _ = writeln!(
                        md,
                        "| {} | {} | {paper} | {} | {} | {:.4} | {ab} | {diff} | {note} |",
                        r.row,
                        vec(&r.truth),
                        vec(&r.elicited),
                        r.queries,
                        r.error
                    );
                }
            }
            _ => {
                let _ = writeln!(md, "| setting | search | trials | max queries | worst error | bound | worst error/bound | violations | note |");
                let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|");
                for r in &s.rows {
                    let _ = writeln!(
                        md,
                        "| {} | {} | {} | {} | {:.4} | {} | {} | {} | {} |",
                        r.row,
                        r.search,
                        r.trials.unwrap_or(0),
                        r.queries,
                        r.worst_error.unwrap_or(r.error),
                        r.bound.map_or("-".into(), |b| format!("{b:.4}")),
                        r.worst_ratio.map_or("-".into(), |x| format!("{x:.3}")),
                        r.violations.map_or("-".into(), |v| v.to_string()),
                        r.note
                    );
                }
            }
        }
        let _ = writeln!(md);
    }
    md
}

/// The terminal summary.
pub fn summary(sections: &[Section]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<12} {:>5} {:>8}  verdict", "table", "rows", "time");
    for s in sections {
        let _ = writeln!(
            out,
            "{:<12} {:>5} {:>7.2}s  {}",
            s.id,
            s.rows.len(),
            s.seconds,
            s.verdict
        );
    }
    out
}
