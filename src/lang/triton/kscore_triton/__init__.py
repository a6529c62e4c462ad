"""kscore's Triton helper: the static check and the confined trace of Triton answers.

The scorer runs `<python> -I <libexec>/kscore-triton serve` (or `check`) and speaks the line
protocol of docs/triton-protocol.md with it. Only `serve` imports torch and triton.
"""
