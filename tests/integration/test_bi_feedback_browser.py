"""The web app's thumbs-up on a BI answer, in headless Chromium (as tests/integration/test_serve_browser.py): only
the run that answered with a query shows it, and clicking it keeps the question and SQL as an example; under a
declined answer, an empty 'Keep corrected SQL' box keeps a person's SQL for it."""

import sys
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "serve"))
from scripted import Live, apps, model_for  # noqa: E402

from orrery.llm.scripted import ScriptedModel  # noqa: E402
from orrery.serve import Settings, create_app  # noqa: E402

pytestmark = pytest.mark.integration
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUESTION = "How many shipments went to customers in United in 1995?"


DECLINED = "How many nations are there?"
DECLINE = {"request": "Count the nations' headcount", "kind": "cannot_answer", "values": [], "fields": ["headcount"]}


def declining(agent, body):
    """The served scripts, with the planner wrongly declining DECLINED (the data has no 'headcount')."""
    users = [m for m in body.messages if m.role == "user"]
    if agent == "bi" and users and users[-1].content == DECLINED:
        return ScriptedModel([DECLINE])
    return model_for(agent, body)


@pytest.fixture
def page(tmp_path):
    from playwright.sync_api import sync_playwright

    live = Live(create_app(Settings(model=declining, apps=apps(), data=tmp_path / "serve")))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.url_base = live.url
        yield pg
        browser.close()
    live.stop()
    assert not errors, errors


def _ask_and_pick_the_kingdom(page) -> None:
    """The question in the web app, and 'UNITED KINGDOM' as the answer to which 'United' it means."""
    page.goto(f"{page.url_base}/?agent=bi")
    page.fill("#message", QUESTION)
    page.press("#message", "Enter")
    page.wait_for_selector("#clarify:not([hidden])", timeout=120_000)
    page.fill("#clarify-answer", "UNITED KINGDOM")
    page.press("#clarify-answer", "Enter")


def test_thumbs_up_on_a_bi_answer_keeps_it_as_an_example(page):
    _ask_and_pick_the_kingdom(page)
    page.wait_for_selector(".feedback-bar button[data-verdict=approve]", timeout=120_000)
    assert page.locator(".feedback-bar").count() == 1  # not under the run that asked which 'United'
    page.click(".feedback-bar button[data-verdict=approve]")
    page.wait_for_selector(".feedback-bar >> text=Kept as an example")
    [example] = httpx.get(f"{page.url_base}/examples/tpch", timeout=30).json()
    assert example["question"] == QUESTION and "'UNITED KINGDOM'" in example["sql"]


FIX = (
    "SELECT count(DISTINCT o.o_orderkey) AS shipments FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
    "JOIN nation n ON c.c_nationkey = n.n_nationkey JOIN lineitem l ON l.l_orderkey = o.o_orderkey "
    "WHERE n.n_name = 'UNITED KINGDOM' AND year(l.l_shipdate) = 1995"
)


def test_wrong_opens_the_sql_to_correct_and_keeps_the_fix_once_the_server_accepts_it(page):
    _ask_and_pick_the_kingdom(page)
    page.click(".feedback-bar button[data-verdict=reject]", timeout=120_000)
    editor = page.locator("textarea.correction-sql")
    editor.wait_for()
    assert "'UNITED KINGDOM'" in editor.input_value()  # the agent's SQL, to edit
    editor.fill("DELETE FROM nation")
    page.click("button[data-verdict=correct]")
    page.wait_for_selector(".correction-said >> text=Not kept:")
    assert httpx.get(f"{page.url_base}/examples/tpch", timeout=30).json() == []
    editor.fill(FIX)
    page.click("button[data-verdict=correct]")
    page.wait_for_selector(".correction-said >> text=Kept as an example")
    [example] = httpx.get(f"{page.url_base}/examples/tpch", timeout=30).json()
    assert example["question"] == QUESTION and "DISTINCT o.o_orderkey" in example["sql"]
    assert example["sql"] in page.inner_text(".correction-said")  # the SQL the server kept, shown in the page
    keep, wrong = (page.locator(f"button[data-verdict={v}]").bounding_box() for v in ("correct", "reject"))
    assert keep["height"] == wrong["height"]  # the long kept SQL beside it wraps; the button stays on one line


def test_a_declined_answer_shows_an_empty_box_whose_sql_is_kept_for_its_question(page):
    page.goto(f"{page.url_base}/?agent=bi")
    page.fill("#message", DECLINED)
    page.press("#message", "Enter")
    editor = page.locator("textarea.correction-sql")
    editor.wait_for(timeout=120_000)
    assert editor.input_value() == "" and page.locator(".feedback-bar button[data-verdict=approve]").count() == 0
    editor.fill("DROP TABLE nation")
    page.click("button[data-verdict=correct]")
    page.wait_for_selector(".correction-said >> text=Not kept:")
    assert httpx.get(f"{page.url_base}/examples/tpch", timeout=30).json() == []
    editor.fill("SELECT count(*) AS n FROM nation")
    page.click("button[data-verdict=correct]")
    page.wait_for_selector(".correction-said >> text=Kept as an example")
    [example] = httpx.get(f"{page.url_base}/examples/tpch", timeout=30).json()
    assert (example["question"], example["sql"]) == (DECLINED, "SELECT COUNT(*) AS n FROM nation")
