"""Run the code blocks of a Markdown file and compare what they print with what it shows.

    .venv/bin/python docs/run_docs.py docs/tutorial/01-tracing.md      # check one chapter
    .venv/bin/python docs/run_docs.py --update docs/guide.md           # rewrite stale outputs

`tests/docs/test_docs.py` runs this on every page under `docs/`, so a chapter whose example
stops working fails `make test`. The conventions a page follows:

* ```` ```python ```` blocks run in order, sharing one namespace per file, in the repository
  root, with tiered execution off (as in the test suite: what the machine code prints).
  Functions defined in them have source (AutoGraph and `inspect.getsource` work) and their
  line numbers are the Markdown file's. What a block prints to stdout must equal the
  ```` ```text ```` block right after it (only blank lines between); a block that prints
  something must be followed by one.
* ```` ```console ```` blocks hold `$ command` lines, each followed by its expected output.
  `tracejit-opt ...` runs in this process (as the console script would, but without a new
  interpreter per command); other commands run in bash with the venv's `bin` on `PATH`.
* In expected output a line that is exactly `...` stands for any number of lines, and `...`
  inside a line for any text: for timings, addresses and long listings.
* `<!-- output varies -->` on the line before a block: run it, but do not compare its output
  (timings). `<!-- file: PATH -->` before a block: the block must equal the file PATH.
* `<!-- needs: MODULE -->` before a block: run it (and compare its output) only when MODULE
  imports (an optional extra, such as `iree.compiler` for the interop sections).
* Any other block must have no language (diagrams): hand-written IR cannot drift in.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import linecache
import os
import re
import shlex
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
VARIES = "<!-- output varies -->"
FILE_MARKER = re.compile(r"<!--\s*file:\s*(\S+)\s*-->")
NEEDS_MARKER = re.compile(r"<!--\s*needs:\s*(\S+)\s*-->")
FENCE = re.compile(r"^```([\w+-]*)\s*$")
SHELL_SYNTAX = set("|&;<>()$`")


@dataclass
class Block:
    """One fenced block: its language, body lines and where it sits in the file."""

    language: str
    lines: list[str]
    start: int  # index of the opening fence line (0-based)
    end: int  # index of the closing fence line
    markers: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def first_line_number(self) -> int:  # 1-based line number of the body's first line
        return self.start + 2

    @property
    def varies(self) -> bool:
        return VARIES in self.markers


class DocError(AssertionError):
    """A block failed or printed something other than the page shows."""


def parse_blocks(lines: list[str]) -> list[Block]:
    blocks, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            raise DocError(f"line {i + 1}: unclosed code fence")
        blocks.append(Block(match.group(1), lines[i + 1 : end], i, end, _markers(lines, i)))
        i = end + 1
    return blocks


def _markers(lines: list[str], fence: int) -> list[str]:
    """The HTML comments on the non-blank lines directly above a fence."""
    found, i = [], fence - 1
    while i >= 0 and lines[i].strip().startswith("<!--"):
        found.append(lines[i].strip())
        i -= 1
    return found


# --- comparing output ------------------------------------------------------------------
def normalise(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def matches(expected: str, actual: str) -> bool:
    """`actual` equals `expected`, where a `...` line is any lines and `...` any text."""
    expected, actual = normalise(expected), normalise(actual)
    if "..." not in expected:
        return expected == actual
    parts = []
    for line in expected.split("\n"):
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.split("...")) + r"\n")
    return re.fullmatch("".join(parts), actual + "\n", flags=re.DOTALL) is not None


# --- running blocks ----------------------------------------------------------------------
def run_python(block: Block, namespace: dict, md_path: Path) -> str:
    """Execute a python block in `namespace`; return what it printed."""
    filename = str(md_path)
    source = "\n" * (block.first_line_number - 1) + block.text + "\n"
    code = compile(source, filename, "exec")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
    return out.getvalue()


def register_source(md_path: Path, lines: list[str], blocks: list[Block]) -> None:
    """Make the page's python blocks the "source file" of the code they define, at their
    own line numbers, so inspect.getsource (AutoGraph) finds a function's lines; mtime
    None keeps linecache.checkcache from dropping the entry."""
    source = [""] * len(lines)
    for block in blocks:
        if block.language == "python":
            source[block.start + 1 : block.end] = block.lines
    text = [line + "\n" for line in source]
    linecache.cache[str(md_path)] = (sum(map(len, text)), None, text, str(md_path))


def run_command(command: str) -> str:
    """One `$ command` of a console block; stdout and stderr, interleaved."""
    words = shlex.split(command)
    if words and words[0] == "tracejit-opt" and not (SHELL_SYNTAX & set(command)):
        return _run_opt_in_process(words[1:])
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        ["bash", "-c", command], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    return result.stdout + result.stderr


def _run_opt_in_process(argv: list[str]) -> str:
    from tracejit.tools.opt_main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        main(argv)
    return out.getvalue()


def console_items(block: Block) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$ ` line; `\\` continues a command."""
    items: list[tuple[str, list[str]]] = []
    pending = ""
    for line in block.lines:
        if pending:
            pending += " " + line.strip()
        elif line.startswith("$ "):
            pending = line[2:].strip()
        elif items:
            items[-1][1].append(line)
            continue
        elif line.strip():
            raise DocError(f"line {block.first_line_number}: console output before a `$` line")
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
        elif pending:
            items.append((pending, []))
            pending = ""
    return items


# --- one file ----------------------------------------------------------------------------
@dataclass
class Outcome:
    """What running a page found: failures, and the outputs to write with --update."""

    failures: list[str] = field(default_factory=list)
    replacements: dict[int, list[str]] = field(default_factory=dict)  # block index -> body
    insertions: dict[int, list[str]] = field(default_factory=dict)  # after block -> text
    error: DocError | None = None  # a block raised (its traceback is chained to it)


def run_file(md_path: Path, on_block: Callable[[Block], None] | None = None) -> Outcome:
    lines = md_path.read_text().split("\n")
    blocks = parse_blocks(lines)
    namespace: dict = {"__name__": "__doc_example__"}
    outcome = Outcome()
    register_source(md_path, lines, blocks)
    with _in_repo_root(), _fresh_tracejit_config():
        for index, block in enumerate(blocks):
            if on_block is not None:
                on_block(block)
            try:
                _check_block(md_path, blocks, index, namespace, outcome)
            except DocError as error:  # later blocks build on this one: stop here
                outcome.failures.append(str(error))
                outcome.error = error
                break
    return outcome


def _check_block(md_path: Path, blocks: list[Block], index: int, namespace: dict, outcome):
    block = blocks[index]
    if _lacks_module(block) or (
        block.language == "text" and index and _lacks_module(blocks[index - 1])
    ):
        return  # an optional extra's example, and its output
    where = f"{md_path}:{block.first_line_number}"
    marker = next((m for m in map(FILE_MARKER.match, block.markers) if m), None)
    if marker:
        wanted = (REPO_ROOT / marker.group(1)).read_text()
        if normalise(wanted) != normalise(block.text):
            outcome.failures.append(f"{where}: block differs from {marker.group(1)}")
            outcome.replacements[index] = normalise(wanted).split("\n")
    elif block.language == "python":
        _check_python(md_path, blocks, index, namespace, outcome)
    elif block.language == "console":
        _check_console(block, where, index, outcome)
    elif block.language == "text":
        previous = blocks[index - 1] if index else None
        if previous is None or previous.language != "python" or not _adjacent(previous, block):
            outcome.failures.append(f"{where}: a ```text block must follow a ```python block")
    elif block.language:
        outcome.failures.append(
            f"{where}: ```{block.language} blocks are not checked; use python, console, text "
            "(output), a <!-- file: --> marker, or no language"
        )


def _lacks_module(block: Block) -> bool:
    """A `<!-- needs: MODULE -->` block whose module is not installed."""
    import importlib.util

    for match in filter(None, map(NEEDS_MARKER.match, block.markers)):
        try:
            if importlib.util.find_spec(match.group(1)) is None:
                return True
        except ModuleNotFoundError:  # a parent package is missing
            return True
    return False


def _check_python(md_path: Path, blocks: list[Block], index: int, namespace: dict, outcome):
    block = blocks[index]
    where = f"{md_path}:{block.first_line_number}"
    try:
        printed = run_python(block, namespace, md_path)
    except Exception as error:  # report the page position, keep the chained traceback
        raise DocError(f"{where}: the block raised {type(error).__name__}: {error}") from error
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    has_text = following is not None and following.language == "text"
    if has_text and _adjacent(block, following):
        if following.varies or block.varies or matches(following.text, printed):
            return
        outcome.failures.append(_mismatch(where, following.text, printed))
        outcome.replacements[index + 1] = normalise(printed).split("\n")
    elif normalise(printed):
        outcome.failures.append(f"{where}: the block printed output but no ```text block follows")
        outcome.insertions[index] = ["", "```text", *normalise(printed).split("\n"), "```"]


def _check_console(block: Block, where: str, index: int, outcome: Outcome) -> None:
    body, stale = [], False
    for command, expected in console_items(block):
        actual = run_command(command)
        if block.varies or matches("\n".join(expected), actual):
            body += [f"$ {command}", *expected]
            continue
        outcome.failures.append(_mismatch(f"{where} `{command}`", "\n".join(expected), actual))
        body += [f"$ {command}", *normalise(actual).split("\n")]
        stale = True
    if stale:
        outcome.replacements[index] = body


def _adjacent(first: Block, second: Block) -> bool:
    """Only blank lines and markers (<!-- ... -->) between the two blocks."""
    between = second.start - first.end - 1
    return 0 <= between <= 1 + len(second.markers) and second.start > first.end


def _mismatch(where: str, expected: str, actual: str) -> str:
    return (
        f"{where}: output differs\n--- the page shows:\n{normalise(expected)}\n"
        f"--- the code printed:\n{normalise(actual)}\n---"
    )


@contextlib.contextmanager
def _in_repo_root():
    previous = os.getcwd()
    os.chdir(REPO_ROOT)
    try:
        yield
    finally:
        os.chdir(previous)


@contextlib.contextmanager
def _fresh_tracejit_config():
    import tracejit as tj

    # Tiering off, as in the test suite (tests/conftest.py): a page shows what the machine
    # code prints, not the graph interpreter's NumPy results (which may differ in the last
    # digit: transcendental functions); a page that shows tiering turns it on itself.
    tiered = tj.config.tiered_compilation()
    tj.config.run_functions_eagerly(False)
    tj.config.set_tiered_compilation(False)
    try:
        yield
    finally:
        tj.config.run_functions_eagerly(False)
        tj.config.set_tiered_compilation(tiered)


# --- --update ------------------------------------------------------------------------------
def update_file(md_path: Path, outcome: Outcome) -> None:
    """Rewrite the stale expected outputs of `md_path` with what the code printed."""
    lines = md_path.read_text().split("\n")
    blocks = parse_blocks(lines)
    for index in sorted(set(outcome.replacements) | set(outcome.insertions), reverse=True):
        block = blocks[index]
        if index in outcome.insertions:
            lines[block.end + 1 : block.end + 1] = outcome.insertions[index]
        if index in outcome.replacements:
            lines[block.start + 1 : block.end] = outcome.replacements[index]
    md_path.write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--update", action="store_true", help="rewrite stale outputs")
    args = parser.parse_args(argv)
    status = 0
    for md_path in args.files:
        outcome = run_file(md_path.resolve().relative_to(REPO_ROOT))
        for failure in outcome.failures:
            print(failure, file=sys.stderr)
        if outcome.error is not None and outcome.error.__cause__ is not None:
            traceback.print_exception(outcome.error.__cause__)
        if outcome.failures and args.update:
            update_file(REPO_ROOT / md_path.resolve().relative_to(REPO_ROOT), outcome)
            print(f"updated {md_path}", file=sys.stderr)
        status |= bool(outcome.failures)
    return status


if __name__ == "__main__":
    sys.exit(main())
