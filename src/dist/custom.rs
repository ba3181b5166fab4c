//! User densities (placeholder until implemented).
