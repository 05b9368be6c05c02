//! Link options of the `riverse` binary.

use std::path::Path;
use std::process::Command;

/// The functions `riverse mcp` runs, in the order it first runs them
/// (`crates/bench/hot-text`, which also remakes it).
const HOT_TEXT: &str = "hot-text.order";

fn main() {
    // Relative relocations packed (DT_RELR: GNU ld 2.38 or lld, glibc
    // 2.36): the loader no longer reads a megabyte of them at every start,
    // which was that much of the host's resident memory (docs/performance.md).
    // An older linker warns that it ignores the option, and links as before.
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.ends_with("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    hot_text_first(&target);
}

/// Lays the code a command runs side by side at the start of `.text`. The
/// kernel maps a binary's code 64 KiB around each page first run, so the few
/// megabytes a command runs, scattered over forty, kept about 14 MiB of it
/// resident (docs/performance.md, "What the host holds resident"). Release
/// builds linked by lld only: rustc links with it on this target since 1.90,
/// and GNU ld has no such option. A name the build no longer has is skipped.
fn hot_text_first(target: &str) {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={HOT_TEXT}");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let release = std::env::var("PROFILE").is_ok_and(|profile| profile == "release");
    if target != "x86_64-unknown-linux-gnu" || !release || !links_with_lld() {
        return;
    }
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&dir).join(HOT_TEXT);
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether rustc links with its own lld: 1.90 or later, and no linker or
/// linker flavour chosen in the flags.
fn links_with_lld() -> bool {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if ["linker", "fuse-ld", "link-self-contained"]
        .iter()
        .any(|chosen| flags.contains(chosen))
    {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let Ok(output) = Command::new(rustc).arg("-vV").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&output.stdout);
    let Some(release) = version
        .lines()
        .find_map(|line| line.strip_prefix("release: "))
    else {
        return false;
    };
    let mut parts = release.split(['.', '-']).map(|part| part.parse::<u32>());
    matches!(
        (parts.next(), parts.next()),
        (Some(Ok(major)), Some(Ok(minor))) if (major, minor) >= (1, 90)
    )
}
