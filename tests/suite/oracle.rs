//! The oracle model: noise band, adversaries, counting, budgets,
//! transcripts and replay, and typed errors for bad input.

use metric_elicitation::oracle::{
    Adversary, AlwaysWrong, Counted, Noisy, Oracle, PushAway, Replay, Scripted, SeededRandom,
    Simulated, Transcript,
};
use metric_elicitation::search::{maximize, Strategy};
use metric_elicitation::Error;
use proptest::prelude::*;

fn peak_at(p: f64) -> impl Fn(&f64) -> f64 {
    move |x: &f64| -(x - p).abs()
}

proptest! {
    /// Outside the band |φ(x) − φ(y)| ≥ ε_Ω every adversary answers truly
    /// (003 Def. 7); inside, the band is reported.
    #[test]
    fn answers_outside_the_band_are_truthful(
        x in -1.0..1.0f64, y in -1.0..1.0f64, eo in 0.0..0.5f64, kind in 0u8..4, seed in any::<u64>()
    ) {
        let adv: Box<dyn Adversary<f64>> = match kind {
            0 => Box::new(AlwaysWrong),
            1 => Box::new(SeededRandom::new(seed)),
            2 => Box::new(PushAway::new(|q: &f64| q.abs())),
            _ => Box::new(Scripted::new(seed.to_le_bytes().to_vec())),
        };
        let metric = |q: &f64| *q;
        let mut oracle = Noisy::new(metric, eo, adv).unwrap();
        let answer = oracle.compare(&x, &y).unwrap();
        let in_band = (x - y).abs() < eo;
        prop_assert_eq!(answer.in_noise_band, Some(in_band));
        if !in_band {
            prop_assert_eq!(answer.prefers_first(), x > y);
        }
    }
}

#[test]
fn always_wrong_inverts_inside_the_band_only() {
    let mut oracle = Noisy::new(|q: &f64| *q, 0.1, AlwaysWrong).unwrap();
    assert!(!oracle.compare(&0.55, &0.5).unwrap().prefers_first());
    assert!(oracle.compare(&0.5, &0.55).unwrap().prefers_first());
    assert!(oracle.compare(&0.7, &0.5).unwrap().prefers_first());
}

#[test]
fn counted_counts_and_tallies_the_band() {
    let noisy = Noisy::new(|q: &f64| *q, 0.1, AlwaysWrong).unwrap();
    let mut oracle = Counted::new(noisy);
    oracle.compare(&0.55, &0.5).unwrap();
    oracle.compare(&0.9, &0.5).unwrap();
    assert_eq!(oracle.queries(), 2);
    assert_eq!(oracle.in_band_queries(), 1);
}

fn noisy_search_with_transcript(seed: u64) -> (f64, usize, String) {
    let noisy = Noisy::new(peak_at(0.3), 0.05, SeededRandom::new(seed)).unwrap();
    let mut oracle = Counted::new(noisy).with_transcript(Transcript::new());
    let out = maximize(0.0, 1.0, 1e-3, Strategy::Adaptive, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })
    .unwrap();
    let jsonl = oracle.take_transcript().unwrap().to_jsonl();
    (out.estimate, oracle.queries(), jsonl)
}

#[test]
fn transcript_replays_bit_for_bit() {
    let (estimate, queries, jsonl) = noisy_search_with_transcript(11);
    assert!(
        jsonl.contains("\"in_noise_band\":true"),
        "the run should meet the band"
    );
    let records = Transcript::from_jsonl(&jsonl).unwrap();
    assert_eq!(records.len(), queries);
    let mut replay = Counted::new(Replay::new(records));
    let out = maximize(0.0, 1.0, 1e-3, Strategy::Adaptive, |x, y| {
        Ok(replay.compare(x, y)?.preference)
    })
    .unwrap();
    assert_eq!(out.estimate.to_bits(), estimate.to_bits());
    assert_eq!(replay.queries(), queries);
    assert_eq!(replay.inner().remaining(), 0);
}

#[test]
fn replay_refuses_a_different_query_and_names_it() {
    let (_, _, jsonl) = noisy_search_with_transcript(5);
    let records = Transcript::from_jsonl(&jsonl).unwrap();
    let mut replay = Replay::new(records);
    // Same procedure on a different interval: the very first query differs.
    let err = maximize(0.0, 2.0, 1e-3, Strategy::Adaptive, |x, y| {
        Ok(replay.compare(x, y)?.preference)
    })
    .unwrap_err();
    match err.root_cause() {
        Error::TranscriptMismatch { index, .. } => assert_eq!(*index, 0),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn truncated_transcript_is_reported_not_lost() {
    let (_, queries, jsonl) = noisy_search_with_transcript(3);
    let keep: String = jsonl
        .lines()
        .take(queries / 2)
        .map(|l| format!("{l}\n"))
        .collect();
    let records = Transcript::from_jsonl(&keep).unwrap();
    let mut replay = Replay::new(records);
    let err = maximize(0.0, 1.0, 1e-3, Strategy::Adaptive, |x, y| {
        Ok(replay.compare(x, y)?.preference)
    })
    .unwrap_err();
    match &err {
        Error::Interrupted {
            queries: q, source, ..
        } => {
            assert_eq!(*q, queries / 2);
            assert_eq!(
                **source,
                Error::TranscriptExhausted {
                    answered: queries / 2
                }
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn malformed_transcript_names_the_line() {
    let (_, _, jsonl) = noisy_search_with_transcript(3);
    let mut lines: Vec<&str> = jsonl.lines().take(3).collect();
    lines.push("{\"index\": 3, \"first\": [\"0.1\"]"); // cut mid-record
    let err = Transcript::from_jsonl(&lines.join("\n")).unwrap_err();
    assert!(
        matches!(err, Error::MalformedTranscript { line: 4, .. }),
        "{err}"
    );
    let err =
        Transcript::from_jsonl(&jsonl.lines().skip(1).collect::<Vec<_>>().join("\n")).unwrap_err();
    assert!(
        matches!(err, Error::MalformedTranscript { line: 1, .. }),
        "{err}"
    );
}

#[test]
fn transcript_sink_gets_every_answer_flushed() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Shared(Arc::new(Mutex::new(Vec::new())));
    let mut oracle = Counted::new(Simulated::new(peak_at(0.5)))
        .with_transcript(Transcript::writing_to(Box::new(buffer.clone())));
    oracle.compare(&0.1, &0.2).unwrap();
    assert_eq!(
        String::from_utf8(buffer.0.lock().unwrap().clone())
            .unwrap()
            .lines()
            .count(),
        1
    );
    oracle.compare(&0.4, &0.2).unwrap();
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    assert_eq!(
        Transcript::from_jsonl(&text).unwrap(),
        oracle.transcript().unwrap().records()
    );
}

#[test]
fn budget_stop_says_how_far_it_got() {
    let mut oracle = Counted::new(Simulated::new(peak_at(0.3)))
        .with_budget(10)
        .unwrap();
    let err = maximize(0.0, 1.0, 1e-3, Strategy::Paper, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })
    .unwrap_err();
    match &err {
        Error::Interrupted {
            queries,
            progress,
            source,
            ..
        } => {
            assert_eq!(*queries, 10);
            assert!(progress.contains("after 2 steps"), "{progress}");
            assert_eq!(**source, Error::BudgetExhausted { budget: 10 });
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("stopped after 10 queries"));
}

#[test]
fn bad_input_gets_typed_errors() {
    let ok = |x: &f64, y: &f64| Ok(x > y);
    for eps in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            maximize(0.0, 1.0, eps, Strategy::Paper, ok),
            Err(Error::InvalidEpsilon { .. })
        ));
    }
    for (lo, hi) in [
        (1.0, 1.0),
        (1.0, 0.0),
        (f64::NAN, 1.0),
        (0.0, f64::INFINITY),
    ] {
        assert!(matches!(
            maximize(lo, hi, 0.1, Strategy::Golden, ok),
            Err(Error::InvalidInterval { .. })
        ));
    }
    assert!(matches!(
        Counted::new(()).with_budget(0),
        Err(Error::ZeroBudget)
    ));
    for eo in [-0.1, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Noisy::new(|q: &f64| *q, eo, AlwaysWrong),
            Err(Error::InvalidNoise { .. })
        ));
    }
    // A metric that is NaN somewhere.
    let mut oracle = Simulated::new(|q: &f64| if *q > 0.5 { f64::NAN } else { *q });
    let err = maximize(0.0, 1.0, 0.01, Strategy::Adaptive, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })
    .unwrap_err();
    assert!(
        matches!(err.root_cause(), Error::NonFiniteMetric { .. }),
        "{err}"
    );
    // A script that runs out.
    let mut oracle = Noisy::new(|q: &f64| *q, 10.0, Scripted::new(vec![0xFF])).unwrap();
    let err = maximize(0.0, 1.0, 1e-6, Strategy::Golden, |x, y| {
        Ok(oracle.compare(x, y)?.preference)
    })
    .unwrap_err();
    assert_eq!(*err.root_cause(), Error::ScriptExhausted { used: 8 });
}
