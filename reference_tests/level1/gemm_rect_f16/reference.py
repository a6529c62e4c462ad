from refs import gemm_reference as reference, gemm_baseline as baseline  # noqa: F401
