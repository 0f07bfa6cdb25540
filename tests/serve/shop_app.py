"""A toy app found by its entry point: a shelf as typed deps, two tools, a board hook, a result with a view."""

from dataclasses import dataclass, field
from typing import Any

from orrery.agent.loop import Agent, AgentConfig, RunResult
from orrery.apps import App
from orrery.events import Final
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.results import Table
from orrery.tools import RunContext, tool


@dataclass
class Shelf:  # the deps: every tool's ctx.deps
    books: dict[str, int] = field(default_factory=lambda: {"Dune": 2, "Emma": 0})


@tool
def stock(ctx: RunContext, title: str) -> int:
    """Copies of a title on the shelf."""
    return ctx.deps.books.get(title, 0)


@tool
def restock(ctx: RunContext, title: str, copies: int) -> str:
    """Put copies of a title on the shelf."""
    ctx.deps.books[title] = ctx.deps.books.get(title, 0) + copies
    return f"{title}: {ctx.deps.books[title]} copies"


@dataclass
class ShelfResult(RunResult):
    shelf: dict[str, int] = field(default_factory=dict)

    def views(self) -> list[Table]:
        return [Table(title="Shelf", rows=[{"title": t, "copies": n} for t, n in self.shelf.items()])]


class Shop(Agent):  # the run's context gets the shop's deps; its Final carries a ShelfResult
    def begin(self, task: str, **options: Any) -> Any:
        run = super().begin(task, **options)
        run.ctx.deps = self.shelf = Shelf()
        return run

    def stream(self, task: str, **options: Any) -> Any:
        for ev in super().stream(task, **options):
            if isinstance(ev, Final):
                ev = Final(ev.status, ev.output, ShelfResult(**vars(ev.result), shelf=self.shelf.books))
            yield ev


def shop_agent(_llm: Any = None) -> Shop:  # scripted: the served model is never called; the hook: `board=`
    pinned = AgentConfig(board=lambda ctx: "Shelf: " + ", ".join(f"{t} x{n}" for t, n in ctx.deps.books.items()))
    said = [turn(call("stock", title="Emma")), turn(call("restock", title="Emma", copies=3))]
    return Shop(ScriptedModel([*said, lambda m: f"Restocked. {m[-1].content}."]), [stock, restock], pinned)


APP = App("shop", "Keeps a bookshop's shelf stocked.", "shop_app:shop_agent", message="what to stock")
