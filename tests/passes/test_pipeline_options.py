"""A pass is a function of its IR and its options: tile-matmul and stream-stores read no host
facts. `default_pipeline` fills given facts in as options; the compiler driver runs it with
this host's, so `@tj.function` compiles as before, and the cache key says the options."""

from __future__ import annotations

import numpy as np
import pytest

import tracejit as tj
from tracejit.compiler import driver, object_cache
from tracejit.compiler.host import host_last_level_cache_bytes, host_vector_target
from tracejit.compiler.options import OPTIONS, from_environment
from tracejit.passes.pipeline import DEFAULT_PIPELINE, Pipeline, default_pipeline
from tracejit.passes.stream_stores import DEFAULT_MIN_BYTES, StreamStoresPass
from tracejit.passes.tile_matmul import TileMatmulPass


def _options(spec: str) -> tuple[str, int]:
    passes = Pipeline.parse(spec).passes
    (tile,) = [p for p in passes if isinstance(p, TileMatmulPass)]
    (stream,) = [p for p in passes if isinstance(p, StreamStoresPass)]
    return tile.target, stream.min_bytes


def test_default_pipeline_fills_in_the_facts_it_is_given():
    text = default_pipeline(target="avx512", cache_bytes=1 << 20)
    assert "tile-matmul{target=avx512}" in text and "stream-stores{min-bytes=1048576}" in text
    assert Pipeline.parse(text).names == DEFAULT_PIPELINE
    assert _options(text) == ("avx512", 1 << 20)


def test_without_options_the_passes_are_deterministic():
    assert _options(",".join(DEFAULT_PIPELINE)) == ("avx2", 32 << 20) == ("avx2", DEFAULT_MIN_BYTES)


def test_a_bad_cache_size_is_refused():
    with pytest.raises(ValueError, match="cache_bytes"):
        default_pipeline(target="avx2", cache_bytes=-1)


@pytest.mark.parametrize("spelled", [DEFAULT_PIPELINE, list(DEFAULT_PIPELINE), "default"])
def test_the_driver_runs_the_default_pipeline_with_this_hosts_facts(spelled, monkeypatch):
    monkeypatch.setattr(OPTIONS, "stream_min_bytes", None)
    host = default_pipeline(target=host_vector_target(), cache_bytes=host_last_level_cache_bytes())
    assert driver.with_host_facts(spelled) == host


def test_the_stream_threshold_variable_still_applies_to_the_default_pipeline(monkeypatch):
    assert from_environment({"TRACEJIT_STREAM_MIN_BYTES": "0"}).stream_min_bytes == 0
    assert from_environment({"TRACEJIT_STREAM_MIN_BYTES": "lots"}).stream_min_bytes is None
    monkeypatch.setattr(OPTIONS, "stream_min_bytes", 0)
    assert _options(driver.with_host_facts(DEFAULT_PIPELINE))[1] == 0
    assert "min-bytes" not in driver.with_host_facts("stream-stores")  # not to other pipelines


def test_other_pipelines_run_as_given():
    names = [p for p in DEFAULT_PIPELINE if p != "fuse-elementwise"]
    assert driver.with_host_facts(names) == ",".join(names)
    assert driver.with_host_facts("tile-matmul{target=avx512}") == "tile-matmul{target=avx512}"


def test_the_cache_key_names_the_options(monkeypatch):
    keyed: list[tuple[str, ...]] = []
    monkeypatch.setattr(object_cache, "cache_key", lambda *parts: keyed.append(parts) or "k")
    module = tj.function(lambda x: x + 1).get_concrete_function(np.ones(3)).graph.module
    driver.object_code_key(module)
    (spec,) = [part for part in keyed[-1] if "tile-matmul" in part]
    assert f"tile-matmul{{target={host_vector_target()}}}" in spec
    assert "stream-stores{min-bytes=" in spec


def test_a_traced_matmul_is_tiled_for_this_host():
    """What `@tj.function` compiles did not change: the register tile is the host's."""
    a = np.ones((64, 64), np.float32)
    concrete = tj.function(lambda a, b: a @ b).get_concrete_function(a, a)
    tiled = str(concrete.ir(after="tile-matmul"))
    width = {"avx2": 16, "avx512": 32}[host_vector_target()]
    assert f"memref<6x{width}xf32>" in tiled
