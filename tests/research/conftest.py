from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from research_fakes import FACTORIES, LOCAL

from orrery.research.search import SearchBackend
from orrery.research.types import Document


@pytest.fixture(params=list(FACTORIES))
def make_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[list[Document]], SearchBackend]:
    return lambda docs: FACTORIES[request.param](docs, tmp_path)


@pytest.fixture(params=LOCAL)
def make_local(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[list[Document]], SearchBackend]:
    return lambda docs: FACTORIES[request.param](docs, tmp_path)
