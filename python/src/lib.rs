//! `taskassign._taskassign`: the Rust half of the Python package (issue 23).
//!
//! Each function parses its arguments the way the command line does, calls the library
//! entry point the command's handler calls (`src/cli/`), and returns the command's JSON
//! record as text with the names of its certified-number fields; the pure-Python half
//! (`taskassign/`) turns those into number objects that keep every digit. No mathematics
//! here: the numbers are the command's, digit for digit.
//!
//! Every computation runs with the GIL released (`Python::detach`), so a thread pool in
//! Python runs them in parallel. Failures raise `taskassign.InputError` (the command's exit
//! status 2) or `taskassign.NumericalError` (exit 3) with the command's one-line message.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use taskassign::dist::{DistFactory, DistSpec};
use taskassign::error::{Classify, ErrorKind, EXIT_BAD_INPUT, EXIT_NUMERICAL};
use taskassign::lb::certified_fixed_point as fixed_point_certified;
use taskassign::lb::Limit;
use taskassign::lb::{exact as lb_exact, ExactOptions};
use taskassign::lb::{DSpec, JsqSystem, LbError, Model, ModelKind, Sampling};
use taskassign::num::check_digits;
use taskassign::optimize::optimize_proven_with;
use taskassign::optimize::OptPolicy;
use taskassign::optimize::{
    eval_certified, optimize_certified, threshold_certified, EvalRequest, OptimizeRequest,
};
use taskassign::optimize::{eval_rigorous, threshold_rigorous};
use taskassign::policy::{LoadSpec, Metric, PolicyKind};
use taskassign::redundancy::ClassSystem;
use taskassign::redundancy::Policy as RedPolicy;
use taskassign::redundancy::MAX_SERVERS;
use taskassign::report::Record;
use taskassign::sweep::Outcome;
use taskassign::sweep::QuantityDef;

/// A failure as the command line reports it: its exit status and one-line message.
type Failure = (i32, String);

/// Bad input: exit status 2 (the command line's `bad`).
fn bad<E: std::fmt::Display>(e: E) -> Failure {
    (EXIT_BAD_INPUT, e.to_string())
}

/// A failure with the exit status of its kind (the command line's `fail`): an internal
/// error says that it is a bug.
fn fail<E: Classify + std::fmt::Display>(e: E) -> Failure {
    match e.kind() {
        ErrorKind::Internal => (
            EXIT_NUMERICAL,
            format!("internal error (a bug: please report it): {e}"),
        ),
        k => (k.exit_code(), e.to_string()),
    }
}

/// The Python exception of a failure: `taskassign.InputError` for exit status 2,
/// `taskassign.NumericalError` otherwise (the classes live in `taskassign/_errors.py`, so
/// that they can derive from both `taskassign.Error` and `ValueError`/`ArithmeticError`).
fn raise(py: Python<'_>, (code, msg): Failure) -> PyErr {
    let name = if code == EXIT_BAD_INPUT {
        "InputError"
    } else {
        "NumericalError"
    };
    let msg = msg.replace('\n', " ");
    match py
        .import("taskassign._errors")
        .and_then(|m| m.getattr(name))
        .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from))
    {
        Ok(cls) => PyErr::from_type(cls, msg),
        Err(e) => PyRuntimeError::new_err(format!("{msg} (and taskassign._errors: {e})")),
    }
}

/// A record for Python: its JSON text (the command's `--format json` line) and the names
/// of its fields that are certified numbers (or lists of them).
type Rec = (String, Vec<String>);

fn rec(r: &Record) -> Rec {
    (r.to_json(), r.number_keys().to_vec())
}

/// The panic payload that stops a computation interrupted from Python (Ctrl-C): raised by
/// [`PySink`] at the library's next progress point, caught by [`compute`].
struct Interrupted;

/// One progress report of the library: (task, done, total, note), as
/// `taskassign::progress::report` gives it.
type Update = (String, u64, Option<u64>, String);

/// At most this many reports wait for the calling thread between two polls; beyond it a
/// report replaces the last waiting one of its task (or the last one), so that a quick
/// computation hands every report to Python and a chatty one the latest of each task.
const PENDING_CAP: usize = 256;

/// What a computation shares with the thread that waits for it: the interrupt flag, and
/// (when the Python call asked for progress) the reports not yet handed to Python.
struct Job {
    stop: AtomicBool,
    progress: Option<std::sync::Mutex<Vec<Update>>>,
}

impl Job {
    /// Records a report for the waiting thread (nothing when no progress was asked for).
    fn record(&self, task: &str, done: u64, total: Option<u64>, note: &str) {
        let Some(p) = &self.progress else { return };
        let Ok(mut v) = p.lock() else { return };
        let u = (task.to_string(), done, total, note.to_string());
        if v.len() < PENDING_CAP {
            v.push(u);
        } else if let Some(e) = v.iter_mut().rev().find(|e| e.0 == task) {
            *e = u;
        } else if let Some(e) = v.last_mut() {
            *e = u;
        }
    }

    /// The reports recorded since the last call, oldest first.
    fn take(&self) -> Vec<Update> {
        self.progress
            .as_ref()
            .and_then(|p| p.lock().ok().map(|mut v| std::mem::take(&mut *v)))
            .unwrap_or_default()
    }
}

thread_local! {
    /// The job this thread works for (its runner thread and the workers of its thread
    /// pool); `None` on every other thread.
    static JOB: std::cell::RefCell<Option<Arc<Job>>> = const { std::cell::RefCell::new(None) };
}

/// The progress sink of the Python package: at each of the library's progress points
/// (`taskassign::progress::report`, where the command line draws its bar), a thread
/// working for an interrupted computation unwinds with [`Interrupted`]; otherwise the
/// report is recorded for the thread waiting in [`compute_in`], which hands it to the
/// Python call's progress handler. Nothing is shown from here.
struct PySink;

impl taskassign::progress::Sink for PySink {
    fn report(&self, task: &str, done: u64, total: Option<u64>, note: &str) {
        let stop = JOB.with(|j| match j.borrow().as_ref() {
            Some(job) if job.stop.load(Ordering::Relaxed) => true,
            Some(job) => {
                job.record(task, done, total, note);
                false
            }
            None => false,
        });
        if stop {
            std::panic::panic_any(Interrupted);
        }
    }
}

/// Installs [`PySink`] and a panic hook that keeps [`Interrupted`] unwinds silent (every
/// other panic goes to the previous hook), once per process.
fn install_interrupts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        taskassign::progress::install(Arc::new(PySink));
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Interrupted>() {
                previous(info);
            }
        }));
    });
}

/// The progress handler of the calling thread (`taskassign._progress._active()`: what
/// the Python wrapper set from its `progress=` argument), or `None`.
fn progress_handler(py: Python<'_>) -> Option<Py<PyAny>> {
    let h = py
        .import("taskassign._progress")
        .and_then(|m| m.getattr("_active"))
        .and_then(|f| f.call0())
        .ok()?;
    (!h.is_none()).then(|| h.unbind())
}

/// Hands the recorded reports to the handler, on the calling thread, oldest first.
fn deliver(py: Python<'_>, job: &Job, handler: Option<&Py<PyAny>>) -> PyResult<()> {
    let Some(h) = handler else { return Ok(()) };
    for (task, done, total, note) in job.take() {
        h.call1(py, (task, done, total, note))?;
    }
    Ok(())
}

/// How often the waiting thread checks Python's signals (Ctrl-C) while the work runs.
const POLL: Duration = Duration::from_millis(50);

/// How long an interrupted call waits for its work to stop at a progress point before it
/// raises anyway (the work then stops at its next progress point, its result discarded).
const GRACE: Duration = Duration::from_millis(500);

/// A library panic (a bug) as a failure saying so.
fn panicked(payload: &(dyn std::any::Any + Send)) -> Failure {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    (
        EXIT_NUMERICAL,
        format!("internal error (a bug: please report it): {what}"),
    )
}

/// Runs `f` with the GIL released and turns its failure into the Python exception.
///
/// The work runs on a thread of its own (with `threads` given or `parallel`, inside a
/// rayon pool of its own: `threads` workers, or rayon's default); the calling thread waits
/// for it with the GIL released and, every [`POLL`], takes the GIL briefly to run Python's
/// signal handlers (`Python::check_signals`: only the main thread runs them). When one
/// raises (Ctrl-C: KeyboardInterrupt), the work is flagged and stops at the library's next
/// progress point (`taskassign::progress::report`, [`PySink`]); the exception is raised as
/// soon as it has stopped, or after [`GRACE`] if no progress point came (the work then
/// stops at its next one, in the background, and its result is dropped). A panic in the
/// library (a bug) raises NumericalError saying so.
///
/// Progress: when the calling thread has a progress handler (`taskassign._progress`, set by
/// the wrapper's `progress=` argument), the library's reports are recorded by [`PySink`]
/// and handed to it, oldest first, at each poll and once more when the work is done, so
/// that it runs on the calling thread with the GIL held; an exception it raises stops the
/// work like Ctrl-C and is raised from the call.
fn compute_in<T: Send + 'static>(
    py: Python<'_>,
    parallel: bool,
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> PyResult<T> {
    if let Some(t) = threads.filter(|t| !(1..=taskassign::sim::MAX_THREADS).contains(t)) {
        return Err(raise(
            py,
            bad(format!(
                "threads must be 1 to {}, got {t}",
                taskassign::sim::MAX_THREADS
            )),
        ));
    }
    install_interrupts();
    let handler = progress_handler(py);
    let flag = Arc::new(Job {
        stop: AtomicBool::new(false),
        progress: handler.as_ref().map(|_| std::sync::Mutex::new(Vec::new())),
    });
    let outcome: Result<Result<T, Failure>, PyErr> = py.detach(|| {
        let pool = if parallel || threads.is_some() {
            let f2 = flag.clone();
            let mut b = rayon::ThreadPoolBuilder::new()
                .start_handler(move |_| JOB.with(|j| *j.borrow_mut() = Some(f2.clone())));
            if let Some(t) = threads {
                b = b.num_threads(t);
            }
            match b.build() {
                Ok(p) => Some(p),
                Err(e) => return Ok(Err((EXIT_NUMERICAL, format!("cannot start threads: {e}")))),
            }
        } else {
            None
        };
        let (tx, rx) = mpsc::channel();
        let job = flag.clone();
        let spawned = std::thread::Builder::new()
            .name("taskassign".into())
            .spawn(move || {
                JOB.with(|j| *j.borrow_mut() = Some(job));
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &pool {
                    Some(p) => p.install(f),
                    None => f(),
                }));
                let _ = tx.send(r);
            });
        if let Err(e) = spawned {
            return Ok(Err((EXIT_NUMERICAL, format!("cannot start a thread: {e}"))));
        }
        let mut interrupt: Option<(PyErr, Instant)> = None;
        loop {
            match rx.recv_timeout(POLL) {
                Ok(r) => {
                    return match (interrupt, r) {
                        (Some((e, _)), _) => Err(e),
                        (None, Ok(r)) => {
                            // The reports of the last poll interval (all of them, for a
                            // computation quicker than one interval).
                            Python::attach(|py| deliver(py, &flag, handler.as_ref()))?;
                            Ok(r)
                        }
                        (None, Err(payload)) => Ok(Err(panicked(payload.as_ref()))),
                    };
                }
                Err(mpsc::RecvTimeoutError::Timeout) => match &interrupt {
                    Some((_, at)) if at.elapsed() >= GRACE => {
                        return Err(interrupt
                            .take()
                            .map(|(e, _)| e)
                            .unwrap_or_else(|| PyRuntimeError::new_err("interrupted")));
                    }
                    Some(_) => {}
                    None => {
                        let polled = Python::attach(|py| {
                            py.check_signals()?;
                            deliver(py, &flag, handler.as_ref())
                        });
                        if let Err(e) = polled {
                            flag.stop.store(true, Ordering::Relaxed);
                            interrupt = Some((e, Instant::now()));
                        }
                    }
                },
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Ok(Err((EXIT_NUMERICAL, "the worker thread vanished".into())));
                }
            }
        }
    });
    outcome?.map_err(|e| raise(py, e))
}

/// [`compute_in`] for work without a thread pool of its own.
fn compute<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> PyResult<T> {
    compute_in(py, false, None, f)
}

/// `taskassign ARGS…` run in this process (the command line's own parser and handler,
/// `taskassign::run_command_line_captured`): what it prints on stdout and its exit status
/// (0, or 1 for a command that reports a failed verdict: `check`, `merge --grid`, `tables
/// --check`); a failure raises InputError (exit 2) or NumericalError (exit 3) with the
/// command's one-line message. `threads`: the workers of the computation's thread pool
/// (rayon's default when None); the results do not depend on it.
#[pyfunction]
#[pyo3(signature = (args, threads=None))]
fn command(py: Python<'_>, args: Vec<String>, threads: Option<usize>) -> PyResult<(String, i32)> {
    compute_in(py, true, threads, move || {
        let argv = std::iter::once("taskassign".to_string()).chain(args);
        taskassign::run_command_line_captured(argv)
    })
}

/// The largest `hosts` (the command line's `MAX_HOSTS`: every count up to it is exact in
/// f64, which the simulators use).
const MAX_HOSTS: u64 = 1 << 53;

/// `hosts`: a whole number from 1, written `1000000` or `1e6` (the command line's).
fn hosts_of(h: &str) -> Result<usize, Failure> {
    let n = taskassign::num::parse_count(h, "hosts", 1, MAX_HOSTS).map_err(bad)?;
    usize::try_from(n).map_err(bad)
}

/// A name of a vocabulary (policy, metric, model, sampling), parsed as the claim language
/// parses it (the command line's clap parser accepts the same names).
fn named<T: taskassign::vocab::Vocabulary>(s: &str) -> Result<T, Failure> {
    taskassign::vocab::parse::<T>(s).map_err(bad)
}

/// One of `load`, `load_per_host`, `lambda` (the command line's `--load`,
/// `--load-per-host`, `--lambda`: exactly one).
fn load_of(
    load: Option<String>,
    per_host: Option<String>,
    lambda: Option<String>,
) -> Result<LoadSpec, Failure> {
    match (load, per_host, lambda) {
        (Some(r), None, None) => Ok(LoadSpec::Total(r)),
        (None, Some(u), None) => Ok(LoadSpec::PerHost(u)),
        (None, None, Some(l)) => Ok(LoadSpec::Lambda(l)),
        (None, None, None) => Err(bad("give one of --load, --load-per-host, --lambda")),
        _ => Err(bad("give only one of --load, --load-per-host, --lambda")),
    }
}

/// `taskassign eval … --format json`.
#[pyfunction]
#[pyo3(signature = (policy, dist, hosts, load, load_per_host, lambda_, cutoffs, metric, digits, rigorous))]
#[allow(clippy::too_many_arguments)]
fn eval(
    py: Python<'_>,
    policy: String,
    dist: String,
    hosts: String,
    load: Option<String>,
    load_per_host: Option<String>,
    lambda_: Option<String>,
    cutoffs: String,
    metric: String,
    digits: i64,
    rigorous: bool,
) -> PyResult<Rec> {
    compute(py, move || {
        let policy: PolicyKind = named(&policy)?;
        let metric: Metric = named(&metric)?;
        let digits = check_digits(digits).map_err(bad)?;
        let hosts = hosts_of(&hosts)?;
        let dist = DistSpec::parse(&dist).map_err(bad)?;
        let load = load_of(load, load_per_host, lambda_)?;
        let cutoffs: Vec<String> = cutoffs
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let req = EvalRequest {
            policy,
            dist: &dist,
            hosts,
            load,
            cutoffs,
            metric,
            digits,
        };
        if rigorous {
            let rep = eval_rigorous(&req).map_err(fail)?;
            return Ok(rec(&taskassign::report::eval_rigorous_record(&req, &rep)));
        }
        let rep = eval_certified(&req).map_err(fail)?;
        Ok(rec(&taskassign::report::eval_record(&req, &rep)))
    })
}

/// `taskassign optimize … --format json`.
#[pyfunction]
#[pyo3(signature = (policy, dist, hosts, load, load_per_host, lambda_, metric, digits, rigorous, max_boxes))]
#[allow(clippy::too_many_arguments)]
fn optimize(
    py: Python<'_>,
    policy: String,
    dist: String,
    hosts: String,
    load: Option<String>,
    load_per_host: Option<String>,
    lambda_: Option<String>,
    metric: String,
    digits: i64,
    rigorous: bool,
    max_boxes: i64,
) -> PyResult<Rec> {
    compute(py, move || {
        let policy: OptPolicy = named(&policy)?;
        let metric: Metric = named(&metric)?;
        let digits = check_digits(digits).map_err(bad)?;
        let hosts = hosts_of(&hosts)?;
        let dist = DistSpec::parse(&dist).map_err(bad)?;
        let load = load_of(load, load_per_host, lambda_)?;
        let req = OptimizeRequest {
            policy,
            dist: &dist,
            hosts,
            load,
            metric,
            digits,
        };
        if rigorous {
            if policy == OptPolicy::SitaE {
                return Err(bad(
                    "--rigorous proves the minimum of sita, tags and tags-minmax; sita-e's cutoffs are fixed by equal loads, not minimised",
                ));
            }
            let max = taskassign::optimize::box_limit(i128::from(max_boxes)).map_err(bad)?;
            let (rep, proven) = optimize_proven_with(&req, max).map_err(fail)?;
            return Ok(rec(&taskassign::report::optimize_proven_record(
                &req, &rep, &proven,
            )));
        }
        let rep = optimize_certified(&req).map_err(fail)?;
        Ok(rec(&taskassign::report::optimize_record(&req, &rep)))
    })
}

/// `taskassign threshold … --format json`.
#[pyfunction]
#[pyo3(signature = (dist, hosts, digits, rigorous))]
fn threshold(
    py: Python<'_>,
    dist: String,
    hosts: String,
    digits: i64,
    rigorous: bool,
) -> PyResult<Rec> {
    // In a pool: the chain's solves run their kernels on its threads (`num::levels::par`).
    compute_in(py, true, None, move || {
        let digits = check_digits(digits).map_err(bad)?;
        let hosts = match hosts.trim() {
            "inf" | "infinity" => None,
            s => Some(hosts_of(s).map_err(|_| {
                bad(format!(
                    "hosts must be a positive integer or inf, got '{s}'"
                ))
            })?),
        };
        let dist = DistSpec::parse(&dist).map_err(bad)?;
        let f = &dist as &dyn DistFactory;
        if rigorous {
            let rep = threshold_rigorous(&dist, hosts, digits).map_err(fail)?;
            return Ok(rec(&taskassign::report::threshold_rigorous_record(
                f, hosts, digits, &rep,
            )));
        }
        let rep = threshold_certified(&dist, hosts, digits).map_err(fail)?;
        Ok(rec(&taskassign::report::threshold_record(
            f, hosts, digits, &rep,
        )))
    })
}

/// The grid file of a sweep over one claim quantity at one point: `quantity = EXPR` and
/// the `[setup]` (what `taskassign sweep` reads; `digits` an integer, the rest strings).
fn quantity_file(expr: &str, setup: &BTreeMap<String, String>, digits: Option<i64>) -> String {
    let mut t = toml::Table::new();
    for (k, v) in setup {
        t.insert(k.clone(), toml::Value::String(v.clone()));
    }
    if let Some(d) = digits {
        t.insert("digits".into(), toml::Value::Integer(d));
    }
    let mut top = toml::Table::new();
    top.insert("quantity".into(), toml::Value::String(expr.to_string()));
    top.insert("setup".into(), toml::Value::Table(t));
    toml::to_string(&top).unwrap_or_default()
}

/// The two keys of a quantity file that [`QuantityDef::compile`] reads.
#[derive(serde::Deserialize)]
struct QuantityFile {
    quantity: toml::Spanned<String>,
    setup: Option<toml::Table>,
}

/// A claim quantity at one point, through the claims engine, as a sweep over `quantity =
/// EXPR` records it: `{"quantity", "value", "digits"}` (plus `half_width` and `warnings`
/// when the value rests on a simulation).
#[pyfunction]
#[pyo3(signature = (expr, setup, digits))]
fn quantity(
    py: Python<'_>,
    expr: String,
    setup: BTreeMap<String, String>,
    digits: Option<i64>,
) -> PyResult<String> {
    compute(py, move || {
        let text = quantity_file(&expr, &setup, digits);
        let file: QuantityFile = toml::from_str(&text).map_err(bad)?;
        let def = QuantityDef::compile(
            "<quantity>",
            &text,
            &file.quantity,
            file.setup.as_ref(),
            &[],
        )
        .map_err(fail)?;
        match def.evaluate(BTreeMap::new()) {
            Outcome::Record(v) => Ok(v.to_string()),
            Outcome::Failed { kind, message } => Err((kind.exit_code(), message)),
        }
    })
}

fn lb(e: LbError) -> Failure {
    fail(e)
}

/// `buffer`: an integer >= 1 or inf (the command line's `--buffer`).
fn buffer_of(s: &str) -> Result<Option<u32>, Failure> {
    match s.trim() {
        "inf" | "infinity" => Ok(None),
        t => {
            let b: i64 = t.parse().map_err(|_| {
                bad(format!(
                    "the buffer must be an integer >= 1 or inf, got '{t}'"
                ))
            })?;
            if b < 1 {
                return Err(lb(LbError::BadBuffer(b)));
            }
            u32::try_from(b)
                .map(Some)
                .map_err(|_| lb(LbError::BadBuffer(b)))
        }
    }
}

/// `taskassign jsq fixed-point … --format json`.
#[pyfunction]
#[pyo3(signature = (model, lambda_, buffer, d, digits, rigorous))]
fn jsq_fixed_point(
    py: Python<'_>,
    model: String,
    lambda_: String,
    buffer: String,
    d: String,
    digits: i64,
    rigorous: bool,
) -> PyResult<Rec> {
    // In a pool: the chain's solves run their kernels on its threads (`num::levels::par`).
    compute_in(py, true, None, move || {
        let digits = check_digits(digits).map_err(bad)?;
        let kind: ModelKind = named(&model)?;
        let model = Model::new(kind, &lambda_, buffer_of(&buffer)?).map_err(lb)?;
        let spec = DSpec::parse(&d).map_err(lb)?;
        let limit = Limit::from_spec(&spec).map_err(lb)?;
        if rigorous {
            let fp = taskassign::lb::fixed_point_proven(&model, limit, digits).map_err(lb)?;
            return Ok(rec(&taskassign::report::jsq_fixed_point_rigorous_record(
                &model, &spec, limit, &fp, digits,
            )));
        }
        let fp = fixed_point_certified(&model, limit, digits).map_err(lb)?;
        Ok(rec(&taskassign::report::jsq_fixed_point_record(
            &model, &spec, limit, &fp,
        )))
    })
}

/// `taskassign jsq exact … --format json`.
#[pyfunction]
#[pyo3(signature = (model, lambda_, servers, d, buffer, sampling, digits, max_states))]
#[allow(clippy::too_many_arguments)]
fn jsq_exact(
    py: Python<'_>,
    model: String,
    lambda_: String,
    servers: i64,
    d: String,
    buffer: String,
    sampling: String,
    digits: i64,
    max_states: i64,
) -> PyResult<Rec> {
    // In a pool: the chain's solves run their kernels on its threads (`num::levels::par`).
    compute_in(py, true, None, move || {
        let kind: ModelKind = named(&model)?;
        let sampling: Sampling = named(&sampling)?;
        let model = Model::new(kind, &lambda_, buffer_of(&buffer)?).map_err(lb)?;
        let n = u64::try_from(servers)
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| lb(LbError::BadServers(servers)))?;
        let spec = DSpec::parse(&d).map_err(lb)?;
        let system = JsqSystem::new(model, n, &spec, sampling).map_err(lb)?;
        let digits = check_digits(digits).map_err(bad)?;
        let max_states = taskassign::num::check_max_states(max_states).map_err(bad)?;
        let opts = ExactOptions {
            digits,
            max_states,
            ..ExactOptions::default()
        };
        let r = lb_exact(&system, &opts).map_err(lb)?;
        Ok(rec(&taskassign::report::jsq_exact_record(
            &system, &spec, digits, &r,
        )))
    })
}

/// The redundancy system the arguments describe (the command line's `--servers`,
/// `--rates`, `--class`, `--system`, `--lambdas`, with its messages).
fn red_system(
    servers: Option<String>,
    rates: Vec<String>,
    classes: Vec<String>,
    system: Option<String>,
    lambdas: Option<Vec<String>>,
) -> Result<ClassSystem, Failure> {
    let rates = match (servers, rates.is_empty()) {
        (Some(_), false) => return Err(bad("give --servers or --rates, not both")),
        (Some(k), true) => {
            let k =
                taskassign::num::parse_count(&k, "servers", 1, MAX_SERVERS as u64).map_err(bad)?;
            Some(ClassSystem::unit_rates(k as usize))
        }
        (None, false) => Some(rates),
        (None, true) => None,
    };
    match system {
        Some(name) => {
            if !classes.is_empty() {
                return Err(bad("give either --system or --class, not both"));
            }
            let path = std::path::Path::new(&name);
            let sys = if name.ends_with(".toml") || path.is_file() {
                if lambdas.is_some() {
                    return Err(bad("--lambdas goes with a preset, not with a system file"));
                }
                let text = std::fs::read_to_string(path)
                    .map_err(|e| bad(format!("cannot read {name}: {e}")))?;
                ClassSystem::from_toml(&text, &name).map_err(bad)?
            } else {
                let l = lambdas.ok_or_else(|| bad(format!("--system {name} needs --lambdas")))?;
                ClassSystem::preset(&name, &l).map_err(bad)?
            };
            match rates {
                Some(r) => sys.with_rates(r).map_err(bad),
                None => Ok(sys),
            }
        }
        None => {
            if lambdas.is_some() {
                return Err(bad("--lambdas goes with --system PRESET"));
            }
            let rates = rates.ok_or_else(|| {
                bad("give the servers (--servers K or --rates MU1,MU2,...) and --class SET:RATE, or --system")
            })?;
            if classes.is_empty() {
                return Err(bad("give at least one --class SET:RATE"));
            }
            let k = rates.len();
            let classes = classes
                .iter()
                .map(|c| ClassSystem::parse_class(c, k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(bad)?;
            ClassSystem::new(rates, classes).map_err(bad)
        }
    }
}

/// `taskassign redundancy exact … --format json`.
#[pyfunction]
#[pyo3(signature = (policy, servers, rates, classes, system, lambdas, preemptive, digits, max_states, rigorous))]
#[allow(clippy::too_many_arguments)]
fn redundancy_exact(
    py: Python<'_>,
    policy: String,
    servers: Option<String>,
    rates: Vec<String>,
    classes: Vec<String>,
    system: Option<String>,
    lambdas: Option<Vec<String>>,
    preemptive: bool,
    digits: i64,
    max_states: i64,
    rigorous: bool,
) -> PyResult<Rec> {
    // In a pool: the chain's solves run their kernels on its threads (`num::levels::par`).
    compute_in(py, true, None, move || {
        let digits = check_digits(digits).map_err(bad)?;
        let sys = red_system(servers, rates, classes, system, lambdas)?;
        let policy = RedPolicy::parse(&policy, preemptive).map_err(bad)?;
        let max_states = taskassign::num::check_max_states(max_states).map_err(bad)?;
        if rigorous {
            let m = taskassign::redundancy::exact_rigorous(&sys, policy, digits).map_err(fail)?;
            return Ok(rec(&taskassign::report::redundancy_exact_rigorous_record(
                &sys, policy, &m, digits,
            )));
        }
        let r = taskassign::redundancy::exact_limited(&sys, policy, digits, max_states)
            .map_err(fail)?;
        Ok(rec(&taskassign::report::redundancy_exact_record(
            &sys, &r, digits,
        )))
    })
}

/// `taskassign check PATH… --format json` (paths: claim files or folders), or one claim
/// file given as its text: the report's JSON and the command's exit status (0: nothing
/// fails, 1: a claim fails, or `strict` and one is INCONCLUSIVE, 3: one could not be
/// computed). A malformed claim raises InputError.
#[pyfunction]
#[pyo3(signature = (paths, text, strict))]
fn check(
    py: Python<'_>,
    paths: Vec<String>,
    text: Option<String>,
    strict: bool,
) -> PyResult<(String, i32)> {
    use taskassign::claims::compile;
    use taskassign::claims::{load_paths, run_all};
    use taskassign::report::{claims_json as to_json, claims_summary as summary};
    compute_in(py, true, None, move || {
        let claims = match text {
            Some(t) => vec![compile("<claim>", &t).map_err(|e| (EXIT_BAD_INPUT, e.to_string()))?],
            None => {
                let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
                let claims = load_paths(&paths).map_err(|e| (EXIT_BAD_INPUT, e.to_string()))?;
                if claims.is_empty() {
                    return Err(bad(format!(
                        "no claim files (*.toml) under {}",
                        paths
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                claims
            }
        };
        let rs = run_all(&claims, &|_: &taskassign::claims::ClaimResult| {});
        let status = summary(&rs).exit_status_strict(strict);
        Ok((to_json(&rs), status))
    })
}

/// The default number of significant digits of every command (`--digits`).
const DEFAULT_DIGITS: u32 = taskassign::num::DEFAULT_DIGITS;

#[pymodule]
fn _taskassign(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DEFAULT_DIGITS", DEFAULT_DIGITS)?;
    m.add("DEFAULT_MAX_BOXES", taskassign::optimize::MAX_BOXES as u64)?;
    m.add(
        "DEFAULT_MAX_STATES",
        taskassign::lb::DEFAULT_MAX_STATES as u64,
    )?;
    m.add(
        "DEFAULT_REDUNDANCY_MAX_STATES",
        taskassign::redundancy::MAX_CHAIN_STATES as u64,
    )?;
    m.add_function(wrap_pyfunction!(eval, m)?)?;
    m.add_function(wrap_pyfunction!(optimize, m)?)?;
    m.add_function(wrap_pyfunction!(threshold, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(jsq_fixed_point, m)?)?;
    m.add_function(wrap_pyfunction!(jsq_exact, m)?)?;
    m.add_function(wrap_pyfunction!(redundancy_exact, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(command, m)?)?;
    Ok(())
}
