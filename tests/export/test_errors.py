"""What cannot be saved fails at save time, and a damaged directory fails at load time,
always with a clear exception naming the problem (never a crash)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

import tracejit as tj
from tracejit.frontend.export.saved_model import LoadError, SaveError
from tracejit.frontend.export.saved_model import manifest as saved_model_manifest


def test_py_function_cannot_be_saved(tmp_path):
    @tj.function
    def f(x):
        return tj.py_function(lambda a: a + 1, [x], tj.TensorSpec([2], tj.float64))

    f(np.ones(2))
    with pytest.raises(SaveError, match="tj.py_function.*cannot hold Python"):
        tj.saved_model.save(f, tmp_path / "saved")
    assert not (tmp_path / "saved").exists()  # nothing written


def test_untraced_function_without_signature_cannot_be_saved(tmp_path):
    @tj.function
    def f(x):
        return x

    with pytest.raises(SaveError, match="never traced and has no input_signature"):
        tj.saved_model.save(f, tmp_path)
    holder = tj.Module()
    holder.g = f
    with pytest.raises(SaveError, match="'g' was never traced"):
        tj.saved_model.save(holder, tmp_path)


def test_nothing_to_save(tmp_path):
    with pytest.raises(SaveError, match="nothing to save"):
        tj.saved_model.save(tj.Module(), tmp_path)


def test_python_object_argument_cannot_be_saved(tmp_path):
    class Options:
        scale = 2.0

    @tj.function
    def f(x, options):
        return x * options.scale

    options = Options()  # alive: its trace is kept
    f(np.ones(2), options)
    with pytest.raises(SaveError, match="Python object as argument 2"):
        tj.saved_model.save(f, tmp_path)


@pytest.fixture
def saved(tmp_path):
    holder = tj.Module()
    holder.w = tj.Variable(np.ones(3))

    @tj.function
    def f(x):
        return x + holder.w

    holder.f = f
    f(np.zeros(3))
    tj.saved_model.save(holder, tmp_path)
    return tmp_path


def _manifest(directory):
    return json.loads((directory / "manifest.json").read_text())


def _write_manifest(directory, manifest):
    """Write an edited manifest with a valid checksum (as a deliberate edit would)."""
    manifest["checksum"] = saved_model_manifest.checksum(manifest)
    (directory / "manifest.json").write_text(json.dumps(manifest))


def test_missing_directory_and_manifest(tmp_path, saved):
    with pytest.raises(LoadError, match="not a directory saved"):
        tj.saved_model.load(tmp_path / "nowhere")
    (saved / "manifest.json").unlink()
    with pytest.raises(LoadError, match="no readable manifest.json"):
        tj.saved_model.load(saved)


def test_truncated_or_corrupt_manifest(saved):
    text = (saved / "manifest.json").read_text()
    (saved / "manifest.json").write_text(text[: len(text) // 2])
    with pytest.raises(LoadError, match="corrupt or truncated"):
        tj.saved_model.load(saved)
    (saved / "manifest.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(LoadError, match="manifest.json"):
        tj.saved_model.load(saved)


def test_manifest_changed_after_saving(saved):
    manifest = _manifest(saved)
    manifest["variables"][0]["shape"] = [4]  # valid JSON, but not what was saved
    (saved / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(LoadError, match="does not match its checksum"):
        tj.saved_model.load(saved)


def test_malformed_manifest_entries(saved):
    manifest = _manifest(saved)
    del manifest["functions"][0]["input_specs"]
    _write_manifest(saved, manifest)
    with pytest.raises(LoadError, match="malformed.*input_specs"):
        tj.saved_model.load(saved)


def test_newer_format_version(saved):
    manifest = _manifest(saved)
    manifest["format_version"] = 99
    _write_manifest(saved, manifest)
    with pytest.raises(LoadError, match="format version 99.*upgrade tracejit"):
        tj.saved_model.load(saved)


def test_truncated_or_missing_ir(saved):
    ir_file = saved / "functions" / "0.mlir"
    text = ir_file.read_text()
    ir_file.write_text(text[:-20])
    with pytest.raises(LoadError, match="0.mlir does not match its checksum"):
        tj.saved_model.load(saved)
    ir_file.unlink()
    with pytest.raises(LoadError, match="cannot read .*0.mlir"):
        tj.saved_model.load(saved)


def _replace_ir(directory, old, new):
    ir_file = directory / "functions" / "0.mlir"
    text = ir_file.read_text()
    assert old in text
    data = text.replace(old, new).encode()
    ir_file.write_bytes(data)
    manifest = _manifest(directory)
    manifest["functions"][0]["ir_sha256"] = hashlib.sha256(data).hexdigest()
    _write_manifest(directory, manifest)


def test_ir_that_fails_verification(saved):
    # the result type no longer matches the function type: the verifier refuses it
    _replace_ir(saved, "-> tensor<3xf64> {", "-> tensor<4xf64> {")
    with pytest.raises(LoadError, match="fails verification"):
        tj.saved_model.load(saved)


def test_ir_that_does_not_parse(saved):
    _replace_ir(saved, "tj.add", "tj.no_such_op")
    with pytest.raises(LoadError, match="does not parse"):
        tj.saved_model.load(saved)


def _replace_variable(directory, data: bytes):
    (directory / "variables" / "0.npy").write_bytes(data)
    manifest = _manifest(directory)
    manifest["variables"][0]["sha256"] = hashlib.sha256(data).hexdigest()
    _write_manifest(directory, manifest)


def test_variable_of_the_wrong_shape_or_unreadable(saved):
    path = saved / "variables" / "0.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # one bit of the value
    path.write_bytes(bytes(data))
    with pytest.raises(LoadError, match="0.npy does not match its checksum"):
        tj.saved_model.load(saved)
    np.save(path, np.ones(4))
    _replace_variable(saved, path.read_bytes())
    with pytest.raises(LoadError, match=r"shape \(4,\).*expect shape \(3,\)"):
        tj.saved_model.load(saved)
    _replace_variable(saved, b"\x93NUMPY garbage")
    with pytest.raises(LoadError, match="cannot read the Variable"):
        tj.saved_model.load(saved)
    path.unlink()
    with pytest.raises(LoadError, match="cannot read .*0.npy"):
        tj.saved_model.load(saved)


def test_manifest_cannot_name_files_outside_the_directory(saved):
    manifest = _manifest(saved)
    manifest["variables"][0]["file"] = "../../etc/passwd"
    _write_manifest(saved, manifest)
    with pytest.raises(LoadError, match="outside"):
        tj.saved_model.load(saved)


def test_corrupt_object_code_is_recompiled(saved):
    code = saved / "object_code" / "0.tjo"
    data = bytearray(code.read_bytes())
    data[-10] ^= 0xFF  # the checksum no longer matches: never handed to LLVM
    code.write_bytes(bytes(data))
    loaded = tj.saved_model.load(saved)
    assert loaded.f.used_object_code == [False]
    np.testing.assert_array_equal(loaded.f(np.arange(3.0)), np.arange(3.0) + 1)
