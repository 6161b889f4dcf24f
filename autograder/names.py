"""Student and assignment names are identities: used exactly as found, or refused with a reason.

A student id and an assignment name are folder names the student chose (or a zip tool made).
They key everything: OUT/students/<student>/<assignment>/, the rows of grades.csv, nbgrader's
gradebook, the LMS export, the bundles. Nothing strips, normalises or folds them; instead a name
that could pass for another is refused, with the reason `problem` gives, and graded as nothing:

- it is not UTF-8 (bytes from a zip made with another encoding, say cp1252): Python holds them
  as lone surrogates, which no database, CSV reader or platform can store;
- it holds characters that cannot be seen (`escape.INVISIBLE`: zero-width spaces and joiners,
  the soft hyphen, the byte-order mark, no-break and other odd spaces, bidi controls) or
  control characters: ``honest`` and ``honest`` + U+00A0 look the same;
- it starts or ends with a space, or has two in a row (a web page shows one);
- it has a backslash, so it reads as the escaped form of another name (``a\\x07``);
- it is not in Unicode's NFKC form: a full-width ``ｈ``, a ligature, or an accent typed as a
  separate combining mark, each looking like the plain letters another student may have;
- it mixes letters of the Latin, Greek and Cyrillic alphabets, whose look-alikes (Cyrillic
  ``а`` and Latin ``a``) make one name pass for another.

Everything else is a name, whatever it holds: spaces inside, any script, ``=2+5``; outputs
escape it where it goes (`autograder.escape`).

Names that look alike are told to the instructor, never merged or renamed (`look_alikes`): an
all-Cyrillic ``сосо`` beside a Latin ``coco`` are two students, each with their own rows, and the
class's summary names them together. What looks alike is read from Unicode's confusables
(`confusable_homoglyphs`, which carries the table itself and works offline).
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable

from confusable_homoglyphs import categories, confusables

from autograder.escape import visible

LOOK_ALIKE_ALPHABETS = ("LATIN", "GREEK", "CYRILLIC")
SHOWN = 5  # characters named in a reason


def _named(chars: list[str]) -> str:
    """Characters by code point and Unicode name: "U+00A0 NO-BREAK SPACE"."""
    found = list(dict.fromkeys(chars))
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'CONTROL CHARACTER')}"
                     for c in found[:SHOWN]) + more


def _undecodable(name: str) -> list[str]:
    return [c for c in name if "\udc80" <= c <= "\udcff"]


def _alphabet(char: str) -> str | None:
    if not unicodedata.category(char).startswith("L"):
        return None
    word = unicodedata.name(char, "").split(" ")[0]
    return word if word in LOOK_ALIKE_ALPHABETS else None


def problem(name: str) -> str | None:
    """Why ``name`` cannot be a student's or an assignment's identity, in words that follow
    "its name" (None when it can): "is not UTF-8 (the byte 0xFF) …"."""
    undecodable = _undecodable(name)
    if undecodable:
        found = [f"0x{ord(c) - 0xDC00:02X}" for c in dict.fromkeys(undecodable)]
        what = f"byte {found[0]} is" if len(found) == 1 else f"bytes {', '.join(found)} are"
        return (f"is not UTF-8 (its {what} not text; a zip made with another encoding, "
                "such as cp1252, does this)")
    hidden = [c for c in name if visible(c, keep_lines=False) != c]
    if hidden:
        return f"has characters that cannot be seen ({_named(hidden)})"
    if name != name.strip(" ") or "  " in name:
        return "starts or ends with a space, or has two in a row, so it reads as another name"
    if "\\" in name:
        return "has a backslash, so it reads as the escaped form of another name"
    if not unicodedata.is_normalized("NFKC", name):
        odd = [c for c in name if unicodedata.normalize("NFKC", c) != c
               or unicodedata.combining(c)]
        return f"has characters that look like others ({_named(odd or list(name))})"
    alphabets = Counter(a for a in map(_alphabet, name) if a)
    if len(alphabets) > 1:
        main = alphabets.most_common(1)[0][0]
        odd = [c for c in name if _alphabet(c) not in (None, main)]
        mixed = " and ".join(sorted(a.title() for a in alphabets))
        return f"mixes {mixed} letters, which look alike ({_named(odd)})"
    return None


def looks_like(name: str) -> str:
    """``name`` as it looks: each character with a Latin look-alike in Unicode's confusables
    (Cyrillic ``с``, Greek ``Α``, the digit ``0``) written as that Latin letter."""
    shown = []
    for char in name:
        found = confusables.is_confusable(char, preferred_aliases=["latin"])
        latin = [h["c"] for h in found[0]["homoglyphs"] if h["n"].startswith("LATIN ")] \
            if found else []
        shown.append(latin[0] if latin else char)
    return "".join(shown)


def look_alikes(names: Iterable[str]) -> list[list[str]]:
    """The groups of two or more different ``names`` that look the same (`looks_like`), each
    sorted, in order of their first name."""
    groups: dict[str, set[str]] = defaultdict(set)
    for name in names:
        if not _undecodable(name):
            groups[looks_like(name)].add(name)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)


def scripts(name: str) -> str:
    """The alphabets ``name`` is written in, by Unicode's name for them: "Cyrillic and Latin"."""
    found = sorted(categories.unique_aliases(name) - {"COMMON", "INHERITED"})
    return " and ".join(s.title() for s in found) or "no letters"
