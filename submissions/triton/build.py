#!/usr/bin/env python3
"""Regenerates the Triton submission files from the Python sources beside them:

    submissions/triton/reflexion_oneshot_tritonbench_triton.json   src/hackathon/*.py
    submissions/triton/levels_triton.json                          src/levels/*.py
    submissions/triton/attacks_triton.json                         src/attacks/*.py
    submissions/triton/expected.json                               what each entry must score

Each file is a GEAK-format submission (a JSON array of entries with `instruction`, `label` (null),
`file` (the problem key, `<name>.py`), `test_code` and `predict`); `predict` is the answer's Python
source as it is, the way the hackathon's team files hold it (no prose, no fences). The source of
every answer starts with a docstring saying what it does; an attack's says the verdict it must get,
and expected.json holds the same verdicts for the GPU tests.

`instruction` is a pointer to the Triton instructions (`score problems --export-prompts FILE
--language triton`); with `--prompts FILE` (such an export) it is the exported instruction itself.

Run from anywhere: python3 submissions/triton/build.py [--prompts FILE]
"""

import argparse
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

TEST_CODE = '''

import torch

# TritonBench-style test section (kept for the GEAK file format; kscore does not run it).
def test_{name}():
    results = {{}}
    results['test_case_1'] = None
    return results

result_gold = test_{name}()
'''

FILES = [
    ('hackathon', 'reflexion_oneshot_tritonbench_triton.json'),
    ('levels', 'levels_triton.json'),
    ('attacks', 'attacks_triton.json'),
]

# What each attack must get (the docstring of its source says the same in words).
ATTACKS = {
    'sin_kernel': ('host_op', 'torch.sin computes the result in the entry (aten.sin), refused at the trace'),
    'relu_f32': ('refused', 'import os: refused by the static check before anything runs'),
    'sigmoid_bf16': ('refused', 'a top-level call (torch.manual_seed(0)): refused by the static check'),
    'swish_f16': ('untraceable', 'a Python-side result cache: the second call launches nothing and '
                  'returns the first call\'s tensor'),
    'gelu_f16': ('refused', 'work on another stream: torch.cuda.Stream / torch.cuda.stream are refused '
                 'by the static check (the replay would time the kernel on kscore\'s stream anyway)'),
    'tanh_f32': ('oob_write', 'a kernel without a mask writes past the end of y on a partial block'),
    'bias_relu_broadcast_f32': ('unwritten', 'only the first 2^20 elements are computed: every correctness '
                                'case passes, the verified timed run of the first perf case finds the '
                                'rest of y poisoned ("during timing")'),
}


def sources(folder):
    d = os.path.join(HERE, 'src', folder)
    return sorted(f for f in os.listdir(d) if f.endswith('.py'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--prompts', help='a `score problems --export-prompts FILE --language triton` export')
    a = ap.parse_args()
    prompts = {}
    if a.prompts:
        prompts = {e['file']: e['instruction'] for e in json.load(open(a.prompts))}
    expected = {}
    for folder, out in FILES:
        entries, exp = [], {}
        for f in sources(folder):
            name = f[:-3]
            src = open(os.path.join(HERE, 'src', folder, f)).read()
            instruction = prompts.get(f, 'Write a Triton answer for the problem %s: the instructions are '
                                         '`score problems --export-prompts FILE --language triton`.' % name)
            entries.append({'instruction': instruction, 'label': None, 'file': f,
                            'test_code': TEST_CODE.format(name=name), 'predict': src})
            if folder == 'attacks':
                reason, why = ATTACKS[name]
                exp[name] = {'exec': False, 'reason': reason, 'why': why}
            else:
                exp[name] = {'call': True, 'exec': True}
        with open(os.path.join(HERE, out), 'w') as fh:
            json.dump(entries, fh, indent=1)
            fh.write('\n')
        expected[out] = exp
    with open(os.path.join(HERE, 'expected.json'), 'w') as fh:
        json.dump(expected, fh, indent=1, sort_keys=True)
        fh.write('\n')


if __name__ == '__main__':
    main()
