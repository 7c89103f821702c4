"""tracejit-opt --split-input-file and --verify-diagnostics, mlir-opt's conventions for tests
of invalid IR, driven in-process through `main([...])`.

What the FileCheck files under tests/filecheck/ use them for is that each case passes; these
tests check what makes them trustworthy: a missing or unexpected error fails the run with a
report that says which, the line offsets count from the comment, and every position is a
line of the original file, not of its chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.passes import ModulePass

from tracejit.tools.mlir_input import Chunk, split_input
from tracejit.tools.opt_main import main
from tracejit.tools.pass_registry import ALL_PASSES


def cli(capsys, *argv: object) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path, text: str):
    path = tmp_path / "cases.mlir"
    path.write_text(text)
    return path


def function(name: str, body: str, header: str = "") -> str:
    """A function of %x: tensor<4xf32>, %y: tensor<3xf32> with `body` (one op line, %r)."""
    return (
        f"func.func @{name}(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {{\n"
        f"{header}"
        f"  {body}\n"
        "  func.return %r : tensor<4xf32>\n"
        "}\n"
    )


VALID = "%r = tj.add %x, %x : tensor<4xf32>"
BAD_BROADCAST = "%r = tj.broadcast_in_dim %y, dims = [0] : tensor<3xf32> to tensor<4xf32>"
BROADCAST_ERROR = "cannot broadcast dim of size 3 to 4"
PARSE_ERROR_LINE = "%r = tj.add %x,, %x : tensor<4xf32>"


def line_of(text: str, fragment: str, start: int = 0) -> int:
    """The 1-based number of the first line at or after line `start` containing `fragment`."""
    lines = text.split("\n")
    return next(i + 1 for i in range(start, len(lines)) if fragment in lines[i])


# --- splitting ------------------------------------------------------------------------------
def test_split_input_cuts_at_whole_marker_lines_and_counts_the_lines_before():
    text = "a\n// -----\nb\nc\n  // -----  \n// ----- IR after cse -----\nd\n"
    assert split_input(text) == [
        Chunk("a", 0),
        Chunk("b\nc", 2),
        Chunk("// ----- IR after cse -----\nd\n", 5),
    ]
    assert split_input("a\n") == [Chunk("a\n", 0)]


def test_split_output_is_each_chunks_output_separated_by_markers(capsys, tmp_path):
    first = function("first", VALID)
    second = function("second", "%r = tj.mul %x, %x : tensor<4xf32>")
    outputs = []
    for text in (first, second):
        alone = write(tmp_path, text)
        status, out, _ = cli(capsys, alone, "-p", "canonicalize")
        assert status == 0
        outputs.append(out)
    path = write(tmp_path, f"{first}// -----\n{second}")
    status, out, err = cli(capsys, path, "--split-input-file", "-p", "canonicalize")
    assert (status, err) == (0, "")
    assert out == outputs[0] + "// -----\n" + outputs[1]
    status, out, _ = cli(capsys, path)  # without the flag the marker is only a comment
    assert status == 0 and out.count("func.func") == 2 and "// -----" not in out


def test_split_output_goes_to_the_o_file(capsys, tmp_path):
    path = write(tmp_path, f"{function('a', VALID)}// -----\n{function('b', VALID)}")
    target = tmp_path / "out.mlir"
    status, out, _ = cli(capsys, path, "--split-input-file", "-o", target)
    assert status == 0 and out == ""
    assert target.read_text().count("// -----\n") == 1


def test_split_errors_point_at_the_files_lines_and_every_chunk_runs(capsys, tmp_path):
    text = (
        function("ok", VALID)
        + "// -----\n"
        + function("bad_op", BAD_BROADCAST)
        + "// -----\n"
        + function("bad_syntax", PARSE_ERROR_LINE)
        + "// -----\n"
        + function("ok_again", VALID)
    )
    path = write(tmp_path, text)
    status, out, err = cli(capsys, path, "--split-input-file")
    assert status == 1
    assert out.count("// -----\n") == 3 and "@ok(" in out and "@ok_again(" in out
    broadcast_line = line_of(text, "tj.broadcast_in_dim")
    parse_line = line_of(text, ",,")
    assert (broadcast_line, parse_line) == (7, 12)  # lines of the file, not of the chunk
    assert err.startswith(
        f"{path}:{broadcast_line}:3: error: 'tj.broadcast_in_dim' op tj.broadcast_in_dim "
        f"{BROADCAST_ERROR}\n  {BAD_BROADCAST}\n"
    )
    assert f"{path}:{parse_line}:18: error: operand expected\n  {PARSE_ERROR_LINE}\n" in err


# --- verifying the diagnostics --------------------------------------------------------------
def test_expected_errors_on_the_line_and_at_offsets_pass(capsys, tmp_path):
    text = (
        function("same_line", f"{BAD_BROADCAST} // expected-error {{{{{BROADCAST_ERROR}}}}}")
        + "// -----\n"
        + function("below", BAD_BROADCAST, f"  // expected-error @+1 {{{{{BROADCAST_ERROR}}}}}\n")
        + "// -----\n"
        + function("far_below", BAD_BROADCAST, "  // expected-error@+2 {{size 3 to 4}}\n  //\n")
        + "// -----\n"
        + function("above", BAD_BROADCAST)
        + "// expected-error @-3 {{'tj.broadcast_in_dim' op}}\n"
        + "// -----\n"
        + function(
            "parse_error", PARSE_ERROR_LINE, "  // expected-error @+1 {{operand expected}}\n"
        )
        + "// -----\n"
        + function("valid", VALID)
    )
    path = write(tmp_path, text)
    status, out, err = cli(capsys, path, "--split-input-file", "--verify-diagnostics")
    assert (status, err) == (0, "")
    assert out.count("// -----\n") == 5 and out.count("func.func") == 1  # @valid's output
    assert "@valid(" in out


def test_a_missing_expected_error_fails_and_says_which(capsys, tmp_path):
    text = function("first", BAD_BROADCAST, f"  // expected-error @+1 {{{{{BROADCAST_ERROR}}}}}\n")
    text += "// -----\n" + function("valid", VALID, "  // expected-error @+1 {{never reported}}\n")
    path = write(tmp_path, text)
    status, out, err = cli(capsys, path, "--split-input-file", "--verify-diagnostics")
    assert status == 1
    assert "@valid(" in out  # the chunk that had no error still prints its module
    comment_line = line_of(text, "never reported")
    assert err == (
        f'{path}:{comment_line}:6: error: expected error "never reported" was not produced\n'
    )


def test_an_unexpected_error_fails_and_is_printed_in_full(capsys, tmp_path):
    path = write(tmp_path, function("bad", BAD_BROADCAST))
    status, out, err = cli(capsys, path, "--verify-diagnostics")
    assert status == 1 and out == ""
    assert err == (
        f"{path}:2:3: error: unexpected error: 'tj.broadcast_in_dim' op tj.broadcast_in_dim "
        f"{BROADCAST_ERROR}\n  {BAD_BROADCAST}\n"
    )


def test_an_error_at_another_line_than_expected_is_both_missing_and_unexpected(capsys, tmp_path):
    # @+2 points at the func.return below the op, and the chunk starts after line 3 of the file.
    text = "// a first chunk\n\n// -----\n"
    text += function(
        "off_by_one", BAD_BROADCAST, f"  // expected-error @+2 {{{{{BROADCAST_ERROR}}}}}\n"
    )
    path = write(tmp_path, text)
    status, _, err = cli(capsys, path, "--split-input-file", "--verify-diagnostics")
    assert status == 1
    op_line, comment_line = line_of(text, "broadcast_in_dim %y"), line_of(text, "expected-error")
    assert (op_line, comment_line) == (6, 5)
    assert f"{path}:{op_line}:3: error: unexpected error: 'tj.broadcast_in_dim' op" in err
    assert err.endswith(
        f'{path}:{comment_line}:6: error: expected error "{BROADCAST_ERROR}" was not produced\n'
        f"note: an error with this text points at line {op_line}, not at line {comment_line + 2}\n"
    )


def test_each_expected_error_matches_one_error_in_its_own_chunk(capsys, tmp_path):
    # The same error expected twice: the second expectation is left over. An expectation in
    # the first chunk does not cover the second chunk's error.
    twice = f"  // expected-error @+2 {{{{{BROADCAST_ERROR}}}}}\n"
    twice += f"  // expected-error @+1 {{{{{BROADCAST_ERROR}}}}}\n"
    text = function("twice", BAD_BROADCAST, twice) + "// expected-error @+3 {{size 3}}\n// -----\n"
    text += function("uncovered", BAD_BROADCAST)
    uncovered_line = line_of(text, "broadcast_in_dim", line_of(text, "@uncovered"))
    assert uncovered_line == line_of(text, "@+3") + 3
    path = write(tmp_path, text)
    status, _, err = cli(capsys, path, "--split-input-file", "--verify-diagnostics")
    assert status == 1
    assert err.count("was not produced") == 2 and err.count("unexpected error") == 1
    assert f"{path}:{uncovered_line}:3: error: unexpected error" in err


@dataclass(frozen=True)
class Crash(ModulePass):
    """Raise like a buggy pass."""

    name = "crash"

    def apply(self, ctx, op):
        raise RuntimeError("boom")


def test_an_error_without_position_is_expected_at_unknown(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(ALL_PASSES, Crash.name, lambda: Crash)
    path = write(
        tmp_path, function("f", VALID, "  // expected-error @unknown {{'crash' failed}}\n")
    )
    assert cli(capsys, path, "-p", "crash", "--verify-diagnostics")[:2] == (0, "")
    path = write(tmp_path, function("f", VALID, "  // expected-error {{'crash' failed}}\n"))
    status, _, err = cli(capsys, path, "-p", "crash", "--verify-diagnostics")
    assert status == 1
    assert err.startswith(f"{path}: error: unexpected error: pass 'crash' failed: RuntimeError")
    assert "note: an error with this text points at no line, not at line 2\n" in err


@pytest.mark.parametrize(
    "directive",
    ["expected-note {{x}}", "expected-error @above {{x}}", "expected-error {{x}"],
)
def test_a_directive_the_tool_cannot_read_is_an_error(capsys, tmp_path, directive):
    path = write(tmp_path, function("f", VALID, f"  // {directive}\n"))
    status, _, err = cli(capsys, path, "--verify-diagnostics")
    assert status == 1 and err.startswith(f"{path}:2:6: error: cannot read this directive")
    path = write(tmp_path, "// prose may name expected-error comments\n" + function("f", VALID))
    assert cli(capsys, path, "--verify-diagnostics")[0] == 0


def test_a_bad_command_line_is_not_a_diagnostic(capsys, tmp_path):
    path = write(tmp_path, function("f", BAD_BROADCAST, "// expected-error @+1 {{size 3}}\n"))
    status, out, err = cli(
        capsys, path, "--split-input-file", "--verify-diagnostics", "-p", "nosuch"
    )
    assert status == 1 and out == ""
    assert err.startswith("tracejit-opt: error: -p: unknown pass 'nosuch'")
    status, _, err = cli(capsys, "model.py:f", "--signature", "f32[2]", "--verify-diagnostics")
    assert status == 1 and "need an .mlir input" in err
