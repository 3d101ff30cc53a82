"""Graph and cost-matrix generators for tests and benchmarks (being written)."""
