//! The `taskassign` binary: see `taskassign --help`.

fn main() {
    std::process::exit(taskassign::cli::run(std::env::args_os()));
}
