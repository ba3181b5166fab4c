//! MPFR quadrature (placeholder until implemented).
