"""`tracejit-opt <export_dir>:<name>`: --list the saved signatures; -p, --emit and --run
work on a saved function as on a traced Python function."""

from __future__ import annotations

import numpy as np
import pytest

import tracejit as tj
from tracejit.tools.opt_main import main


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    class Model(tj.Module):
        def __init__(self):
            super().__init__()
            self.w = tj.Variable(np.array([1.0, -2.0, 3.0], np.float32))

        @tj.function
        def predict(self, x, scale=2.0):
            return x * self.w * scale

    @tj.function
    def norm(x):
        return np.sum(x * x)

    model = Model()
    model.predict(np.ones(3, np.float32))
    model.predict(np.ones((2, 3), np.float32), scale=0.5)
    norm(np.arange(4.0))
    directory = tmp_path_factory.mktemp("cli")
    tj.saved_model.save(model, directory / "model")
    tj.saved_model.save(norm, directory / "norm")
    return directory


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_list_prints_the_signatures_as_flags(saved, capsys):
    status, out, _ = _run(capsys, f"{saved}/model:predict", "--list")
    assert status == 0
    assert '--signature "f32[3]" --arg scale=2.0' in out
    assert '--signature "f32[2,3]" --arg scale=0.5' in out
    assert "returns f32[2,3]" in out
    status, out, _ = _run(capsys, f"{saved}/model:", "--list")  # every saved function
    assert status == 0 and f"{saved}/model:predict: 2 saved signatures" in out


def test_p_empty_prints_the_saved_ir(saved, capsys):
    status, out, _ = _run(capsys, f"{saved}/norm:norm", "-p", "")
    assert status == 0
    assert "func.func @norm(%0: tensor<4xf64>) -> tensor<f64>" in out
    assert 'tj.reduce "sum"' in out


def test_emit_loops_lowers_the_saved_function(saved, capsys):
    status, out, _ = _run(capsys, f"{saved}/norm:", "--emit", "loops")
    assert status == 0 and "memref<4xf64>" in out and "tj." not in out


def test_run_selects_a_signature_and_matches_numpy(saved, capsys):
    status, out, _ = _run(
        capsys,
        f"{saved}/model:predict",
        "--signature",
        "f32[2,3]",
        "--arg",
        "scale=0.5",
        "--run",
        "--input",
        "x=[[1,2,3],[4,5,6]]",
    )
    assert status == 0
    expected = np.array([[1, 2, 3], [4, 5, 6]], np.float32) * [1, -2, 3] * 0.5
    assert np.array2string(expected).split("\n")[0].strip("[] ") in out


def test_clear_errors(saved, capsys):
    status, _, err = _run(capsys, f"{saved}/model:predict", "--emit", "tj")
    assert status == 1 and "2 saved signatures: choose one with --signature" in err
    status, _, err = _run(capsys, f"{saved}/model:nope", "--list")
    assert status == 1 and "no function 'nope'; saved functions: predict" in err
    status, _, err = _run(capsys, f"{saved}/model:predict", "--signature", "f32[5]")
    assert status == 1 and "no saved signature for these arguments" in err
    status, _, err = _run(capsys, "model.py:f", "--list")
    assert status == 1 and "--list needs a saved function" in err
