//! SVG figures of `elicit reproduce` (plotters, SVG backend: no fonts or
//! system libraries needed). A [`super::Job`] names its figure; the shared
//! drawing helpers ([`canvas`], [`legend`]) are here.

use super::{Row, Section};
use metric_elicitation::geometry::binary::boundary_point;
use metric_elicitation::metric::binary::Lfpm;
use metric_elicitation::oracle::Metric;
use metric_elicitation::population::LogisticUniform;
use plotters::coord::CoordTranslate;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::Path;

fn lfpm(v: &[f64]) -> Option<Lfpm<f64>> {
    Lfpm::new(v[0], v[1], v[2], v[3], v[4]).ok()
}

/// 003 Fig. 4: true and elicited LFPM along ∂C+ for Table 2's six rows.
pub(crate) fn lfpm_figure(section: &Section, path: &Path) -> Result<(), String> {
    let pop = LogisticUniform::new(5.0).map_err(|e| e.to_string())?;
    let root = canvas(path, (1200, 720))?;
    let rows: Vec<_> = section
        .rows
        .iter()
        .filter(|r| !r.row.contains("Cor."))
        .collect();
    for (panel, row) in root.split_evenly((2, 3)).iter().zip(rows) {
        let (Some(truth), Some(est)) = (lfpm(&row.truth), lfpm(&row.elicited)) else {
            continue;
        };
        let thetas: Vec<f64> = (1..200)
            .map(|i| f64::from(i) * std::f64::consts::FRAC_PI_2 / 200.0)
            .collect();
        let curve = |m: &Lfpm<f64>| -> Vec<(f64, f64)> {
            thetas
                .iter()
                .filter_map(|t| boundary_point(&pop, t).ok().map(|c| (*t, m.value(&c))))
                .collect()
        };
        let (a, b) = (curve(&truth), curve(&est));
        let top = a.iter().chain(&b).map(|p| p.1).fold(0.0, f64::max) * 1.05;
        let argmax = |v: &[(f64, f64)]| {
            v.iter()
                .cloned()
                .fold((0.0, f64::MIN), |m, p| if p.1 > m.1 { p } else { m })
                .0
        };
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("Table 2, row {}", row.row), ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(40)
            .build_cartesian_2d(0f64..std::f64::consts::FRAC_PI_2, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("theta (upper boundary)")
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(a.clone(), GREEN.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("true")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], GREEN));
        chart
            .draw_series(LineSeries::new(b.clone(), BLUE.stroke_width(1)))
            .map_err(|e| e.to_string())?
            .label("elicited")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLUE));
        for (x, color) in [(argmax(&a), RED), (argmax(&b), BLACK)] {
            chart
                .draw_series(LineSeries::new(vec![(x, 0.0), (x, top)], color))
                .map_err(|e| e.to_string())?;
        }
        legend(&mut chart)?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Thm. 2: worst error against ε_Ω (paper strategy, every adversary) and
/// the smallest bound, one curve per ε.
pub(crate) fn thm2_figure(section: &Section, path: &Path) -> Result<(), String> {
    let root = canvas(path, (900, 560))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "003 Thm. 2: worst ||m* - m^||inf vs eps_Omega > 0 (paper search)",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d((5e-5f64..2e-2).log_scale(), (1e-3f64..1.0).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("eps_Omega (log scale; the exact oracle, eps_Omega = 0, is in the legend)")
        .y_desc("error")
        .draw()
        .map_err(|e| e.to_string())?;
    let colors = [RED, BLUE, GREEN];
    for (i, eps) in ["eps=0.05", "eps=0.02", "eps=0.005"].iter().enumerate() {
        let mut worst: std::collections::BTreeMap<i64, (f64, f64, Option<f64>)> =
            Default::default();
        let mut exact = 0f64;
        for r in section
            .rows
            .iter()
            .filter(|r| r.search == "paper" && r.row.starts_with(&format!("{eps},")))
        {
            let eo: f64 = r
                .row
                .split("eps_omega=")
                .nth(1)
                .and_then(|s| s.split(',').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
            if eo == 0.0 {
                exact = exact.max(r.worst_error.unwrap_or(0.0));
                continue;
            }
            let x = eo;
            let e = worst
                .entry((x.log10() * 100.0) as i64)
                .or_insert((x, 0.0, None));
            e.1 = e.1.max(r.worst_error.unwrap_or(0.0));
            e.2 = match (e.2, r.bound) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let color = colors[i];
        let errors: Vec<(f64, f64)> = worst.values().map(|v| (v.0, v.1.max(1e-3))).collect();
        let bounds: Vec<(f64, f64)> = worst
            .values()
            .filter_map(|v| v.2.map(|b| (v.0, b)))
            .collect();
        chart
            .draw_series(LineSeries::new(errors.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(format!(
                "{eps}: worst error over trials (eps_Omega = 0: {exact:.4})"
            ))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(errors.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(DashedLineSeries::new(bounds, 6, 4, color.into()))
            .map_err(|e| e.to_string())?
            .label(format!(
                "{eps}: smallest per-trial bound, dashed (each trial is checked against its own)"
            ))
            .legend(move |p| dashed_swatch(p, color));
    }
    legend(&mut chart)?;
    root.present().map_err(|e| e.to_string())
}

/// Lemma 2: max queries per strategy against log2(L/ε).
pub(crate) fn queries_figure(section: &Section, path: &Path) -> Result<(), String> {
    let root = canvas(path, (900, 560))?;
    let top = section.rows.iter().map(|r| r.queries).max().unwrap_or(1) as f64 * 1.1;
    let right = section
        .rows
        .iter()
        .filter_map(|r| r.bound)
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "003: queries per search vs the lower bound log2(L/eps)",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..right, 0f64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("log2((pi/2)/eps)")
        .y_desc("queries (max over trials)")
        .draw()
        .map_err(|e| e.to_string())?;
    for (name, color) in [("paper", RED), ("adaptive", BLUE), ("golden", GREEN)] {
        let pts: Vec<(f64, f64)> = section
            .rows
            .iter()
            .filter(|r| r.search == name)
            .filter_map(|r| r.bound.map(|b| (b, r.queries as f64)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .draw_series(LineSeries::new(vec![(0.0, 0.0), (right, right)], BLACK))
        .map_err(|e| e.to_string())?
        .label("lower bound")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
    legend(&mut chart)?;
    root.present().map_err(|e| e.to_string())
}

/// 002 Thms. 1–2: the observed constant (error over the theorem's rate) per
/// k and strategy; flat lines mean the bound's form holds with a k-free
/// constant.
pub(crate) fn constants_figure(section: &Section, path: &Path) -> Result<(), String> {
    let root = canvas(path, (900, 560))?;
    let top = section
        .rows
        .iter()
        .filter_map(|r| r.worst_ratio)
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{}: observed constant (worst error / theorem rate)",
                section.id
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(1.5f64..5.5, 0f64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("classes k")
        .x_labels(integer_labels(1.5, 5.5))
        .x_label_formatter(&whole)
        .y_desc("constant")
        .draw()
        .map_err(|e| e.to_string())?;
    // 002 Thm. 1 rows are "family, k=K, ..." with one series per family
    // (worst over strategies); the other theorems' rows are "k=K ..." with
    // one series per strategy.
    let k_of = |row: &str| -> f64 {
        row.split("k=")
            .nth(1)
            .and_then(|s| s.get(0..1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0)
    };
    type Pick = fn(&Row) -> Option<f64>;
    let series: Vec<(String, RGBColor, Pick)> = if section.id == "002-thm1" {
        vec![
            ("pair-blocks".into(), RED, |r| r.worst_ratio),
            ("pair-blocks-relative".into(), BLUE, |r| r.worst_ratio),
            ("pair-blocks-relative / kappa".into(), MAGENTA, |r| {
                r.conditioned_ratio
            }),
            ("softmax".into(), GREEN, |r| r.worst_ratio),
        ]
    } else {
        vec![
            ("paper".into(), RED, |r| r.worst_ratio),
            ("adaptive".into(), BLUE, |r| r.worst_ratio),
            ("golden".into(), GREEN, |r| r.worst_ratio),
        ]
    };
    for (name, color, pick) in series {
        let family = name.split(" / ").next().unwrap_or("").to_string();
        let mut by_k = std::collections::BTreeMap::new();
        for r in section.rows.iter().filter(|r| {
            if section.id == "002-thm1" {
                r.row.split(", ").next() == Some(family.as_str())
            } else {
                r.search == name
            }
        }) {
            let k = k_of(&r.row);
            let v = by_k.entry((k * 10.0) as i64).or_insert((k, 0f64));
            v.1 = v.1.max(pick(r).unwrap_or(0.0));
        }
        let pts: Vec<(f64, f64)> = by_k.values().cloned().collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    legend(&mut chart)?;
    root.present().map_err(|e| e.to_string())
}

/// 002: queries of each configuration against its lower bound.
pub(crate) fn queries_002_figure(section: &Section, path: &Path) -> Result<(), String> {
    let rows = &section.rows;
    let n = rows.len();
    let root = canvas(path, (1000, 120 + 26 * n as u32))?;
    let top = rows.iter().map(|r| r.queries).max().unwrap_or(1) as f64 * 40.0;
    let names: Vec<String> = rows
        .iter()
        .map(|r| format!("{}, {}", r.row, r.search))
        .collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "002: queries per configuration against the lower bound",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(40)
        .build_cartesian_2d((1f64..top).log_scale(), 0f64..n as f64)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("queries (log scale)")
        .y_desc("configuration (labelled at each bar: setting, search (queries))")
        .y_labels(0)
        .disable_y_mesh()
        .draw()
        .map_err(|e| e.to_string())?;
    let color = |search: &str| match search {
        "paper" => RED,
        "adaptive" => BLUE,
        _ => GREEN,
    };
    for (i, r) in rows.iter().enumerate() {
        let y = (n - i - 1) as f64;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(1.0, y + 0.15), (r.queries as f64, y + 0.85)],
                color(&r.search).mix(0.6).filled(),
            )))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{} ({})", names[i], r.queries),
                (r.queries as f64 * 1.15, y + 0.75),
                ("sans-serif", 13).into_font(),
            )))
            .map_err(|e| e.to_string())?;
        if let Some(b) = r.bound {
            chart
                .draw_series(LineSeries::new(
                    vec![(b, y + 0.05), (b, y + 0.95)],
                    BLACK.stroke_width(3),
                ))
                .map_err(|e| e.to_string())?;
        }
    }
    // Legend entries (drawn off-range, so only the legend shows them).
    for (name, c) in [
        ("paper (ShrinkInterval)", RED),
        ("adaptive", BLUE),
        ("golden", GREEN),
    ] {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.5, -1.0), (0.5, -1.0)],
                c.mix(0.6).filled(),
            )))
            .map_err(|e| e.to_string())?
            .label(name)
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 16, y + 5)], c.mix(0.6).filled())
            });
    }
    chart
        .draw_series(LineSeries::new(Vec::<(f64, f64)>::new(), BLACK))
        .map_err(|e| e.to_string())?
        .label("lower bound (black bar)")
        .legend(|(x, y)| {
            PathElement::new(vec![(x + 8, y - 6), (x + 8, y + 6)], BLACK.stroke_width(3))
        });
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// A white SVG canvas of `size` pixels at `path`.
///
/// # Errors
/// The backend's message when the file cannot be drawn.
pub fn canvas(
    path: &Path,
    size: (u32, u32),
) -> Result<DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, String> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    Ok(root)
}

/// How many labels to ask of an axis of whole numbers (classes, groups,
/// iterations) over `lo..hi`: one more than the integers inside, so the
/// labels fall on whole numbers (a half-step would need twice as many);
/// print them with [`whole`].
pub fn integer_labels(lo: f64, hi: f64) -> usize {
    let inside = (hi.floor() - lo.ceil()).max(0.0) as usize + 1;
    inside + 1
}

/// An axis label of a whole number, without decimals.
pub fn whole(v: &f64) -> String {
    format!("{v:.0}")
}

/// A legend swatch for a dashed series: dashed, like the series.
pub fn dashed_swatch(
    (x, y): (i32, i32),
    color: RGBColor,
) -> DashedPathElement<std::vec::IntoIter<(i32, i32)>, i32> {
    DashedPathElement::new(vec![(x, y), (x + 16, y)], 4, 3, color)
}

/// The series legend, boxed, in the chart's default corner.
///
/// # Errors
/// The backend's message.
pub fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

/// 002 Fig. 3 on real data: success proportion against ω, one panel per
/// dataset, one curve per share of rows (label-based confusions, reference
/// class 1); expected confusions dashed.
pub(crate) fn real_fig3_figure(section: &Section, path: &Path) -> Result<(), String> {
    let root = canvas(path, (1200, 520))?;
    let omegas = omegas();
    let panels = [
        ("Vehicle", "Vehicle (k = 4)"),
        ("wine", "wine quality, k = 3 (SensIT substitute)"),
    ];
    for (area, (prefix, caption)) in root.split_evenly((1, 2)).iter().zip(panels) {
        let mut chart = ChartBuilder::on(area)
            .caption(format!("002 Fig. 3: {caption}"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.035f64..0.145, 0f64..1.02)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("omega")
            .y_desc("proportion with ||a* - a^||inf <= omega")
            .draw()
            .map_err(|e| e.to_string())?;
        for (share, color) in [("50%", RED), ("75%", BLUE), ("100%", GREEN)] {
            for (reading, dashed) in [
                ("[labelled, reference class 1]", false),
                ("[expected, reference class 1]", true),
            ] {
                let Some(row) = section.rows.iter().find(|r| {
                    r.row.starts_with(prefix) && r.row.contains(share) && r.row.ends_with(reading)
                }) else {
                    continue;
                };
                let pts: Vec<(f64, f64)> = omegas
                    .iter()
                    .copied()
                    .zip(row.elicited.iter().copied())
                    .collect();
                if dashed {
                    chart
                        .draw_series(DashedLineSeries::new(pts, 5, 4, color.into()))
                        .map_err(|e| e.to_string())?;
                } else {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                        .map_err(|e| e.to_string())?
                        .label(format!("{share} of rows"))
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
                    chart
                        .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        readings_legend(&mut chart, "labelled confusions", "expected confusions")?;
        legend(&mut chart)?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Two legend entries in black for a chart whose colours are series and
/// whose line style is a reading: "solid: …" and "dashed: …" (drawn with
/// no points, so only the legend shows them).
///
/// # Errors
/// The backend's message.
pub fn readings_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    solid: &str,
    dashed: &str,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
    CT::From: Clone + 'static,
{
    chart
        .draw_series(std::iter::empty::<PathElement<CT::From>>())
        .map_err(|e| e.to_string())?
        .label(format!("solid: {solid}"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
    chart
        .draw_series(std::iter::empty::<PathElement<CT::From>>())
        .map_err(|e| e.to_string())?
        .label(format!("dashed: {dashed}"))
        .legend(|p| dashed_swatch(p, BLACK));
    Ok(())
}

/// The ω grid of 002 Fig. 3: 0.04, 0.05, …, 0.14.
pub fn omegas() -> Vec<f64> {
    (4..=14).map(|i| f64::from(i) / 100.0).collect()
}

/// Issue #28's noise figure: against the person's flip rate p (ε = 0.05),
/// the median questions with the information bound in black (left) and
/// the fraction of elicitations within ε (right), one colour per engine,
/// one line style per family (solid for the first, dashed for the others).
pub(crate) fn noise_figure(section: &Section, path: &Path) -> Result<(), String> {
    let rows: Vec<&Row> = section
        .rows
        .iter()
        .filter(|r| {
            r.noise
                .as_ref()
                .is_some_and(|s| s.eps == 0.05 && s.tau.is_none())
        })
        .collect();
    let mut cases: Vec<&str> = Vec::new();
    for r in &rows {
        let case = r.row.split(", ").next().unwrap_or("");
        if !cases.contains(&case) {
            cases.push(case);
        }
    }
    let top = rows
        .iter()
        .filter_map(|r| Some(r.noise.as_ref()?.median_questions.max(r.bound?)))
        .fold(1.0, f64::max)
        * 1.1;
    let root = canvas(path, (1200, 520))?;
    // Row labels start with these (the search's names its paper).
    let engines = [
        ("bayes (model known)", BLUE),
        ("bayes (flips, p unknown)", GREEN),
        ("bayes (person model)", MAGENTA),
        ("search", RED),
    ];
    type Reading = fn(&Row) -> Option<f64>;
    let panels: [(&str, f64, Reading); 2] = [
        ("median questions", top, |r| {
            Some(r.noise.as_ref()?.median_questions)
        }),
        ("fraction within eps", 1.02, |r| {
            Some(r.noise.as_ref()?.within)
        }),
    ];
    for (area, (y_desc, top, reading)) in root.split_evenly((1, 2)).iter().zip(panels) {
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{y_desc} (eps = 0.05)"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(-0.01f64..0.21, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("person's mistake rate p")
            .y_desc(y_desc)
            .draw()
            .map_err(|e| e.to_string())?;
        for (c, case) in cases.iter().enumerate() {
            for (engine, color) in engines {
                let pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.row.starts_with(case) && r.search.starts_with(engine))
                    .filter_map(|r| Some((r.noise.as_ref()?.p, reading(r)?)))
                    .collect();
                if pts.is_empty() {
                    // An elicitation `--engines` left out.
                    continue;
                }
                if c == 0 {
                    chart
                        .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                        .map_err(|e| e.to_string())?
                        .label(engine)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
                } else {
                    chart
                        .draw_series(DashedLineSeries::new(pts.clone(), 5, 4, color.into()))
                        .map_err(|e| e.to_string())?;
                }
                chart
                    .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(|e| e.to_string())?;
            }
        }
        if y_desc == "median questions" {
            // The bound of each family (the same for every engine).
            for (c, case) in cases.iter().enumerate() {
                // One point per setting (every engine's row has the bound).
                let mut pts: Vec<(f64, f64)> = Vec::new();
                for r in rows.iter().filter(|r| r.row.starts_with(case)) {
                    if let (Some(st), Some(b)) = (r.noise.as_ref(), r.bound) {
                        if !pts.iter().any(|&(p, _)| p == st.p) {
                            pts.push((st.p, b));
                        }
                    }
                }
                let series = chart
                    .draw_series(LineSeries::new(pts, BLACK.stroke_width(1)))
                    .map_err(|e| e.to_string())?;
                if c == 0 {
                    series
                        .label("information bound")
                        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
                }
            }
        }
        if cases.len() > 1 {
            readings_legend(&mut chart, cases[0], &cases[1..].join(", "))?;
        }
        // Where the lines are not: questions grow with p (upper left is
        // free), the fractions sit near 1 (lower left is).
        chart
            .configure_series_labels()
            .position(if y_desc == "median questions" {
                SeriesLabelPosition::UpperLeft
            } else {
                SeriesLabelPosition::LowerLeft
            })
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}
