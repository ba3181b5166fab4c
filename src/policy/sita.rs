//! SITA: host i serves the jobs with size in (s_{i−1}, s_i].
//!
//! ρ_i = λ M_1(s_{i−1}, s_i), W_i = λ M_2(s_{i−1}, s_i) / (2 (1 − ρ_i)) (Pollaczek–Khinchine
//! at each host, whose arrivals are a thinned Poisson stream, so the formula is exact), and
//! E[W] = Σ_i M_0(s_{i−1}, s_i) W_i, E[W/X] = Σ_i M_{−1}(s_{i−1}, s_i) W_i
//! (Harchol-Balter & Vesilo 2010, §2).
//!
//! This module states the formulas; [`super::host_term::host`] computes them for
//! [`super::host_term::ChainKind::Sita`] and [`super::evaluate`] sums them over the hosts.
