"""Save in one process, load and run in another where the defining module cannot be
imported: the saved directory alone must be enough (issue 22, item 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

MODEL_SOURCE = textwrap.dedent("""
    import numpy as np
    import tracejit as tj

    class Dense(tj.Module):
        def __init__(self, n, m):
            super().__init__()
            self.kernel = tj.Variable(np.linspace(-1, 1, n * m).reshape(n, m).astype(np.float32))
            self.bias = tj.Variable(np.arange(m, dtype=np.float32))

        @tj.function(input_signature=[tj.TensorSpec([None, 3], tj.float32)])
        def __call__(self, x):
            return np.tanh(x @ self.kernel + self.bias)

    class Model(tj.Module):
        def __init__(self):
            super().__init__()
            self.dense = Dense(3, 2)
            self.calls = tj.Variable(0, dtype=np.int64, trainable=False)

        @tj.function
        def predict(self, x, scale=2.0):
            self.calls.assign_add(1)
            return {"y": self.dense(x) * scale, "calls": self.calls.read_value()}

    @tj.function
    def poly(x, n):
        return x ** n + np.sum(x)
""")

SAVE = textwrap.dedent("""
    import sys
    import numpy as np
    import tracejit as tj
    import model_def

    model = model_def.Model()
    model.predict(np.ones((4, 3), np.float32))
    model.predict(np.ones((2, 3), np.float32), scale=0.5)
    tj.saved_model.save(model, sys.argv[1] + "/model")
    model_def.poly(np.arange(5.0), 3)
    tj.saved_model.save(model_def.poly, sys.argv[1] + "/poly")
""")

LOAD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tracejit as tj
    from tracejit.compiler import driver

    try:
        import model_def
        importable = True
    except ImportError:
        importable = False
    def forbidden(*args, **kwargs):
        raise AssertionError("compiled although the saved object code matches")
    driver.lower = forbidden  # the saved machine code must serve every call
    model = tj.saved_model.load(sys.argv[1] + "/model")
    poly = tj.saved_model.load(sys.argv[1] + "/poly")
    x = np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32)
    first = model.predict(x)
    second = model.predict(x[:2], scale=0.5)
    model.dense.kernel.assign(np.zeros((3, 2), np.float32))
    zeroed = model.predict(x)
    print(json.dumps({
        "importable": importable,
        "first": first["y"].tolist(), "calls": int(second["calls"]),
        "second": second["y"].tolist(), "zeroed": zeroed["y"].tolist(),
        "dense": model.dense(x).tolist(),
        "poly": poly(np.arange(5.0), 3).tolist(),
        "used": model.predict.used_object_code + poly.used_object_code,
        "variables": len(model.variables),
    }))
""")


def _run(script: str, argument: Path, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, str(argument)],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _expected_dense(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return np.tanh(x @ kernel + bias)


def test_a_saved_model_runs_where_its_module_cannot_be_imported(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "model_def.py").write_text(MODEL_SOURCE)
    _run(SAVE, tmp_path, cwd=source)
    shutil.rmtree(source)  # the defining module is gone

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = json.loads(_run(LOAD, tmp_path, cwd=elsewhere).strip().splitlines()[-1])

    assert result["importable"] is False
    assert all(result["used"]) and len(result["used"]) == 3
    kernel = np.linspace(-1, 1, 6).reshape(3, 2).astype(np.float32)
    bias = np.arange(2, dtype=np.float32)
    x = np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32)
    dense = _expected_dense(x, kernel, bias)
    np.testing.assert_allclose(result["first"], dense * 2.0, rtol=1e-6)
    np.testing.assert_allclose(result["second"], dense[:2] * 0.5, rtol=1e-6)
    assert result["calls"] == 2 + 2  # saved after two calls, then called twice
    np.testing.assert_allclose(result["zeroed"], np.tanh(np.zeros((4, 2)) + bias) * 2.0)
    np.testing.assert_allclose(result["dense"], np.tanh(bias) + np.zeros((4, 2)), rtol=1e-6)
    np.testing.assert_allclose(result["poly"], np.arange(5.0) ** 3 + 10.0)
    assert result["variables"] == 3
