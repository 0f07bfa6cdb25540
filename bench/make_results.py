"""Collect each benchmark's markdown section into bench/RESULTS.md (run after any bench script)."""

from pathlib import Path

HERE = Path(__file__).parent
SECTIONS = [
    "overhead.md",
    "forecast_m3.md",
    "forecast_heldout.md",
    "forecast_cost.md",
    "local_model.md",
    "research.md",
    "research_cache.md",
    "research_calibration.md",
    "demo.md",
    "markets.md",
    "markets_fanout.md",
    "bi.md",
    "bi_meaning_cv.md",
    "bi_memory.md",
    "serve.md",
    "memory.md",
    "mcp.md",
]


def main() -> None:
    parts = [
        "# Benchmark results\n",
        "Each section is written by its script in `bench/` (figures also in `bench/results/*.json`); "
        "regenerate this page with `python bench/make_results.py`. Machine: 2 vCPU, no GPU.\n",
    ]
    for name in SECTIONS:
        path = HERE / name
        if path.exists():
            parts.append(path.read_text().strip() + "\n")
    (HERE / "RESULTS.md").write_text("\n".join(parts))


if __name__ == "__main__":
    main()
