"""The lock files agree with pyproject.toml (issue 20, item 11).

requirements.lock (the image, `make run`) and requirements-dev.lock (`make test`, CI) are written
by `make lock`. A dependency added to pyproject.toml without running it, or a range moved past
the locked version, fails here instead of in a build that installs something else.
"""

import re
import tomllib
from pathlib import Path

import pytest
from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

BASE_DIR = Path(settings.BASE_DIR)
PROJECT = tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+) \\$", re.MULTILINE)


def pins(name: str) -> dict[str, Version]:
    text = (BASE_DIR / name).read_text()
    return {canonicalize_name(package): Version(version) for package, version in PIN.findall(text)}


def requirements(group: str | None) -> list[Requirement]:
    listed = PROJECT["dependencies"] if group is None else PROJECT["optional-dependencies"][group]
    return [Requirement(line) for line in listed]


@pytest.mark.parametrize(
    ("lock", "groups"),
    [("requirements.lock", [None]), ("requirements-dev.lock", [None, "dev"])],
)
def test_every_dependency_is_locked_at_a_version_it_allows(
    lock: str, groups: list[str | None]
) -> None:
    locked = pins(lock)
    for group in groups:
        for requirement in requirements(group):
            name = canonicalize_name(requirement.name)
            assert name in locked, f"{requirement} is not in {lock}: run `make lock`"
            assert requirement.specifier.contains(locked[name], prereleases=True), (
                f"{lock} pins {name}=={locked[name]}, outside {requirement}: run `make lock`"
            )


def test_tests_run_on_the_versions_that_are_deployed() -> None:
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    differing = {name: (v, dev.get(name)) for name, v in runtime.items() if dev.get(name) != v}
    assert not differing, f"pinned differently (runtime, dev): {differing}"


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock"])
def test_every_pin_carries_its_hashes(lock: str) -> None:
    text = (BASE_DIR / lock).read_text()
    # Each pin runs from its own line to the next pin's.
    entries = re.split(r"\n(?=[A-Za-z0-9])", text)[1:]
    assert len(entries) == len(pins(lock))
    for entry in entries:
        assert "--hash=sha256:" in entry, f"no hash: {entry.splitlines()[0]}"
    assert "--find-links" not in text and "--index-url" not in text, "no machine's own index"
