"""Two `orrery serve` processes on one real PostgreSQL share the approved BI examples: an answer approved through
one is listed by the other, and the other finds the run itself (the threads live in the same database)."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve"))
from scripted import ServerProcess  # noqa: E402
from test_feedback import QUESTION, answered  # noqa: E402

pytestmark = pytest.mark.integration


def test_two_servers_on_one_postgresql_share_the_examples(postgres, tmp_path):
    import psycopg

    with psycopg.connect(postgres, autocommit=True) as db:
        db.execute("CREATE DATABASE served_examples")
    url = postgres.rsplit("/", 1)[0] + "/served_examples"
    a, b = ServerProcess(tmp_path / "a", url), ServerProcess(tmp_path / "b", url)
    try:
        with httpx.Client(base_url=a.url, timeout=60) as one, httpx.Client(base_url=b.url, timeout=60) as two:
            answered(one, "bi", "b1", "b2")
            first = one.post("/threads/bi/runs/b2/approve", json={}).json()
            [listed] = two.get("/examples/tpch").json()
            assert listed["id"] == first["example"] and listed["question"] == QUESTION
            again = two.post("/threads/bi/runs/b2/approve", json={})  # the run is found through the other server
            assert again.status_code == 200 and again.json()["example"] == first["example"]  # stored once
            assert two.post("/threads/bi/runs/b2/reject", json={"withdraw": True}).json()["withdrawn"] == 1
            assert one.get("/examples/tpch").json() == []
    finally:
        a.stop()
        b.stop()
