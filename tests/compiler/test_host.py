"""compiler/host.py: the vector target read from /proc/cpuinfo's flags."""

from tracejit.compiler.host import host_vector_target, vector_target_of


def cpuinfo(tmp_path, flags: str) -> str:
    path = tmp_path / "cpuinfo"
    path.write_text(f"processor\t: 0\nmodel name\t: some cpu\nflags\t\t: {flags}\n\n")
    return str(path)


def test_avx512f_is_the_avx512_target(tmp_path):
    assert vector_target_of(cpuinfo(tmp_path, "fpu sse2 avx avx2 fma avx512f avx512vl")) == "avx512"


def test_other_cpus_are_avx2_class(tmp_path):
    assert vector_target_of(cpuinfo(tmp_path, "fpu sse2 avx avx2 fma avx512_bf16")) == "avx2"
    assert vector_target_of(cpuinfo(tmp_path, "fp asimd evtstrm")) == "avx2"
    assert vector_target_of(str(tmp_path / "missing")) == "avx2"


def test_the_host_answer_is_one_of_the_targets():
    assert host_vector_target() in ("avx2", "avx512")
