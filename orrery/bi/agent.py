"""The BI agent: the core `PlanAgent` composed with BI's hooks, over one database.

Every turn: classify_intent (the core: only with an active plan) -> reiterate_intention and plan_todos
(one schema-constrained model call: the rewrite, the kind of plan, the values and fields named) -> the
TODO list from a template for that kind, shown before it runs -> execute_next_todo one at a time (the
core's pointer rules: a clarification answer reruns the same TODO, success advances). One memory entry per
TODO with its fields, `query_metadata` on the entry of the step that ran a query, so a later
"analyze ... in these results" plans analysis TODOs over it. The model never picks a tool: the template
does, which a 0.5B model cannot get wrong.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Generator, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pydantic

from orrery import results
from orrery.agent.calls import Emit, ask_json
from orrery.agent.loop import PendingApproval
from orrery.agent.planner import MemoryEntry, Plan, PlanAgent, PlanResult, PlanTurn, Todo, model_summary
from orrery.bi.context import plainly_picks
from orrery.bi.decline import (
    absent_value,
    as_kept,
    asked_later,
    category_values,
    flag_values,
    future,
    indexed_values,
    read_typos,
    shape_decline,
)
from orrery.bi.engines import Engine
from orrery.bi.examples import plan_shots, teach
from orrery.bi.semantic import Semantic, load
from orrery.bi.tools import (
    CANNOT,
    TOOLS,
    BIContext,
    CannotAnswer,
    examples,
    found_rows,
    jsonable,
    listed_values,
    missing_asked,
    missing_fields,
    no_field,
    prompt,
    said_kept,
    sex_values,
    short_values,
    user_wrote,
)
from orrery.errors import ConfigError
from orrery.events import Event, Final, StateChanged, Status, Token
from orrery.llm.base import Model
from orrery.messages import Message, Usage
from orrery.sessions import SessionStore
from orrery.tools import Tool, ToolResult

Kind = Literal["query", "lookup", "analysis", "cannot_answer"]
CHART_WORDS = ("chart", "plot", "graph", "visuali", "draw")
# A single entity goes to GraphQL, several or an aggregate to the query engine; a "lookup" plan
# for a question with these words is a query (the 0.5B model chose lookup for "how many customers in ...").
AGGREGATE_WORDS = re.compile(
    r"\b(how many|count|number of|total|sum|average|avg|mean|most|least|top|per|each|"
    r"max|min|highest|lowest|list|all)\b",
    re.I,
)


@dataclass
class Reiterated(Event):
    """reiterate_intention: the request rewritten, shown to the user before the plan."""

    request: str
    plan_kind: str
    kind: str = field(init=False, default="reiterated")


@dataclass
class BIMemoryEntry:
    """BI's memory entry: one per TODO execution."""

    turn_id: int
    todo_key: str
    todo_description: str
    status: str  # complete | clarification_needed | error
    user_input: str
    agent_action: str
    tools_called: list[str]
    queries_executed: list[str] = field(default_factory=list)
    query_metadata: dict[str, Any] = field(default_factory=dict)
    clarification_asked: str | None = None
    active_todo_list_snapshot: list[dict[str, str]] = field(default_factory=list)


class PlanReply(pydantic.BaseModel):
    request: str
    kind: Kind
    values: list[str] = []
    fields: list[str] = []

    @pydantic.field_validator("values", "fields", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        """The model writes each as one comma-separated string: asked for a JSON list, the 0.5B model kept
        adding items until max_tokens cut the reply (3 of the first 32 bench questions), and the grammar
        cannot bound a list's length (maxItems is dropped before grammar building)."""
        return [x.strip() for x in v.split(",") if x.strip()] if isinstance(v, str) else v


@dataclass
class BIAnswer:
    """One turn's answer. `status` is the one `orrery.events.Status`: completed, paused (`clarification` holds
    the question, `approvals` the calls waiting for a person), declined (the data cannot answer) or error."""

    status: Status
    answer: str
    sql: str | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    clarification: str | None = None
    notes: list[str] = field(default_factory=list)
    chart: dict[str, Any] | None = None
    todos: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    approvals: list[dict[str, Any]] = field(
        default_factory=list
    )  # the calls waiting for a person: {id, tool, arguments}
    connection: str | None = None  # the database answered from: a declined or failed answer can be corrected there

    @property
    def output(self) -> str:
        return self.answer

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("usage")
        return d

    # -- the result protocol (orrery.results): output (above), data, views, files.
    @property
    def data(self) -> dict[str, Any]:
        return results.jsonable(self.to_dict())

    def views(self) -> list[results.View]:
        """The query's rows (with its SQL), then the chart drawn of them."""
        out: list[results.View] = []
        if self.columns:
            out.append(
                results.Table(
                    title=f"Result: {len(self.rows)} rows",
                    columns=self.columns,
                    rows=results.jsonable(self.rows),
                    sql=self.sql,
                )
            )
        spec = (self.chart or {}).get("spec") or {}
        if spec:
            x, y = spec["encoding"]["x"]["field"], spec["encoding"]["y"]["field"]
            points = spec["data"]["values"]
            out.append(
                results.Chart(
                    style="line" if spec["mark"] == "line" else "bar",
                    x=[str(p[x]) for p in points],
                    series={y: [p[y] for p in points]},
                )
            )
        return out

    def files(self) -> dict[str, Any]:
        return {}


def todos_for(plan: PlanReply) -> list[Todo]:
    """plan_todos: the TODO list of a plan kind, each TODO mapped to one tool."""
    resolve = (
        [
            Todo(
                "resolve_entities",
                f"Find {', '.join(map(repr, plan.values))} in the data",
                "entity_resolution",
                {"mentions": plan.values},
            )
        ]
        if plan.values
        else []
    )
    chart = (
        [Todo("chart", "Draw a chart of the result", "chart")]
        if any(w in plan.request.lower() for w in CHART_WORDS)
        else []
    )
    fields = (
        [
            Todo(
                "map_fields",
                f"Map {', '.join(map(repr, plan.fields))} to columns",
                "field_mapping",
                {"terms": plan.fields},
            )
        ]
        if plan.fields
        else []
    )
    if plan.kind == "lookup" and plan.values:  # fields too: a lookup of something the data lacks declines
        return [*resolve, *fields, Todo("lookup", "Look up the entity through GraphQL", "graphql_executor")]
    if plan.kind == "analysis":
        return [
            Todo("retrieve_query_metadata", "Fetch the previous query and its rows", "retrieve_query_metadata"),
            Todo("summary_stats", "Summary statistics of the result", "summary_stats"),
            Todo("compare_groups", "Compare the measure across groups", "compare_groups"),
            Todo("time_breakdown", "Break the result down by month", "time_breakdown"),
            Todo("trend_anomaly", "Trend and anomalous months", "trend_anomaly"),
            Todo("chart", "Draw a chart of the result", "chart"),
        ]
    return [
        *resolve,
        *fields,
        Todo("build_query", "Write and check the SQL", "query_builder"),
        Todo("execute_query", "Run the SQL (read-only)", "sql_executor"),
        *chart,
    ]


class BISession:
    """The BI part of the planner's session (`SessionPart`): BI's memory and the choices the user made
    in clarifications, saved with the plan in one versioned save."""

    key = "bi"

    def __init__(self, bi: BIContext):
        self.bi, self.memory = bi, []
        self.last: dict[str, Any] | None = None  # the last answer's {status, connection, question}: what to correct

    def dump(self) -> dict[str, Any]:
        return {
            "memory": [asdict(m) for m in self.memory],
            "choices": self.bi.choices,
            "asked": self.bi.asked,
            "last": self.last,
        }

    def load(self, data: dict[str, Any]) -> None:
        self.memory = [BIMemoryEntry(**m) for m in data.get("memory", [])]
        self.bi.choices = dict(data.get("choices", {}))
        self.bi.asked = list(data.get("asked", []))
        self.last = data.get("last")


class BIAgent(PlanAgent):
    """`BIAgent(model, engine).ask("...")` -> BIAnswer: the core planner composed with BI's hooks (the plan from
    a template, BI's memory, a decline when the data cannot answer, the table as the answer when
    `prose=False`). `stream` / `run` are the planner's (its `Final` carries the PlanResult; a
    `StateChanged("bi", answer)` comes just before it). A new agent on the same session store and `session_id`
    resumes the conversation (a pending question or approval, the plan, the memory)."""

    def __init__(
        self,
        model: Model,
        engine: Engine,
        *,
        semantic: Semantic | None = None,
        store: str | Path | SessionStore | None = None,
        session_id: str = "default",
        clarify: bool = True,
        on_event: Iterable[Emit] = (),
        max_tokens_per_call: int | None = 400,
        chart_dir: Path | None = None,
        prose: bool = True,
        sql_mode: Literal["parts", "sql"] = "parts",
        approve: Iterable[str] = (),
    ):
        """`prose=False` answers with the result itself instead of a model-written summary (one model call
        fewer per question: what a benchmark of the SQL wants). `sql_mode="parts"` has the model fill in the
        clauses and derives the joins (compose.py); "sql" has it write the whole statement. `approve` names
        tools (e.g. "sql_executor") whose every call waits for a person (`resume(approvals=...)`)."""
        self.bi = BIContext(
            engine,
            semantic or load(engine.name, engine),
            model,
            clarify,
            chart_dir,
            max_tokens=max_tokens_per_call,
            sql_mode=sql_mode,
        )
        self.kept = BISession(self.bi)
        super().__init__(
            model,
            _approving(_judging_absence(TOOLS), approve),
            store,
            session_id,
            on_event=on_event,
            system_prompt=prompt("system"),
            max_tokens_per_call=max_tokens_per_call,
            plan=self.plan_todos,
            summarize=model_summary if prose else self.table_answer,
            remember=self.remember,
            decline=self.decline,
            answers=lambda _question, message: plainly_picks(message, self.bi.asked),
            keep=[self.kept],
            name="bi",
            deps=self.bi,
        )
        self.bi.latest_metadata = self.latest_metadata
        self.bi.probe = "sql_executor" not in set(approve)  # nothing runs on the database before a person approves
        self.answer: BIAnswer | None = None

    @property
    def bi_memory(self) -> list[BIMemoryEntry]:
        return self.kept.memory

    # -- BI's steps: the planner's hooks -----------------------------------------------------------------
    def plan_todos(self, turn: PlanTurn) -> Generator[Event, None, Plan]:
        """reiterate_intention + plan_todos in one constrained call; the TODOs come from the kind's template."""
        user_input, intent, usage = turn.user_input, turn.intent, turn.usage
        self.bi.question = user_input if intent == "new_request" else f"{self.bi.question} {user_input}"
        teach(self.bi, self.bi.question)  # what approved answers taught this connection's layer (examples.py)
        shape_checked = intent == "new_request" and not self.latest_metadata()
        if shape_checked and (reason := shape_decline(self.bi, user_input, ask=self.bi.clarify)):
            # the question's shape already says the data cannot answer it: no model call (an analysis of an
            # earlier result is left to the planner, whose words are about that result, not the schema)
            yield Reiterated(user_input, "cannot_answer")
            self.bi.choices = {}
            return Plan(user_input, declined=f"Cannot answer from this data: {reason}")
        kinds = ["query", "lookup", *(["analysis"] if self.latest_metadata() else []), "cannot_answer"]
        schema = {
            "type": "object",
            "required": ["request", "kind", "values", "fields"],
            "properties": {
                "request": {"type": "string"},
                "kind": {"enum": kinds},
                "values": {"type": "string"},
                "fields": {"type": "string"},
            },
        }
        sem = self.bi.semantic
        tables = "; ".join(f"{t} ({v['description']})" if v.get("description") else t for t, v in sem.tables.items())
        what = "Change the current request as the user asks" if intent == "modification" else "New request"
        shots = examples(
            "plan_examples",
            lambda e: (
                _plan_user(e["database"], e["tables"], "No plan yet.", f"New request: {e['question']}"),
                e["reply"],
            ),
        )
        shots += plan_shots(
            self.bi,
            user_input,
            lambda q: _plan_user(  # the same tables: not listed again
                sem.description or sem.database, "as below", "No plan yet.", f"New request: {q}"
            ),
        )
        user = _plan_user(sem.description or sem.database, tables, self.context(), f"{what}: {user_input}")
        messages = [Message("system", prompt("plan")), *shots, Message("user", user)]
        reply = yield from ask_json(
            self.model, messages, schema, PlanReply, usage=usage, max_tokens=self.max_tokens_per_call
        )
        reply.fields += said_kept(self.bi, reply.fields, user_input)  # a term a person mapped, asking on or off
        declined = reply.kind == "cannot_answer"
        if reply.kind == "analysis" and not self.latest_metadata():
            reply.kind = "cannot_answer"
        reason = future(user_input)
        if declined and reason is None:
            reply.kind, reason = self.judge_decline(reply, user_input)
        elif reason is None and reply.kind in ("query", "lookup") and not shape_checked:
            # a modification, or beside an earlier result: not checked before the plan call (a new request was,
            # on the same text and state, and found nothing)
            reason = shape_decline(self.bi, user_input, ask=self.bi.clarify)
        if reply.kind in ("query", "lookup") and self.bi.clarify:  # a term no column holds the planner left out:
            reply.fields += [
                t for t in missing_asked(self.bi, as_kept(self.bi, user_input)) if t not in reply.fields
            ]  # asked about
        if reply.kind == "lookup" and (
            not reply.values
            or reply.fields  # a field may live in another table
            or AGGREGATE_WORDS.search(f"{user_input} {reply.request}")
        ):
            reply.kind = "query"
        if reply.kind == "query":  # a value the user named that the planner left out: one the index holds, a
            # category's value written in lower case ('halogens'), values listed side by side ('rail ... compared to air')
            for found in (
                indexed_values(self.bi, user_input),
                [r["mention"] for r in category_values(self.bi, user_input)],
                [r["mention"] for r in listed_values(self.bi, user_input)],
                [r["mention"] for r in flag_values(self.bi, user_input)],  # 'survivors': `survived = 1`
                [r["mention"] for r in short_values(self.bi, user_input)],  # 'comp sci': Computer Science
                [r["mention"] for r in sex_values(self.bi, user_input)],  # 'women': `sex = 'female'`
            ):
                have = {v.lower() for v in reply.values}
                reply.values += [v for v in found if v.lower() not in have]
        yield Reiterated(reply.request, "cannot_answer" if reason else reply.kind)
        declined_for = reason or (reply.request if reply.kind == "cannot_answer" else None)
        self.bi.choices = {}  # a new plan asks afresh
        if declined_for is not None:
            return Plan(reply.request, declined=f"Cannot answer from this data: {declined_for}")
        return Plan(reply.request, todos_for(reply))

    def judge_decline(self, reply: PlanReply, user_input: str) -> tuple[Kind, str | None]:
        """The planner declined: keep it only when something the question needs is missing from the data (a
        field it names that no column, layer term or value holds), and say which; when everything it names
        is in the data, it is a query. A decline naming nothing stands: the planner read the schema."""
        user_input = read_typos(self.bi, user_input)
        named = [*reply.fields, *reply.values]
        missing = list(
            dict.fromkeys(
                [*missing_fields(self.bi, named, user_input), *missing_asked(self.bi, as_kept(self.bi, user_input))]
            )
        )
        if missing and not set(missing) & set(reply.values) and asked_later(self.bi, missing, user_input):
            # field mapping asks the user which column each one means (tools.ask_field); one decision with the
            # shape check's: a term field mapping holds would be mapped silently, so it declines
            reply.fields += [t for t in missing if t not in reply.fields]
            return "query", None
        if missing:
            return "cannot_answer", no_field(self.bi, missing)
        if named and all(user_wrote(t, user_input) for t in named):
            return "query", None
        return "cannot_answer", None

    def decline(self, _turn: PlanTurn, _todo: Todo, result: ToolResult) -> str | None:
        """A step that found the data cannot answer (a tool's `CannotAnswer`) declines the turn."""
        if (result.error or "").startswith(CANNOT):
            return f"Cannot answer from this data: {(result.error or '').removeprefix(CANNOT)}"
        return None

    def remember(self, turn: PlanTurn, todo: Todo, entry: MemoryEntry) -> None:
        """BI's memory entry, saved with the core's entry in one versioned save."""
        status, output, user_input = entry.status, entry.output, turn.user_input
        parsed = _json(output) if status == "done" else {}
        meta = parsed.get("query_metadata") or {}
        self.bi_memory.append(
            BIMemoryEntry(
                turn_id=len(self.bi_memory) + 1,
                todo_key=todo.key,
                todo_description=todo.description,
                status={
                    "done": "complete",
                    "clarification": "clarification_needed",
                    "failed": "error",
                    "denied": "denied",
                }[status],
                user_input=user_input,
                agent_action=output[:300],
                tools_called=[todo.tool],
                queries_executed=[meta["query"]] if meta else [],
                query_metadata=meta,
                clarification_asked=output if status == "clarification" else None,
                active_todo_list_snapshot=[{"key": t.key, "status": t.status} for t in self.state.todos],
            )
        )

    def table_answer(self, _turn: PlanTurn) -> Generator[Event, None, str]:
        """The answer as the last result's rows instead of prose (no model call)."""
        r = self.bi.last_result
        if r is None:
            text = "Done."
        else:
            head = ", ".join(r.columns)
            rows = "; ".join(", ".join(str(jsonable(v)) for v in row) for row in r.rows[:10])
            more = f" (first 10 of {len(r.rows)})" if len(r.rows) > 10 else ""
            text = f"{len(r.rows)} row(s){more}: {head}: {rows}"
        yield Token(text)
        return text

    @property
    def pending_approvals(self) -> list[PendingApproval]:
        """The planner's, with the query a waiting `sql_executor` runs shown as its `sql` (the tool itself reads it
        from the build step, so what a person approves is what runs; edited arguments are refused by the tool)."""
        built = next((t.result for t in self.state.todos if t.tool == "query_builder" and t.status == "done"), None)
        sql = _json(built).get("sql")
        return [
            replace(a, arguments={**a.arguments, "sql": sql}) if a.tool == "sql_executor" and sql else a
            for a in super().pending_approvals
        ]

    def latest_metadata(self) -> dict[str, Any] | None:
        return next((m.query_metadata for m in reversed(self.bi_memory) if m.query_metadata), None)

    # -- the API --------------------------------------------------------------------------------------
    def stream(self, task: str, *, db: str | None = None, **_: Any) -> Iterator[Event]:
        """The core planner's turn, with the BI answer (status, SQL, rows, chart) as state before `Final`.
        `db` switches the database first (the web app's input)."""
        if db and db != self.bi.engine.name:
            self.use(db)
        return self._answered(super().stream(task))

    def resume_stream(self, approvals: dict[str, bool | dict[str, Any]]) -> Iterator[Event]:
        """The planner's resume of a turn paused for an approval, with the BI answer before `Final`."""
        return self._answered(super().resume_stream(approvals))

    def _answered(self, events: Iterator[Event]) -> Iterator[Event]:
        self.bi.notes, before = [], self.bi.last_result
        for event in events:
            if isinstance(event, Final):
                self.answer = self._finish(event.result, before)
                a = self.answer
                self.kept.last = {"status": a.status, "connection": a.connection, "question": self.bi.question}
                self.save()  # the turn's steps saved the plan; this adds which answer a correction is for
                yield StateChanged("bi", self.answer.to_dict())
            yield event

    def use(self, db: str) -> None:
        """Answer from another database from now on (the tools share `self.bi`, so they follow)."""
        from orrery.bi.data import open_engine

        engine = open_engine(db)
        self.bi.engine, self.bi.semantic = engine, load(engine.name, engine)
        self.bi.last_result = self.bi._index = self.bi._graphql = None

    def ask(self, text: str) -> BIAnswer:
        """One user message -> a BIAnswer (completed, paused for a question or an approval, declined or error)."""
        self.run(text)
        assert self.answer is not None  # set by stream() before its Final event
        return self.answer

    def _finish(self, r: PlanResult, before: Any) -> BIAnswer:
        """The planner's result as a BIAnswer; a dropped plan ("cancelled") answered the user's "drop it"."""
        status: Status = (
            r.status
            if r.status in ("completed", "paused", "declined")
            else ("completed" if r.status == "cancelled" else "error")
        )
        text = r.output
        result = self.bi.last_result if self.bi.last_result is not before else None
        chart = next((_json(t.result) for t in r.todos if t.tool == "chart" and t.status == "done"), None)
        if self.bi.notes:
            text += "\n(Assumed: " + "; ".join(self.bi.notes) + ")"
        rows = [[jsonable(v) for v in row] for row in result.rows] if result else []
        return BIAnswer(
            status,
            text,
            result.sql if result else None,
            result.columns if result else [],
            rows,
            r.question,
            list(self.bi.notes),
            chart,
            [asdict(t) for t in r.todos],
            r.usage,
            [asdict(a) for a in r.approvals],
            self.bi.engine.name,
        )


def _approving(tools: list[Tool], names: Iterable[str]) -> list[Tool]:
    """`tools`, those named in `names` replaced by copies that wait for a person's approval (the module's tools
    are shared by every agent, so they are left as they are)."""
    names = set(names)
    if unknown := names - {t.name for t in tools}:
        raise ConfigError(
            f"approve names no BI tool: {', '.join(sorted(unknown))}; tools: " + ", ".join(t.name for t in tools)
        )
    return [_needing_approval(t) if t.name in names else t for t in tools]


def _judging_absence(tools: list[Tool]) -> list[Tool]:
    """`tools`, sql_executor replaced by a copy whose run that found nothing for a value the user named that the
    data holds in no form (`decline.absent_value`) declines: judged after the run, so the relaxation and the
    repair of the query step have had their turn (the module's tools are shared, so they are left as they are)."""
    return [_absence_judged(t) if t.name == "sql_executor" else t for t in tools]


def _absence_judged(t: Tool) -> Tool:
    def run(ctx: Any, **kwargs: Any) -> Any:
        bi = ctx.deps
        before, out = bi.last_result, t.fn(ctx, **kwargs)
        ran = bi.last_result
        if ran is not None and not found_rows(ran.rows) and (value := absent_value(bi, ran.sql, bi.question)):
            bi.last_result = before  # the run is withdrawn: a declined answer carries no query nor rows
            raise CannotAnswer(f"the data holds no value like {value!r}")
        return out

    judged = copy.copy(t)
    judged.fn = run
    return judged


def _needing_approval(t: Tool) -> Tool:
    waiting = copy.copy(t)
    waiting.requires_approval = True
    return waiting


def _plan_user(database: str, tables: str, context: str, request: str) -> str:
    return f"Database: {database}\nIts tables: {tables}\n\n{context}\n\n{request}"


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def bi_agent(
    model: Any = None,
    *,
    db: str = "tpch",
    session_id: str = "default",
    store: Any = None,
    clarify: bool = True,
    approve_sql: bool = False,
    llm: Any = None,
    **options: Any,
) -> BIAgent:
    """The app factory: `model` is a Model or a spec for `resolve_model` (`llm`: its deprecated name); `db` a
    built-in or registered name, a PostgreSQL URL or a DuckDB/SQLite file; `store` / `session_id` where the
    conversation is kept (the server passes its own, so a thread resumes its clarifications); `approve_sql`: each
    query waits for a person's approval before it runs (the web app's input)."""
    if approve_sql:
        options["approve"] = (*options.get("approve", ()), "sql_executor")
    from orrery.bi.data import open_engine
    from orrery.bi.examples import use_examples
    from orrery.llm import model_argument, resolve_model

    model = resolve_model(model_argument(model, llm))
    agent = BIAgent(model, open_engine(db), store=store, session_id=session_id, clarify=clarify, **options)
    return use_examples(agent, store)  # the approved question -> SQL pairs kept beside its sessions
