"""The web app's Memory view in headless Chromium (round 25, as tests/integration/test_bi_feedback_browser.py): for
the current database it lists the approved examples and kept field answers, as text, and each Remove button
removes that item on the server and nothing else; another database shows its own."""

import sys
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "serve"))
from scripted import Live, apps, model_for  # noqa: E402

from orrery.bi.examples import ExampleMemory, open_examples  # noqa: E402
from orrery.serve import Settings, create_app  # noqa: E402

pytestmark = pytest.mark.integration
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
LAYER = SimpleNamespace(tables={"orders": {"columns": {"o_shippriority": {}}}})
MARKUP = "Orders <img src=x onerror=window.pwned=1> per year?"  # shown as text, never run


@pytest.fixture
def page(tmp_path):
    from playwright.sync_api import sync_playwright

    live = Live(create_app(Settings(model=model_for, apps=apps(), data=tmp_path / "serve")))
    memory = ExampleMemory(open_examples(tmp_path / "serve" / "sessions.db", embedder=None))
    memory.examples.approve("tpch", MARKUP, "SELECT count(*) FROM orders")
    memory.keep_field("tpch", LAYER, "shipping priorities", "orders.o_shippriority")
    memory.keep_field("tpch", LAYER, "night a week", None)
    memory.examples.approve("chinook", "How many tracks?", "SELECT count(*) FROM track")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.url_base = live.url
        yield pg
        assert pg.evaluate("window.pwned") is None
        browser.close()
    live.stop()
    assert not errors, errors


def test_the_memory_view_lists_a_databases_items_and_removes_one(page):
    page.goto(f"{page.url_base}/?agent=bi")
    page.click("#memory-open")
    page.wait_for_selector("#memory-list .memory-item")
    assert page.text_content("#memory-title") == "Memory of tpch"
    rows = page.locator("#memory-list .memory-item")
    assert rows.count() == 3
    assert page.locator(".memory-item[data-kind=example]").text_content().count(MARKUP) == 1
    field = page.locator(".memory-item[data-kind=field]", has_text="'night a week'")
    assert "not held" in field.text_content()
    field.locator("button[data-remove]").click()
    page.wait_for_function("document.querySelectorAll('#memory-list .memory-item').length === 2")
    left = httpx.get(f"{page.url_base}/memory/tpch", timeout=30).json()
    assert [f["term"] for f in left["fields"]] == ["shipping priority"] and len(left["examples"]) == 1
    page.fill("#input-db", "chinook")
    page.click("#memory-open")
    page.wait_for_selector("#memory-title:text('Memory of chinook')")
    page.wait_for_selector("#memory-list .memory-item >> text=How many tracks?")
    assert page.locator("#memory-list .memory-item").count() == 1


def test_the_memory_button_is_shown_only_for_an_agent_over_a_database(page):
    page.goto(f"{page.url_base}/?agent=bi")
    page.wait_for_selector("#memory-open", state="visible")  # once the agents are loaded
    agents = httpx.get(f"{page.url_base}/agents", timeout=30).json()
    other = next(a["name"] for a in agents if "db" not in (a.get("inputs") or {}))
    page.select_option("#agent", other)
    page.wait_for_selector("#memory-open", state="hidden")
    assert page.text_content("#agent-desc") != "" and not page.is_visible("#memory-open")
