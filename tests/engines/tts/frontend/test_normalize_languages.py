"""Normalization in Spanish, French, German and Italian (own rules), and in the catalog's other
languages (numbers through num2words, or an own reader, or left to the engine)."""

from __future__ import annotations

import pytest

from soundstage.engines.tts.frontend.normalize import expand


def read(text: str, language: str) -> str:
    return " ".join(span.spoken for span in expand(text, language) if span.spoken)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1.000.000", "un millón"),
        ("3,5", "tres coma cinco"),
        ("-4", "menos cuatro"),
        ("3º", "tercero"),
        ("1.ª", "primera"),
        ("250 €", "doscientos cincuenta euros"),
        ("3,50 €", "tres euros con cincuenta céntimos"),
        ("$100", "cien dólares"),
        ("40%", "cuarenta por ciento"),
        ("10 km", "diez kilómetros"),
        ("1 kg", "uno kilogramo"),
        ("20 °C", "veinte grados centígrados"),
        ("15:30", "quince treinta"),
        ("9:00", "nueve en punto"),
        ("1:15 pm", "una y quince de la tarde"),
        ("3 de marzo de 2024", "tres de marzo de dos mil veinticuatro"),
        ("15/03/2024", "quince de marzo de dos mil veinticuatro"),
        ("2024-03-15", "quince de marzo de dos mil veinticuatro"),
        ("Sr. García", "señor García"),
        ("la Dra. López", "la doctora López"),
        ("p. ej. hoy", "por ejemplo hoy"),
        ("libros, etc.", "libros, etcétera."),
        ("EE. UU. y", "Estados Unidos y"),
        ("en EE. UU.", "en Estados Unidos."),
        ("+34 912 345 678", "más tres cuatro, nueve uno dos, tres cuatro cinco, seis siete ocho"),
        ("www.ejemplo.es", "w w w punto ejemplo punto es"),
        ("ana@correo.es", "ana arroba correo punto es"),
    ],
)
def test_spanish(text: str, words: str) -> None:
    assert read(text, "es-ES") == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1 000 000", "un million"),
        ("1\u202f000", "mille"),
        ("3,5", "trois virgule cinq"),
        ("-4", "moins quatre"),
        ("1er", "premier"),
        ("1re", "première"),
        ("2e", "deuxième"),
        ("21ème", "vingt et unième"),
        ("250 €", "deux cent cinquante euros"),
        ("3,50 €", "trois euros et cinquante centimes"),
        ("40 %", "quarante pour cent"),
        ("10 km", "dix kilomètres"),
        ("15h30", "quinze heures trente"),
        ("15:30", "quinze heures trente"),
        ("1h00", "une heure"),
        ("le 1er mars 2024", "le premier mars deux mille vingt-quatre"),
        ("15/03/2024", "quinze mars deux mille vingt-quatre"),
        ("M. Dupont", "monsieur Dupont"),
        ("Mme Martin", "madame Martin"),
        ("Mmes Martin", "mesdames Martin"),
        ("Dr Martin", "docteur Martin"),
        ("p. ex. ceci", "par exemple ceci"),
        ("pommes, etc.", "pommes, et cetera."),
        ("+33 1 23 45 67 89", "plus trois trois, un, deux trois, quatre cinq, six sept, huit neuf"),
        ("jean@exemple.fr", "jean arobase exemple point fr"),
    ],
)
def test_french(text: str, words: str) -> None:
    assert read(text, "fr-FR") == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1.000.000", "eine Million"),
        ("3,5", "drei Komma fünf"),
        ("-4", "minus vier"),
        ("1948", "neunzehnhundertachtundvierzig"),
        ("250 €", "zweihundertfünfzig Euro"),
        ("3,50 €", "drei Euro und fünfzig Cent"),
        ("40%", "vierzig Prozent"),
        ("10 km", "zehn Kilometer"),
        ("5 h", "fünf Stunden"),
        ("15:30 Uhr", "fünfzehn Uhr dreißig"),
        ("15.30 Uhr", "fünfzehn Uhr dreißig"),
        ("1:00", "ein Uhr"),
        ("15.03.2024", "fünfzehnter März zweitausendvierundzwanzig"),
        ("am 15.03.2024", "am fünfzehnten März zweitausendvierundzwanzig"),
        ("am 3. März 2024", "am dritten März zweitausendvierundzwanzig"),
        ("Hr. Müller", "Herr Müller"),
        ("Fr. Schmidt", "Frau Schmidt"),
        ("z.B. heute", "zum Beispiel heute"),
        ("z. B. heute", "zum Beispiel heute"),
        ("Äpfel usw.", "Äpfel und so weiter."),
        ("d.h. nichts", "das heißt nichts"),
        ("Nr. 5", "Nummer fünf"),
        ("+49 30 1234567", "plus vier neun, drei null, eins zwei drei vier fünf sechs sieben"),
    ],
)
def test_german(text: str, words: str) -> None:
    assert read(text, "de-DE") == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1.000.000", "un milione"),
        ("3,5", "tre virgola cinque"),
        ("-4", "meno quattro"),
        ("3º", "terzo"),
        ("1ª", "prima"),
        ("250 €", "duecentocinquanta euro"),
        ("3,50 €", "tre euro e cinquanta centesimi"),
        ("40%", "quaranta per cento"),
        ("10 km", "dieci chilometri"),
        ("1 km", "uno chilometro"),
        ("15:30", "quindici e trenta"),
        ("1:00", "l'una"),
        ("3 marzo 2024", "tre marzo duemilaventiquattro"),
        ("1 marzo", "primo marzo"),
        ("15/03/2024", "quindici marzo duemilaventiquattro"),
        ("Sig. Rossi", "signor Rossi"),
        ("Sig.ra Rossi", "signora Rossi"),
        ("Dott.ssa Bianchi", "dottoressa Bianchi"),
        ("mele, ecc.", "mele, eccetera."),
        ("+39 06 1234 5678", "più tre nove, zero sei, uno due tre quattro, cinque sei sette otto"),
    ],
)
def test_italian(text: str, words: str) -> None:
    assert read(text, "it-IT") == words


@pytest.mark.parametrize(
    ("language", "text", "words"),
    [
        ("pt-BR", "1234", "mil, duzentos e trinta e quatro"),
        ("pt-BR", "3,5", "três vírgula cinco"),
        ("nl-NL", "1.234", "duizendtweehonderdvierendertig"),
        ("pl-PL", "3,5", "trzy przecinek pięć"),
        ("pl-PL", "$40", "czterdzieści dolarów amerykańskich"),
        ("ru-RU", "21", "двадцать один"),
        ("ru-RU", "-4", "минус четыре"),
        ("sv-SE", "12", "tolv"),
        ("tr-TR", "12", "oniki"),
        ("fi-FI", "12", "kaksitoista"),
        ("da-DK", "12", "tolv"),
        ("hu-HU", "12", "tizenkettő"),
        ("ro-RO", "12", "doisprezece"),
        ("uk-UA", "12", "дванадцять"),
        ("ko-KR", "12", "십이"),
        ("vi-VN", "12", "mười hai"),
        ("id-ID", "12", "dua belas"),
        ("nb-NO", "12", "tolv"),
        ("cs-CZ", "12", "dvanáct"),
        ("ar", "12", "اثنا عشر"),
        ("cmn", "12345", "一万二千三百四十五"),
        ("cmn", "10", "十"),
        ("cmn", "105", "一百零五"),
        ("cmn", "100000001", "一亿零一"),
        ("cmn", "3.5", "三 点 五"),
        ("hi-IN", "250", "250"),
        ("el-GR", "250", "250"),
    ],
)
def test_other_languages_read_numbers(language: str, text: str, words: str) -> None:
    assert read(text, language) == words


def test_chinese_numbers_touching_characters_are_their_own_spans() -> None:
    text = "我有12345个苹果"
    spans = expand(text, "cmn")
    assert [text[s.start : s.end] for s in spans] == ["我有", "12345", "个苹果"]
    assert spans[1].spoken == "一万二千三百四十五"


def test_words_with_combining_marks_stay_whole() -> None:
    text = "मेरे पास 250 रुपये हैं"
    assert [s.spoken for s in expand(text, "hi-IN")] == ["मेरे", "पास", "250", "रुपये", "हैं"]


def test_an_unknown_language_reads_no_numbers() -> None:
    assert read("Dr. 12 $5", "xx") == "Dr. 12 $ 5"
