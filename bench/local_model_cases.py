"""Our own function-calling set for the embedded model (written for orrery; BFCL is kept for independent
evaluation): 120 single-turn cases in three kinds of 40.

- simple: one tool offered, and it fits;
- several: four tools offered, one fits;
- none: three or four tools offered, none fits: the right reply is a text answer, no call.

A call is right when it names the expected tool and its arguments pass the case's check (the values asked
for, leniently: units by prefix, numbers by value)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orrery.messages import ToolSpec


def obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


STR, NUM, INT = {"type": "string"}, {"type": "number"}, {"type": "integer"}
TOOLS = {
    t.name: t
    for t in [
        ToolSpec(
            "calculate", "Evaluate an arithmetic expression and return the number.", obj(["expression"], expression=STR)
        ),
        ToolSpec("get_weather", "Current weather for a city.", obj(["city"], city=STR)),
        ToolSpec(
            "convert_units",
            "Convert a value from one unit to another (length, mass, temperature, volume).",
            obj(["value", "from_unit", "to_unit"], value=NUM, from_unit=STR, to_unit=STR),
        ),
        ToolSpec(
            "get_stock_price", "The latest trading price of a stock, by its ticker symbol.", obj(["ticker"], ticker=STR)
        ),
        ToolSpec(
            "translate",
            "Translate a text into another language.",
            obj(["text", "target_language"], text=STR, target_language=STR),
        ),
        ToolSpec(
            "set_reminder",
            "Set a reminder with a message at a time of day (HH:MM, 24-hour clock).",
            obj(["message", "time"], message=STR, time=STR),
        ),
        ToolSpec(
            "send_email",
            "Send an email to one address with a subject and a body.",
            obj(["to", "subject", "body"], to=STR, subject=STR, body=STR),
        ),
        ToolSpec("get_time", "The current local time in a city.", obj(["city"], city=STR)),
    ]
}

Check = Callable[[dict[str, Any]], bool]


@dataclass
class Case:
    kind: str
    prompt: str
    tools: list[str]
    expected: str | None  # None: no tool fits, a text answer is right
    check: Check | None = None


def _has(*words: str) -> Check:
    def check(args: dict[str, Any]) -> bool:
        text = " ".join(str(v) for v in args.values()).lower().replace(" ", "")
        return all(w.lower().replace(" ", "") in text for w in words)

    return check


def _translate(words: str, *language: str) -> Check:
    """The text asked for, into the language by name or ISO code ("German" or "de")."""
    return lambda a: _has(words)(a) and str(a.get("target_language", "")).strip().lower() in language


def _num(x: float) -> Check:
    return lambda a: isinstance(a.get("value"), (int, float)) and abs(a["value"] - x) < 1e-9


def _units(x: float, frm: str, to: str) -> Check:
    return lambda a: (
        _num(x)(a)
        and str(a.get("from_unit", "")).lower().startswith(frm)
        and str(a.get("to_unit", "")).lower().startswith(to)
    )


# (prompt, tool, check): questions that one tool answers.
FITTING: list[tuple[str, str, Check]] = [
    ("What is 17*23?", "calculate", _has("17", "23")),
    ("How much is 1234 divided by 8?", "calculate", _has("1234", "8")),
    ("Compute 3.5 to the power of 4.", "calculate", _has("3.5", "4")),
    ("I have 3 boxes of 14 apples each. How many apples in total?", "calculate", _has("3", "14")),
    ("What's 15% of 240?", "calculate", _has("15", "240")),
    ("Add 1999 and 2024, then subtract 7.", "calculate", _has("1999", "2024", "7")),
    ("What is the square root of 1521?", "calculate", _has("1521")),
    ("Multiply 48 by 0.75.", "calculate", _has("48", "0.75")),
    ("What's the weather like in Paris right now?", "get_weather", _has("paris")),
    ("Do I need an umbrella in Tokyo today?", "get_weather", _has("tokyo")),
    ("Is it cold in Reykjavik at the moment?", "get_weather", _has("reykjavik")),
    ("How hot is it in Cairo?", "get_weather", _has("cairo")),
    ("Tell me the current weather conditions in Buenos Aires.", "get_weather", _has("buenos")),
    ("Is it snowing in Montreal?", "get_weather", _has("montreal")),
    ("Convert 5 miles to kilometers.", "convert_units", _units(5, "mi", "k")),
    ("How many pounds is 72 kg?", "convert_units", _units(72, "k", "p")),
    ("What is 100 degrees Fahrenheit in Celsius?", "convert_units", _units(100, "f", "c")),
    ("Convert 3 liters to gallons.", "convert_units", _units(3, "l", "g")),
    ("How many centimeters are in 12 inches?", "convert_units", _units(12, "in", "c")),
    ("Turn 250 grams into ounces.", "convert_units", _units(250, "g", "o")),
    ("What's Apple's stock price (AAPL)?", "get_stock_price", _has("aapl")),
    ("How is MSFT trading right now?", "get_stock_price", _has("msft")),
    ("Give me the latest price of Tesla stock, ticker TSLA.", "get_stock_price", _has("tsla")),
    ("What does NVDA cost per share today?", "get_stock_price", _has("nvda")),
    ("Translate 'good morning' into Spanish.", "translate", _translate("good morning", "spanish", "es", "español")),
    ("How do you say 'thank you very much' in Japanese?", "translate", _translate("thank you", "japanese", "ja", "jp")),
    (
        "Translate 'where is the train station' to German.",
        "translate",
        _translate("train station", "german", "de", "deutsch"),
    ),
    (
        "Please put 'I love this city' into French.",
        "translate",
        _translate("love this city", "french", "fr", "français"),
    ),
    ("Remind me to call mom at 18:30.", "set_reminder", _has("mom", "18:30")),
    ("Set a reminder for 07:15 to take my medicine.", "set_reminder", _has("medicine", "07:15")),
    ("At 12:00 remind me to water the plants.", "set_reminder", _has("plants", "12:00")),
    ("I need a reminder at 21:45: submit the report.", "set_reminder", _has("report", "21:45")),
    (
        "Email bob@example.com with subject 'Lunch' and say I'll be late.",
        "send_email",
        _has("bob@example.com", "lunch"),
    ),
    (
        "Send an email to ana@corp.io titled 'Invoice' saying the invoice is attached.",
        "send_email",
        _has("ana@corp.io", "invoice"),
    ),
    (
        "Write to team@site.org, subject 'Standup', body: standup moves to 10am.",
        "send_email",
        _has("team@site.org", "standup"),
    ),
    (
        "Mail jo@uni.edu the subject 'Thesis' and tell her the draft is ready.",
        "send_email",
        _has("jo@uni.edu", "thesis"),
    ),
    ("What time is it in Sydney?", "get_time", _has("sydney")),
    ("Tell me the local time in New York.", "get_time", _has("new york")),
    ("What's the current time in Mumbai?", "get_time", _has("mumbai")),
    ("Is it already evening in Berlin? What time is it there?", "get_time", _has("berlin")),
]

# (prompt, tools that do not fit): answered from knowledge or conversation, not by any offered tool.
UNFITTING: list[tuple[str, list[str]]] = [
    ("Who wrote Hamlet?", ["calculate", "get_weather", "convert_units"]),
    ("What is the capital of Australia?", ["get_stock_price", "convert_units", "set_reminder"]),
    ("Tell me a short joke about cats.", ["calculate", "get_time", "send_email"]),
    ("Explain in one sentence what photosynthesis is.", ["get_weather", "translate", "calculate"]),
    ("Hello! How are you today?", ["convert_units", "get_stock_price", "get_time"]),
    ("Write a haiku about autumn.", ["calculate", "set_reminder", "get_weather"]),
    ("What does the word 'ephemeral' mean?", ["get_time", "convert_units", "calculate"]),
    ("Who painted the Mona Lisa?", ["send_email", "get_stock_price", "get_weather"]),
    ("Give me three tips for sleeping better.", ["calculate", "translate", "get_time"]),
    ("What is a prime number?", ["get_weather", "send_email", "set_reminder"]),
    ("Summarize the plot of Romeo and Juliet in two sentences.", ["convert_units", "get_time", "get_stock_price"]),
    ("Which planet is closest to the sun?", ["translate", "set_reminder", "send_email"]),
    ("Thanks, that's all I needed!", ["calculate", "get_weather", "get_time"]),
    ("What's your favourite color?", ["get_stock_price", "calculate", "convert_units"]),
    ("Suggest a name for a golden retriever puppy.", ["get_weather", "get_time", "send_email"]),
    ("What year did World War II end?", ["calculate", "convert_units", "set_reminder"]),
    ("Explain what a Python list comprehension is.", ["get_weather", "translate", "get_stock_price"]),
    ("How do I boil an egg?", ["send_email", "get_time", "calculate"]),
    ("Who was the first person to walk on the moon?", ["convert_units", "set_reminder", "get_weather"]),
    ("Recommend a classic science fiction novel.", ["get_stock_price", "calculate", "translate"]),
    ("What is the chemical symbol for gold?", ["get_time", "send_email", "convert_units"]),
    ("Why is the sky blue? One sentence please.", ["calculate", "get_stock_price", "set_reminder"]),
    ("What's the difference between a virus and a bacterium?", ["get_weather", "convert_units", "get_time"]),
    ("Can you write a limerick about a frog?", ["translate", "calculate", "send_email"]),
    ("Who discovered penicillin?", ["set_reminder", "get_stock_price", "get_weather"]),
    ("Good night!", ["calculate", "convert_units", "get_time"]),
    ("What is the largest ocean on Earth?", ["send_email", "translate", "calculate"]),
    ("List the three primary colors.", ["get_weather", "get_stock_price", "set_reminder"]),
    ("What is recursion in programming?", ["get_time", "convert_units", "send_email"]),
    ("How many legs does a spider have?", ["translate", "get_weather", "get_stock_price"]),
    ("Who is the author of 'Pride and Prejudice'?", ["calculate", "set_reminder", "get_time", "convert_units"]),
    ("What language is spoken in Brazil?", ["get_weather", "calculate", "send_email", "get_stock_price"]),
    ("Describe a rainbow to a child.", ["convert_units", "get_time", "translate", "set_reminder"]),
    ("Give me a motivational quote.", ["get_stock_price", "get_weather", "calculate", "send_email"]),
    (
        "What is the boiling point of water at sea level, in Celsius?",
        ["get_time", "set_reminder", "send_email", "get_stock_price"],
    ),
    ("Name a famous composer of the Baroque era.", ["calculate", "convert_units", "get_weather", "get_time"]),
    ("What does HTTP stand for?", ["translate", "set_reminder", "get_stock_price", "get_weather"]),
    ("Is a tomato a fruit or a vegetable?", ["send_email", "calculate", "get_time", "convert_units"]),
    (
        "What's a good way to start learning the guitar?",
        ["get_weather", "get_stock_price", "set_reminder", "calculate"],
    ),
    ("Which animal is known as the king of the jungle?", ["convert_units", "translate", "get_time", "send_email"]),
]


def cases(seed: int = 13) -> list[Case]:
    """The 120 cases, in a fixed order (kinds interleaved so a slow stretch of the machine hits all three)."""
    rng = random.Random(seed)
    simple = [Case("simple", p, [tool], tool, check) for p, tool, check in FITTING]
    several = []
    for p, tool, check in FITTING:
        others = rng.sample([n for n in TOOLS if n != tool], 3)
        offered = others + [tool]
        rng.shuffle(offered)
        several.append(Case("several", p, offered, tool, check))
    none = [Case("none", p, tools, None) for p, tools in UNFITTING]
    out = []
    for trio in zip(simple, several, none, strict=True):
        out += trio
    return out
