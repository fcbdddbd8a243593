//! The `elicit` command-line tool.
//!
//! Its subcommands (`reproduce`, `run`, `ask`, `replay`) are being built on
//! the library; until they land this binary only says so and exits with
//! status 2. The library's runnable example is
//! `cargo run --release --example search`.

fn main() {
    eprintln!(
        "elicit {}: no subcommands yet; try `cargo run --release --example search`",
        env!("CARGO_PKG_VERSION")
    );
    std::process::exit(2);
}
