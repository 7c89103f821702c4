"""The one piece of build configuration pyproject.toml cannot express: the package list.

The repository root is the package `tracejit` (pyproject.toml maps `tracejit` to `.`), and
setuptools' package finder names what it finds after the directories (`frontend`, not
`tracejit.frontend`). So this file finds every directory with an `__init__.py` and prefixes
it: a new subpackage is installed without being listed anywhere. tests/, docs/, benchmarks/
and examples/ are not part of the package. This file lives in the package's directory too:
`script_name` keeps it out of the wheel, and importing it does nothing.
"""

from setuptools import find_packages, setup

NOT_INSTALLED = ("tests", "docs", "benchmarks", "examples", "build", "dist")


def packages() -> list[str]:
    excluded = [pattern for name in NOT_INSTALLED for pattern in (name, f"{name}.*")]
    found = find_packages(where=".", exclude=excluded)  # only dirs with an __init__.py
    return ["tracejit", *(f"tracejit.{name}" for name in found)]


if __name__ == "__main__":  # as setuptools' build backend runs it
    # distutils' build_py leaves out the module that is the script_name.
    setup(packages=packages(), script_name="setup.py")
