"""Sound effects never refuse a prompt: 50 prompts a user might write, none naming a recipe
or quoting a recipe's label, each answered over HTTP with audible audio of the asked length
and recipes a reader would accept (the set each prompt states). They cover the families
added for the gaps users try first (sci-fi hums, engines, crowds, interface and game sounds,
cinematic hits) and scenes that need two recipes."""

from __future__ import annotations

import re

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.sound.recipes import RECIPES
from tests.support.audio_fixtures import download_audio
from tests.support.factories import Customer, create_customer
from tests.support.sound import level_db

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.measures,
    pytest.mark.usefixtures("worker"),
]

SOUND = "/api/v1/creative/sound"

# (prompt, recipes a reader would accept as the main sound, whether it needs two recipes)
PROMPTS: list[tuple[str, set[str], bool]] = [
    # Sci-fi hums and drones
    ("the low thrum of a starship's drive", {"spaceship_hum", "reactor_drone"}, False),
    ("an alien mothership hovering over the city", {"spaceship_hum", "force_field"}, False),
    (
        "a glowing power core pulsing in a secret lab",
        {"reactor_drone", "force_field", "spaceship_hum"},
        False,
    ),
    ("mains electricity humming in a substation", {"reactor_drone"}, False),
    ("a shimmering energy barrier around the base", {"force_field"}, False),
    ("a blaster pistol fired in a space battle", {"laser"}, False),
    ("a faint warp drive throbbing far below deck", {"spaceship_hum", "reactor_drone"}, False),
    # Engines
    ("a hot rod roaring as the driver stomps on the gas", {"car_revving", "engine"}, False),
    ("a sedan idling at a red light", {"engine", "car_revving"}, False),
    ("a scooter zipping down a narrow street", {"motorcycle"}, False),
    ("a biker blasting past on the highway", {"motorcycle"}, False),
    ("an eighteen-wheeler rumbling at the loading dock", {"truck", "engine"}, False),
    ("a cessna buzzing low over the farm", {"propeller_plane", "airplane"}, False),
    ("a passenger jet screaming down the runway at takeoff", {"jet_engine", "airplane"}, False),
    ("a go-kart racing around the track", {"car_revving", "engine", "motorcycle"}, False),
    # Crowds
    ("fans going wild after a goal", {"stadium_crowd", "applause"}, False),
    (
        "the whole theatre putting their hands together after the encore",
        {"applause", "clapping"},
        False,
    ),
    ("diners talking over lunch in a busy bistro", {"restaurant_chatter"}, False),
    ("a packed pub on a friday night", {"restaurant_chatter"}, False),
    ("a rock concert crowd chanting", {"stadium_crowd"}, False),
    ("murmuring guests at a cocktail party", {"restaurant_chatter"}, False),
    ("a cheering crowd at a basketball game", {"stadium_crowd", "applause"}, False),
    # Interface and game sounds
    ("tapping a button on a touchscreen", {"ui_click"}, False),
    ("a new email alert on a smartphone", {"notification_chime", "ui_beep"}, False),
    ("a gentle ding when a text message arrives", {"notification_chime", "ui_beep"}, False),
    ("grabbing a gold ring in a retro platformer", {"coin_pickup", "power_up"}, False),
    ("mario collecting coins", {"coin_pickup"}, False),
    ("eating a mushroom that makes you grow in an 8-bit game", {"power_up", "level_up"}, False),
    ("a buzzer when the contestant answers wrong", {"error_buzz"}, False),
    ("the computer rejects your password with a harsh buzz", {"error_buzz"}, False),
    (
        "a triumphant little tune when you finish a stage in an arcade game",
        {"level_up", "power_up"},
        False,
    ),
    ("a microwave finishing with three beeps", {"ui_beep"}, False),
    # Cinematic hits
    ("a deep trailer hit", {"impact", "braam"}, False),
    ("a tension-building sweep rising into the drop", {"riser"}, False),
    ("something zipping past the camera", {"whoosh"}, False),
    ("a giant brass horn blast in an action movie trailer", {"braam"}, False),
    ("a huge boom for a movie title card", {"impact", "braam", "explosion"}, False),
    ("a building blowing up", {"explosion"}, False),
    ("a swoosh transition between scenes", {"whoosh"}, False),
    # Scenes of two sounds
    (
        "a downpour drumming on a tin roof during a storm with thunder",
        {"rain", "thunderstorm"},
        False,
    ),
    (
        "a campfire crackling under the stars with cicadas trilling",
        {"crackling_fire", "crickets", "insects"},
        True,
    ),
    ("seagulls and surf at the seaside", {"sea_waves"}, False),
    (
        "a busy street with honking cars and a distant ambulance",
        {"car_horn", "engine", "siren"},
        True,
    ),
    (
        "a starship bridge humming, with computers bleeping",
        {"spaceship_hum", "reactor_drone"},
        False,
    ),
    ("a crowded cafe while it pours outside", {"restaurant_chatter", "rain"}, True),
    (
        "a tractor chugging through a muddy field with cattle lowing",
        {"engine", "truck", "cow"},
        True,
    ),
    ("a space battle with blasts and ray guns", {"explosion", "laser", "impact"}, True),
    ("a gale battering a lighthouse while breakers crash below", {"wind", "sea_waves"}, False),
    ("an arcade full of coin sounds and chatter", {"coin_pickup", "restaurant_chatter"}, True),
    ("a loud crowd in an ice hockey arena with a horn", {"stadium_crowd", "applause"}, True),
]


def named_recipes(prompt: str) -> list[str]:
    """The recipes a prompt names outright: by name (as words) or by label, verbatim."""
    return [
        name
        for name, recipe in RECIPES.items()
        if re.search(rf"\b{re.escape(name.replace('_', ' '))}\b", prompt, re.IGNORECASE)
        or recipe.label.lower() in prompt.lower()
    ]


def test_the_prompts_are_fifty_and_name_no_recipe() -> None:
    assert len(PROMPTS) == len({prompt for prompt, _, _ in PROMPTS}) == 50
    assert {prompt: named for prompt, _, _ in PROMPTS if (named := named_recipes(prompt))} == {}
    for _, acceptable, _ in PROMPTS:
        assert acceptable <= set(RECIPES)
    families = {RECIPES[name].family for _, acceptable, _ in PROMPTS for name in acceptable}
    assert {"scifi", "interface", "production", "urban", "human"} <= families


@pytest.fixture(scope="module")
def payer(db: Database) -> Customer:
    return create_customer(db, credits_each=150 * len(PROMPTS))


@pytest.mark.parametrize(("prompt", "acceptable", "two"), PROMPTS, ids=[p for p, _, _ in PROMPTS])
def test_a_prompt_gives_audible_sound_from_recipes_a_reader_accepts(
    client: TestClient,
    settings: Settings,
    payer: Customer,
    prompt: str,
    acceptable: set[str],
    two: bool,
) -> None:
    response = client.post(
        SOUND, headers=payer.auth(), json={"prompt": prompt, "duration_seconds": 1, "seed": 7}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["status"], body["credits_used"]) == ("completed", 150)
    assert body["job_id"]
    assert abs(body["duration_ms"] - 1000) <= 10
    recipes = body["recipes"]
    assert recipes[0]["name"] in acceptable, recipes
    assert sum(r["weight"] for r in recipes) == pytest.approx(1, abs=0.01)
    assert [r["weight"] for r in recipes] == sorted((r["weight"] for r in recipes), reverse=True)
    assert 0 <= body["confidence"] <= 1
    if two:
        assert len(recipes) >= 2, recipes
    audio = download_audio(client, settings, body["output_url"])
    assert (audio.sample_rate, audio.frames) == (44_100, 44_100)
    assert np.all(np.isfinite(audio.samples))
    assert level_db(audio.samples) > -45
