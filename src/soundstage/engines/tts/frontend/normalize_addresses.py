"""Readers of phone numbers (digit by digit, in their groups), URLs and e-mail addresses."""

from __future__ import annotations

import re

from soundstage.engines.tts.frontend import normalize_numbers as numbers
from soundstage.engines.tts.frontend.normalize_readers import Context, Reading

_PHONE = re.compile(
    r"(?P<plus>\+)?(?:\d{1,4}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]\d{2,8}){1,4}(?![\w])"
)
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_TRAILING = ".,;:!?)]}"
MIN_PHONE_DIGITS = 7
MAX_PHONE_DIGITS = 15


def read_phone(text: str, ctx: Context) -> str | None:
    """ "+1 555 123 4567" -> "plus one, five five five, one two three, four five six seven";
    None when it is not a phone number (too few or too many digits, other characters)."""
    if re.fullmatch(r"\+?[\d\s().-]+", text) is None:
        return None
    groups = re.findall(r"\d+", text)
    count = sum(len(group) for group in groups)
    if not MIN_PHONE_DIGITS <= count <= MAX_PHONE_DIGITS:
        return None
    code = ctx.lex.num2words
    spoken = [numbers.digits(group, code) for group in groups]
    if text.startswith("+"):
        spoken[0] = f"{ctx.lex.words.get('plus', '+')} {spoken[0]}"
    return ", ".join(spoken)


def phone(ctx: Context, pos: int) -> Reading | None:
    match = _PHONE.match(ctx.text, pos)
    if match is None:
        return None
    written = match.group()
    separators = re.findall(r"[ .-]", written)
    groups = re.findall(r"\d+", written)
    plausible = (
        written.startswith(("+", "("))
        or (len(separators) >= 2 and len(set(separators)) == 1 and " " not in separators)
        or [len(g) for g in groups] == [3, 3, 4]
    )
    group_separator = "." if ctx.lex.decimal_comma else ","
    # 1.000.000 is a number, not a phone number.
    thousands = all(len(g) == 3 for g in groups[1:]) and set(separators) <= {group_separator}
    if not plausible or thousands:
        return None
    words = read_phone(written, ctx)
    return None if words is None else (match.end(), words)


def _read_name(part: str, ctx: Context) -> str:
    """A piece of an address: words as they are, digits one by one, symbols by name."""
    out: list[str] = []
    for piece in re.findall(r"[^\W\d_]+|\d+|[^\w\s]|_", part):
        if piece.isdigit():
            out.append(numbers.digits(piece, ctx.lex.num2words))
        elif piece == ".":
            out.append(ctx.lex.words.get("dot", "."))
        elif piece == "/":
            out.append(ctx.lex.words.get("slash", "/"))
        elif piece == "@":
            out.append(ctx.lex.words.get("at", "@"))
        elif piece == "-":
            out.append(ctx.lex.words.get("dash", "-"))
        elif piece == "_":
            out.append(ctx.lex.words.get("underscore", "_"))
        elif piece == ":":
            out.append(ctx.lex.words.get("colon", ":"))
        elif piece.lower() == "www":
            out.append("w w w")
        elif piece[0].isalpha():
            out.append(piece)
    return " ".join(out)


def url(ctx: Context, pos: int) -> Reading | None:
    """https://example.com/a -> "example dot com slash a" (the scheme is not read)."""
    match = _URL.match(ctx.text, pos) or _EMAIL.match(ctx.text, pos)
    if match is None:
        return None
    written = match.group().rstrip(_TRAILING)
    body = re.sub(r"^https?://", "", written, flags=re.IGNORECASE).rstrip("/")
    return pos + len(written), _read_name(body, ctx)
