"""A new app (`shop_app.py`, under 60 lines) installed the way any app is, an `orrery.apps` entry point in a
dist-info folder on the path: `orrery apps` lists it, `orrery run` shows its answer and views, and `orrery serve`
runs it over real HTTP with its output and its table view, none of them knowing it."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from scripted import free_port, run_input

pytestmark = pytest.mark.integration
ROOT = Path(__file__).parents[2]


@pytest.fixture
def installed(tmp_path):
    """The environment of a process in which the shop app is installed (its package and its entry point)."""
    info = tmp_path / "site" / "orrery_shop-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: orrery-shop\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[orrery.apps]\nshop = shop_app:APP\n")
    path = os.pathsep.join([str(ROOT), str(ROOT / "tests" / "serve"), str(info.parent)])
    return {**os.environ, "PYTHONPATH": path, "ORRERY_DATA_DIR": str(tmp_path / "data")}


def orrery(env, *args):
    return subprocess.run(
        [sys.executable, "-m", "orrery", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_the_cli_lists_the_installed_toy_app_and_runs_it(installed):
    listed = orrery(installed, "apps")
    assert listed.returncode == 0, listed.stderr
    assert "shop" in listed.stdout and "Keeps a bookshop's shelf stocked." in listed.stdout
    ran = orrery(installed, "run", "shop", "restock Emma", "--json")
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["status"] == "completed" and out["output"] == "Restocked. Emma: 3 copies."
    assert out["views"] == [
        {
            "view": "table",
            "title": "Shelf",
            "columns": None,
            "sql": None,
            "rows": [{"title": "Dune", "copies": 2}, {"title": "Emma", "copies": 3}],
        }
    ]
    shown = orrery(installed, "run", "shop", "restock Emma")
    assert "Restocked. Emma: 3 copies." in shown.stdout and "Shelf" in shown.stdout and "Emma" in shown.stdout
    wrong = orrery(installed, "run", "shop", "restock Emma", "-i", "question=x")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "takes no input 'question'" in wrong.stderr


def test_orrery_serve_runs_the_toy_app_over_http(installed):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "orrery", "serve", "--port", str(port)],
        env=installed,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                agents = httpx.get(f"{url}/agents", timeout=2).json()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        shop = next(a for a in agents if a["name"] == "shop")
        assert shop["inputs"] == {"message": "what to stock"}
        with httpx.stream(
            "POST", f"{url}/agents/shop", json=run_input(thread="s", run="s1", text="restock Emma"), timeout=60
        ) as r:
            assert r.status_code == 200
            events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
        text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert text == "Restocked. Emma: 3 copies."
        table = next(e["value"] for e in events if e["type"] == "CUSTOM" and e["name"] == "orrery.table")
        assert table["rows"] == [{"title": "Dune", "copies": 2}, {"title": "Emma", "copies": 3}]
        boards = [e["snapshot"]["board"] for e in events if e["type"] == "STATE_SNAPSHOT"]
        assert boards[0] == "Shelf: Dune x2, Emma x0"  # the hook, before the first step
        assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"] == {"status": "completed"}
        bad = httpx.post(
            f"{url}/agents/shop",
            json=run_input(thread="s", run="s2", forwardedProps={"inputs": {"question": "restock Emma"}}),
        )
        assert bad.status_code == 400 and "takes no input 'question'" in bad.json()["error"]
    finally:
        proc.terminate()
        proc.wait(20)
