//! The command line: argument parsing and dispatch only; no mathematics here.

use crate::dist::{DistFactory, DistSpec};
use crate::num::{check_digits, DEFAULT_DIGITS};
use crate::optimize::certified::{
    eval_certified, optimize_certified, threshold_certified, EvalRequest, OptimizeRequest,
};
use crate::optimize::proven::optimize_proven_with;
use crate::optimize::rigorous::{eval_rigorous, threshold_rigorous};
use crate::optimize::OptPolicy;
use crate::policy::{LoadSpec, Metric, PolicyKind};
use crate::report::eval::{eval_record, eval_rigorous_record};
use crate::report::optimize::{optimize_proven_record, optimize_record};
use crate::report::threshold::{threshold_record, threshold_rigorous_record};
use crate::report::Record;
use crate::vocab::Vocabulary;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

mod check;
mod claims_run;
mod design;
mod jsq;
mod progress;
mod quantity;
mod redundancy;
mod run_args;
mod simulate;
mod sweep;
mod tables;

use crate::error::{Classify, ErrorKind};
pub(crate) use crate::error::{EXIT_BAD_INPUT, EXIT_NUMERICAL};

#[derive(Parser, Debug)]
#[command(
    name = "taskassign",
    version,
    about = "Checks dispatching theory (TAGS, SITA, Random) numerically, with certified digits",
    long_about = "Checks dispatching theory numerically at any precision.\n\n\
Certified: every printed digit is one on which two MPFR precisions agree (strong evidence, \
not a bound). Proven (--rigorous; eval, threshold and optimize so far, built-in families): \
every number is an enclosure [K_lo, K_hi] computed by interval arithmetic with outward \
rounding, and each printed digit is the correct rounding of the exact value for the decimal \
inputs; optimize --rigorous proves a lower bound of the minimum over every cutoff vector \
(value_lo) by interval branch and bound (TAGS-minmax by the least host term at the \
certified optimum: each host's queue falls in its lower cutoff and grows in its upper one).\n\n\
Load convention: --load is the total offered load rho = lambda*E[X] (0 < rho < hosts); \
--load-per-host u means rho = u*hosts; --lambda sets the arrival rate.\n\
Distributions:\n  bp:k=1,p=1e10,alpha=1  pareto:k=1,alpha=1.5  exp:rate=1  uniform:a=0,b=1  det:x=1\n  \
hyperexp:p=0.1,rate1=0.1,rate2=10  weibull:shape=0.5,scale=1  lognormal:mu=0,sigma=2\n  \
erlang:k=4,rate=4 (k phases of rate r)  empirical:file=PATH (one size a line)\n  \
by mean and squared coefficient of variation: hyperexp:mean=1,scv=10 (balanced means: \
each branch carries half the mean; scv >= 1)  lognormal:mean=1,scv=4  weibull:shape=0.5,mean=1"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Evaluate SITA, TAGS or Random with given cutoffs: host loads, stability, mean
    /// waiting / response / slowdown (TAGS: queueing and wasted parts).
    Eval(EvalArgs),
    /// Optimal cutoffs: SITA-opt, SITA-E (equal loads), TAGS-opt, TAGS-minmax (smallest
    /// largest mean queue length); global search, then polished to the digits asked.
    Optimize(OptimizeArgs),
    /// TAGS stability threshold rho*(F, h): the largest total load for which stable
    /// cutoffs exist, and the greedy cutoffs at it.
    Threshold(ThresholdArgs),
    /// Simulate h FCFS hosts under sita|tags|random|rr|lwl|jsq: mean waiting, response,
    /// slowdown and per-host waiting with 95% half-widths, compared with the formula.
    Simulate(simulate::SimulateArgs),
    /// Run claim files (default proofs-check/): every published statement computed and
    /// judged PASS / FAIL / INCONCLUSIVE; exit 0 if nothing fails, 1 if something does.
    Check(check::CheckArgs),
    /// The fewest hosts, and their optimal cutoffs, meeting a mean waiting or slowdown
    /// target, for SITA and for TAGS (decentralised QoS design, [BD21]).
    Design(design::DesignArgs),
    /// Regenerate data/: each claim's table (CSV, Markdown, LaTeX) and the SVG figures;
    /// --check compares a fresh regeneration with data/ and exits 1 on a difference.
    Tables(tables::TablesArgs),
    /// JSQ(d(N)) load balancing on N queues or server pools: fixed points, fluid
    /// trajectories, exact finite-N values, the occupancy simulator.
    Jsq(jsq::JsqArgs),
    /// Redundancy scheduling with cancel-on-complete ([ARV22]): exact values, simulation
    /// and stability of nested systems under FCFS, ROS and LRF/MRF x FCFS/ROS.
    Redundancy(redundancy::RedundancyArgs),
    /// Run one shard of a parameter sweep (a grid file over any command or claim
    /// quantity): one JSON line per point, resumable; --plan prints the point count, a
    /// cost estimate and ready-to-run Slurm and GNU parallel lines.
    Sweep(sweep::SweepArgs),
    /// Merge the shard files of sweeps into one sorted JSONL and one CSV; with --grid,
    /// exit 1 while points are missing and name the shards to rerun.
    Merge(sweep::MergeArgs),
    /// Evaluate one expression of the claim language once, certified, by the claims
    /// engine: `quantity "opt(tags).value / opt(sita).value" --dist SPEC --hosts H --load
    /// RHO` (check --quantities lists the quantities).
    Quantity(quantity::QuantityArgs),
}

/// clap's parser of a vocabulary ([`crate::vocab`]): its names are the possible values
/// (shown by `--help`, with their help where the table has one), checked by clap as for a
/// `ValueEnum` (the same messages), then parsed by the vocabulary's own `FromStr`.
pub(crate) fn named<T: Vocabulary + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::all().iter().map(|v| {
        let p = PossibleValue::new(v.name());
        match v.help() {
            Some(h) => p.help(h),
            None => p,
        }
    });
    PossibleValuesParser::new(values).try_map(|s| crate::vocab::parse::<T>(&s))
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Args, Debug)]
#[group(required = true, multiple = false)]
struct LoadArgs {
    /// Total offered load rho = lambda*E[X], 0 < rho < hosts.
    #[arg(long, value_name = "RHO", allow_hyphen_values = true)]
    load: Option<String>,
    /// Load per host u (rho = u*hosts).
    #[arg(long, value_name = "U", allow_hyphen_values = true)]
    load_per_host: Option<String>,
    /// Arrival rate lambda.
    #[arg(long, value_name = "LAMBDA", allow_hyphen_values = true)]
    lambda: Option<String>,
}

#[derive(Args, Debug)]
struct EvalArgs {
    /// Routing policy.
    #[arg(long, value_parser = named::<PolicyKind>())]
    policy: PolicyKind,
    #[command(flatten)]
    farm: FarmArgs,
    /// The h-1 interior cutoffs s1 < ... < s_{h-1}, comma-separated (none for random or h = 1).
    #[arg(
        long,
        value_name = "S1,S2,...",
        allow_hyphen_values = true,
        default_value = ""
    )]
    cutoffs: String,
    /// What is averaged.
    #[arg(long, value_parser = named::<Metric>(), default_value = "waiting")]
    metric: Metric,
    /// Significant decimal digits wanted (each printed digit is certified).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Prove every printed digit: enclosures by interval arithmetic with outward rounding
    /// (MPFR) instead of two precisions that agree; adds K_lo and K_hi beside every number
    /// and proven_digits. Built-in families only (a custom density has no enclosure).
    #[arg(long)]
    rigorous: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(Args, Debug)]
struct OptimizeArgs {
    /// What to optimise. tags-minmax minimises the largest mean queue length
    /// lambda_i*Q_i over the hosts (jobs waiting, not in service; lambda_i = lambda*P(X > s_{i-1})).
    #[arg(long, value_parser = named::<OptPolicy>())]
    policy: OptPolicy,
    #[command(flatten)]
    farm: FarmArgs,
    /// What is minimised and reported.
    #[arg(long, value_parser = named::<Metric>(), default_value = "waiting")]
    metric: Metric,
    /// Significant decimal digits wanted (each printed digit is certified).
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Prove the global optimum: after the certified optimum, an interval branch and
    /// bound over every cutoff vector proves a lower bound of the minimum (value_lo) and
    /// the value at the printed cutoffs (value_hi), with optimality_gap; sita, tags and
    /// tags-minmax, built-in families only.
    #[arg(long)]
    rigorous: bool,
    /// With --rigorous: the most boxes the branch and bound evaluates before it reports
    /// the gap it reached (its first cover, the convex basin and the 2(h − 1) slabs
    /// around it, is always evaluated; SITA from 6 hosts and TAGS from 7 first run the pair
    /// programme on up to N pair enclosures, which `boxes` counts too, and the branch and
    /// bound gets what it leaves).
    #[arg(long, value_name = "N", default_value_t = crate::optimize::proven::MAX_BOXES as u64)]
    max_boxes: u64,
    /// Run the whole certified optimisation N times (1 to 10000) and add
    /// `seconds_per_run`, the median wall time of one run in this process, without process
    /// start-up: for side-by-side timing against other tools.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_hyphen_values = true
    )]
    repeat: i64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Largest `--repeat`.
const MAX_REPEAT: i64 = 10_000;

#[derive(Args, Debug)]
struct ThresholdArgs {
    /// Job-size distribution, family:key=value,...
    #[arg(long, value_name = "SPEC")]
    dist: String,
    /// Number of hosts h >= 1, or `inf` for the limit h -> infinity.
    #[arg(long, value_name = "H|inf", allow_hyphen_values = true)]
    hosts: String,
    /// Significant decimal digits wanted.
    #[arg(long, default_value_t = i64::from(DEFAULT_DIGITS), allow_hyphen_values = true)]
    digits: i64,
    /// Prove every printed digit: rho* and the greedy cutoffs enclosed by interval
    /// arithmetic with outward rounding and proven sign changes; adds K_lo, K_hi and
    /// proven_digits.
    #[arg(long)]
    rigorous: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// What a command produced: text for stdout, or a one-line error and exit status.
type Outcome = Result<String, (i32, String)>;

/// Bad input: exit status 2 and the message.
fn bad<E: std::fmt::Display>(e: E) -> (i32, String) {
    (EXIT_BAD_INPUT, e.to_string())
}

/// A failure with the exit status of its kind: bad input (2), or a numerical failure or
/// an internal error (3; an internal error says that it is a bug).
fn fail<E: Classify + std::fmt::Display>(e: E) -> (i32, String) {
    match e.kind() {
        ErrorKind::Internal => (
            EXIT_NUMERICAL,
            format!("internal error (a bug: please report it): {e}"),
        ),
        k => (k.exit_code(), e.to_string()),
    }
}

/// The farm of the dispatch commands (`eval`, `optimize`, `simulate`): job sizes, hosts
/// and one of the three ways to give the load.
#[derive(Args, Debug)]
struct FarmArgs {
    /// Job-size distribution, family:key=value,...
    #[arg(long, value_name = "SPEC")]
    dist: String,
    /// Number of hosts h >= 1 (e.g. 4, 1000000 or 1e6).
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    hosts: String,
    #[command(flatten)]
    load: LoadArgs,
}

impl FarmArgs {
    /// The hosts, the distribution and the load, checked in that order.
    fn resolve(self) -> Result<(usize, DistSpec, LoadSpec), (i32, String)> {
        let hosts = hosts_of(&self.hosts)?;
        let dist = DistSpec::parse(&self.dist).map_err(bad)?;
        Ok((hosts, dist, load_of(self.load)?))
    }
}

/// The items of a comma-separated list (`--cutoffs`, `--rates`), blanks around each
/// trimmed and empty items dropped.
fn comma_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}

/// The largest `--hosts` (every count up to it is exact in f64, which the simulators use).
pub(crate) const MAX_HOSTS: u64 = 1 << 53;

/// `--hosts`: a whole number from 1, written `1000000` or `1e6`.
fn hosts_of(h: &str) -> Result<usize, (i32, String)> {
    let n = crate::num::parse_count(h, "hosts", 1, MAX_HOSTS).map_err(bad)?;
    usize::try_from(n).map_err(bad)
}

fn render(rec: &Record, format: Format) -> String {
    match format {
        Format::Json => rec.to_json() + "\n",
        Format::Text => rec.to_text(),
    }
}

fn load_of(l: LoadArgs) -> Result<LoadSpec, (i32, String)> {
    match (l.load, l.load_per_host, l.lambda) {
        (Some(r), _, _) => Ok(LoadSpec::Total(r)),
        (_, Some(u), _) => Ok(LoadSpec::PerHost(u)),
        (_, _, Some(l)) => Ok(LoadSpec::Lambda(l)),
        _ => Err(bad("give one of --load, --load-per-host, --lambda")),
    }
}

fn run_optimize(a: OptimizeArgs) -> Outcome {
    let digits = check_digits(a.digits).map_err(bad)?;
    let (hosts, dist, load) = a.farm.resolve()?;
    let req = OptimizeRequest {
        policy: a.policy,
        dist: &dist,
        hosts,
        load,
        metric: a.metric,
        digits,
    };
    if !(1..=MAX_REPEAT).contains(&a.repeat) {
        return Err(bad(format!(
            "--repeat must be between 1 and {MAX_REPEAT}, got {}",
            a.repeat
        )));
    }
    if a.rigorous {
        if a.repeat > 1 {
            return Err(bad(
                "--repeat times the certified optimisation; not with --rigorous",
            ));
        }
        if a.policy == OptPolicy::SitaE {
            return Err(bad(
                "--rigorous proves the minimum of sita, tags and tags-minmax; sita-e's cutoffs are fixed by equal loads, not minimised",
            ));
        }
        let max = crate::optimize::box_limit(i128::from(a.max_boxes)).map_err(bad)?;
        let (rep, proven) = optimize_proven_with(&req, max).map_err(fail)?;
        return Ok(render(
            &optimize_proven_record(&req, &rep, &proven),
            a.format,
        ));
    }
    let mut times = Vec::with_capacity(a.repeat as usize);
    let mut rep = None;
    for _ in 0..a.repeat {
        let t = std::time::Instant::now();
        rep = Some(optimize_certified(&req).map_err(fail)?);
        times.push(t.elapsed().as_secs_f64());
    }
    let rep = rep.ok_or_else(|| bad("no run"))?;
    let mut rec = optimize_record(&req, &rep);
    if a.repeat > 1 {
        times.sort_by(f64::total_cmp);
        rec.text("seconds_per_run", format!("{:.3e}", times[times.len() / 2]));
        rec.int("runs", a.repeat as u64);
    }
    Ok(render(&rec, a.format))
}

fn run_eval(a: EvalArgs) -> Outcome {
    let digits = check_digits(a.digits).map_err(bad)?;
    let (hosts, dist, load) = a.farm.resolve()?;
    let cutoffs = comma_list(&a.cutoffs);
    let req = EvalRequest {
        policy: a.policy,
        dist: &dist,
        hosts,
        load,
        cutoffs,
        metric: a.metric,
        digits,
    };
    if a.rigorous {
        let rep = eval_rigorous(&req).map_err(fail)?;
        return Ok(render(&eval_rigorous_record(&req, &rep), a.format));
    }
    let rep = eval_certified(&req).map_err(fail)?;
    Ok(render(&eval_record(&req, &rep), a.format))
}

fn run_threshold(a: ThresholdArgs) -> Outcome {
    let digits = check_digits(a.digits).map_err(bad)?;
    let hosts = match a.hosts.trim() {
        "inf" | "infinity" => None,
        s => Some(hosts_of(s).map_err(|_| {
            bad(format!(
                "hosts must be a positive integer or inf, got '{s}'"
            ))
        })?),
    };
    let dist = DistSpec::parse(&a.dist).map_err(bad)?;
    if a.rigorous {
        let rep = threshold_rigorous(&dist, hosts, digits).map_err(fail)?;
        return Ok(render(
            &threshold_rigorous_record(&dist as &dyn DistFactory, hosts, digits, &rep),
            a.format,
        ));
    }
    let rep = threshold_certified(&dist, hosts, digits).map_err(fail)?;
    Ok(render(
        &threshold_record(&dist as &dyn DistFactory, hosts, digits, &rep),
        a.format,
    ))
}

/// Writes `s` to stdout. A closed pipe (`taskassign … | head -1`) is the end of the
/// output, not an error: the rest is dropped quietly, as Unix tools do.
/// Any other write error (a full disk) is reported, and the run exits with status 3 (the
/// results were computed but could not be delivered).
fn emit(s: &str) -> Result<(), i32> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            eprintln!("taskassign: error: writing the output: {e}");
            Err(EXIT_NUMERICAL)
        }
    }
}

/// What a command line produced, before anything is printed: the text for stdout and the
/// exit status, or the exit status of a failure and its one-line message.
pub(crate) type Ran = Result<(String, i32), (i32, String)>;

/// A parse that did not give a command: help or version text for stdout (exit 0), or
/// clap's error as one line (exit 2).
enum NotRun {
    Shown(String),
    Bad(String),
}

/// Parses `args` (program name first) with clap.
fn parse<I, T>(args: I) -> Result<Cli, NotRun>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(args).map_err(|e| {
        use clap::error::ErrorKind;
        if matches!(
            e.kind(),
            ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        ) {
            return NotRun::Shown(e.to_string());
        }
        // clap's message up to its first blank line (the indented lines after
        // "required arguments were not provided:" name the options), joined into one
        // clear line; the usage and help hints after it are dropped.
        let msg = e.to_string();
        let first: Vec<&str> = msg
            .lines()
            .map(str::trim)
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty())
            .collect();
        let mut line = if first.is_empty() {
            "bad arguments".to_string()
        } else {
            first.join(" ")
        };
        // clap's suggestions ("tip: a similar subcommand exists: 'optimize'", the
        // argument meant by a mistyped option) come after a blank line: keep them.
        for tip in msg.lines().map(str::trim).filter(|l| l.starts_with("tip:")) {
            if !line.contains(tip) {
                line.push_str("; ");
                line.push_str(tip);
            }
        }
        NotRun::Bad(line.trim_start_matches("error: ").to_string())
    })
}

/// Runs a parsed command without printing.
fn dispatch(command: Command) -> Ran {
    let out = match command {
        Command::Eval(a) => run_eval(a),
        Command::Optimize(a) => run_optimize(a),
        Command::Threshold(a) => run_threshold(a),
        Command::Simulate(a) => simulate::run_simulate(a),
        Command::Check(a) => return check::run_check(a),
        Command::Design(a) => design::run_design(a),
        Command::Jsq(a) => jsq::run_jsq(a),
        Command::Redundancy(a) => redundancy::run_redundancy(a),
        Command::Tables(a) => return tables::run_tables(a),
        Command::Sweep(a) => return sweep::run_sweep(a),
        Command::Merge(a) => return sweep::run_merge(a),
        Command::Quantity(a) => quantity::run_quantity(a),
    };
    out.map(|s| (s, crate::error::EXIT_OK))
}

/// Runs the command line `args` (program name first) in this process without printing
/// anything: what [`run`] would print on stdout and its exit status, or a failure's exit
/// status and message (without the `taskassign: error:` prefix). `sweep` runs its points
/// through this (a point is not a new process; ARCHITECTURE.md, "The command line").
pub(crate) fn run_captured<I, T>(args: I) -> Ran
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match parse(args) {
        Ok(cli) => dispatch(cli.command),
        Err(NotRun::Shown(s)) => Ok((s, crate::error::EXIT_OK)),
        Err(NotRun::Bad(line)) => Err((EXIT_BAD_INPUT, line)),
    }
}

/// The clap definition of the whole command line (for `sweep`, which checks a grid's
/// options against the command it names).
pub(crate) fn command_definition() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// The name of a command's progress lines, for the commands that report progress.
fn progress_name(c: &Command) -> Option<&'static str> {
    match c {
        Command::Optimize(_) => Some("optimize"),
        Command::Threshold(_) => Some("threshold"),
        Command::Simulate(_) => Some("simulate"),
        Command::Design(_) => Some("design"),
        Command::Quantity(_) => Some("quantity"),
        Command::Redundancy(a) => a.progress_name(),
        Command::Jsq(a) => a.progress_name(),
        _ => None,
    }
}

/// Runs the command line `args` (program name first); prints results on stdout and a
/// single-line error on stderr; returns the exit status.
pub(crate) fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match parse(args) {
        Ok(c) => c,
        Err(NotRun::Shown(s)) => return emit(&s).err().unwrap_or(0),
        Err(NotRun::Bad(line)) => {
            eprintln!("taskassign: {line}");
            return EXIT_BAD_INPUT;
        }
    };
    // The commands that report progress (crate::progress) show it here, when the command is
    // the process's own: a sweep's in-process points and `check`'s claims keep their bars.
    let _progress = progress_name(&cli.command).map(progress::CliProgress::install);
    match dispatch(cli.command) {
        Ok((s, code)) => emit(&s).err().unwrap_or(code),
        Err((code, msg)) => {
            let what = if code == EXIT_NUMERICAL {
                "numerical failure (the input is valid; the computation did not get through)"
            } else {
                "error"
            };
            eprintln!("taskassign: {what}: {}", msg.replace('\n', " "));
            code
        }
    }
}

/// The fourth-moment heavy-tail rule on stderr (the record carries it too, with the other
/// heavy-tail rules' warnings): a line when it lengthened the run (which length ran and
/// why), and its warning when it still fires on the run reported (the interval is then
/// not to be trusted).
fn heavy_tail_notes(
    tail: &crate::sim::dispatch::setup::TailLength,
    diagnosis: &crate::sim::stats::HeavyTail,
) {
    if tail.lengthened() {
        eprintln!("taskassign: note: {}", tail.reason());
    }
    let fourth = crate::sim::stats::HeavyTail {
        unseen_fourth_moment: diagnosis.unseen_fourth_moment,
        ..Default::default()
    };
    for w in fourth.describe() {
        eprintln!("taskassign: note: {w}");
    }
}

/// A simulation's diagnostics as the command line acts on them: a replication that
/// measured too few jobs or events is an error (exit 3, saying how long to run: no
/// interval is printed from it); every other failed diagnostic is a note on stderr (the
/// record carries it too) saying what to change. `length` is the measured length in the
/// unit of `knobs.length`.
fn diagnostics_gate(
    d: &crate::sim::warmup::Diagnostics,
    knobs: &crate::sim::warmup::Knobs,
    length: f64,
) -> Result<(), (i32, String)> {
    if let Some(why) = d.too_short(knobs, length) {
        return Err((crate::error::EXIT_NUMERICAL, why));
    }
    for f in d.failures(knobs, length) {
        eprintln!("taskassign: note: {f}");
    }
    Ok(())
}
