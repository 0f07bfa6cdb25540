"""A name's words, a word in the singular, how a name's token shortens a word ('qty' quantity, 'edu_lvl' education
level), whether a name says it holds keys, whether a question names a table and whether two values are a yes/no
pair: read by the semantic layer's field ranking and by join discovery, which semantic.py builds on (so it lives
below both), and by the SQL step, its worked examples and the decline checks: one reading of each."""

from __future__ import annotations

import functools
import os
import re

VOWELS = frozenset("aeiou")
_ENDINGS = ("ness", "ment", "less", "ful", "ing", "ed", "er", "ers", "ly", "s", "es")
_DERIVED = frozenset(["ity", "ion", "ure", "ance", "ence", "ous", "ive"])
# the last word of a name whose values name rows or things, not amounts: 'film_id', 'md_cd', 'pax_no', 'zip_nr'
KEY_WORDS = frozenset(["id", "key", "sk", "code", "cd", "no", "nr", "num", "number"])
_COUNTS = frozenset(["no", "nr", "num", "number"])  # alone, a name of these is as often a count as an ordinal
_GLUED_KEY = re.compile(r"(?:key|code|number)$")  # 'o_orderkey', 'zipcode', 'l_linenumber'
YES, NO = ("1", "true", "yes", "y", "t"), ("0", "false", "no", "n", "f")  # a yes/no column's values, lower-cased
# the nouns that name people by their sex, and a sex column's values (a letter only as a stored value: 'F', 'M')
SEX_WORDS = {
    "female": frozenset(["female", "females", "woman", "women", "lady", "ladies", "girl", "girls"]),
    "male": frozenset(["male", "males", "man", "men", "gentleman", "gentlemen", "boy", "boys"]),
}
_SEX_LETTERS = {"f": "female", "m": "male"}


def words(name: str) -> str:
    """'InvoiceDate' -> 'invoice date', 'l_shipdate' -> 'shipdate' (TPC-H's one-letter prefixes dropped),
    'bp_k' -> 'bp k'."""
    name = re.sub(r"^[a-z]{1,2}_(?=[a-z]{3})", "", name)  # not the name itself: `bp_k` (a boiling point in K)
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return re.sub(r"[_\W]+", " ", name).strip().lower()


def yes_no(held: set[str]) -> tuple[str, str] | None:
    """(yes, no) of a column's two distinct values, lower-cased, when they are a yes/no pair: one of `YES`, one of
    `NO` ('y'/'n', '1'/'0', 'true'/'false', 't'/'f')."""
    yes, no = [v for v in held if v in YES], [v for v in held if v in NO]
    return (yes[0], no[0]) if len(held) == 2 and yes and no else None


def sex_of(word: str, letter: bool = False) -> str | None:
    """'female' or 'male' for a word that names people by their sex ('women', 'ladies', 'men'), or, with `letter`,
    a sex column's stored value ('F', 'MALE'); None for any other word ('manager', 'human', 'human-made')."""
    w = word.lower()
    if letter and w in _SEX_LETTERS:
        return _SEX_LETTERS[w]
    return next((sex for sex, named in SEX_WORDS.items() if w in named), None)


def sex_pair(held: set[str]) -> dict[str, str] | None:
    """sex -> value of a column's distinct values (lower-cased) when they are one female and one male value
    ('female'/'male', 'F'/'M', 'WOMEN'/'MEN'): a sex column; None for a status 'F'/'O' or sizes 'S'/'M'/'L'."""
    sexes = {sex: v for v in held if (sex := sex_of(v, letter=True))}
    return sexes if len(held) == 2 and len(sexes) == 2 else None


_JOINERS = frozenset(["of", "and", "the", "de", "du", "la"])  # no letter of a name's initials ('usa', 'uae')


def initials(value: str) -> str:
    """The initials of a name of several words, its joiners left out: 'New York City' 'nyc', 'General Motors' 'gm',
    'United States of America' 'usa'; '' for a name of one word."""
    said = [w for w in re.findall(r"[^\W\d_]+", value.lower()) if w not in _JOINERS]
    return "".join(w[0] for w in said) if len(said) > 1 else ""


def writes_code(code: str, word: str) -> bool:
    """Whether a stored code of two to four letters is the user's word written short ('NEG' negative, 'NV' nevada,
    'DL' delta, 'MAT' mature: `abbreviates`); not a word of its own ('neg' is no code of 'neglect': the word must go
    on from the code)."""
    return 2 <= len(code) <= 4 and code.isalpha() and abbreviates(code.lower(), word.lower())


def singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ses", "xes", "ches", "shes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and (len(w) > 3 or len(w) == 3 and not VOWELS & set(w)):
        return w[:-1]  # a word of three letters only as a short form's plural: 'yrs', 'lbs' (not 'gas', 'bus')
    return w


def said_words(question: str) -> set[str]:
    """The question's words, each in the singular: what a table's name is looked up in (`names_table`)."""
    return {singular(w) for w in re.findall(r"[a-z0-9]+", question.lower())}


def names_table(table: str, said: set[str]) -> bool:
    """Whether the question's words (`said_words`) name the table: its name glued ('lineitem') or every word of it, in
    either number ('county' of `counties`, 'invoice lines' of `InvoiceLine`); not one word of several ('tracks' do
    not name `PlaylistTrack`, nor 'samples' `milk_samples`)."""
    name = words(table).split()
    return bool(name) and (singular("".join(name)) in said or all(singular(w) in said for w in name))


def key_like(name: str) -> bool:
    """Whether a column's name says it holds keys or codes: its last word is a key word ('CustomerId', 'film_id',
    'md_cd', 'pax_no'; a number word only after another word), or ends in 'key', 'code' or 'number' glued to a word
    ('o_orderkey', 'zipcode', 'l_linenumber'). A shorter key word glued is another word's ending ('paid', 'casino',
    'platinum')."""
    ws = words(name).split()
    if not ws:
        return False
    if ws[-1] in KEY_WORDS:
        return len(ws) > 1 or ws[-1] not in _COUNTS
    return bool(_GLUED_KEY.search(ws[-1]))


@functools.lru_cache(maxsize=65536)  # field ranking asks it per (term word, column token): the pairs recur
def abbreviates(token: str, word: str) -> bool:
    """Whether a name's token is `word` abbreviated: it starts with the word's first letters and goes on with
    consonants found in order later in the word ('qty' quantity, 'dept' department, 'pop' population); a
    two-letter token only where the word's consonants start with it ('yr' year, 'dt' date) or it is a
    compound's initials ('hp' horsepower: the second letter starts the second half, both halves four letters
    or more, the first ending in a vowel) or a long word's first and last letters ('wt' weight). 'age' does not abbreviate 'average' (a vowel after the prefix), nor
    'late' 'lateness', 'ship' 'shipinstruct' or 'age' 'agent' (a word before an ending, another word, two
    letters): a bare prefix is a short form only up to three letters and cut inside a syllable, or before the
    word's last consonants ('len' length, 'mon' month)."""
    if not (token.isalpha() and word.isalpha()) or not 2 <= len(token) < len(word) or token[0] != word[0]:
        return False
    if len(token) == 2:
        consonants = word[0] + "".join(c for c in word[1:] if c not in VOWELS)
        cut = word.find(token[1], 1)
        halves = cut >= 4 and len(word) - cut >= 4 and word[cut - 1] in VOWELS
        return consonants.startswith(token) or halves or _ends(token, word)
    k = len(os.path.commonprefix([token, word]))
    if k == len(token) and word[k:] in _DERIVED:  # 'dens|ity': a stem cut before a suffix that makes a noun of it
        return True
    last = word[k:].removesuffix("s")  # a syllable ends in three consonants at most: 'lenghtt' is no word of it
    if k == len(token) <= 3 and token[-1] not in VOWELS and not VOWELS & set(last) and word[k:] not in _ENDINGS:
        return 2 <= len(last) <= 3  # 'len|gth', 'mon|th': cut inside the word's last consonants ('age|nt' is not)
    if k == len(token):  # a short form cuts inside a syllable ('pop|ulation'); a whole word goes on with an ending
        # or another ('region|key', 'ship|instruct': names join words, so a bare prefix is three letters at most)
        return k <= 3 and len(word) - k >= 3 and word[k] in VOWELS and word[k:] not in _ENDINGS
    rest, later = token[k:], iter(word[k:])  # 'county' is not 'country': a short form drops two letters or more
    return len(word) - len(token) >= 2 and not VOWELS & set(rest) and all(c in later for c in rest)


def _ends(token: str, word: str) -> bool:
    """'wt' weight, 'ht' height: two consonants that are the first and last letters of a word of six letters or more
    ('cd' is not 'card'), not a word's inflection ('cd' is not 'counted')."""
    return len(word) >= 6 and not word.endswith(_ENDINGS) and not VOWELS & set(token) and token[1] == word[-1]


_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_SUFFIXED = re.compile(r"(\d{1,2})(st|nd|rd|th)")


def ordinal(word: str) -> int | None:
    """The number an ordinal writes ('third' 3, '3rd' 3, '2ND' 2); None for any other word ('thirty', '3', '3th'
    is read as 3 too: the user's spelling, not a check of English)."""
    w = word.lower()
    if w in _ORDINAL_WORDS:
        return _ORDINAL_WORDS.index(w) + 1
    m = _SUFFIXED.fullmatch(w)
    return int(m.group(1)) if m and int(m.group(1)) > 0 else None


def ordinal_forms(n: int) -> set[str]:
    """The ways a value may store the ordinal n: '3', '3rd', 'third'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return {str(n), f"{n}{suffix}"} | ({_ORDINAL_WORDS[n - 1]} if n <= len(_ORDINAL_WORDS) else set())


# short words of names written out ('St. Louis' / 'Saint Louis'), and British endings as American ones
_WRITTEN_OUT = {"st": "saint", "mt": "mount", "ft": "fort"}
_BRITISH = (("isation", "ization"), ("our", "or"), ("tre", "ter"), ("ise", "ize"), ("yse", "yze"), ("ogue", "og"))


def spelling_key(text: str) -> str:
    """One writing of a value's spellings: case, apostrophes and hyphens aside ("Mother's Day" 'mothers day',
    'PG-13' 'pg13', 'e-mail' 'email'), '&' as 'and', each word in one number ('phones' / 'phone', 'comedies' /
    'comedy', 'adelies' / 'adelie', Latin 'staphylococci' / 'staphylococcus') and in American spelling
    ('colour' / 'color', 'centre' / 'center'), 'st' as 'saint': two writings of one name share it."""
    text = re.sub(r"['’`-]", "", text.lower()).replace("&", " and ")
    return " ".join(_word_key(w) for w in re.findall(r"[^\W_]+", text))


def _word_key(word: str) -> str:
    if word in _WRITTEN_OUT:
        return _WRITTEN_OUT[word]
    if re.search(r"\d", word):  # '1990s' is a decade, no plural of the year 1990
        return word
    w = word if word.endswith(("ss", "us", "is")) else singular(word)
    if len(w) > 4 and w.endswith("us"):  # 'staphylococcus' and 'staphylococci', 'status' and 'statuses'
        return w[:-2] + "i"
    for british, american in _BRITISH:
        if w.endswith(british) and len(w) - len(british) >= 2:
            w = w[: -len(british)] + american
            break
    if len(w) > 5 and w.endswith("um"):  # 'bacterium' and 'bacteria'
        return w[:-2] + "a"
    if len(w) > 4 and w.endswith("ae"):  # 'larvae' and 'larva'
        return w[:-1]
    if len(w) > 3 and w.endswith("ie"):  # 'adelie' and 'adelies' (`singular`: 'adely')
        return w[:-1]
    return w[:-1] + "i" if len(w) > 3 and w.endswith("y") and w[-2] not in VOWELS else w  # 'comedy', 'comedies'
