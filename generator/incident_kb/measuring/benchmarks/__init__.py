"""Reading the outputs of the benchmark tools engineers already run, in each tool's own format:
SGLang's and vLLM's serving benchmarks, hyperfine's `--export-json`, pytest-benchmark's
`--benchmark-json`, and a plain CSV of samples. Each reader turns a file into `Sample`s (a labelled
group of runs with the fields conditions are read from, and where in the file it is); a file it
cannot read is one `BenchmarkFileError` naming the file and line. `kb measurement import` groups
the samples into measurements (`measurements.py`).
"""
