//! The `taskassign` binary: see `taskassign --help`.

/// The stack of the thread the command runs on: the main thread's usual 8 MB, with room.
const STACK: usize = 64 << 20;

fn main() {
    // The command runs on a worker of a rayon pool (every core, or `RAYON_NUM_THREADS`):
    // the exact chains' data-parallel kernels (`num::levels`) then fork from a worker, and
    // each kernel costs a join rather than a hand-off to the pool and back (measured at
    // JSQ N = 5, d = 2, λ = 0.9 on 2 cores: 4.1 s against 5.4 s from the main thread).
    // Without a pool the command runs here, as before.
    let code = match rayon::ThreadPoolBuilder::new().stack_size(STACK).build() {
        Ok(pool) => pool.install(|| taskassign::run_command_line(std::env::args_os())),
        Err(_) => taskassign::run_command_line(std::env::args_os()),
    };
    std::process::exit(code);
}
