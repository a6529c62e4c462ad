"""kscore's oracle: the trusted process that runs an imported problem set's own code (its test
code, its perf script's input generator, KernelBench's get_inputs) and records every call of the
set's entry functions as a case (docs/problem-format.md, "The oracle")."""
