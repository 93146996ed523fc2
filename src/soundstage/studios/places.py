"""Place names compared the way people type them: case, accents and punctuation ignored."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# Letters that Unicode decomposition leaves alone but that readers treat as accented Latin
# letters (casefold has already turned ß into ss).
_FOLD: Final = str.maketrans(
    {
        "ł": "l",
        "ø": "o",
        "đ": "d",
        "ð": "d",
        "þ": "th",
        "æ": "ae",
        "œ": "oe",
        "\u0131": "i",
        "ħ": "h",
    }
)
_WORD: Final = re.compile(r"[^\W_]+")


def place_key(name: str) -> str:
    """The form city and state filters compare: "Saint-Étienne" and "SAINT ETIENNE" are both
    "saint etienne", "Łódź" is "lodz", "St. Louis" is "st louis". Empty when the name holds no
    letter or digit."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    folded = bare.casefold().translate(_FOLD)
    return " ".join(_WORD.findall(folded))
