"""Round 27 of the approved memory (issue 26): the paraphrase set a kept term's meaning match is chosen on. Written
and committed BEFORE any similarity of it was computed (bench/bi_memory_r27.md).

Each group is one meaning a person could keep an answer for ("the data has no field named X; do you mean ..."):
`same` are phrasings of it (each, kept, must match each other one said in a question), `near` are phrases close in
words or topic that mean something else (none may match any phrasing kept). Pairs (`pairs`): (kept, said, match).
The groups are of several domains (demography, sales, films, chemistry, farming, aviation, jobs); groups 1-12 hold
the terms of round 26's 14-question sample (bench/bi_memory_r26.py), 13-16 are of no bench question.

Folds (written before any similarity was computed): the floor is chosen by leave-one-fold-out cross-validation on
the DEV groups (4 folds of 3 groups each), then evaluated ONCE on the TEST groups.
"""

from __future__ import annotations

GROUPS = {
    "fertility": {
        "same": ["kids per woman", "births per woman", "children per woman", "babies per woman", "fertility rate"],
        "near": [
            "kids per family",
            "children per school",
            "women per household",
            "births per hospital",
            "child mortality",
            "birth weight",
        ],
    },
    "population": {
        "same": ["inhabitants", "population", "number of residents", "no. of inhabitants", "people living there"],
        "near": [
            "male population",
            "urban population",
            "population growth",
            "tourists",
            "number of households",
            "inhabitants per square km",
        ],
    },
    "support rep": {
        "same": [
            "support contact",
            "support rep",
            "account manager",
            "assigned sales agent",
            "customer service representative",
        ],
        "near": ["support ticket", "contact email", "sales total", "employee title", "billing address"],
    },
    "airline": {
        "same": ["carrier", "airline", "operating airline", "air carrier", "flight operator"],
        "near": ["airport", "aircraft type", "carrier fee", "source airport", "route distance"],
    },
    "unemployment": {
        "same": ["joblessness", "unemployment rate", "jobless rate", "share out of work", "unemployment"],
        "near": ["employment count", "labor force", "job openings", "poverty rate", "median income"],
    },
    "metacritic": {
        "same": ["metascore", "metacritic score", "metacritic rating", "critic score on metacritic"],
        "near": ["imdb rating", "box office", "audience score", "runtime", "release year"],
    },
    "field of study": {
        "same": ["major", "field of study", "degree subject", "academic discipline", "college major"],
        "near": ["major league", "minor", "university name", "graduation year", "student count"],
    },
    "butterfat": {
        "same": ["butterfat", "fat content", "milk fat percentage", "butterfat percent", "fat percentage of milk"],
        "near": ["protein content", "milk yield", "body fat", "lactose content", "somatic cell count"],
    },
    "tomatometer": {
        "same": ["tomatometer", "rotten tomatoes score", "critics score on rotten tomatoes", "tomato meter rating"],
        "near": ["tomato price", "imdb rating", "metascore", "box office", "audience count"],
    },
    "profit": {
        "same": ["money", "profit", "earnings after costs", "net gain", "money made"],
        "near": ["revenue", "sales", "discount", "shipping cost", "profit margin"],
    },
    "boiling point": {
        "same": ["boiling point", "boiling temperature", "temperature it boils at", "boiling temp"],
        "near": ["melting point", "freezing point", "density", "atomic weight", "boiling time"],
    },
    "melting point": {
        "same": ["melting point", "melting temperature", "temp at which it melts", "fusion temperature"],
        "near": ["boiling point", "melting rate", "hardness", "atomic number", "ice cream flavour"],
    },
    "revenue": {
        "same": ["turnover", "revenue", "sales income", "gross sales"],
        "near": ["staff turnover", "profit", "tax", "refunds", "number of orders"],
    },
    "life expectancy": {
        "same": ["life expectancy", "lifespan", "average age at death", "years people live"],
        "near": ["death count", "retirement age", "infant mortality", "life insurance", "birth year"],
    },
    "salary": {
        "same": ["salary", "pay", "wage", "annual earnings", "compensation"],
        "near": ["pay date", "salary cap", "bonus", "tax rate", "pension"],
    },
    "customer age": {
        "same": ["customer age", "age of the customer", "how old the customer is", "buyer's age"],
        "near": ["account age", "customer name", "age of the order", "customer count", "product age rating"],
    },
}
DEV = list(GROUPS)[:12]
TEST = list(GROUPS)[12:]
FOLDS = [DEV[0:12:4], DEV[1:12:4], DEV[2:12:4], DEV[3:12:4]]  # 4 folds of 3 groups, interleaved


def pairs(groups: list[str]) -> list[tuple[str, str, bool, str]]:
    """(kept, said, should match, group) for the groups: every ordered pair of phrasings, every phrasing with
    every near phrase."""
    out = []
    for g in groups:
        same, near = GROUPS[g]["same"], GROUPS[g]["near"]
        out += [(a, b, True, g) for a in same for b in same if a != b]
        out += [(a, n, False, g) for a in same for n in near]
    return out
