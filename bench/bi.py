"""Execution accuracy of the BI agent on questions written for Chinook and TPC-H (scale 0.01), DuckDB.

Each question has gold SQL (or none: the data cannot answer it). The agent answers with a fresh session,
`--no-clarify` (it takes the most likely reading), and no prose summary (`prose=False`: the final answer is
the result; the summary is not what is scored). A question counts as correct when the agent's result rows
equal the gold rows: as multisets (order-insensitive) unless the gold query orders its output and the
question asks for an order; values are compared after rounding numbers to 2 decimals and, within a row,
regardless of column order (Spider-style execution accuracy). An unanswerable question is correct when
the agent answers `cannot_answer` and runs no SQL.

    nice -n 10 python bench/bi.py                    # the embedded model, all questions
    nice -n 10 python bench/bi.py --limit 20         # the first 20 (the order interleaves both databases)
    python bench/bi.py --llm http://127.0.0.1:8080/v1  # an OpenAI-compatible endpoint
    python bench/bi.py --check                       # only check that every gold query runs
    python bench/bi.py --report                      # bench/bi.md from results/bi.json (after a cut run)

Writes bench/results/bi.json after every question (a cut run keeps what it did) and bench/bi.md.
Anchor: the published execution accuracy of Qwen2.5-Coder-0.5B on Spider dev, 34.5%.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SPIDER_ANCHOR = 0.345  # Qwen2.5-Coder-0.5B, Spider dev execution accuracy (Qwen2.5-Coder technical report)

AC_DC = "JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"
LATE = "l_receiptdate > l_commitdate"
CHINOOK = [
    ("How many tracks does AC/DC have?", f"SELECT count(*) FROM Track t {AC_DC} WHERE ar.Name = 'AC/DC'"),
    ("How many artists are there?", "SELECT count(*) FROM Artist"),
    ("How many albums are there?", "SELECT count(*) FROM Album"),
    ("List the names of all genres.", "SELECT Name FROM Genre"),
    ("How many customers live in Brazil?", "SELECT count(*) FROM Customer WHERE Country = 'Brazil'"),
    ("What are the names of the media types?", "SELECT Name FROM MediaType"),
    ("Which genre has the most tracks?",
     "SELECT g.Name FROM Genre g JOIN Track t ON t.GenreId = g.GenreId GROUP BY g.Name ORDER BY count(*) DESC LIMIT 1"),
    ("What is the total amount of all invoices?", "SELECT sum(Total) FROM Invoice"),
    ("How many invoices were billed to Germany?", "SELECT count(*) FROM Invoice WHERE BillingCountry = 'Germany'"),
    ("List the titles of the albums by Led Zeppelin.",
     "SELECT al.Title FROM Album al JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE ar.Name = 'Led Zeppelin'"),
    ("What is the average track length in milliseconds?", "SELECT avg(Milliseconds) FROM Track"),
    ("Which country has the most customers?",
     "SELECT Country FROM Customer GROUP BY Country ORDER BY count(*) DESC LIMIT 1"),
    ("How many employees are there?", "SELECT count(*) FROM Employee"),
    ("What is the name of the longest track?", "SELECT Name FROM Track ORDER BY Milliseconds DESC LIMIT 1"),
    ("How many tracks are in the Rock genre?",
     "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Rock'"),
    ("What is the total invoice amount per billing country?",
     "SELECT BillingCountry, sum(Total) FROM Invoice GROUP BY BillingCountry"),
    ("How many playlists are there?", "SELECT count(*) FROM Playlist"),
    ("How many tracks cost more than 0.99?", "SELECT count(*) FROM Track WHERE UnitPrice > 0.99"),
    ("What is the highest invoice total?", "SELECT max(Total) FROM Invoice"),
    ("How many tracks does Queen have?", f"SELECT count(*) FROM Track t {AC_DC} WHERE ar.Name = 'Queen'"),
    ("How many invoices were issued in 2023?", "SELECT count(*) FROM Invoice WHERE year(InvoiceDate) = 2023"),
    ("What is the total quantity of tracks sold?", "SELECT sum(Quantity) FROM InvoiceLine"),
    ("Which artist has the most albums?",
     "SELECT ar.Name FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId GROUP BY ar.Name "
     "ORDER BY count(*) DESC LIMIT 1"),
    ("How many albums does Iron Maiden have?",
     "SELECT count(*) FROM Album al JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE ar.Name = 'Iron Maiden'"),
    ("What is the average invoice total per customer country?",
     "SELECT c.Country, avg(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId GROUP BY c.Country"),
    ("How many customers does Jane Peacock support?",
     "SELECT count(*) FROM Customer c JOIN Employee e ON c.SupportRepId = e.EmployeeId "
     "WHERE e.FirstName = 'Jane' AND e.LastName = 'Peacock'"),
    ("How many tracks are on the playlist Grunge?",
     "SELECT count(*) FROM PlaylistTrack pt JOIN Playlist p ON pt.PlaylistId = p.PlaylistId WHERE p.Name = 'Grunge'"),
    ("How many tracks have no composer?", "SELECT count(*) FROM Track WHERE Composer IS NULL"),
    ("What is the total invoice amount from customers in the USA?",
     "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId WHERE c.Country = 'USA'"),
    ("In how many distinct cities do customers live?", "SELECT count(DISTINCT City) FROM Customer"),
    ("How many tracks are longer than 5 minutes?", "SELECT count(*) FROM Track WHERE Milliseconds > 300000"),
    ("How many albums have more than 20 tracks?",
     "SELECT count(*) FROM (SELECT AlbumId FROM Track GROUP BY AlbumId HAVING count(*) > 20)"),
    ("What are the first names of customers from Canada?", "SELECT FirstName FROM Customer WHERE Country = 'Canada'"),
    ("How many tracks are in the Jazz genre?",
     "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Jazz'"),
]
TPCH = [
    ("How many orders were placed in 1995?", "SELECT count(*) FROM orders WHERE year(o_orderdate) = 1995"),
    ("How many customers are in the BUILDING market segment?",
     "SELECT count(*) FROM customer WHERE c_mktsegment = 'BUILDING'"),
    ("How many nations are in the region EUROPE?",
     "SELECT count(*) FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'EUROPE'"),
    ("List the names of the nations in ASIA.",
     "SELECT n_name FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'ASIA'"),
    ("How many suppliers are there?", "SELECT count(*) FROM supplier"),
    ("What is the average account balance of customers?", "SELECT avg(c_acctbal) FROM customer"),
    ("How many line items were shipped by AIR?", "SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR'"),
    ("How many shipments arrived after their commit date?", f"SELECT count(*) FROM lineitem WHERE {LATE}"),
    ("What is the average delay in days per ship mode?",
     "SELECT l_shipmode, avg(l_receiptdate - l_commitdate) FROM lineitem GROUP BY l_shipmode"),
    ("How many orders have order status F?", "SELECT count(*) FROM orders WHERE o_orderstatus = 'F'"),
    ("What was the total revenue (price after discount) of lines shipped in 1994?",
     "SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE year(l_shipdate) = 1994"),
    ("How many customers are from GERMANY?",
     "SELECT count(*) FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey WHERE n.n_name = 'GERMANY'"),
    ("Which ship mode is used most often?",
     "SELECT l_shipmode FROM lineitem GROUP BY l_shipmode ORDER BY count(*) DESC LIMIT 1"),
    ("How many orders have priority 1-URGENT?", "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT'"),
    ("What is the total price of all orders of Customer#000000001?",
     "SELECT sum(o_totalprice) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
     "WHERE c.c_name = 'Customer#000000001'"),
    ("How many parts are of brand Brand#13?", "SELECT count(*) FROM part WHERE p_brand = 'Brand#13'"),
    ("How many line items have return flag R?", "SELECT count(*) FROM lineitem WHERE l_returnflag = 'R'"),
    ("How many orders are there per order priority?",
     "SELECT o_orderpriority, count(*) FROM orders GROUP BY o_orderpriority"),
    ("Which region has the most customers?",
     "SELECT r.r_name FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey JOIN region r "
     "ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name ORDER BY count(*) DESC LIMIT 1"),
    ("What is the average quantity per line item?", "SELECT avg(l_quantity) FROM lineitem"),
    ("How many line items were shipped to customers in JAPAN in 1996?",
     "SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey JOIN customer c "
     "ON o.o_custkey = c.c_custkey JOIN nation n ON c.c_nationkey = n.n_nationkey "
     "WHERE n.n_name = 'JAPAN' AND year(l.l_shipdate) = 1996"),
    ("What is the highest order total price?", "SELECT max(o_totalprice) FROM orders"),
    ("How many distinct part types are there?", "SELECT count(DISTINCT p_type) FROM part"),
    ("How many suppliers are in CANADA?",
     "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey WHERE n.n_name = 'CANADA'"),
    ("What is the total available quantity of parts in stock?", "SELECT sum(ps_availqty) FROM partsupp"),
    ("How many orders were placed by customers in the AUTOMOBILE segment?",
     "SELECT count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey WHERE c.c_mktsegment = 'AUTOMOBILE'"),
]
UNANSWERABLE = [
    ("chinook", "What is the average customer rating of each album?"),
    ("tpch", "What is the carbon footprint of each ship mode?"),
    ("chinook", "How many followers does AC/DC have on social media?"),
    ("tpch", "How many employees does each supplier have?"),
    ("chinook", "What was the weather in Oslo on the days invoices were issued?"),
    ("tpch", "What is the customer satisfaction score per nation?"),
    ("chinook", "Which employee has the highest salary?"),
    ("tpch", "Which port did the shipments to GERMANY arrive at?"),
    ("chinook", "What is the profit margin of each genre?"),
    ("tpch", "What will the weather be tomorrow?"),
]


def questions() -> list[dict[str, Any]]:
    """All questions, interleaved (chinook, tpch, chinook, tpch, unanswerable, ...) so any prefix is a mix."""
    answerable = [[{"db": "chinook", "question": q, "gold": g} for q, g in CHINOOK],
                  [{"db": "tpch", "question": q, "gold": g} for q, g in TPCH]]
    unanswerable = [{"db": db, "question": q, "gold": None} for db, q in UNANSWERABLE]
    out, i = [], 0
    while any(answerable) or unanswerable:
        for group in answerable:
            if group:
                out.append(group.pop(0))
        i += 1
        if i % 3 == 0 and unanswerable:
            out.append(unanswerable.pop(0))
        if not any(answerable):
            out += unanswerable
            unanswerable = []
    return out


def _norm(v: Any) -> str:
    if isinstance(v, Decimal | float):
        return f"{float(v):.2f}"
    if isinstance(v, datetime | date):
        return v.isoformat()[:10]
    return str(v)


def same_result(got: list[list[Any]], gold: list[tuple[Any, ...]], ordered: bool) -> bool:
    """Equal rows (column order ignored), or the same number of rows each holding the gold row's values plus
    extra columns ('Rock' asked, 'Rock, 1297' answered)."""
    a = [tuple(sorted(_norm(v) for v in row)) for row in got]
    b = [tuple(sorted(_norm(v) for v in row)) for row in gold]
    if (a == b) if ordered else (Counter(a) == Counter(b)):
        return True
    if len(a) != len(b) or not a or len(a[0]) <= len(b[0]):
        return False
    if not ordered:
        a, b = sorted(a), sorted(b)  # extra columns can reorder rows; compare each gold row with its best match
        return all(any(not (Counter(g) - Counter(r)) for r in a) for g in b)
    return all(not (Counter(g) - Counter(r)) for r, g in zip(a, b, strict=True))


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1, default=str)
    os.replace(tmp, path)


def run(llm: str | None, limit: int | None, out: Path) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent
    from orrery.bi.data import open_engine
    from orrery.llm import resolve_model

    model = resolve_model(llm or "local")
    engines = {db: open_engine(db) for db in ("chinook", "tpch")}
    items = questions()[:limit] if limit else questions()
    rows: list[dict[str, Any]] = []
    sessions = tempfile.mkdtemp(prefix="bi-bench-")
    for i, item in enumerate(items):
        engine = engines[item["db"]]
        agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=f"q{i}", clarify=False, prose=False)
        t0 = time.perf_counter()
        answer = agent.ask(item["question"])
        seconds = time.perf_counter() - t0
        if item["gold"] is None:
            correct = answer.status == "cannot_answer" and answer.sql is None
        else:
            gold = engine.execute(item["gold"])
            ordered = "ORDER BY" in item["gold"].upper() and "LIMIT 1" not in item["gold"].upper()
            correct = answer.status == "answered" and answer.sql is not None and same_result(answer.rows, gold.rows, ordered)
        rows.append({**item, "status": answer.status, "sql": answer.sql, "correct": correct,
                     "seconds": round(seconds, 1), "tokens": answer.usage.total, "answer": answer.answer[:300]})
        print(f"[{i + 1}/{len(items)}] {'OK ' if correct else 'BAD'} {seconds:5.1f}s {item['db']:8} {item['question']}"
              f" -> {answer.status} {answer.sql or ''}", flush=True)
        result = summarize(rows, model.name, len(items))
        _write_json(out, result)
    return result


def summarize(rows: list[dict[str, Any]], model: str, planned: int) -> dict[str, Any]:
    answerable = [r for r in rows if r["gold"] is not None]
    unanswerable = [r for r in rows if r["gold"] is None]

    def rate(rs: list[dict[str, Any]]) -> float | None:
        return round(sum(r["correct"] for r in rs) / len(rs), 3) if rs else None

    by_db = {db: rate([r for r in answerable if r["db"] == db]) for db in ("chinook", "tpch")}
    return {"date": time.strftime("%Y-%m-%d"), "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
            "model": model, "questions_planned": planned, "questions_run": len(rows),
            "execution_accuracy": rate(answerable), "execution_accuracy_by_db": by_db,
            "answerable_run": len(answerable), "unanswerable_run": len(unanswerable),
            "unanswerable_declined": rate(unanswerable),
            "seconds_per_question_median": statistics.median(r["seconds"] for r in rows) if rows else None,
            "seconds_per_question_mean": round(statistics.mean(r["seconds"] for r in rows), 1) if rows else None,
            "anchor_spider_dev_qwen2_5_coder_0_5b": SPIDER_ANCHOR, "questions": rows}


def write_markdown(result: dict[str, Any], path: Path) -> None:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}%"

    n_ans, n_un = result["answerable_run"], result["unanswerable_run"]
    lines = [
        "# BI agent: execution accuracy on Chinook and TPC-H",
        "",
        f"{result['date']} · machine: {result['machine']} (shared with other jobs) · model: {result['model']} · "
        "`nice -n 10 python bench/bi.py` · raw figures: [results/bi.json](results/bi.json)",
        "",
        f"Questions run: {result['questions_run']} of {result['questions_planned']} written "
        f"({n_ans} answerable, {n_un} unanswerable).",
        "",
        "| measure | value |", "|---|---:|",
        f"| execution accuracy (answerable) | {pct(result['execution_accuracy'])} |",
        f"| ... on Chinook | {pct(result['execution_accuracy_by_db']['chinook'])} |",
        f"| ... on TPC-H | {pct(result['execution_accuracy_by_db']['tpch'])} |",
        f"| unanswerable declined | {pct(result['unanswerable_declined'])} |",
        f"| seconds per question (median / mean) | {result['seconds_per_question_median']} / "
        f"{result['seconds_per_question_mean']} |",
        f"| anchor: Qwen2.5-Coder-0.5B on Spider dev (published) | {pct(result['anchor_spider_dev_qwen2_5_coder_0_5b'])} |",
        "",
        "Goal with the embedded model: >= 50% execution accuracy and 100% of unanswerable questions declined.",
        "",
        "## How it is measured",
        "",
        "- Questions and gold SQL are in `bench/bi.py`, written for this benchmark over the shipped Chinook and "
        "TPC-H (scale 0.01) DuckDB databases; the order interleaves both databases and the unanswerable ones.",
        "- Each question: a fresh session, `clarify=False` (most likely reading), `prose=False` (the result is the "
        "answer; no summary call). Model calls per question: the plan, the SQL, and a repair when the SQL fails.",
        "- Correct: the agent's rows equal the gold rows as multisets (in order when the gold orders several rows), "
        "numbers rounded to 2 decimals, column order within a row ignored; extra columns beside the gold ones are "
        "accepted (a count shown next to the asked-for name). Unanswerable: correct when the status is "
        "`cannot_answer` and no SQL ran.",
        "- The Spider figure is an anchor from another dataset (the model's published text-to-SQL level), not a run "
        "on this machine.",
    ]
    path.write_text("\n".join(lines) + "\n")


def check() -> None:
    from orrery.bi.data import open_engine

    engines = {db: open_engine(db) for db in ("chinook", "tpch")}
    for item in questions():
        if item["gold"]:
            r = engines[item["db"]].execute(item["gold"])
            assert r.rows and not r.truncated, item
    n = len(questions())
    print(f"{n} questions ({n - len(UNANSWERABLE)} with gold SQL, all run; {len(UNANSWERABLE)} unanswerable)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default=None, help="model spec (default: the embedded model)")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--check", action="store_true")
    p.add_argument("--report", action="store_true", help="only write bench/bi.md from results/bi.json (a cut run)")
    args = p.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    out = HERE / "results" / "bi.json"
    if args.check:
        check()
        return
    if args.report:
        write_markdown(json.loads(out.read_text()), HERE / "bi.md")
        return
    result = run(args.llm, args.limit, out)
    write_markdown(result, HERE / "bi.md")


if __name__ == "__main__":
    main()
