"""Japanese normalization: numbers, dates, times, percentages and money written in digits,
read out in kanji numerals, which the Japanese front end (pyopenjtalk) reads with their
counters ("三月" サンガツ, "五日" イツカ, "三十分" サンジュップン); given digits it splits "3月"
into a number and a word and reads "5日" as ゴジツ.

- dates: 2024年3月5日 as written, 2024/3/5, 2024-03-05 (year, month, day) -> 二千二十四年三月五日;
- times: 15:30 -> 十五時三十分, 9:05:10 -> 九時五分十秒 (15:00 -> 十五時);
- decimals: 3.14 -> 三点一四; percentages: 3.5% -> 三点五パーセント;
- money: ¥1,980 and 1,980円 -> 千九百八十円, $5 -> 五ドル, €5 -> 五ユーロ;
- numbers: 1,980 -> 千九百八十, 10005 -> 一万五, -4 -> マイナス四; longer than MAX_DIGITS, digit
  by digit.

Full-width digits and symbols (１２：３０, ５％) read as their ASCII forms. Japanese is written
without spaces: a span is a run of text between white space (a sentence, or a phrase where
the writer spaced it), so word timestamps come per such run. Everything else (kana, kanji,
punctuation, which marks the pauses) passes through unchanged."""

from __future__ import annotations

import re
from typing import Final

from num2words import num2words

from soundstage.engines.tts.frontend.normalize_numbers import MAX_DIGITS
from soundstage.engines.tts.frontend.script import Span

_DIGITS: Final = "〇一二三四五六七八九"
# Full-width forms, one character each: translated in place, so offsets stay the text's.
_FULL_WIDTH: Final = str.maketrans("０１２３４５６７８９：．，％－＄", "0123456789:.,%-$")
_CURRENCY_BEFORE: Final = {"¥": "円", "￥": "円", "$": "ドル", "€": "ユーロ", "£": "ポンド"}
_NUMBER: Final = r"\d{1,3}(?:,\d{3})+|\d+"
_PATTERN: Final = re.compile(
    r"(?P<date>(?P<y>\d{4})[/.\-](?P<mo>\d{1,2})[/.\-](?P<d>\d{1,2}))(?!\d)"
    r"|(?P<time>(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?)(?!\d)"
    rf"|(?P<cur>[¥￥$€£])(?P<amount>{_NUMBER})(?:\.(?P<cents>\d+))?"
    rf"|(?P<minus>-)?(?P<int>{_NUMBER})(?:\.(?P<frac>\d+))?(?P<pct>%)?"
)


def expand(text: str, *, offset: int = 0) -> list[Span]:
    """normalize.expand for Japanese: one span per run of text between white space."""
    return [
        Span(offset + match.start(), offset + match.end(), read(match.group()))
        for match in re.finditer(r"\S+", text)
    ]


def read(text: str) -> str:
    """The text with every number it writes read out in kanji numerals."""
    return _PATTERN.sub(_reading, text.translate(_FULL_WIDTH))


def _reading(match: re.Match[str]) -> str:
    found = match.groupdict()
    if found["date"] is not None:
        month, day = int(found["mo"]), int(found["d"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return "".join(_number(part) for part in re.split(r"[/.\-]", found["date"]))
        return f"{_number(found['y'])}年{_number(found['mo'])}月{_number(found['d'])}日"
    if found["time"] is not None:
        hours, minutes = int(found["h"]), int(found["mi"])
        if hours > 24 or minutes > 59:
            return f"{_number(found['h'])}、{_number(found['mi'])}"
        said = f"{_number(found['h'])}時"
        if minutes or found["s"]:
            said += f"{_number(found['mi'])}分"
        if found["s"] is not None:
            said += f"{_number(found['s'])}秒"
        return said
    if found["cur"] is not None:
        amount = _number(found["amount"])
        if found["cents"] is not None:
            amount += "点" + _digits(found["cents"])
        return amount + _CURRENCY_BEFORE[found["cur"]]
    said = _number(found["int"])
    if found["frac"] is not None:
        said += "点" + _digits(found["frac"])
    if found["minus"] is not None:
        said = "マイナス" + said
    return said + ("パーセント" if found["pct"] else "")


def _number(digits: str) -> str:
    digits = digits.replace(",", "")
    if len(digits.lstrip("0")) > MAX_DIGITS:
        return _digits(digits)
    return str(num2words(int(digits), lang="ja")) if int(digits) else "ゼロ"


def _digits(digits: str) -> str:
    return "".join(_DIGITS[int(digit)] for digit in digits)
