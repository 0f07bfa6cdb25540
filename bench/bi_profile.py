"""Drafting the semantic layer of a large unseen SQLite database: statements, rows read back and seconds, main's
code and this checkout's, each in a subprocess on the same generated file (nothing is timed in the tests).

    ORRERY_MAIN=DIR nice -n 10 python bench/bi_profile.py   # DIR: main's code (default /work/main)

Writes results/bi_profile.json.

The database: `events` (ROWS rows: an integer key with an unrelated name into `accounts`, a category, a
measure, a date, a free-text note), `accounts` (50,000 rows) and `wide` (300 integer columns, 5,000 rows).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
ROWS = 1_000_000


def build(path: Path) -> None:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE accounts (id INTEGER, owner TEXT, region TEXT)")
        con.executemany(
            "INSERT INTO accounts VALUES (?, ?, ?)",
            ((i, f"owner {i}", ("north", "south", "east", "west")[i % 4]) for i in range(50_000)),
        )
        con.execute("CREATE TABLE events (payer INTEGER, kind TEXT, amount REAL, day TEXT, note TEXT)")
        rng = random.Random(0)  # payers drawn at random: a sample shows them repeat, as real data does
        con.executemany(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
            (
                (
                    rng.randrange(50_000),
                    ("open", "close", "move", "hold")[i % 4],
                    i % 997 / 10,
                    f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
                    f"note {i}",
                )
                for i in range(ROWS)
            ),
        )
        con.execute("CREATE TABLE wide (" + ", ".join(f"c{i} INTEGER" for i in range(300)) + ")")
        con.executemany(
            "INSERT INTO wide VALUES (" + ", ".join("?" * 300) + ")", ([r * i for i in range(300)] for r in range(5000))
        )


def worker(path: str) -> None:
    """Draft with the orrery on PYTHONPATH, counting the statements and rows the engine returns."""
    from orrery.bi.engines import SQLiteEngine
    from orrery.bi.semantic import draft

    log: list[int] = []

    class Counting(SQLiteEngine):
        def execute(self, sql, *, max_rows=None):  # noqa: ANN001, ANN202 - the engine's own signature
            result = super().execute(sql, max_rows=max_rows)
            log.append(len(result.rows))
            return result

    engine = Counting("big", path)
    t0 = time.perf_counter()
    sem = draft(engine)
    print(
        json.dumps(
            {
                "seconds": round(time.perf_counter() - t0, 1),
                "statements": len(log),
                "rows": sum(log),
                "joins": sem.joins,
            }
        )
    )


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite"
        build(path)
        out = {
            "rows": ROWS,
            "file_mb": round(path.stat().st_size / 2**20),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }
        for code, root in (("main", os.environ.get("ORRERY_MAIN", "/work/main")), ("here", str(HERE.parent))):
            run = subprocess.run(
                [sys.executable, __file__, "--worker", str(path)],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": root},
                cwd=root,
                timeout=1800,
            )
            out[code] = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else run.stderr[-500:]
        out["main_from"] = os.environ.get("ORRERY_MAIN", "/work/main")
        out["load_average_1min_at_end"] = round(os.getloadavg()[0], 1)
    (HERE / "results" / "bi_profile.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
