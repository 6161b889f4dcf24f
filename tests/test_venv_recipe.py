"""The Makefile's venv recipe falls back to pip when uv cannot install, and says so.

The recipe is the course's own Makefile, run on a one-module project beside it (installing the
whole course again would cost a minute). The venv is made beforehand, as the recipe's first line
would make it, with a `uv` in it that fails as uv fails without its package index; the venv
borrows this venv's pip and setuptools (on PYTHONPATH, without build isolation), so nothing is
downloaded. The other way uv can be missing, pip failing to install it, needs an index that
refuses, which a machine's own pip configuration may add to: it is not covered here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from packlab.manifest import ROOT

PROJECT = """[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "tinycourse"
version = "0.1"

[project.optional-dependencies]
dev = []

[tool.setuptools]
py-modules = ["tinycourse"]
"""
FAILING_UV = '#!/bin/sh\necho "uv: no package index here" >&2\nexit 2\n'


def test_when_uv_cannot_install_pip_installs_the_course_and_make_says_so(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(ROOT / "Makefile", course)
    (course / "pyproject.toml").write_text(PROJECT)
    (course / "tinycourse.py").write_text("ANSWER = 42\n")
    venv = course / ".venv"
    python = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(venv)], check=True)
    uv = venv / "bin" / "uv"
    uv.write_text(FAILING_UV)
    uv.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    # pip reads PIP_NO_BUILD_ISOLATION=0 as --no-build-isolation (its "no-" options invert).
    env.update(PYTHONPATH=sysconfig.get_path("purelib"), PIP_NO_BUILD_ISOLATION="0")

    done = subprocess.run(["make", "-s", ".venv/.ready"], cwd=course, env=env,
                          capture_output=True, text=True, timeout=300)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "uv: no package index here" in done.stderr
    assert "make: installing the course with pip (slower), not uv" in done.stderr
    assert (venv / ".ready").is_file()
    installed = subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import tinycourse; print(tinycourse.ANSWER)"],
                               cwd=tmp_path, env={"PATH": os.environ["PATH"]},
                               capture_output=True, text=True, check=False)
    assert installed.stdout.strip() == "42", installed.stderr
