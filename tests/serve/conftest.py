import pytest
from fastapi.testclient import TestClient
from scripted import Live, apps, model_for

from orrery.serve import Settings, create_app


@pytest.fixture
def settings(tmp_path):
    return Settings(model=model_for, apps=apps(), data=tmp_path / "data", allowed_hosts=("testserver",))


@pytest.fixture
def client(settings):
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def live(settings):
    server = Live(create_app(settings))
    yield server
    server.stop()
