//! Build script: link the `kpty` binary with packed relative relocations (DT_RELR) where the
//! C library understands them (glibc 2.36 and later, native builds only). kpty is a large
//! position-independent program with ~22 000 relative relocations; packed, their table
//! shrinks from ~530 KB to ~7 KB, which is that much less memory in every kpty process — most
//! of all in the long-lived session holders (about 0.7 MB of their ~7 MB resident set).
//! Elsewhere (other C libraries, cross builds, older glibc) nothing changes. It also lays the
//! CLI's start-up code out together ([`startup_order`]).

use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    // The check below reads the build machine's glibc: only meaningful for native builds.
    if target != host || !target.ends_with("-linux-gnu") {
        return;
    }
    if glibc_version().is_some_and(|v| v >= (2, 36)) {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    startup_order(&target);
}

/// Lay out the functions a CLI call runs (`bench/startup_order.txt`, made by
/// `bench/startup_order.sh`) together at the start of the code: a `kpty talk` then pages in
/// a few runs of neighbouring code instead of pieces scattered over ~10 MB, which costs a
/// short-lived process dozens of page faults. Only with the linker that reads such a list
/// (rust-lld, the default for x86_64-unknown-linux-gnu); names the list has that the build
/// does not (code changed since it was made) are skipped.
fn startup_order(target: &str) {
    let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/startup_order.txt");
    println!("cargo::rerun-if-changed={}", list.display());
    if target != "x86_64-unknown-linux-gnu" || !list.is_file() {
        return;
    }
    println!(
        "cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// The build machine's glibc version, from `getconf GNU_LIBC_VERSION` ("glibc 2.36").
fn glibc_version() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()?
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    Some((major, minor))
}
