"""Chapter 08's claims about CPUs other than this one, checked by compiling for them.

LLVM optimises a kernel for the host, so the chapter's executed blocks show only what every
CPU prints, and what depends on the CPU sits in a table and in excerpts that are not run
(`<!-- excerpt: llvm|asm on CPU... (TRIPLE) -->`). Here `axpy` is compiled as the JIT
compiles it, but for each CPU the chapter names (AVX2, AVX-512, NEON, SVE), and the
excerpts, the table and the output of the executed commands must hold for each of them.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

import llvmlite.binding as llvm
import numpy as np
import pytest

import tracejit as tj
from tracejit.codegen import translate_module
from tracejit.codegen.jit import _initialize, _optimize, _skip_optimizing_entry_points, host_cpu
from tracejit.compiler.driver import lower

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
CHAPTER = REPO_ROOT / "docs" / "tutorial" / "08-llvm-and-the-jit.md"
X86, ARM = "x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"
EXCERPT = re.compile(r"<!--\s*excerpt:\s*(llvm|asm) on ([\w\s.-]+?)\s*\((\S+)\)\s*-->")


def _load_run_docs():
    spec = importlib.util.spec_from_file_location("_docs_run_docs", REPO_ROOT / "docs/run_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run_docs = _load_run_docs()


def axpy(a, x, y):
    return a * x + y


def total(x):  # chapter 09's float sum
    return np.sum(x)


EXAMPLES = {
    "axpy": (axpy, (np.float32(2), np.ones(64, np.float32), np.ones(64, np.float32))),
    "total": (total, (np.ones(4096, np.float32),)),
}


@functools.cache
def unoptimised_llvm_ir(example: str) -> str:
    function, args = EXAMPLES[example]
    traced = tj.function(function).get_concrete_function(*args).graph.module
    return translate_module(lower(traced).module)


@functools.cache
def compiled_for(cpu: str, triple: str, features: str = "", example="axpy") -> tuple[str, str]:
    """(optimised LLVM IR, assembly) of an example for `cpu`, as `codegen/jit.py` makes them."""
    _initialize()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        target = llvm.Target.from_triple(triple)
    except RuntimeError:
        pytest.skip(f"this LLVM has no {triple} target")
    machine = target.create_target_machine(cpu=cpu, features=features, opt=3)
    module = llvm.parse_assembly(unoptimised_llvm_ir(example))
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    _skip_optimizing_entry_points(module)
    _optimize(module, machine)
    asm = machine.emit_assembly(module)  # as MCJIT's, this codegen leaves its mark on the IR
    return str(module), asm


def kernel(llvm_ir: str) -> str:
    """The body of @axpy (not of its entry points)."""
    return llvm_ir[llvm_ir.index("define noundef i32 @axpy(") :].split("\n}\n")[0]


def test_compiling_for_the_host_here_is_what_the_jit_does():
    args = (np.float32(2), np.ones(64, np.float32), np.ones(64, np.float32))
    concrete = tj.function(axpy).get_concrete_function(*args)
    cpu, features = host_cpu()
    llvm_ir, asm = compiled_for(cpu, llvm.get_default_triple(), features)
    assert llvm_ir.splitlines() == concrete.llvm_ir.splitlines()
    assert asm == concrete.asm


def table() -> list[tuple[str, str, int, int]]:
    """(cpu, triple, lanes, multiply/add pairs) for each CPU the chapter's table names."""
    rows = []
    for line in CHAPTER.read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith(("x86-64 with", "ARM with")):
            continue
        triple = X86 if cells[0].startswith("x86") else ARM
        lanes = int(re.fullmatch(r"`<(\d+) x float>`, \d+ bits", cells[2]).group(1))
        rows += [(cpu, triple, lanes, int(cells[3])) for cpu in re.findall(r"`([\w-]+)`", cells[1])]
    return rows


TABLE = table()
# The footnote's CPUs, and what it says of them (None: scalable vectors, any number).
FOOTNOTE = [("x86-64", X86, 4, 16), ("neoverse-v1", ARM, 4, None)]


def test_the_table_names_avx2_avx512_and_neon():
    assert {(cpu, lanes) for cpu, _, lanes, _ in TABLE} >= {
        ("haswell", 8), ("skylake-avx512", 8), ("znver4", 16), ("neoverse-n1", 4)
    }


@pytest.mark.parametrize(("cpu", "triple", "lanes", "pairs"), TABLE + FOOTNOTE)
def test_lanes_and_multiply_add_pairs(cpu, triple, lanes, pairs):
    body = kernel(compiled_for(cpu, triple)[0])
    # what the chapter's last python blocks print on any CPU
    assert re.search(r"fmul <(vscale x )?\d+ x float>", body), cpu
    assert "%found.conflict" in body and "fmul float" in body and "ret i32 0" in body, cpu
    if pairs is None:  # SVE
        assert set(re.findall(r"fmul <vscale x (\d+) x float>", body)) == {str(lanes)}
        return
    assert set(re.findall(r"<(\d+) x float>", body)) == {str(lanes)}, cpu
    assert len(re.findall(rf"fmul <{lanes} x float>", body)) == pairs, cpu
    assert len(re.findall(rf"fadd <{lanes} x float>", body)) == pairs, cpu


def chapter_blocks():
    return run_docs.parse_blocks(CHAPTER.read_text().split("\n"))


@pytest.mark.parametrize(("cpu", "triple"), [(c, t) for c, t, *_ in TABLE + FOOTNOTE])
def test_the_executed_commands_print_what_the_page_shows_on_every_cpu(cpu, triple):
    llvm_ir, asm = compiled_for(cpu, triple)
    checked = 0
    for block in chapter_blocks():
        if block.language != "console":
            continue
        for command, expected in run_docs.console_items(block):
            for flag, actual in (("--emit llvm", llvm_ir), ("--emit asm", asm)):
                if command.startswith("tracejit-opt docs/tutorial/examples/jit.py:axpy") and (
                    command.endswith(flag)
                ):
                    assert run_docs.matches("\n".join(expected), actual), (cpu, command)
                    checked += 1
    assert checked == 2


def excerpts() -> list[tuple[str, str, str, str]]:
    """(kind, cpu, triple, text) for each CPU of each excerpt block."""
    found = []
    for block in chapter_blocks():
        marker = next((m for m in map(EXCERPT.match, block.markers) if m), None)
        if marker:
            kind, cpus, triple = marker.groups()
            found += [(kind, cpu, triple, block.text) for cpu in cpus.split()]
    return found


def test_the_chapter_has_excerpts_for_avx2_avx512_and_neon():
    named = {(kind, cpu) for kind, cpu, _, _ in excerpts()}
    assert named >= {("llvm", "haswell"), ("asm", "haswell"), ("asm", "znver4")}
    assert ("asm", "neoverse-n1") in named


@pytest.mark.parametrize(
    ("kind", "cpu", "triple", "text"), excerpts(), ids=lambda v: v if len(v) < 20 else ""
)
def test_excerpt_is_what_llvm_gives_for_that_cpu(kind, cpu, triple, text):
    llvm_ir, asm = compiled_for(cpu, triple)
    lines = text.split("\n")
    expected = "\n".join(["..."] * (lines[0] != "...") + lines + ["..."] * (lines[-1] != "..."))
    assert run_docs.matches(expected, llvm_ir if kind == "llvm" else asm), (kind, cpu)


@pytest.mark.parametrize(("cpu", "triple"), [(c, t) for c, t, *_ in TABLE + FOOTNOTE])
def test_chapter_09s_float_sum_is_vectorised_on_every_cpu(cpu, triple):
    llvm_ir = compiled_for(cpu, triple, example="total")[0]
    assert re.search(r"fadd reassoc <(?:vscale x )?(\d+) x float>", llvm_ir), cpu
