//! Hashes the sources that compute the reproduction's rows (the library's,
//! the lab's, the test kit's, and `Cargo.lock`) into `LAB_SOURCES_HASH`,
//! so that `elicit merge` can refuse shards written by other code.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let lab = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let root = lab.join("..");
    let dirs = [root.join("src"), lab.join("src"), root.join("testkit/src")];
    let mut all = Vec::new();
    for dir in &dirs {
        println!("cargo:rerun-if-changed={}", dir.display());
        files(dir, &mut all);
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
