//! Shared inputs for the criterion benchmarks in this folder.
