"""The web app in headless Chromium (Debian's, driven by playwright): chat, forecast on an upload,
a clarification answered and resumed, a thread reopened after a reload. Screenshots go to a temporary folder;
`ORRERY_REFRESH_SCREENSHOTS=1 pytest tests/integration/test_serve_browser.py` refreshes docs/screenshots."""

import os
import sys
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "serve"))
from scripted import Live, apps, model_for  # noqa: E402

from orrery.serve import Settings, create_app  # noqa: E402

pytestmark = pytest.mark.integration
SAMPLE = ROOT / "orrery" / "forecast" / "samples" / "air_passengers.csv"
# A test run must not rewrite files in the repository: docs are refreshed only when asked.
SHOTS = ROOT / "docs" / "screenshots" if os.environ.get("ORRERY_REFRESH_SCREENSHOTS") else Path(tempfile.mkdtemp())
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = Live(create_app(Settings(model=model_for, apps=apps(), data=tmp_path_factory.mktemp("serve"))))
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # A request cut short by a reload is aborted, not failed.
    pg.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED" and errors.append(f"{r.url}: {r.failure}"))
    yield pg
    context.close()
    assert not errors, errors  # no script errors, no request left the loopback server


def shoot(page, name, full_page=True):
    page.add_style_tag(content="header { position: static }")  # a sticky header repeats mid-page in a full shot
    page.screenshot(path=SHOTS / name, full_page=full_page)


def ask(page, text):
    page.fill("#message", text)
    page.press("#message", "Enter")


def test_chat_agent_streams_steps_and_answers(server, page):
    page.goto(f"{server.url}/?agent=chat")
    ask(page, "what is 6*7")
    page.wait_for_selector(".assistant >> text=6*7 = 42")
    card = page.locator("details.tool[data-tool=calculate]")
    assert card.count() == 1
    page.locator("details.step > summary").first.click()
    card.locator("> summary").click()
    assert card.locator("pre.args").inner_text() == '{"expression": "6*7"}'
    assert card.locator("pre.result").inner_text() == "42"
    assert page.locator("details.step").count() == 2 and page.locator(".thought").inner_text() == "Let me compute that."
    page.wait_for_selector("#thread-list li >> text=what is 6*7")
    shoot(page, "chat.png")


def test_forecast_agent_on_the_uploaded_sample_shows_plot_bands_and_tables(server, page):
    page.goto(f"{server.url}/?agent=forecast")
    page.set_input_files("#input-data", str(SAMPLE))
    page.wait_for_selector("#upload-status >> text=144 rows")
    page.fill("#input-h", "12")
    ask(page, "forecast the next year")
    page.wait_for_selector(".card.forecast svg path.band-95", timeout=120_000)
    assert page.locator(".card.forecast svg path.band-80").count() == 1
    assert page.locator(".card.forecast tbody tr").count() == 12
    page.wait_for_selector("text=Cross-validation (MASE, lower is better)")
    assert page.locator("details.tool").count() == 4
    img = page.locator(".artifacts img")
    img.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('.artifacts img').naturalWidth > 0")
    expect(page.locator(".assistant").last).to_contain_text("Best model by cross-validation", timeout=30_000)
    shoot(page, "forecast.png")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(page, "forecast-phone.png", full_page=False)


def test_clarification_answered_resumes_and_thread_reopens_after_reload(server, page):
    page.goto(f"{server.url}/?agent=clarify")
    ask(page, "book me a trip")
    page.wait_for_selector("#clarify:not([hidden])")
    assert page.inner_text("#clarify-q") == "Which city should I book the trip to?"
    shoot(page, "clarification.png")
    page.fill("#clarify-answer", "Lisbon")
    page.press("#clarify-answer", "Enter")
    page.wait_for_selector(".assistant >> text=Done: booked a trip to Lisbon.")
    assert page.locator("#clarify").is_hidden()
    # A slow network: the reloaded thread arrives after the user has already started a new conversation.
    page.add_init_script(
        "const f = window.fetch; window.fetch = (u, o) => String(u).includes('/threads/') ? "
        "new Promise((r) => setTimeout(r, 700)).then(() => f(u, o)) : f(u, o);"
    )
    page.reload()  # a fresh page: the thread comes back from the server
    page.click("#new")
    page.wait_for_timeout(1500)  # the delayed thread has landed by now, and must not fill the new conversation
    assert page.locator("#log > *").count() == 0
    page.click("#thread-list li >> text=book me a trip")
    page.wait_for_selector(".assistant >> text=Done: booked a trip to Lisbon.")
    users = page.locator("#log .user").all_inner_texts()
    assert users == ["book me a trip", "Lisbon"]
    assert page.locator(".question").inner_text() == "Which city should I book the trip to?"
    assert "thread=" in page.url
    shoot(page, "thread-reopened.png")


def test_approve_runs_the_tool_and_shows_its_result_with_arguments_as_text(server, page):
    # A loaded machine: the stream closes a second after its last event (the approval is on screen by then).
    page.add_init_script(
        "const r = ReadableStreamDefaultReader.prototype.read; ReadableStreamDefaultReader.prototype.read = "
        "function () { return r.call(this).then((x) => x.done ? new Promise((ok) => setTimeout(() => ok(x), 1000)) : x); };"
    )
    page.goto(f"{server.url}/?agent=approve")
    markup = "<b id=x>hello</b><img src=nowhere onerror=window.hacked=1>"
    ask(page, markup)
    page.wait_for_selector("#approvals:not([hidden]) .approval")
    card = page.locator(".approval")
    assert card.locator("strong").inner_text() == "Run write_note?"
    assert '"text": "<b id=x>hello</b>' in card.locator("pre.arguments").inner_text()
    assert page.locator("#approvals b, #approvals img").count() == 0
    assert page.evaluate("window.hacked") is None
    assert "thread=" in page.url  # named when the run started, not when its stream closed
    page.reload()  # the pending approval comes back with the thread
    page.wait_for_selector("#approvals:not([hidden]) .approval")
    shoot(page, "approval.png")
    page.click(".approval button.approve")
    # The text streams in deltas: wait for all of it, not for its first words.
    expect(page.locator(".assistant").last).to_contain_text(f"Done: wrote '{markup}", timeout=30_000)
    assert page.locator("#approvals").is_hidden()


def test_bi_with_the_approve_sql_box_shows_the_query_and_runs_it_once_approved(server, page):
    import scripted

    scripted.CALLS.clear()
    page.goto(f"{server.url}/?agent=bisql")
    page.check("#input-approve_sql")
    ask(page, "How many nations are there?")
    page.wait_for_selector("#approvals:not([hidden]) .approval")
    assert "SELECT COUNT(*) AS nations FROM nation" in page.locator(".approval pre.arguments").inner_text()
    assert scripted.CALLS == []  # nothing ran on the database yet
    page.click(".approval button.approve")
    page.wait_for_selector(".assistant >> text=Summary:")
    assert scripted.CALLS == ["sql"] and page.locator("#approvals").is_hidden()


def test_deny_in_the_browser_runs_nothing(server, page):
    page.goto(f"{server.url}/?agent=approve")
    ask(page, "never write this")
    page.click(".approval button.deny")
    page.wait_for_selector(".assistant >> text=Done: Denied")


def test_an_open_question_survives_a_reload(server, page):
    page.goto(f"{server.url}/?agent=clarify")
    ask(page, "plan a holiday")
    page.wait_for_selector("#clarify:not([hidden])")
    page.wait_for_url("**thread=**")
    page.goto(page.url)  # the URL carries the thread
    page.wait_for_selector("#clarify:not([hidden])")
    page.fill("#clarify-answer", "Porto")
    page.press("#clarify-answer", "Enter")
    page.wait_for_selector(".assistant >> text=Done: booked a trip to Porto.")


def test_a_plan_shows_its_progress_and_resumes_after_the_answer(server, page):
    page.set_viewport_size({"width": 390, "height": 844})  # on a phone
    page.goto(f"{server.url}/?agent=planner")
    ask(page, "shipments to Miami last week")
    page.wait_for_selector("#clarify:not([hidden])")  # the run has finished with its question
    page.wait_for_selector(".card.plan h3 >> text=Plan: 1/3 done")
    assert page.locator(".card.plan li").all_inner_texts() == [
        "Resolve last week (done)",
        "Resolve the port (paused)",
        "Fetch the shipments (pending)",
    ]
    assert page.inner_text("#clarify-q") == "Which Miami: Port of Miami or Miami Container Terminal?"
    shoot(page, "plan-phone.png")
    page.fill("#clarify-answer", "Port of Miami")
    page.press("#clarify-answer", "Enter")
    page.wait_for_selector(".card.plan h3 >> text=Plan: 3/3 done")
    page.wait_for_selector(".assistant >> text=Found shipments to PORT:Port of Miami")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_price_rows_show_as_candlesticks_and_query_results_as_table_and_bars(server, page):
    page.goto(f"{server.url}/?agent=views")
    ask(page, "how did AAPL do and which region sells most?")
    page.wait_for_selector(".assistant >> text=AAPL rose over the month; north sells most.")
    assert page.locator("svg rect.candle").count() == 30
    assert page.locator("svg path[data-name=sma_5]").count() == 1
    assert page.locator(".card.result tbody tr").all_inner_texts() == ["east\t120.500", "west\t98", "north\t143.250"]
    assert page.locator(".card.result svg rect.bar").count() == 3
    shoot(page, "charts.png")


def test_research_shows_its_source_board(server, page):
    # A loaded machine: the list of agents arrives late, and the user types at once (the box waits for it).
    page.add_init_script(
        "const f = window.fetch; window.fetch = (u, o) => String(u).endsWith('/agents') ? "
        "new Promise((r) => setTimeout(r, 1000)).then(() => f(u, o)) : f(u, o);"
    )
    page.goto(f"{server.url}/?agent=research")
    ask(page, "Will the incumbent win the election?")
    page.wait_for_selector(".card.board h3 >> text=Source board · P = 0.6")
    assert page.locator(".card.board details.tool").count() == 1
    assert "Polymarket" in page.locator(".card.board summary").inner_text()
    shoot(page, "research.png")


def test_markets_price_history_shows_as_candlesticks(server, page):
    page.goto(f"{server.url}/?agent=markets")
    # "query" is the message box; the one input is the approval switch, off (the inputs come with the app's
    # schema, fetched after the page loads: wait for them)
    page.wait_for_selector("#input-approve_tools", state="attached")
    assert page.locator("#inputs input").count() == 1 and not page.is_checked("#input-approve_tools")
    ask(page, "Show Apple's daily prices for the last two months of 2012")
    page.wait_for_selector(".assistant >> text=Apple's daily prices for November and December 2012", timeout=120_000)
    candles = page.locator("svg rect.candle").count()
    assert 35 <= candles <= 40  # trading days in Nov-Dec 2012 (limit 40)
    assert "AAPL" in page.locator(".card h3").first.inner_text()
    page.wait_for_selector(".assistant >> text=Figures from the tools:")  # rendered after the streamed answer
    answers = page.locator(".assistant").all_inner_texts()  # the streamed answer, then what the app checked
    assert answers[0] == "Apple's daily prices for November and December 2012 are in the chart."
    assert answers[1].startswith("Figures from the tools:") and "596.54" in answers[1]
    shoot(page, "markets.png")


def test_bi_asks_which_united_then_shows_the_query_result(server, page):
    page.goto(f"{server.url}/?agent=bi")
    ask(page, "How many shipments went to customers in United in 1995?")
    page.wait_for_selector("#clarify:not([hidden])", timeout=120_000)
    assert page.inner_text("#clarify-q") == "Which 'United' do you mean: UNITED KINGDOM or UNITED STATES?"
    page.fill("#clarify-answer", "UNITED KINGDOM")
    page.press("#clarify-answer", "Enter")
    page.wait_for_selector("#state .card.result tbody tr", timeout=120_000)
    assert int(page.locator("#state .card.result tbody td").first.inner_text()) > 0
    assert "'UNITED KINGDOM'" in page.inner_text("#state pre.sql")
    shoot(page, "bi.png")


def test_a_server_with_a_token_signs_in_from_a_link_or_the_form_and_never_puts_it_in_a_url(tmp_path, browser):
    live = Live(create_app(Settings(model=model_for, apps=apps(), data=tmp_path, token="s3cret-token")))
    sent = []
    try:
        for how in ("link", "form"):
            context = browser.new_context(viewport={"width": 1100, "height": 700})
            pg = context.new_page()
            pg.on("request", lambda r: sent.append(r.url))
            if how == "link":  # the fragment never reaches the server; the page trades it for a cookie
                pg.goto(f"{live.url}/?agent=chat#token=s3cret-token")
            else:
                pg.goto(f"{live.url}/?agent=chat")
                pg.wait_for_selector("#login:not([hidden])")
                pg.fill("#login-token", "wrong")
                pg.press("#login-token", "Enter")
                pg.wait_for_selector("#login-error >> text=wrong token")
                shoot(pg, "sign-in.png")
                pg.fill("#login-token", "s3cret-token")
                pg.press("#login-token", "Enter")
            pg.wait_for_selector("#agent option[value=chat]", state="attached")
            assert "token" not in pg.url
            ask(pg, "what is 6*7")
            pg.wait_for_selector(".assistant >> text=6*7 = 42")
            assert pg.locator("#login").is_hidden()
            context.close()
    finally:
        live.stop()
    assert sent and not [u for u in sent if "s3cret" in u]


def test_a_forecast_without_an_upload_says_what_to_do(server, page):
    page.goto(f"{server.url}/?agent=forecast")
    ask(page, "/etc/passwd")  # a path as the message is never read as the data
    page.wait_for_selector(".error >> text=input 'data' takes an upload id")
    shoot(page, "forecast-no-upload.png")
