//! Link options of the `riverse` binary.

fn main() {
    // Relative relocations packed (DT_RELR: GNU ld 2.38 or lld, glibc
    // 2.36): the loader no longer reads a megabyte of them at every start,
    // which was that much of the host's resident memory (docs/performance.md).
    // An older linker warns that it ignores the option, and links as before.
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.ends_with("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
