"""tracejit-opt, driven in-process through `main([...])`.

The FileCheck tests in tests/filecheck/tracejit-opt/ show each flag's output; these tests
check what FileCheck cannot: the help never goes stale against the pass registry, the CLI
shows exactly what ConcreteFunction shows (one code path), errors carry positions and no
traceback, and `--run` computes what NumPy computes.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, TensorType, f32, i64
from xdsl.passes import ModulePass, get_pass_option_infos

import tracejit as tj
from tracejit.compiler import driver
from tracejit.passes import pipeline
from tracejit.passes.pipeline import DEFAULT_PIPELINE, NAMED_PIPELINES, PASSES
from tracejit.tools.op_stats import dialect_counts
from tracejit.tools.opt_main import main
from tracejit.tools.pass_info import description
from tracejit.tools.python_input import load_function
from tracejit.tools.run_module import format_results
from tracejit.tools.signature_parser import parse_signature

MODEL = textwrap.dedent(
    """
    import numpy as np

    def model(x, w, b):
        h = np.tanh(x @ w + b)
        return np.sum(h * h, axis=1) / 2, x - 1

    def wrap(x, y):
        return x * y + x, y * 3
    """
)
MODEL_SIGNATURE = "f32[6,4], f32[4,3], f32[3]"

VALID_IR = """builtin.module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = tj.constant dense<1.0> : tensor<4xf32>
    %a = tj.add %x, %one : tensor<4xf32>
    %r = tj.mul %a, %a : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}
"""


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "model.py"
    path.write_text(MODEL)
    return path


@pytest.fixture(scope="module")
def concrete(model_file):
    """The ConcreteFunction of the same trace the CLI makes of `model.py:model`."""
    function = tj.function(load_function(f"{model_file}:model").python_function)
    return function.get_concrete_function(*parse_signature(MODEL_SIGNATURE))


def dumps(text: str) -> list[tuple[str, str]]:
    """[(pass name, IR)] of the `// ----- IR after <pass> -----` dumps, in order."""
    parts = re.split(r"^// ----- IR after (\S+) -----\n", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]


# --- the help never goes stale -------------------------------------------------------------
def listed_passes(text: str) -> dict[str, str]:
    """{name: description} of the pass lines of a listing (option lines start with spaces)."""
    return dict(re.findall(r"^  ([a-z][a-z-]*) +(.*)$", text, flags=re.M))


@pytest.mark.parametrize("flag", ["--help", "--list-passes"])
def test_help_and_list_passes_show_exactly_the_registry(capsys, flag):
    status, out, _ = cli(capsys, flag)
    assert status == 0
    listed = listed_passes(out.split("passes:\n")[-1].split("default pipeline:")[0])
    assert listed == {name: description(name) for name in PASSES}
    assert f"default pipeline: {','.join(DEFAULT_PIPELINE)}\n" in out
    for name, passes in NAMED_PIPELINES.items():
        assert re.search(rf"^  {name} +{','.join(passes)}$", out, flags=re.M)


@dataclass(frozen=True)
class TagModule(ModulePass):
    """Put `tj.tag = factor` on the module (a test pass with an option)."""

    name = "tag-module"
    factor: int = 2

    def apply(self, ctx, op):
        op.attributes["tj.tag"] = IntegerAttr(self.factor, i64)


@dataclass(frozen=True)
class BreakMul(ModulePass):
    """Give the first tj.mul a wrong result type (a test pass that breaks the IR)."""

    name = "break-mul"

    def apply(self, ctx, op):
        mul = next(o for o in op.walk() if o.name == "tj.mul")
        mul.results[0]._type = TensorType(f32, [7])


@dataclass(frozen=True)
class Crash(ModulePass):
    """Raise like a buggy pass."""

    name = "crash"

    def apply(self, ctx, op):
        raise RuntimeError("boom")


@pytest.fixture
def test_passes(monkeypatch):
    for cls in (TagModule, BreakMul, Crash):
        monkeypatch.setitem(pipeline.PASSES, cls.name, lambda cls=cls: cls)


def test_pass_options_are_listed_and_reach_the_pass(capsys, tmp_path, test_passes):
    _, out, _ = cli(capsys, "--list-passes")
    infos = get_pass_option_infos(TagModule)
    assert [i.name for i in infos] == [f.name for f in dataclasses.fields(TagModule)]
    assert re.search(r"^  tag-module +Put `tj.tag = factor`.*\n +\{factor: int = 2\}$", out, re.M)
    source = tmp_path / "in.mlir"
    source.write_text(VALID_IR)
    status, out, _ = cli(capsys, source, "-p", "tag-module{factor=5},cse")
    assert status == 0 and "tj.tag = 5 : i64" in out


# --- one code path: the CLI shows what ConcreteFunction shows ---------------------------------
def test_dumps_and_final_ir_equal_concrete_function_ir(capsys, model_file, concrete):
    status, out, err = cli(
        capsys,
        f"{model_file}:model",
        "--signature",
        MODEL_SIGNATURE,
        "--pipeline",
        "default",
        "--print-ir-after-all",
    )
    assert status == 0 and out == concrete.ir() + "\n"  # the final module alone (mlir-opt's way)
    stages = dumps(err)  # the dumps go to stderr
    assert [name for name, _ in stages] == list(DEFAULT_PIPELINE)
    first = {}
    for name, ir in stages:
        first.setdefault(name, ir)
    for name, ir in first.items():
        assert ir == concrete.ir(after=name) + "\n"


def test_python_input_without_passes_lowers_to_cf_and_dumps_every_pass(
    capsys, model_file, concrete
):
    """What the README and the guide promise: `file.py:fn --signature ... --print-ir-after-all`
    shows every pass of the default pipeline, ending with what `--emit cf` prints."""
    base = (f"{model_file}:model", "--signature", MODEL_SIGNATURE)
    status, out, err = cli(capsys, *base, "--print-ir-after-all")
    assert status == 0 and out == concrete.ir() + "\n"
    assert [name for name, _ in dumps(err)] == list(DEFAULT_PIPELINE)
    assert cli(capsys, *base) == cli(capsys, *base, "--emit", "cf")
    assert cli(capsys, *base, "-p", "")[1] == str(concrete.graph) + "\n"  # no passes: the trace


def test_mlir_input_without_passes_is_a_round_trip(capsys, tmp_path):
    path = tmp_path / "in.mlir"
    path.write_text(VALID_IR)
    status, out, _ = cli(capsys, path, "--print-ir-after-all")
    assert status == 0 and out == VALID_IR.replace("dense<1.0>", "dense<1.000000e+00>")


def test_emit_tj_llvm_and_asm_equal_concrete_function(capsys, model_file, concrete):
    base = (f"{model_file}:model", "--signature", MODEL_SIGNATURE)
    assert cli(capsys, *base, "--emit", "tj")[1] == concrete.ir(after="cse") + "\n"
    assert cli(capsys, *base, "--emit", "cf")[1] == concrete.ir() + "\n"
    assert cli(capsys, *base, "--emit", "llvm")[1] == concrete.llvm_ir
    assert cli(capsys, *base, "--emit", "asm")[1] == concrete.asm


def test_print_changed_lists_exactly_the_passes_that_changed_the_ir(capsys, model_file, concrete):
    _, _, err = cli(
        capsys,
        f"{model_file}:model",
        "--signature",
        MODEL_SIGNATURE,
        "--emit",
        "cf",
        "--print-changed",
    )
    stages = driver.lower(concrete.graph.module, DEFAULT_PIPELINE, record_stages=True).stages
    previous, changed = str(concrete.graph), []
    for stage in stages:
        if stage.ir != previous:
            changed.append(stage.pass_name)
        previous = stage.ir
    assert len(changed) < len(stages)  # some pass changes nothing, so the test can fail
    assert [name for name, _ in dumps(err)] == changed


# --- --run computes what NumPy computes ------------------------------------------------------
def test_run_python_function_matches_numpy(capsys, tmp_path, model_file):
    rng = np.random.default_rng(0)
    x = rng.integers(-(2**31), 2**31, size=(2, 3), dtype=np.int64).astype(np.int32)
    y = np.array([[0, -1, 2**31 - 1], [7, -(2**31), 1]], np.int32)  # products wrap around
    np.save(tmp_path / "x.npy", x)
    status, out, _ = cli(
        capsys,
        f"{model_file}:wrap",
        "--signature",
        "i32[2,3], i32[2,3]",
        "--run",
        "--input",
        f"x={tmp_path / 'x.npy'}",
        "--input",
        f"y={y.tolist()}",
    )
    assert status == 0
    with np.errstate(over="ignore"):
        expected = (x * y + x, y * 3)
    assert out == format_results(expected)


def test_run_mlir_module_at_each_stage_matches_numpy(capsys, tmp_path):
    x = np.array([1.5, -2.0, np.nan, -np.inf], np.float32)
    expected = format_results((x + 1) * (x + 1))
    tj_file = tmp_path / "f.mlir"
    tj_file.write_text(VALID_IR)
    status, out, _ = cli(capsys, tj_file, "--run", "--input", f"x={x.tolist()}")
    assert status == 0 and out == expected
    loops_file = tmp_path / "loops.mlir"
    cli(capsys, tj_file, "--emit", "loops", "-o", loops_file)
    status, out, _ = cli(capsys, loops_file, "--run", "--input", f"arg0={x.tolist()}")
    assert status == 0 and out == expected.replace("result", "arg1")


def test_input_naming_no_argument_lists_the_names_it_accepts(capsys, tmp_path, model_file):
    """An IR file saved from a Python input names its arguments argN, not after the Python
    parameters; `--input x=` says which names to use instead of only that x is unknown."""
    kernel = tmp_path / "k.mlir"
    base = (f"{model_file}:wrap", "--signature", "i32[3], i32[3]")
    assert cli(capsys, *base, "--emit", "loops", "-o", kernel)[0] == 0
    status, out, err = cli(capsys, kernel, "--run", "--input", "x=[1, 2, 3]")
    assert status == 1 and out == ""
    assert err == (
        "tracejit-opt: error: --input x: the function has no such argument; its arguments: "
        "arg0, arg1, arg2, arg3 (argN: argument N, counted from 0, unnamed in the IR); "
        "e.g. --input arg0=FILE.npy|LITERAL\n"
    )
    inputs = ("--input", "arg0=[1, 2, 3]", "--input", "arg1=[1, 1, 1]")
    status, out, _ = cli(capsys, kernel, "--run", *inputs)
    assert status == 0 and out == "arg2: int32[3] = [2 4 6]\narg3: int32[3] = [3 3 3]\n"
    named = tmp_path / "named.mlir"
    named.write_text(VALID_IR)
    status, _, err = cli(capsys, named, "--run", "--input", "y=[1]", "--input", "x=[1, 2, 3, 4]")
    assert status == 1 and err.endswith(
        "--input y: the function has no such argument; its arguments: x; "
        "e.g. --input x=FILE.npy|LITERAL\n"
    )
    status, _, err = cli(capsys, *base, "--run", "--input", "z=[1, 2, 3]")
    assert status == 1 and "wrap(x, y): got an unexpected keyword argument 'z'" in err


# --- diagnostics -----------------------------------------------------------------------------
def test_hand_edited_invalid_ir_reports_file_line_col(capsys, tmp_path):
    path = tmp_path / "edited.mlir"
    edited = "%r = tj.broadcast_in_dim %a, dims = [1] : tensor<4xf32> to tensor<4xf32>"
    path.write_text(VALID_IR.replace("%r = tj.mul %a, %a : tensor<4xf32>", edited))
    status, out, err = cli(capsys, path)
    assert status == 1 and out == ""
    assert err == (
        f"{path}:5:5: error: 'tj.broadcast_in_dim' op tj.broadcast_in_dim dims [1] must "
        f"increase in range\n  {edited}\n"
    )


def test_parse_error_points_at_the_token(capsys, tmp_path):
    path = tmp_path / "typo.mlir"
    path.write_text(VALID_IR.replace("tj.add %x, %one", "tj.add %x,, %one"))
    status, _, err = cli(capsys, path)
    assert status == 1
    assert re.match(rf"{re.escape(str(path))}:4:20: error: operand expected\n", err)
    assert "Traceback" not in err


def test_pass_that_breaks_the_ir_is_named_with_the_op_position(capsys, tmp_path, test_passes):
    path = tmp_path / "in.mlir"
    path.write_text(VALID_IR)
    status, out, err = cli(
        capsys, path, "-p", "canonicalize,break-mul", "--print-ir-before=break-mul"
    )
    assert status == 1
    assert err.startswith("// ----- IR before break-mul -----\n")  # dumped before the failure
    err = err[err.index(f"{path}:5:5") :]
    assert err.startswith(f"{path}:5:5: error: 'tj.mul' op result 'result'")
    assert "  %r = tj.mul %a, %a : tensor<7xf32>\n" in err
    assert err.endswith("note: the IR was invalid after pass 'break-mul'\n")
    status, out, _ = cli(capsys, path, "-p", "break-mul", "--no-verify-each")
    assert status == 0 and "tensor<7xf32>" in out


def test_crashing_pass_is_one_line_without_traceback_unless_debug(capsys, tmp_path, test_passes):
    path = tmp_path / "in.mlir"
    path.write_text(VALID_IR)
    status, _, err = cli(capsys, path, "-p", "crash")
    assert status == 1
    assert err == f"{path}: error: pass 'crash' failed: RuntimeError: boom\n"
    status, _, err = cli(capsys, path, "-p", "crash", "--debug")
    assert status == 1 and "Traceback" in err and "RuntimeError: boom" in err


def test_unknown_dims_trace_to_dynamic_types(capsys, model_file):
    signature = "f32[?,4], f32[4,3], f32[3]"
    status, out, _ = cli(capsys, f"{model_file}:model", "--signature", signature, "-p", "")
    assert status == 0
    assert "tensor<?x4xf32>" in out


def test_unknown_rank_is_a_clean_error(capsys, model_file):
    status, _, err = cli(capsys, f"{model_file}:model", "--signature", "f32[*], f32[4,3], f32[3]")
    assert status == 1
    assert "unknown rank" in err


# --- reports ---------------------------------------------------------------------------------
def test_timing_has_a_row_per_step_and_stats_count_ops(capsys, model_file, concrete):
    status, out, err = cli(
        capsys,
        f"{model_file}:model",
        "--signature",
        MODEL_SIGNATURE,
        "--emit",
        "asm",
        "--timing",
        "--stats",
    )
    assert status == 0 and out == concrete.asm
    rows = re.findall(r"^ +\d+\.\d+ \( *\d+\.\d%\)  (.+)$", err, flags=re.M)
    assert rows == [
        "trace model",
        *DEFAULT_PIPELINE,
        "translate to LLVM IR",
        "LLVM parse + verify",
        "LLVM optimisation (O3)",
        "machine code generation",
        "assembly printing",
        "Total",
    ]
    before = dialect_counts(concrete.graph.module)
    assert re.search(rf"^tj +{before['tj']} +0$", err, flags=re.M)


def test_dot_graph_is_well_formed(capsys, model_file):
    status, out, _ = cli(
        capsys, f"{model_file}:model", "--signature", MODEL_SIGNATURE, "--emit", "dot"
    )
    assert status == 0
    assert out.startswith("digraph tj {\n") and out.count("{") == out.count("}")
    declared = set(re.findall(r"^ *(\w+) \[label=", out, flags=re.M))
    edges = re.findall(r"^  (\w+) -> (\w+);$", out, flags=re.M)
    assert edges and {node for edge in edges for node in edge} <= declared
    assert "subgraph cluster_0 {" in out and 'label="func.func @model";' in out
    assert '[label="tj.matmul\\ntensor<6x3xf32>"]' in out


def test_dot_labels_show_the_properties_that_tell_ops_apart(capsys, tmp_path):
    path = tmp_path / "reductions.mlir"
    path.write_text(
        """builtin.module {
  func.func @f(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<3xi64>) {
    %s = tj.reduce "sum" %x, axes = [1] : tensor<2x3xf32> to tensor<2xf32>
    %m = tj.reduce "max" %x, axes = [0] : tensor<2x3xf32> to tensor<3xf32>
    %a = tj.reduce "argmax" %x, axes = [0] : tensor<2x3xf32> to tensor<3xi64>
    func.return %s, %m, %a : tensor<2xf32>, tensor<3xf32>, tensor<3xi64>
  }
}
"""
    )
    status, out, _ = cli(capsys, path, "--emit", "dot")
    assert status == 0
    labels = re.findall(r'\[label="(tj\.reduce[^"]*)"\]', out)
    assert labels == [
        "tj.reduce\\nkind=sum, axes=[1]\\ntensor<2xf32>",
        "tj.reduce\\nkind=max, axes=[0]\\ntensor<3xf32>",
        "tj.reduce\\nkind=argmax, axes=[0]\\ntensor<3xi64>",
    ]
    # A long constant is cut short; a property at its default value (fastmath=none) is left out.
    values = ", ".join(f"{v}.5" for v in range(16))
    big = tmp_path / "big.mlir"
    big.write_text(
        f"""builtin.module {{
  func.func @g(%x: tensor<16xf32>) -> tensor<16xf32> {{
    %c = tj.constant dense<[{values}]> : tensor<16xf32>
    %r = tj.add %x, %c : tensor<16xf32>
    func.return %r : tensor<16xf32>
  }}
}}
"""
    )
    status, out, _ = cli(capsys, big, "--emit", "dot")
    assert status == 0
    (constant,) = re.findall(r'label="tj\.constant\\n(value=[^"]*)\\ntensor<16xf32>"', out)
    assert constant.startswith("value=dense<[5.000000e-01, 1.5") and constant.endswith("...")
    assert len(constant) == len("value=") + 40
    status, out, _ = cli(capsys, big, "--emit", "loops")
    (tmp_path / "loops.mlir").write_text(out)
    _, out, _ = cli(capsys, tmp_path / "loops.mlir", "--emit", "dot")
    assert 'label="arith.addf\\nf32"' in out and "fastmath" not in out


# --- the signature syntax --------------------------------------------------------------------
def test_signature_short_names_and_unknown_dims():
    specs = parse_signature(
        "f16[], f32[4,?], f64[*], i8[1], i16[2], i32[3], i64[?], "
        "u8[0], u16[1], u32[1], u64[1], bool[2,2]"
    )
    assert [s.dtype.name for s in specs] == [
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    ]
    assert [s.shape for s in specs[:3]] == [(), (4, None), None]
    with pytest.raises(ValueError, match="bad --signature entry"):
        parse_signature("f32[2], c256[2]")


def test_unknown_rank_signature_traces_the_rank_given(capsys, tmp_path):
    source = tmp_path / "ranked.py"
    source.write_text(
        "import numpy as np\nimport tracejit as tj\n\n"
        "@tj.function(input_signature=[tj.TensorSpec(shape=None, dtype=np.float32)])\n"
        "def double(x):\n    return x * 2\n"
    )
    code, out, _ = cli(capsys, f"{source}:double", "--signature", "f32[?,3]", "-p", "")
    assert code == 0 and "tensor<?x?xf32>" in out
    code, _, err = cli(capsys, f"{source}:double", "-p", "")
    assert code == 1 and "unknown rank" in err
