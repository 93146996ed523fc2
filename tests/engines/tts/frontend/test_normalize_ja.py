"""Japanese normalization (frontend/languages/ja.py): numbers, dates, times, decimals,
percentages and money in kanji numerals, full-width forms read as ASCII, spans between white
space with the text's own offsets."""

from __future__ import annotations

import pytest

from soundstage.engines.tts.frontend.normalize import expand


def spoken(text: str) -> str:
    return " ".join(span.spoken for span in expand(text, "ja-JP"))


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("今日は2024年3月5日です。", "今日は二千二十四年三月五日です。"),
        ("2024/03/05に", "二千二十四年三月五日に"),
        ("2024-3-5", "二千二十四年三月五日"),
        ("2024/13/05", "二千二十四十三五"),  # no such month: the numbers only
        ("会議は15:30から", "会議は十五時三十分から"),
        ("15:00に", "十五時に"),
        ("9:05:10", "九時五分十秒"),
        ("25:70", "二十五、七十"),  # no such time
        ("3.14", "三点一四"),
        ("3.5%の割引", "三点五パーセントの割引"),
        ("1,980円", "千九百八十円"),
        ("¥1,980", "千九百八十円"),
        ("$5", "五ドル"),
        ("€2.50", "二点五〇ユーロ"),
        ("10005人", "一万五人"),
        ("気温は-4度", "気温はマイナス四度"),
        ("0", "ゼロ"),
        ("１２：３０に５％", "十二時三十分に五パーセント"),
        ("1" * 20, "一" * 20),  # past MAX_DIGITS: digit by digit
        ("こんにちは、世界。", "こんにちは、世界。"),
    ],
)
def test_readings(written: str, said: str) -> None:
    assert spoken(written) == said


def test_spans_are_the_runs_between_white_space_with_the_texts_offsets() -> None:
    text = "今日は 3月5日 です。"
    spans = expand(text, "ja-JP", offset=10)
    assert [(span.start, span.end) for span in spans] == [(10, 13), (14, 18), (19, 22)]
    assert [span.spoken for span in spans] == ["今日は", "三月五日", "です。"]
    assert expand("１２：３０", "ja")[0].end == len("１２：３０")
