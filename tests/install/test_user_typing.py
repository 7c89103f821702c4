"""A user's file that uses the API type-checks clean with mypy against the installed package,
and mypy reports a wrong call of a `@tj.function` (the package ships py.typed, and
`tj.function` keeps the decorated function's parameters: frontend/api/function.py).

Against the wheel installed into a fresh venv, not the editable install: that one is an
import hook (the repository directory is not named `tracejit`), which mypy cannot follow,
and what matters is what users get from `pip install`.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from tests.install.conftest import fresh_venv, install, run, user_environment

pytestmark = pytest.mark.xdist_group("wheel")  # shares the wheel with test_wheel_install.py

USER_FILE = """
from __future__ import annotations

import numpy as np
import tracejit as tj


@tj.function
def scale(x: np.ndarray, factor: float = 2.0) -> np.ndarray:
    return x * factor


@tj.function(input_signature=[tj.TensorSpec([None], tj.float32)])
def norm(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(v * v))


class Dense(tj.Module):
    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.w = tj.Variable(np.ones((n_in, n_out), np.float32), name="w")
        self.b = tj.Variable(np.zeros(n_out, np.float32), name="b", trainable=False)

    @tj.function
    def __call__(self, x: np.ndarray) -> np.ndarray:
        return x @ self.w + self.b


def train(layer: Dense, x: np.ndarray, steps: int) -> float:
    optimizer = tj.optimizers.SGD(learning_rate=0.1)
    loss = np.float32(0.0)
    for _ in range(steps):
        with tj.GradientTape() as tape:
            loss = np.sum(layer(x))
        grads = tape.gradient(loss, layer.trainable_variables)
        optimizer.apply_gradients(zip(grads, layer.trainable_variables))
    return float(loss)


tj.config.set_tiered_compilation(False)
tj.config.set_num_threads(2)
threads: int = tj.config.num_threads()
y: np.ndarray = scale(np.arange(3.0), factor=3.0)
z = scale(np.arange(3.0))
n: np.ndarray = norm(np.ones(3, np.float32))
concrete = scale.get_concrete_function(tj.TensorSpec([None], tj.float64))
w = concrete(np.ones(4))
print(concrete.ir(after="canonicalize"), scale.experimental_get_tracing_count())
gradient = tj.grad(lambda v: np.sum(v * v))(np.ones(2))
print(train(Dense(2, 3), np.ones((1, 2), np.float32), steps=2))
"""

WRONG_CALLS = """
import numpy as np
import tracejit as tj


@tj.function
def scale(x: np.ndarray, factor: float = 2.0) -> np.ndarray:
    return x * factor


class Model(tj.Module):
    @tj.function
    def __call__(self, x: np.ndarray) -> np.ndarray:
        return x


reveal_type(scale)
scale(np.ones(3), fator=3.0)
Model()(np.ones(3), 2)
"""


@pytest.fixture(scope="module")
def checked(wheel, tmp_path_factory) -> str:
    """mypy's report on the user file and the file of wrong calls, run by the venv's Python
    (so that it finds the installed tracejit)."""
    tmp = tmp_path_factory.mktemp("typing")
    python = fresh_venv(tmp / "venv")
    env = user_environment()
    install(python, wheel, tmp, env)
    elsewhere = tmp / "elsewhere"  # not the repository: its tracejit must not be found
    elsewhere.mkdir()
    (elsewhere / "user.py").write_text(textwrap.dedent(USER_FILE))
    (elsewhere / "wrong_calls.py").write_text(textwrap.dedent(WRONG_CALLS))
    found = run([python, "-c", "import tracejit; print(tracejit.__file__)"], elsewhere, env)
    assert str(tmp / "venv") in found, found  # the installed package, not the repository's
    command = [python, "-m", "mypy", "--cache-dir", tmp / "mypy_cache", "--no-error-summary"]
    return run([*command, "user.py", "wrong_calls.py"], elsewhere, env, check=False)


def test_the_wheel_ships_py_typed(wheel):
    import zipfile

    assert "tracejit/py.typed" in zipfile.ZipFile(wheel).namelist()


def test_a_user_file_type_checks_clean_against_the_installed_package(checked):
    problems = [line for line in checked.splitlines() if line.startswith("user.py")]
    assert not problems, "\n".join(problems)
    assert "Cannot find implementation or library stub" not in checked, checked


def test_mypy_sees_the_decorated_functions_parameters(checked):
    revealed = re.search(r'wrong_calls.py:\d+: note: Revealed type is "(.*)"', checked)
    assert revealed, checked
    assert revealed.group(1).startswith("tracejit.frontend.api.function.Function[[x: "), revealed
    assert re.search(r"factor: (builtins\.)?float =", revealed.group(1)), revealed


def test_mypy_reports_a_wrong_keyword_and_too_many_arguments(checked):
    assert 'error: Unexpected keyword argument "fator" for "__call__" of "Function"' in checked
    assert 'error: Too many arguments for "__call__" of "BoundFunction"' in checked
    errors = [line for line in checked.splitlines() if ": error:" in line]
    assert len(errors) == 2, checked
