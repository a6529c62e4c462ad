from refs import bias_relu_reference as reference, bias_relu_baseline as baseline  # noqa: F401
