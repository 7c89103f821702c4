"""A plain `pip install` gives a working tracejit: the wheel holds every subpackage, not tests/
or docs/, and, installed into a fresh venv, imports, compiles, runs and has `tracejit-opt`.

The editable install `make test` runs under would hide a subpackage missing from the wheel,
so the check runs in a new venv that sees the running environment's dependencies (numpy,
xdsl, llvmlite) through a .pth file, but not its editable tracejit: a .pth file only adds a
directory to sys.path, so the editable install's own .pth (its import hook) never runs there.
"""

from __future__ import annotations

import os
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.install.conftest import fresh_venv, install, run, user_environment

pytestmark = pytest.mark.xdist_group("wheel")  # one worker builds the wheel for the module(s)
REPO_ROOT = Path(__file__).resolve().parents[2]
# Directories of the repository that are not (part of) the package `tracejit`.
NOT_INSTALLED = {"tests", "docs", "benchmarks", "examples", "build", "dist"}


def _source_modules() -> list[str]:
    """Every .py file of every package directory in the source tree, as a wheel path."""
    modules = []
    for directory, subdirs, files in os.walk(REPO_ROOT):
        relative = Path(directory).relative_to(REPO_ROOT)
        subdirs[:] = [
            d
            for d in subdirs
            if not d.startswith(".")
            and not d.endswith(".egg-info")
            and not (relative == Path(".") and d in NOT_INSTALLED)
        ]
        if "__init__.py" not in files:
            continue
        modules += [
            (Path("tracejit") / relative / name).as_posix()
            for name in files
            if name.endswith(".py") and not (relative == Path(".") and name == "setup.py")
        ]
    return sorted(modules)


def test_wheel_holds_every_subpackage_and_nothing_else(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [module for module in _source_modules() if module not in names]
    assert not missing, f"not in the wheel: {missing}"
    assert "tracejit/frontend/numpy_api/__init__.py" in names
    assert "tracejit/py.typed" in names  # PEP 561: type checkers read the annotations
    tops = {name.split("/")[0] for name in names}
    assert tops == {"tracejit", wheel.name.split("-py3")[0] + ".dist-info"}, tops
    stray = [
        name
        for name in names
        if name.split("/")[1] in NOT_INSTALLED | {"setup.py", "pyproject.toml", "Makefile"}
    ]
    assert not stray, f"in the wheel but not part of the package: {stray[:10]}"


CHECK = """
import importlib, importlib.util, pkgutil, sysconfig
from importlib.metadata import metadata
import numpy as np
import tracejit as tj

site_packages = sysconfig.get_path("purelib")
assert tj.__file__.startswith(site_packages), (tj.__file__, site_packages)
for module in pkgutil.walk_packages(tj.__path__, "tracejit."):
    importlib.import_module(module.name)  # nothing imports what the wheel does not hold

@tj.function
def f(x, y):
    return np.sum(np.tanh(x * y + 1.0), axis=0)

x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
y = np.arange(3, dtype=np.float32)
np.testing.assert_allclose(f(x, y), np.sum(np.tanh(x * y + 1.0), axis=0), rtol=1e-5)
assert f.experimental_get_tracing_count() == 1
assert metadata("tracejit")["License-Expression"] == "Apache-2.0"
assert "linalg" in metadata("tracejit").get_all("Provides-Extra")

if importlib.util.find_spec("scipy") is not None:  # the linalg extra: LAPACK from SciPy
    @tj.function
    def solve(a, b):
        return np.linalg.solve(a, b)

    a, b = np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0])
    np.testing.assert_allclose(solve(a, b), np.linalg.solve(a, b), rtol=1e-12)
    try:
        solve(np.zeros((2, 2)), b)
        raise AssertionError("a singular matrix raised no LinAlgError")
    except np.linalg.LinAlgError as error:
        assert "Singular matrix" in str(error), error
print("ok", tj.__file__)
"""


def test_installed_wheel_imports_compiles_and_has_tracejit_opt(wheel, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    env = user_environment()
    install(python, wheel, tmp_path, env)
    elsewhere = tmp_path / "elsewhere"  # not the repository: its tracejit must not be found
    elsewhere.mkdir()
    script = elsewhere / "check.py"
    script.write_text(textwrap.dedent(CHECK))
    output = run([python, script], cwd=elsewhere, env=env)
    assert output.startswith("ok ") and str(tmp_path / "venv") in output, output

    opt = tmp_path / "venv" / "bin" / "tracejit-opt"
    assert "usage: tracejit-opt" in run([opt, "--help"], cwd=elsewhere, env=env)
    listing = run([opt, "--list-passes"], cwd=elsewhere, env=env)
    assert "bufferize" in listing and "default pipeline:" in listing, listing
