"""The persistent cache reads only what no other user could have written (like ssh and
ccache): it makes its directory private, and a directory or entry that others can write, or
that another user owns, is not read -- a warning, a recompile, the same results."""

import os
import stat

import numpy as np
import pytest

import tracejit as tj
from tracejit.codegen import shared_library
from tracejit.compiler import driver, object_cache
from tracejit.frontend.api import config


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "_cache_dir", config._cache_dir)
    monkeypatch.setattr(config, "_cache_max_bytes", config._cache_max_bytes)
    monkeypatch.setattr(object_cache, "_warned", set())  # each test sees its warning
    tj.config.set_cache_dir(tmp_path / "nested" / "cache")
    return tmp_path / "nested" / "cache"


def wave(x):
    return np.sin(x) * 2.0 - x / 3.0


def compile_and_check(x):
    """A fresh Function (so it looks in the cache) gives NumPy's answer."""
    np.testing.assert_allclose(tj.function(wave)(x), wave(x), rtol=1e-6, atol=1e-12)


def test_the_cache_directory_is_created_private(cache_dir):
    x = np.linspace(-1, 1, 11)
    compile_and_check(x)
    shared_library.wait_for_builds()
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    for path in cache_dir.iterdir():  # the entries and libraries: nobody else may write them
        assert stat.S_IMODE(path.stat().st_mode) & 0o022 == 0, path
    hits = driver.object_cache().stats.hits
    compile_and_check(x)
    assert driver.object_cache().stats.hits == hits + 1  # trusted: read


def test_a_directory_others_can_write_is_not_read(cache_dir):
    x = np.linspace(-1, 1, 11)
    compile_and_check(x)
    shared_library.wait_for_builds()
    os.chmod(cache_dir, 0o777)
    cache = driver.object_cache()
    hits, untrusted = cache.stats.hits, cache.stats.untrusted
    with pytest.warns(RuntimeWarning, match=rf"{cache_dir}.*writable by everyone.*chmod 700"):
        compile_and_check(x)
    compile_and_check(x)  # warned once per path
    assert cache.stats.hits == hits and cache.stats.untrusted >= untrusted + 2
    os.chmod(cache_dir, 0o700)  # fixed as the warning says: read again
    compile_and_check(x)
    assert cache.stats.hits == hits + 1


def test_an_entry_another_user_owns_is_not_read(cache_dir, monkeypatch):
    x = np.linspace(-1, 1, 11)
    compile_and_check(x)
    shared_library.wait_for_builds()
    (entry,) = cache_dir.glob("*.tjo")
    # the tests may run as root, whose files are trusted: play another owner for files
    real_owner = object_cache.owner_uid
    monkeypatch.setattr(
        object_cache,
        "owner_uid",
        lambda st: 4242 if stat.S_ISREG(st.st_mode) else real_owner(st),
    )
    cache = driver.object_cache()
    hits = cache.stats.hits
    with pytest.warns(RuntimeWarning, match=rf"{entry}.*owned by another user \(uid 4242"):
        compile_and_check(x)
    assert cache.stats.hits == hits and entry.exists()  # not ours to delete


def test_group_writable_entries_are_refused_too(tmp_path):
    cache = object_cache.ObjectCache(tmp_path / "c")
    key = object_cache.cache_key("k")
    assert cache.store(key, b"code", {})
    os.chmod(cache.path(key), 0o620)
    with pytest.warns(RuntimeWarning, match="writable by its group"):
        assert cache.load(key) is None
    os.chmod(cache.path(key), 0o600)
    assert cache.load(key) is not None
