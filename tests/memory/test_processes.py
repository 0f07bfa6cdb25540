"""Memory across processes: written by one process, recalled by a later one (a restart, SQLite), and two
processes writing one PostgreSQL (and one SQLite file) at the same time, each recalling the other's items."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orrery.recall import LongTermMemory

pytestmark = pytest.mark.integration

WRITER = """
import sys
from orrery.agent import Agent
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.recall import LongTermMemory, attach
from orrery.tools.core import tool

@tool
def price(symbol: str) -> str:
    "Latest price."
    return f"{symbol} trades at {len(symbol) * 10}"

target, symbol, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
mem = LongTermMemory.open(target, user="alice", thread="t1")
for i in range(n):
    attach(Agent(ScriptedModel([turn(call("price", symbol=f"{symbol}{i}")), "ok"]), [price]), mem).run("price?")
print(len(mem.items(kinds=["observation"])))
"""


def run_writers(target: str, symbols: list[str], n: int) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, target, s, str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for s in symbols
    ]
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err


def test_memory_written_by_one_process_is_recalled_after_a_restart(tmp_path: Path):
    target = str(tmp_path / "sessions.db")
    run_writers(target, ["NVDA"], 1)
    mem = LongTermMemory.open(target, user="alice", thread="t1")
    assert mem.recall("NVDA0 price")[0].content == "NVDA0 trades at 50"


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_two_processes_writing_at_once_share_one_memory(kind, tmp_path: Path, request):
    target = str(tmp_path / "sessions.db") if kind == "sqlite" else request.getfixturevalue("target_pg")
    run_writers(target, ["AAA", "BBB"], 10)
    mem = LongTermMemory.open(target, user="alice", thread="t1")
    contents = {i.content for i in mem.items(kinds=["observation"])}
    assert contents == {f"AAA{i} trades at {len(f'AAA{i}') * 10}" for i in range(10)} | {
        f"BBB{i} trades at {len(f'BBB{i}') * 10}" for i in range(10)
    }
    assert mem.recall("BBB7")[0].content == "BBB7 trades at 40"
    assert len({i.run_id for i in mem.items(kinds=["turn"])}) == 20


@pytest.fixture
def target_pg(postgres: str) -> str:
    import psycopg

    name = "memory_processes"
    with psycopg.connect(postgres, autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name}")
        db.execute(f"CREATE DATABASE {name}")
    return postgres.rsplit("/", 1)[0] + "/" + name
