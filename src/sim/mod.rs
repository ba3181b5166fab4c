//! Simulators that cross-check the analytic formulas (dispatching to FCFS hosts).
