"""Benchmarks of the pipeline: ratios measured side by side in one run (python -m benchmarks)."""
