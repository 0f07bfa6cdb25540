"""Research agent data layer: dated search backends, ForecastBench corpus, source board, batch plumbing.

Modules: search (SearchBackend, SqliteIndex, TantivyIndex, HttpSearch, build_index), corpus, board, batch.
"""
