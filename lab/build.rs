//! Hashes the sources that compute the reproduction's rows (the library's,
//! the lab's, the test kit's `.rs` files, every file the lab compiles in
//! with `include_bytes!`/`include_str!` — the real-data sets in `lab/data`
//! and the report's prose in `lab/text` — and `Cargo.lock`) into
//! `LAB_SOURCES_HASH`, so that `elicit merge` can refuse shards written by
//! other code or computed from other data.

use std::path::{Path, PathBuf};

/// Collects the files below `dir`: only `.rs` files when `rust_only`, else
/// every file.
fn files(dir: &Path, rust_only: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, rust_only, out);
        } else if !rust_only || path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let lab = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let root = lab.join("..");
    let dirs = [
        (root.join("src"), true),
        (lab.join("src"), true),
        (root.join("testkit/src"), true),
        // Compiled into the lab: a change here changes the rows too.
        (lab.join("data"), false),
        (lab.join("text"), false),
    ];
    let mut all = Vec::new();
    for (dir, rust_only) in &dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        files(dir, *rust_only, &mut all);
    }
    let lock = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    all.push(lock);
    all.sort();
    // FNV-1a over each file's path below the root and its bytes.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in &all {
        let name = path.strip_prefix(&root).unwrap_or(path);
        eat(name.to_string_lossy().as_bytes());
        eat(&std::fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=LAB_SOURCES_HASH={hash:016x}");
}
