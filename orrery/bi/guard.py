"""Read-only by construction, first layer: a query runs only if sqlglot parses it as one read-only SELECT.

`check(sql, dialect)` returns the statement to run, regenerated from the parsed tree (so what runs is
exactly what was checked; a comment or string the engine would read differently cannot smuggle in a
second statement) with a row LIMIT. Everything else raises `UnsafeQuery` with the reason. The engines
add the layers beneath (read-only connections, read-only role and transaction, timeouts, row caps), so a
statement that slips past this check still cannot write.
"""

from __future__ import annotations

import contextlib
import functools
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from orrery.errors import OrreryError

DIALECTS = ("duckdb", "postgres", "sqlite")
DEFAULT_LIMIT = 1000

# Functions that read or write files, reach the network, run a query given as a string, change
# settings or sequences, or signal other sessions. Matched on the lower-case function name.
DENIED_FUNCTIONS = frozenset(
    {
        # DuckDB: files, network, arbitrary SQL strings, environment
        "read_csv",
        "read_csv_auto",
        "read_parquet",
        "read_json",
        "read_json_auto",
        "read_json_objects",
        "read_ndjson",
        "read_ndjson_auto",
        "read_ndjson_objects",
        "read_text",
        "read_blob",
        "read_xlsx",
        "parquet_scan",
        "parquet_metadata",
        "parquet_schema",
        "parquet_file_metadata",
        "parquet_kv_metadata",
        "sqlite_scan",
        "sqlite_attach",
        "postgres_scan",
        "postgres_query",
        "postgres_execute",
        "mysql_query",
        "iceberg_scan",
        "delta_scan",
        "glob",
        "query",
        "query_table",
        "getenv",
        "load_extension",
        # PostgreSQL: server files, large objects, remote servers, settings, sequences, other backends
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_stat_file",
        "pg_ls_logdir",
        "pg_ls_waldir",
        "pg_ls_tmpdir",
        "pg_ls_archive_statusdir",
        "pg_file_write",
        "pg_file_rename",
        "pg_file_unlink",
        "set_config",
        "nextval",
        "setval",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_switch_wal",
        "pg_create_restore_point",
        "pg_promote",
        "pg_logical_emit_message",
        "query_to_xml",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "table_to_xml",
        "database_to_xml",
        "pg_advisory_lock",
        "pg_advisory_xact_lock",
        "pg_try_advisory_lock",
        "txid_current",
        "pg_current_xact_id",
        "pg_sleep",
        "pg_sleep_for",
        "pg_sleep_until",
        # SQLite extensions
        "readfile",
        "writefile",
        "edit",
        "fts3_tokenizer",
    }
)
DENIED_PREFIXES = (
    "lo_",
    "dblink",
    "pg_read_",
    "pg_ls_",
    "pg_file_",
    "read_",
    "pg_stat_reset",
    "pg_replication_",
    "pg_drop_",
    "pg_create_",
    "pg_import_",
    "pg_export_",
)

# Parse-tree nodes that write, change the session or leave the database, wherever they appear.
DENIED_NODES: tuple[type[exp.Expression], ...] = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Copy,
    exp.Command,
    exp.Pragma,
    exp.Set,
    exp.Into,
    exp.Lock,
    exp.Attach,
    exp.Detach,
    exp.Install,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Grant,
)
# A DuckDB table name like 'data.csv' or "s3://x" is read as a file (a replacement scan).
_PATHLIKE = re.compile(r"[./\\:*?~]")


class UnsafeQuery(OrreryError):
    """The statement is not a single read-only query; the message says why."""


def check(sql: str, dialect: str, *, limit: int = DEFAULT_LIMIT) -> str:
    """The statement to run (one read-only query with at most `limit` rows) or `UnsafeQuery`."""
    if dialect not in DIALECTS:
        raise UnsafeQuery(f"unknown SQL dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
    return _checked(sql, dialect, limit)


@functools.lru_cache(maxsize=4096)
def _checked(sql: str, dialect: str, limit: int) -> str:
    """`check` of one text, kept per process: the answer depends on the text, the dialect and the cap alone (no
    connection, no layer), and the engines run the same generated statements for every new agent (the value index,
    the decline probes: 247 of 440 checks of a replay were of a text checked before, bench/bi_r73.md). A refusal
    raises each time (lru_cache keeps no error)."""
    tree = _parse_one(sql, dialect)
    _refuse_writes(tree)
    _refuse_functions(tree)
    _refuse_path_tables(tree)
    return _with_limit(tree, limit).sql(dialect=dialect, comments=False)


# an apostrophe between two letters inside a string the model wrote unescaped ('Chicago O'Hare ...'): SQL doubles it
_INNER_APOSTROPHE = re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_])")


def parse_lenient(sql: str, dialect: str) -> list[exp.Expression | None]:
    """sqlglot's statements of `sql`; when it does not parse, of `sql` with each apostrophe between two letters
    doubled (a value such as "O'Hare" or "Children's" written unescaped: the 0.5B model does so), the first error
    raised if that fails too. Only text that fails to parse is changed, and what runs is the parsed tree."""
    try:
        return sqlglot.parse(sql, read=dialect)
    except SqlglotError:
        if (escaped := _INNER_APOSTROPHE.sub("''", sql)) != sql:
            with contextlib.suppress(SqlglotError):
                return sqlglot.parse(escaped, read=dialect)
        raise


def _parse_one(sql: str, dialect: str) -> exp.Expression:
    try:
        statements = [s for s in parse_lenient(sql, dialect) if s is not None]
    except SqlglotError as exc:
        raise UnsafeQuery(
            f"refused: the statement does not parse as {dialect} SQL ({str(exc).splitlines()[0]})"
        ) from exc
    if len(statements) != 1:
        raise UnsafeQuery(f"refused: {len(statements)} statements in one string; send exactly one SELECT")
    tree = statements[0]
    while isinstance(tree, exp.Subquery):  # (SELECT ...) is still a query
        tree = tree.this
    if not isinstance(tree, exp.Select | exp.SetOperation):
        raise UnsafeQuery(f"refused: {_what(tree)} is not a read-only query; only SELECT is allowed")
    return tree


def _what(node: exp.Expression) -> str:
    if isinstance(node, exp.Command):
        return f"{str(node.this).upper()} (a command)"
    return type(node).__name__.upper()


def _refuse_writes(tree: exp.Expression) -> None:
    for node in tree.walk():
        if isinstance(node, DENIED_NODES):
            what = (
                "SELECT INTO"
                if isinstance(node, exp.Into)
                else "FOR UPDATE/SHARE"
                if isinstance(node, exp.Lock)
                else _what(node)
            )
            raise UnsafeQuery(f"refused: the query contains {what}; only reading is allowed")


def function_name(node: exp.Func) -> str:
    return (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()


def _refuse_functions(tree: exp.Expression) -> None:
    for node in tree.find_all(exp.Func):
        name = function_name(node)
        if name in DENIED_FUNCTIONS or name.startswith(DENIED_PREFIXES):
            raise UnsafeQuery(f"refused: function {name}() reads files, reaches other servers or changes state")


def _refuse_path_tables(tree: exp.Expression) -> None:
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier) and _PATHLIKE.search(table.name):
            raise UnsafeQuery(f"refused: table name {table.name!r} looks like a file or URL")


def _with_limit(tree: exp.Expression, limit: int) -> exp.Expression:
    """Keep a smaller literal LIMIT / FETCH FIRST; otherwise set the cap."""
    current = tree.args.get("limit")
    count = None
    if isinstance(current, exp.Limit):
        count = current.expression
    elif isinstance(current, exp.Fetch):
        count = current.args.get("count")
    if isinstance(count, exp.Literal) and not count.is_string:
        if not re.fullmatch(r"\d+", count.this):
            raise UnsafeQuery(f"refused: LIMIT {count.this} is not a whole number of rows; write LIMIT 10")
        if int(count.this) <= limit:
            return tree
    if current is not None and not isinstance(count, exp.Literal):  # LIMIT $1 / ALL: cap outside it
        return exp.select("*").from_(tree.subquery("capped")).limit(limit)
    return tree.limit(limit)
