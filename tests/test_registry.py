"""The registry every extension point shares: an entry of the wrong kind is refused in one line
naming it and where it comes from, plugins are read once however many threads ask, and an
optional package is checked for its version as well as its presence."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

import pytest

from dialbench.errors import DialbenchError
from dialbench.llm.base import Completion, ModelAPI, Request
from dialbench.llm.runner import Runner
from dialbench.llm.specs import BACKENDS
from dialbench.registry import MissingPackageError, RefusedEntry, Registry, Requirement
from tests.conftest import Register


@pytest.fixture
def plugin_site(tmp_path: Path) -> Iterator[Path]:
    """An installed distribution, `dialbench-wrong 0.2`, on the path for one test."""
    site = tmp_path / "site"
    info = site / "dialbench_wrong-0.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dialbench-wrong\nVersion: 0.2\n")
    sys.path.insert(0, str(site))
    yield info
    sys.path.remove(str(site))


def test_an_entry_that_is_no_subclass_of_the_base_is_refused_naming_it_and_its_origin(
    plugin_site: Path,
) -> None:
    (plugin_site / "entry_points.txt").write_text(
        "[dialbench.backends]\nwrong = collections:OrderedDict\nmissing = no_such_module:API\n"
    )
    backends: Registry[type[ModelAPI]] = Registry("backend", {}, group="backends", base=ModelAPI)
    with pytest.raises(DialbenchError) as wrong:
        backends.load("wrong")
    assert str(wrong.value) == (
        "backend 'wrong' 'collections:OrderedDict' (plugin dialbench-wrong 0.2) is "
        "<class 'collections.OrderedDict'>, not a subclass of ModelAPI"
    )
    with pytest.raises(DialbenchError, match=r"backend 'missing' 'no_such_module:API' \(plugin "):
        backends.load("missing")


def test_an_entry_whose_module_raises_is_refused_and_listings_skip_it_naming_it_once(
    plugin_site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (plugin_site.parent / "raising_plugin.py").write_text("raise RuntimeError('no config')\n")
    (plugin_site / "entry_points.txt").write_text("[dialbench.things]\nbroken = raising_plugin:X\n")
    things: Registry[object] = Registry("thing", {"one": "builtins:len"}, group="things")
    refused = "thing 'broken' 'raising_plugin:X' (plugin dialbench-wrong 0.2) cannot be loaded"
    with pytest.raises(RefusedEntry) as raised:
        things.load("broken")
    assert str(raised.value) == f"{refused} (RuntimeError: no config)"
    assert raised.value.problem == "cannot be loaded (RuntimeError: no config)"
    assert [name for name, _ in things.items()] == ["one"]
    assert [name for name, _ in things.items()] == ["one"]
    assert capsys.readouterr().err == f"dialbench: {refused} (RuntimeError: no config): skipped\n"


def test_a_registered_object_is_checked_as_well(register: Register) -> None:
    register(BACKENDS, "notapi", len)
    with pytest.raises(DialbenchError, match=r"backend 'notapi' \(registered in this process\)"):
        Runner(quiet=True).model("notapi:x")


def test_two_threads_asking_at_once_read_the_plugins_once(
    monkeypatch: pytest.MonkeyPatch, plugin_site: Path
) -> None:
    """Neither reads them a second time, and neither goes on before they are read."""
    (plugin_site / "entry_points.txt").write_text("[dialbench.things]\ntwo = builtins:abs\n")
    read = metadata.entry_points
    calls: list[str] = []

    def slow_read(**selection: Any) -> metadata.EntryPoints:
        calls.append(selection["group"])
        time.sleep(0.2)  # long enough for the other thread to arrive meanwhile
        return read(**selection)

    monkeypatch.setattr(metadata, "entry_points", slow_read)
    registry: Registry[object] = Registry("thing", {"one": "builtins:len"}, group="things")
    start = threading.Barrier(2)
    names: list[list[str]] = []

    def ask() -> None:
        start.wait()
        names.append(registry.names())

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["dialbench.things"]
    assert names == [["one", "two"], ["one", "two"]]


def test_a_requirement_checks_the_installed_version() -> None:
    Requirement("pydantic", "any", minimum="2.0").check()
    Requirement("yaml", "any", minimum="5.0", distribution="PyYAML").check()
    installed = metadata.version("PyYAML")
    with pytest.raises(MissingPackageError) as old:
        Requirement("yaml", "web", minimum="999.1", distribution="PyYAML").check()
    assert str(old.value) == (
        f"this model needs PyYAML 999.1 or newer, and {installed} is installed: "
        "pip install 'dialbench[web]'"
    )
    with pytest.raises(MissingPackageError, match=r"the no_such_module package: pip install"):
        Requirement("no_such_module", "nothing", minimum="1.0").check()


class NeedsNewerYaml(ModelAPI):
    requires: ClassVar[Requirement | None] = Requirement(
        "yaml", "future", minimum="999.1", distribution="PyYAML"
    )

    async def generate(self, request: Request) -> Completion:
        raise AssertionError("never called")


def test_a_backend_needing_a_newer_package_is_refused_when_its_model_is_made(
    register: Register,
) -> None:
    register(BACKENDS, "needs-newer", NeedsNewerYaml)
    with pytest.raises(MissingPackageError, match=r"PyYAML 999.1 or newer, and .* is installed"):
        Runner(quiet=True).model("needs-newer:x")
