#!/usr/bin/env python3
"""Regenerates the bundled submission files from the CUDA sources beside them:

    submissions/example/reflexion_oneshot_tritonbench_4.json   (+ expected.json)
    submissions/candidates/hackathon.json                      (+ hackathon.expected.json)

Both are GEAK-format submissions: a JSON array of entries with `instruction`, `label` (null),
`file`, `test_code` and `predict`. `predict` is written the way an LLM answers: a sentence or two
of prose around a ```cuda block. The instruction is the problem's instruction.md; test_code is a
TritonBench-style Python test section, kept for format fidelity (kscore never runs it).

Run from anywhere: python3 submissions/build.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SUITE = os.path.join(REPO, 'reference_tests', 'hackathon')

ORDER = ['sin_kernel', 'matrix_transpose', 'l2_norm_triton1', 'embedding_triton_kernel', 'flash_decode2_phi',
         'matrix_vector_multip', 'rotary_transform', 'l2_norm_bwd', 'int4_matmul', 'triton_matmul']

TEST_CODE = '''

import torch

# TritonBench-style test section (kept for the GEAK file format; kscore does not run it).
def test_{name}():
    results = {{}}
    results['test_case_1'] = None
    return results

result_gold = test_{name}()
'''

EXAMPLE = {
    'sin_kernel': (
        "Here is a straightforward CUDA kernel for the element-wise sine. It follows the default "
        "launch contract (one thread per element, 256 threads per block) and uses the accurate `sinf`, "
        "not `__sinf`, so it stays within the tolerance for large arguments.",
        "The kernel is memory-bound: each thread reads 4 bytes and writes 4 bytes.",
        {'call': True, 'exec': True,
         'why': 'correct: one thread per element with sinf on the default launch; about as fast as the golden'}),
    'matrix_transpose': (
        "This is a simple transpose: each thread copies one element at a time, reading the input "
        "row-wise (coalesced) and writing straight to the transposed position.",
        "No shared memory is needed, which keeps the code short.",
        {'call': True, 'exec': True,
         'why': 'correct but naive: writes are strided by m (uncoalesced), clearly slower than the golden'}),
    'l2_norm_triton1': (
        "Below is a CUDA implementation of the row-wise L2 normalisation with one block per row. "
        "The block first reduces the sum of squares with warp shuffles, then scales the row four "
        "columns at a time for better instruction-level parallelism.",
        "`rsqrtf` gives the reciprocal square root directly.",
        {'call': True, 'exec': False,
         'why': 'writes only part of its output: the 4-wide scaling loop skips the last cols % 4 columns '
                '(the 1 x 1 case writes nothing), so poison is left in y'}),
    'embedding_triton_kernel': (
        "The embedding lookup maps naturally to one block per token. Each thread copies a strided "
        "subset of the hidden dimension, and tokens that fall outside this GPU's vocabulary shard "
        "produce zero rows.",
        "This matches the masking of the Triton reference.",
        {'call': True, 'exec': False,
         'why': 'wrong result: the shard test uses id > vob_start_id instead of >=, so the first id of '
                'the shard (id 0 in the first case) gives a zero row'}),
    'flash_decode2_phi': (
        "Here is the second stage of flash decoding. The softmax weights of the valid splits are "
        "computed once into a vector, then each thread handles one element of the head dimension.",
        "The maximum starts at negative infinity, so empty splits cannot overflow.",
        {'call': False, 'exec': False,
         'why': 'does not compile: std::vector is host-only and cannot be used in device code '
                '(nvcc rejects it too; kscore\'s message says so)'}),
    'matrix_vector_multip': (
        "For the matrix-vector product I use a warp-cooperative kernel whose number of lanes per row "
        "adapts to the row length, so short rows (the tall-skinny case) pack several rows into each "
        "warp instead of idling lanes. The launch geometry is given with a `kscore-launch` comment; "
        "the lane count is passed as an extra `int` argument.",
        "All lanes take part in the shuffles, so the reduction is well defined even for a partial "
        "last warp.",
        {'call': True, 'exec': True,
         'why': 'correct, with its own launch plan (kscore-launch comment, typed literal argument); '
                'expected to match the golden on long rows and beat it on the 1048576 x 128 case'}),
    'rotary_transform': (
        "This rotary-embedding kernel keeps TritonBench's grid: a block covers four positions of one "
        "(batch, head), and its threads walk the output features, pairing feature k with k + "
        "rotary_dim / 2.",
        "Positions past the cos/sin table are copied unrotated, as in the reference.",
        {'call': True, 'exec': True, 'why': 'correct: scalar loads on the default launch; slower than the golden'}),
    'l2_norm_bwd': (
        "The backward pass needs two row reductions (sum of x^2 and sum of dy * x), so each block "
        "handles one row in two passes: reduce, then write dx.",
        "The reductions use a fixed order, so results are deterministic.",
        {'call': True, 'exec': True,
         'why': 'correct: one block per row, two passes over memory (the second mostly from L2)'}),
    'int4_matmul': (
        "A simple way to do the int4 matmul: every thread owns one output column and 64 rows of the "
        "block's tile, dequantizes its weight once per k and updates its accumulators in float32.",
        "No shared memory or tensor cores are needed.",
        {'call': True, 'exec': True,
         'why': 'correct but naive: CUDA-core FMAs, no tiling; an order of magnitude slower than the golden'}),
    'triton_matmul': (
        "Here is a tensor-core matmul with the WMMA API: 128 x 128 block tiles, 8 warps of 32 x 64, "
        "K steps of 32 staged through shared memory, float32 accumulators, and a small per-warp "
        "buffer for the float16 epilogue.",
        "Loads are bounds-checked, so any M, N and K work.",
        {'call': True, 'exec': True,
         'why': 'correct: WMMA without cp.async pipelining; slower than the golden'}),
}

CANDIDATES = {
    'sin_kernel': "A grid-stride version: a fixed grid of at most 1056 blocks walks the vector in float4 steps.",
    'matrix_transpose': "The classic shared-memory transpose with a 32 x 33 tile on the default launch.",
    'l2_norm_triton1': "Two kernels over 4096-column chunks with a scratch buffer of partial sums.",
    'embedding_triton_kernel': "One block per token with 16-byte copies and a correct shard test.",
    'flash_decode2_phi': "The online-softmax formulation, one thread per head-dimension element.",
    'matrix_vector_multip': "One 128-thread block per row with a fixed-order block reduction.",
    'rotary_transform': "Scalar rotary embedding on TritonBench's grid.",
    'l2_norm_bwd': "One block per row, two passes.",
    'int4_matmul': "A shared-memory tiled float32 GEMM that dequantizes each k-step of W into shared memory.",
    'triton_matmul': "A WMMA tensor-core matmul with 128 x 128 block tiles.",
}


# What may be included, as `score problems --export-prompts` appends it to every agent prompt
# (KS_COMPAT_PROMPT_NOTE in src/lang/cuda/compat.h; tests/test_compat.c checks that the two agree).
INCLUDES_NOTE = (
    "Includes: the file is compiled as device code only, with NVRTC. You may include CUDA's "
    "headers (cuda_fp16.h, cuda_bf16.h, mma.h, cooperative_groups.h, cuda_pipeline.h, ...), "
    "CCCL (cuda/std/..., cuda/barrier, cub's block and warp levels, thrust's device side) and "
    "the standard headers device code can use (cmath, cstdint, climits, cfloat, limits, "
    "algorithm, utility, type_traits, array, cstdio for printf); int64_t, FLT_MAX, INFINITY, "
    "M_PI and std::min/std::max need no include, and functions without __device__ are device "
    "functions. Host-only headers (vector, iostream, torch/extension.h, cublas_v2.h) compile "
    "as empty stand-ins: nothing from them can be used in device code.")


def instruction(name):
    with open(os.path.join(SUITE, name, 'instruction.md')) as f:
        text = f.read()
    return '%s%s\n%s\n' % (text, '' if text.endswith('\n') else '\n', INCLUDES_NOTE)


def source(folder, name):
    with open(os.path.join(HERE, folder, 'src', name + '.cu')) as f:
        return f.read()


def entry(name, predict):
    return {'instruction': instruction(name), 'label': None, 'file': name + '.py',
            'test_code': TEST_CODE.format(name=name), 'predict': predict}


def write_json(path, obj, compact):
    with open(path, 'w') as f:
        if compact:
            json.dump(obj, f)  # GEAK's agent writes one line, no indent
        else:
            json.dump(obj, f, indent=2)
        f.write('\n')


def main():
    ex, expected = [], {}
    for name in ORDER:
        before, after, exp = EXAMPLE[name]
        predict = '%s\n\n```cuda\n%s```\n\n%s\n' % (before, source('example', name), after)
        ex.append(entry(name, predict))
        expected[name] = exp
    write_json(os.path.join(HERE, 'example', 'reflexion_oneshot_tritonbench_4.json'), ex, True)
    write_json(os.path.join(HERE, 'example', 'expected.json'), expected, False)

    cand, cexp = [], {}
    for name in ORDER:
        predict = '%s\n\n```cuda\n%s```\n' % (CANDIDATES[name], source('candidates', name))
        cand.append(entry(name, predict))
        cexp[name] = {'call': True, 'exec': True, 'why': 'honest correct candidate: ' + CANDIDATES[name]}
    write_json(os.path.join(HERE, 'candidates', 'hackathon.json'), cand, False)
    write_json(os.path.join(HERE, 'candidates', 'hackathon.expected.json'), cexp, False)


if __name__ == '__main__':
    main()
