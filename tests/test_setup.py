"""The set-up a new user meets first: the Makefile's venv build and ``make lab``, and the package metadata.

The Makefile is read with ``make -n`` (nothing runs); ``id`` is replaced on PATH to play root or a user.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib

import pytest
from conftest import REPO
from packaging.requirements import Requirement

STAMP = ".venv/.installed"


def make_n(*args: str, uid: int, tmp_path) -> str:
    """``make -n`` in the repository, with ``id -u`` answering ``uid``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "id"
    fake.write_text(f'#!/bin/sh\nif [ "$1" = -u ]; then echo {uid}; else exec /usr/bin/id "$@"; fi\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(["make", "-n", *args], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    return run.stdout


def _jupyter_line(out: str) -> str:
    [line] = [x for x in out.splitlines() if "jupyter lab" in x]
    return line


@pytest.mark.parametrize("uid,flag", [(0, True), (1000, False)])
def test_make_lab_passes_allow_root_only_as_root(tmp_path, uid, flag):
    """Jupyter refuses to start as root without --allow-root (a container's usual user)."""
    line = _jupyter_line(make_n("-o", STAMP, "lab", uid=uid, tmp_path=tmp_path))
    assert ("--allow-root" in line.split()) is flag, line


def test_make_lab_adds_the_notebooks_server_config(tmp_path):
    line = _jupyter_line(make_n("-o", STAMP, "lab", uid=1000, tmp_path=tmp_path))
    assert f'JUPYTER_CONFIG_PATH="{REPO}/notebooks/.jupyter' in line
    assert (REPO / "notebooks" / ".jupyter" / "jupyter_server_config.py").is_file()


def test_the_venv_build_says_what_it_installs_and_shows_pips_progress(tmp_path):
    out = make_n("-W", "requirements.lock", STAMP, uid=1000, tmp_path=tmp_path)
    pip = [x for x in out.splitlines() if re.search(r"/pip install ", x)]
    assert len(pip) == 3 and not [x for x in pip if "--quiet" in x or " -q" in x], pip
    said = " ".join(x for x in out.splitlines() if x.startswith("echo "))
    assert "requirements.lock" in said and "minutes" in said and "is ready after" in said, said


def test_license_is_an_spdx_expression_with_its_files():
    """setuptools >= 77 deprecates the ``license = {text = ...}`` table (PEP 639) and says so on every build."""
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    project = meta["project"]
    # the code's license as it was (MIT), and the bundled font's (OFL-1.1), which the wheel also ships
    assert project["license"] == "MIT AND OFL-1.1"
    assert "toolkit/present/fonts/OFL.txt" in project["license-files"] and "LICENSE" in project["license-files"]
    assert project["license-files"] and all(list(REPO.glob(g)) for g in project["license-files"])
    [setuptools] = [Requirement(r) for r in meta["build-system"]["requires"] if r.startswith("setuptools")]
    assert not setuptools.specifier.contains("76.9") and setuptools.specifier.contains("77.0.3")


def test_every_data_file_of_the_package_is_package_data():
    """A file under toolkit/ that is not Python ships in the wheel only if a package-data glob names it (the triage
    rules moved into a folder: an installed toolkit without them would have no rules at all)."""
    import fnmatch

    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    globs = meta["tool"]["setuptools"]["package-data"]["toolkit"]
    pkg = REPO / "toolkit"
    data = [
        p.relative_to(pkg).as_posix()
        for p in pkg.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]

    def shipped(path: str, glob: str) -> bool:  # setuptools' glob: a "*" never crosses a "/"
        parts, pattern = path.split("/"), glob.split("/")
        return len(parts) == len(pattern) and all(fnmatch.fnmatch(a, b) for a, b in zip(parts, pattern, strict=True))

    assert data and [d for d in data if not any(shipped(d, g) for g in globs)] == []
