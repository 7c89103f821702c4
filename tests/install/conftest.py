"""The wheel built from the working tree, and venvs it is installed into, for the tests of
what a user gets from `pip install` (tests/install/). The wheel is built once per session;
the modules that use it share an xdist group, so `-n auto` builds it once too.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from importlib.metadata import version
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
# What a build leaves behind or a developer keeps in the tree: not copied to build from.
NOT_COPIED = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__", "Output")


def run(command: list, cwd: Path, env: dict | None = None, check: bool = True) -> str:
    """The command's stdout and stderr; with `check`, it must exit 0."""
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    if check:
        assert result.returncode == 0, f"{' '.join(map(str, command))} failed:\n{output}"
    return output


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the working tree (so no build/ lands in the tree)."""
    if int(version("setuptools").split(".")[0]) < 77:
        pytest.fail("setuptools>=77 is needed to build (pyproject.toml's test extra); run make")
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(REPO_ROOT, source, ignore=NOT_COPIED, symlinks=True)
    output = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            source,
            "-w",
            tmp / "dist",
        ],
        cwd=tmp,
    )
    # setuptools' deprecation warnings (the license table of old) reach pip's output.
    assert "BuildBackendWarning" not in output and "DeprecationWarning" not in output, output
    (built,) = (tmp / "dist").glob("tracejit-*.whl")
    return built


def fresh_venv(path: Path) -> Path:
    """A venv whose sys.path has the running environment's packages after its own."""
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(path)
    python = path / "bin" / "python"
    own = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], path)
    if sys.prefix != sys.base_prefix:  # system_site_packages reaches the base, not this venv
        paths = "\n".join(site.getsitepackages())
        (Path(own.strip()) / "_running_environment.pth").write_text(paths + "\n")
    return python


def user_environment() -> dict[str, str]:
    """The environment of a user's process: none of ours (PYTHON*, TRACEJIT_*)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TRACEJIT_"))}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def install(python: Path, wheel: Path, cwd: Path, env: dict[str, str]) -> None:
    """Install the wheel into `python`'s venv."""
    # --ignore-installed: the running environment's tracejit is visible on the new venv's
    # sys.path; never touch (uninstall) it, install beside it into the new venv.
    run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--ignore-installed",
            wheel,
        ],
        cwd=cwd,
        env=env,
    )
