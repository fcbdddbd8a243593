//! `elicit reproduce --shard I/N` and `elicit merge`: the merged results
//! are the single run's, byte for byte, and parts that do not belong
//! together are refused, naming what differs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn elicit(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elicit"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("elicit runs")
}

fn ok(args: &[&str], dir: &Path) {
    let out = elicit(args, dir);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("elicit-shards-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

/// report.md without the per-section wall times (which differ between any
/// two runs).
fn untimed(report: &str) -> String {
    report
        .lines()
        .map(|l| match (l.starts_with("**Verdict:**"), l.rfind(" (")) {
            (true, Some(at)) if l.ends_with(" s)") => &l[..at],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One whole table (003-table1), a sweep with one call (003-thm2), a sweep
/// with three calls and a lazily computed bound (002-thm1), a sweep whose
/// settings share precomputed instances (001-queries) and one whose
/// trials split into blocks (000-thm1: 72 cells of 3 one-trial blocks).
const JOBS: [&str; 5] = [
    "003-table1",
    "003-thm2",
    "002-thm1",
    "001-queries",
    "000-thm1",
];

#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn merged_shards_are_the_single_run_byte_for_byte() {
    let dir = folder("identical");
    let mut base = vec!["reproduce", "--trials", "3", "--only"];
    base.extend(JOBS);
    let mut single = base.clone();
    single.extend(["--out", "single"]);
    ok(&single, &dir);
    let results = std::fs::read(dir.join("single/results.json")).expect("results.json");
    let report = std::fs::read_to_string(dir.join("single/report.md")).expect("report.md");
    let figures: Vec<PathBuf> = std::fs::read_dir(dir.join("single"))
        .expect("folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .collect();
    assert!(!figures.is_empty());
    for n in [1, 2, 3, 7] {
        let parts = format!("parts{n}");
        for i in 1..=n {
            let shard = format!("{i}/{n}");
            let mut args = base.clone();
            args.extend(["--shard", &shard, "--out", &parts]);
            ok(&args, &dir);
        }
        let merged = format!("merged{n}");
        ok(&["merge", &parts, "--out", &merged], &dir);
        let got = std::fs::read(dir.join(&merged).join("results.json")).expect("merged");
        assert!(got == results, "N = {n}: results.json differs");
        let got = std::fs::read_to_string(dir.join(&merged).join("report.md")).expect("report");
        assert_eq!(untimed(&got), untimed(&report), "N = {n}: report.md");
        for f in &figures {
            let name = f.file_name().expect("name");
            let got = std::fs::read(dir.join(&merged).join(name)).expect("figure");
            assert!(
                got == std::fs::read(f).expect("figure"),
                "N = {n}: {name:?} differs"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn parts_of_different_runs_are_refused_naming_what_differs() {
    let dir = folder("refused");
    let run = |shard: &str, trials: &str, out: &str| {
        ok(
            &[
                "reproduce",
                "--only",
                "003-thm2",
                "003-table1",
                "--trials",
                trials,
                "--shard",
                shard,
                "--out",
                out,
            ],
            &dir,
        )
    };
    run("1/2", "2", "a");
    run("2/2", "2", "a");
    run("2/2", "3", "b");
    run("1/3", "2", "c");
    // A missing shard.
    let out = elicit(&["merge", "a/shard-1-of-2.cbor", "--out", "m"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("shard 2/2 is missing"),
        "{}",
        stderr(&out)
    );
    // The same shard twice.
    let out = elicit(
        &[
            "merge",
            "a/shard-1-of-2.cbor",
            "a/shard-1-of-2.cbor",
            "--out",
            "m",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("given twice"), "{}", stderr(&out));
    // Another run's options.
    let out = elicit(&["merge", "a/shard-1-of-2.cbor", "b", "--out", "m"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--trials: 3 against 2"),
        "{}",
        stderr(&out)
    );
    // Another engine's particles (the noise jobs'; checked for every run).
    ok(
        &[
            "reproduce",
            "--only",
            "003-thm2",
            "003-table1",
            "--trials",
            "2",
            "--particles",
            "128",
            "--shard",
            "2/2",
            "--out",
            "d",
        ],
        &dir,
    );
    let out = elicit(&["merge", "a/shard-1-of-2.cbor", "d", "--out", "m"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--particles: 128 against the default"),
        "{}",
        stderr(&out)
    );
    let out = elicit(
        &["reproduce", "--only", "noise-binary", "--particles", "10"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--particles"), "{}", stderr(&out));
    // Another number of shards.
    let out = elicit(&["merge", "a", "c", "--out", "m"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the number of shards"),
        "{}",
        stderr(&out)
    );
    // Another build: the part's build field rewritten (same length).
    let path = dir.join("a/shard-2-of-2.cbor");
    let mut bytes = std::fs::read(&path).expect("part");
    let at = bytes
        .windows(8)
        .position(|w| w == b"sources ")
        .expect("build id")
        + 8;
    bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
    std::fs::write(dir.join("other.cbor"), &bytes).expect("write");
    let out = elicit(
        &["merge", "a/shard-1-of-2.cbor", "other.cbor", "--out", "m"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("differ in build"), "{}", stderr(&out));
    // Not a part at all, and a folder without parts.
    std::fs::write(dir.join("junk.cbor"), b"not cbor").expect("write");
    let out = elicit(&["merge", "junk.cbor", "--out", "m"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("junk.cbor"), "{}", stderr(&out));
    std::fs::create_dir_all(dir.join("empty")).expect("folder");
    let out = elicit(&["merge", "empty", "--out", "m"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no shard-*.cbor"), "{}", stderr(&out));
    // Nothing was merged.
    assert!(!dir.join("m/results.json").exists());
    // Bad --shard values.
    for bad in ["0/2", "3/2", "x", "1/0"] {
        let out = elicit(&["reproduce", "--only", "003-table1", "--shard", bad], &dir);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("--shard"), "{bad}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's recipes: GNU parallel running the shards as separate
/// processes, and the Slurm array script run as Slurm would run its tasks
/// (each with its SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT); both
/// merged give the single run's results.json. GNU parallel comes from
/// Debian (CI installs it); without it, outside CI, that half is skipped
/// with a line saying so.
#[test]
fn gnu_parallel_and_the_slurm_array_script_give_the_single_run() {
    let dir = folder("recipes");
    let only = "003-thm2 002-thm2-lpme";
    let mut single = vec!["reproduce", "--trials", "2", "--out", "single", "--only"];
    single.extend(only.split(' '));
    ok(&single, &dir);
    let results = std::fs::read(dir.join("single/results.json")).expect("results.json");
    let elicit = env!("CARGO_BIN_EXE_elicit");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cluster/reproduce-slurm.sh");
    for task in 1..=3 {
        let out = Command::new("bash")
            .arg(&script)
            .current_dir(&dir)
            .env("ELICIT", elicit)
            .env("ELICIT_ARGS", format!("--trials 2 --only {only}"))
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("PARTS", "slurm")
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{}", stderr(&out));
    }
    ok(&["merge", "slurm", "--out", "merged-slurm"], &dir);
    assert!(std::fs::read(dir.join("merged-slurm/results.json")).expect("merged") == results);
    let have_parallel = Command::new("parallel").arg("--version").output().is_ok();
    if !have_parallel {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs GNU parallel (Debian's `parallel`)"
        );
        eprintln!("GNU parallel is not installed: its recipe is not run here");
        return;
    }
    // The README's line, with this build's binary.
    let line = format!(
        "parallel -j 2 {elicit} reproduce --trials 2 --only {only} --shard {{}}/4 --out gnu ::: 1 2 3 4"
    );
    let out = Command::new("bash")
        .args(["-c", &line])
        .current_dir(&dir)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{line}: {}", stderr(&out));
    ok(&["merge", "gnu", "--out", "merged-gnu"], &dir);
    assert!(std::fs::read(dir.join("merged-gnu/results.json")).expect("merged") == results);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--engines` selects a noise job's elicitations: the rows kept, the
/// command line naming the selection, shards of it merging into the single
/// run, parts of another selection refused, a bad list refused naming the
/// option.
#[test]
#[cfg_attr(feature = "mpfr", ignore = "f64 only: run by the default step")]
fn a_noise_job_runs_the_engines_named_and_its_shards_merge() {
    let dir = folder("engines");
    let base = [
        "reproduce",
        "--only",
        "noise-binary",
        "--trials",
        "2",
        "--jobs",
        "1",
    ];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        base.iter().chain(extra).copied().collect()
    }
    ok(
        &with(&base, &["--engines", "search,known", "--out", "single"]),
        &dir,
    );
    let report = std::fs::read_to_string(dir.join("single/report.md")).expect("report");
    assert!(
        report.contains("--engines known,search"),
        "the command line names the selection"
    );
    assert!(report.contains("bayes (model known)"));
    assert!(report.contains("search (003 Alg. 1, golden)"));
    // No row of the elicitations left out (the section's text names them).
    assert!(!report
        .lines()
        .any(|l| l.starts_with('|') && (l.contains("person model") || l.contains("flips, p"))));
    for part in ["1/2", "2/2"] {
        ok(
            &with(
                &base,
                &[
                    "--engines",
                    "known,search",
                    "--shard",
                    part,
                    "--out",
                    "parts",
                ],
            ),
            &dir,
        );
    }
    ok(&["merge", "parts", "--out", "merged"], &dir);
    let merged = std::fs::read_to_string(dir.join("merged/report.md")).expect("merged report");
    // Every number but the time per question (the table's last column).
    let numbers = |r: &str| {
        untimed(r)
            .lines()
            .map(
                |l| match (l.starts_with("| "), l.trim_end_matches(" |").rfind(" | ")) {
                    (true, Some(at)) => l[..at].to_string(),
                    _ => l.to_string(),
                },
            )
            .collect::<Vec<_>>()
    };
    assert_eq!(numbers(&merged), numbers(&report));
    ok(
        &with(
            &base,
            &["--engines", "known", "--shard", "2/2", "--out", "other"],
        ),
        &dir,
    );
    let out = elicit(
        &["merge", "parts/shard-1-of-2.cbor", "other", "--out", "m"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--engines: known against known,search"),
        "{}",
        stderr(&out)
    );
    let out = elicit(&with(&base, &["--engines", "known,bayes"]), &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--engines"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
