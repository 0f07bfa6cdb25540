"""The long-term store on SQLite and a real PostgreSQL: scopes never leak, retention on write, full-text search,
untrusted ids and queries."""

from __future__ import annotations

import time

import pytest

from orrery.errors import DataError
from orrery.recall import Item, LongTermMemory, Retention, Scope, open_memory
from orrery.recall.store import fuse


def obs(text: str, tool: str = "lookup", **inp) -> Item:
    return Item("observation", text, tool, inp or {"q": text[:10]})


def test_a_thread_or_a_user_never_recalls_anothers_items(target):
    store = open_memory(target)
    mine = Scope("alice", "chat", "t1")
    store.add(mine, [obs("the warehouse in Rotterdam holds 40 pallets")])
    store.add(Scope("alice", "chat", "t2"), [obs("the warehouse in Hamburg holds 12 pallets")])
    store.add(Scope("bob", "chat", "t1"), [obs("the warehouse in Antwerp holds 99 pallets")])
    store.add(Scope("alice", "bi", "t1"), [obs("the warehouse in Lisbon holds 7 pallets")])

    one = store.search(mine, "warehouse pallets", 10)
    assert [i.content for i in one] == ["the warehouse in Rotterdam holds 40 pallets"]
    assert [i.content for i in store.items(mine)] == ["the warehouse in Rotterdam holds 40 pallets"]
    # the user's other threads of the same app, on request; never bob's items nor another app's
    both = {i.content for i in store.search(mine, "warehouse pallets", 10, threads="all")}
    assert both == {"the warehouse in Rotterdam holds 40 pallets", "the warehouse in Hamburg holds 12 pallets"}
    assert {i.scope.user for i in store.search(Scope("bob", "chat", "t1"), "warehouse", 10, threads="all")} == {"bob"}
    # removing needs the item's own scope
    other = store.items(Scope("bob", "chat", "t1"))[0]
    assert store.remove(mine, other.id) is False and store.items(Scope("bob", "chat", "t1"))


def test_retention_keeps_the_newest_items_of_each_scope_on_write(target):
    store = open_memory(target, retention=Retention(max_items=3))
    a, b = Scope("u", "chat", "a"), Scope("u", "chat", "b")
    store.add(b, [obs("b0")])
    for n in range(5):
        store.add(a, [obs(f"item{n}")])
    assert [i.content for i in store.items(a)] == ["item4", "item3", "item2"]
    assert [i.content for i in store.items(b)] == ["b0"]  # another scope's items are not counted nor dropped
    assert [i.content for i in store.search(a, "item0 item1 item2", 5)] == ["item2"]  # the index forgot them too


def test_retention_drops_items_older_than_max_age(target):
    store = open_memory(target, retention=Retention(max_items=None, max_age_days=1))
    s = Scope("u", "chat", "a")
    store.add(s, [Item("turn", "an old question", "user", created=time.time() - 3 * 86400)])
    store.add(s, [Item("turn", "a new question", "user")])
    assert [i.content for i in store.items(s)] == ["a new question"]


def test_full_text_ranks_the_relevant_item_first_and_stems(target):
    store = open_memory(target)
    s = Scope("u", "markets", "t")
    store.add(
        s,
        [
            obs("NVDA closed at 120.5 on 2024-06-03", "price", symbol="NVDA"),
            obs("AAPL closed at 190.1 on 2024-06-03", "price", symbol="AAPL"),
            obs("Headlines: chip makers rallied", "news", symbol="SOXX"),
        ],
    )
    top = store.search(s, "What did NVDA close at?", 3)
    assert top[0].content.startswith("NVDA") and top[0].input == {"symbol": "NVDA"} and top[0].tool == "price"
    assert store.search(s, "rallies of chips", 1)[0].tool == "news"  # porter / english stemming
    assert store.search(s, "zebra", 3) == []


@pytest.mark.parametrize("query", ['"', "NEAR(a b)", "a* OR -b", "');DROP TABLE orrery_memory;--", "::", "ü & | !"])
def test_untrusted_query_text_is_only_words(target, query):
    store = open_memory(target)
    s = Scope("u", "chat", "t")
    store.add(s, [obs("drop table a near b")])
    store.search(s, query, 3)  # no syntax error, whatever the text
    assert len(store.items(s)) == 1


@pytest.mark.parametrize("bad", ["", "../x", "a b", "x" * 129, "-lead"])
def test_scope_ids_must_match_one_strict_pattern(bad):
    with pytest.raises(DataError, match="not a valid id"):
        Scope(bad, "chat", "t")
    with pytest.raises(DataError, match="not a valid id"):
        Scope("u", "chat", bad)


def test_memory_survives_reopening_the_database(target):
    first = LongTermMemory.open(target, user="u", thread="t")
    first.remember(obs("the invoice 4471 was paid on March 3"))
    again = LongTermMemory.open(target, user="u", thread="t")  # a new store: as after a restart
    assert again.recall("when was invoice 4471 paid")[0].content == "the invoice 4471 was paid on March 3"


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = dict(fuse([1, 2, 3], [3, 1, 4]))
    assert fused[1] > fused[3] > fused[2] > fused[4]
    assert fused[1] == pytest.approx(1 / 61 + 1 / 62)


def test_a_search_given_the_querys_vector_does_not_embed_it(tmp_path):
    class Counting:
        name, calls = "counting", 0

        def embed(self, texts):
            import numpy as np

            self.calls += 1
            return np.ones((len(texts), 2), np.float32) / np.sqrt(2)

    embedder = Counting()
    store = open_memory(tmp_path / "m.db", embedder=embedder)
    store.add(Scope(), [Item("turn", "the orders of March")])
    vector = embedder.embed(["orders"])[0]
    embedder.calls = 0
    assert [i.content for i in store.search(Scope(), "orders", 1, mode="vector", vector=vector)] == [
        "the orders of March"
    ]
    assert embedder.calls == 0
