"""The text front end: what every text-to-speech engine is given instead of the text as sent.

SSML (`ssml`), pronunciation-dictionary rules and normalization (`normalize`: numbers, money,
dates, times, abbreviations... read out per language) turn the request's text into a script
(`script`): spans of plain words, each knowing which characters of the text it reads, and
pauses. Engines only ever see plain words (or IPA phonemes, for those that take them)."""
