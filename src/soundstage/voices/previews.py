"""Voice previews: a short sentence in the voice's language, rendered once by a worker as an
MP3 kept in the media store (the local directory, or S3 that every node shares: a preview
rendered by one node's worker is served by every API node) and served at the public
`/previews/{voice_id}.mp3`.

The file's key carries a digest of what it says and how (engine, voice, text), so changing a
voice's engine settings or its sample text makes a new preview; the URL stays the same.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Final

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines import dsp
from soundstage.engines.tts import text as text_pieces
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import encode
from soundstage.models import Voice
from soundstage.storage import service as storage
from soundstage.voices import repository

# What each voice says, by base language; others say the English one.
SAMPLE_TEXTS: Final[dict[str, str]] = {
    "en": "Hello! This is my voice. I can read your stories, ads and lessons aloud.",
    "es": "¡Hola! Esta es mi voz. Puedo leer en voz alta tus historias y anuncios.",
    "fr": "Bonjour ! Voici ma voix. Je peux lire vos histoires et vos annonces à voix haute.",
    "de": "Hallo! Das ist meine Stimme. Ich lese Ihre Geschichten und Anzeigen gerne vor.",
    "it": "Ciao! Questa è la mia voce. Posso leggere ad alta voce le tue storie.",
    "pt": "Olá! Esta é a minha voz. Posso ler as suas histórias em voz alta.",
    "nl": "Hallo! Dit is mijn stem. Ik kan je verhalen en advertenties voorlezen.",
    "pl": "Cześć! To jest mój głos. Mogę przeczytać na głos twoje historie.",
    "ru": "Здравствуйте! Это мой голос. Я могу читать вслух ваши истории.",
    "uk": "Привіт! Це мій голос. Я можу читати вголос ваші історії.",
    "cmn": "你好！这是我的声音。我可以为你朗读故事和广告。",
    "zh": "你好！这是我的声音。我可以为你朗读故事和广告。",
    "ja": "こんにちは。これは私の声です。物語や広告を読み上げます。",
    "ko": "안녕하세요! 제 목소리입니다. 이야기와 광고를 읽어 드립니다.",
    "hi": "नमस्ते! यह मेरी आवाज़ है। मैं आपकी कहानियाँ पढ़ सकती हूँ।",
    "ar": "مرحبا! هذا هو صوتي. يمكنني قراءة قصصك بصوت عال.",
    "sv": "Hej! Det här är min röst. Jag kan läsa dina berättelser högt.",
    "nb": "Hei! Dette er stemmen min. Jeg kan lese historiene dine høyt.",
    "da": "Hej! Dette er min stemme. Jeg kan læse dine historier højt.",
    "fi": "Hei! Tämä on minun ääneni. Voin lukea tarinasi ääneen.",
    "tr": "Merhaba! Bu benim sesim. Hikayelerinizi yüksek sesle okuyabilirim.",
    "el": "Γεια σας! Αυτή είναι η φωνή μου. Μπορώ να διαβάσω τις ιστορίες σας.",
    "cs": "Ahoj! Tohle je můj hlas. Mohu vám nahlas přečíst vaše příběhy.",
    "hu": "Szia! Ez az én hangom. Felolvasom a történeteidet.",
    "ro": "Bună! Aceasta este vocea mea. Pot citi cu voce tare poveștile tale.",
    "vi": "Xin chào! Đây là giọng nói của tôi. Tôi có thể đọc to câu chuyện của bạn.",
    "id": "Halo! Ini suara saya. Saya bisa membacakan cerita Anda.",
}
FILE_SUFFIX: Final = ".mp3"
# The background task that renders a preview (voices/tasks.py).
RENDER_TASK: Final = "voices.render_preview"


def sample_text(language: str) -> str:
    base = language.split("-")[0].lower()
    return SAMPLE_TEXTS.get(base, SAMPLE_TEXTS["en"])


def preview_url(settings: Settings, voice_id: str) -> str:
    return f"{settings.public_base_url}/previews/{voice_id}{FILE_SUFFIX}"


def preview_key(voice: Voice) -> str:
    """The preview's key in the media store."""
    text = sample_text(voice.language)
    digest = hashlib.sha256(f"{voice.engine}\0{voice.engine_voice}\0{text}".encode()).hexdigest()
    return f"previews/{voice.id}-{digest[:16]}{FILE_SUFFIX}"


def render(db: Database, settings: Settings, voice_id: str) -> str | None:
    """Worker side: render the voice's preview into the media store unless it is there; its
    key. None for an unknown voice."""
    with db.read_session() as session:
        voice = repository.get_active_voice(session, voice_id)
        if voice is None:
            return None
        key = preview_key(voice)
        engine_name, engine_voice, language = voice.engine, voice.engine_voice, voice.language
    if not storage.render_exists(settings, key):
        render_to_store(settings, key, engine_name, engine_voice, sample_text(language))
    return key


def render_to_store(
    settings: Settings, key: str, engine_name: str, engine_voice: str, text: str
) -> None:
    """Worker side: `text` read by an engine voice (see speak_to_file), rendered in scratch
    space (`data_dir/tmp`, swept if the process dies) and kept in the media store as `key`."""
    root = settings.data_dir / "tmp"
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="render-", dir=root) as scratch:
        path = Path(scratch) / f"render{FILE_SUFFIX}"
        speak_to_file(engine_name, engine_voice, text, path)
        storage.keep_render(settings, key, path)


def speak_to_file(engine_name: str, engine_voice: str, text: str, path: Path) -> None:
    """Worker side: `text` read by an engine voice, sentence by sentence, as an MP3 at `path`
    (voice previews, talent demos)."""
    engine = get_engine(engine_name)
    pieces = text_pieces.split(text)
    clips = [engine.synthesize(piece.text, engine_voice) for piece in pieces]
    audio = dsp.join(clips, [piece.pause_after_ms for piece in pieces])
    path.parent.mkdir(parents=True, exist_ok=True)
    # encode() writes a hidden partial file and renames it: readers never see half a file.
    partial = path.with_name(f"{path.stem}.{os.getpid()}{FILE_SUFFIX}")
    encode(audio, partial, "mp3")
    partial.replace(path)
