"""On a GPU host with torch and triton: the real trace of every fixture, and the confinement of
a trace child with CUDA initialised. Skipped by name elsewhere (CI has neither torch nor a GPU)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import common
import fixtures
from kscore_triton.schema import check_reply

HAVE, WHY = common.have_torch_gpu()


def helper_env(home):
    return {"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home}


@unittest.skipUnless(HAVE, WHY)
class GpuTrace(unittest.TestCase):
    def test_fixtures_trace_as_recorded(self):
        home = tempfile.mkdtemp(prefix="kscore-gpu-test-")
        proc = subprocess.Popen([sys.executable, "-I", common.HELPER, "serve"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=helper_env(home))
        try:
            for name in fixtures.names():
                with self.subTest(name=name):
                    proc.stdin.write((json.dumps(fixtures.request(name)) + "\n").encode())
                    proc.stdin.flush()
                    got = json.loads(proc.stdout.readline())
                    self.assertIsNone(check_reply(got))
                    self.assertEqual(got["status"], fixtures.expected_status(name), got.get("reason"))
                    want = common.fixture_json(name + ".response.json")
                    if got["status"] == "ok" and got["versions"] == want.get("versions"):
                        self.assertEqual([c["buffers"] for c in got["cases"]], [c["buffers"] for c in want["cases"]])
                        self.assertEqual([[s["op"] for s in c["steps"]] for c in got["cases"]],
                                         [[s["op"] for s in c["steps"]] for c in want["cases"]])
        finally:
            proc.stdin.close()
            proc.wait(timeout=60)
        left = os.listdir(home)
        shutil.rmtree(home, ignore_errors=True)
        self.assertEqual(left, [], "the helper must leave nothing behind")

    def test_confined_child_compiles_and_launches_but_sees_no_host(self):
        """As kscore runs it, the helper sees one GPU (the host's last): the confined child too."""
        probe = os.path.join(common.HERE, "gpu_confined_probe.py")
        home = tempfile.mkdtemp(prefix="kscore-gpu-probe-home-")
        env = helper_env(home)
        env["CUDA_VISIBLE_DEVICES"] = str(common.gpu_count() - 1)
        try:
            proc = subprocess.run([sys.executable, "-I", probe], capture_output=True, timeout=300, env=env)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode(errors="replace")[-2000:])
        out = json.loads(proc.stdout.splitlines()[-1])
        self.assertIsNone(out["cuda_init_error"])
        self.assertTrue(out["confinement"]["landlock"] and out["confinement"]["seccomp"], out["confinement"])
        self.assertTrue(out["triton_ran"])
        for key in ("open /etc/passwd", "open /etc/hostname", "open /root", "open /proc/1/environ", "open /tmp",
                    "open /home"):
            self.assertIn(out[key], ("EACCES", "ENOENT"), key)
        self.assertEqual(out["socket AF_INET"], "EAFNOSUPPORT")
        self.assertEqual(out["device_count"], 1)

if __name__ == "__main__":
    unittest.main()
