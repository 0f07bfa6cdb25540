"""What people taught the BI agent, over real HTTP (round 25): GET /memory/{connection} lists a database's approved
examples and kept field answers; POST /memory/{connection}/remove removes one (an example by id, a field by its
term). Tried as an attacker: no token, another site's Origin, another connection's item, forged and oversized ids,
path-like terms, oversized bodies; nothing is removed by any of them."""

from __future__ import annotations

from types import SimpleNamespace

import httpx
import pytest
from scripted import Live, apps, model_for

from orrery.bi.examples import ExampleMemory, open_examples
from orrery.serve import Settings, create_app

LAYER = SimpleNamespace(tables={"orders": {"columns": {"o_shippriority": {}}}})  # what `keep_field` checks


def taught(sessions) -> dict[str, int]:
    """An approved pair and a kept field on tpch, and the same on chinook; their ids."""
    memory = ExampleMemory(open_examples(sessions, embedder=None))
    ids = {}
    for db in ("tpch", "chinook"):
        ids[f"{db}_example"] = memory.examples.approve(db, f"How many orders in {db}?", "SELECT count(*) FROM orders")
        ids[f"{db}_field"] = memory.keep_field(db, LAYER, "shipping priorities", "orders.o_shippriority")
    memory.keep_field("tpch", LAYER, "night a week", None)
    return ids


@pytest.fixture
def server(tmp_path):
    live = Live(create_app(Settings(model=model_for, apps=apps(), data=tmp_path / "data", token="s3cret")))
    with httpx.Client(base_url=live.url, timeout=60, headers={"Authorization": "Bearer s3cret"}) as client:
        client.ids = taught(tmp_path / "data" / "sessions.db")
        yield client
    live.stop()


def test_a_connections_memory_is_listed_and_each_item_removed(server):
    listed = server.get("/memory/tpch").json()
    assert [e["id"] for e in listed["examples"]] == [server.ids["tpch_example"]]
    assert {(f["term"], f["column"]) for f in listed["fields"]} == {
        ("shipping priority", "orders.o_shippriority"),
        ("night a week", None),
    }
    r = server.post("/memory/tpch/remove", json={"example": server.ids["tpch_example"]})
    assert r.status_code == 200 and r.json()["removed"] == {"example": server.ids["tpch_example"]}
    assert server.post("/memory/tpch/remove", json={"field": "night a week"}).status_code == 200
    after = server.get("/memory/tpch").json()
    assert after["examples"] == [] and [f["term"] for f in after["fields"]] == ["shipping priority"]
    assert server.post("/memory/tpch/remove", json={"field": "night a week"}).status_code == 404  # gone
    chinook = server.get("/memory/chinook").json()  # the other connection is untouched
    assert len(chinook["examples"]) == 1 and len(chinook["fields"]) == 1


def test_another_connections_item_is_a_404_and_stays(server):
    for body in ({"example": server.ids["chinook_example"]}, {"example": server.ids["chinook_field"]}):
        assert server.post("/memory/tpch/remove", json=body).status_code == 404
    assert server.post("/memory/tpch/remove", json={"example": server.ids["tpch_field"]}).status_code == 404  # a field
    assert server.post("/memory/nowhere/remove", json={"field": "shipping priority"}).status_code == 404
    assert len(server.get("/memory/chinook").json()["examples"]) == 1
    assert len(server.get("/memory/tpch").json()["fields"]) == 2


FORGED = [
    {"example": "1"},
    {"example": "1 OR 1=1"},
    {"example": -1},
    {"example": 0},
    {"example": 1.0},
    {"example": True},
    {"example": 10**30},
    {"field": "../../sessions.db"},
    {"field": "orders/o_shippriority"},
    {"field": "Shipping Priority"},  # not the listed normal form
    {"field": "shipping  priority"},
    {"field": "x" * 65},
    {"field": ["shipping priority"]},
    {"field": "shipping priority", "example": 1},
    {},
    [1],
]


@pytest.mark.parametrize("body", FORGED, ids=[str(b)[:30] for b in FORGED])
def test_a_forged_item_is_a_400_and_removes_nothing(server, body):
    r = server.post("/memory/tpch/remove", json=body)
    assert r.status_code == 400, r.text
    after = server.get("/memory/tpch").json()
    assert len(after["examples"]) == 1 and len(after["fields"]) == 2


def test_the_boundary_no_token_another_origin_bad_connection_big_or_non_json_bodies(server):
    item = {"example": server.ids["tpch_example"]}
    bare = httpx.Client(base_url=str(server.base_url), timeout=60)
    assert bare.get("/memory/tpch").status_code == 401
    assert bare.post("/memory/tpch/remove", json=item).status_code == 401
    evil = {"Origin": "https://evil.example"}
    assert server.get("/memory/tpch", headers=evil).status_code == 403
    assert server.post("/memory/tpch/remove", json=item, headers=evil).status_code == 403
    assert server.get("/memory/a%20b").status_code == 400  # not an id
    assert server.get("/memory/..%2Fsecrets").status_code in (400, 404)
    assert server.post("/memory/%2e%2e/remove", json=item).status_code == 400  # a '..' segment
    padded = '{"field": "shipping priority"' + " " * 300 + "}"
    r = server.post("/memory/tpch/remove", content=padded, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    r = server.post("/memory/tpch/remove", content='{"field": "night a week"}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    assert (
        server.post(
            "/memory/tpch/remove", content="{not json", headers={"Content-Type": "application/json"}
        ).status_code
        == 400
    )
    after = server.get("/memory/tpch").json()
    assert len(after["examples"]) == 1 and len(after["fields"]) == 2
