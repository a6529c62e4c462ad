from refs import attention_reference, attention_baseline


def reference(inputs, dims):
    return attention_reference(inputs, causal=True)


def baseline(inputs, dims):
    return attention_baseline(inputs, causal=True)
