//! The kpty binary: everything lives in the library.

fn main() {
    std::process::exit(kpty::run());
}
