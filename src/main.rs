//! The `taskassign` binary: see `taskassign --help`.

fn main() {
    std::process::exit(taskassign::run_command_line(std::env::args_os()));
}
