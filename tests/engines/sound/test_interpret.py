"""Prompt -> recipes with the real all-MiniLM-L6-v2 model: paraphrases, layering, adjectives."""

from __future__ import annotations

import pytest

from soundstage.engines.sound.interpret import (
    MAX_LAYERS,
    SURE_SIMILARITY,
    RecipeIndex,
    confidence,
    interpret,
)
from soundstage.engines.sound.recipes import RECIPES
from soundstage.engines.sound.steering import MODIFIER_WORDS, find_modifiers, strip_modifiers
from tests.support.paraphrases import BEYOND_ESC50_PARAPHRASES, ESC50_PARAPHRASES

pytestmark = pytest.mark.slow


def test_every_esc50_class_and_production_effect_has_a_recipe() -> None:
    assert set(ESC50_PARAPHRASES) == {name for name, r in RECIPES.items() if r.esc50}
    assert len(ESC50_PARAPHRASES) == 50
    assert set(BEYOND_ESC50_PARAPHRASES) == {name for name, r in RECIPES.items() if not r.esc50}
    assert set(BEYOND_ESC50_PARAPHRASES) >= {
        "whoosh", "riser", "impact", "ui_click", "ui_beep", "explosion", "laser", "braam",
        "spaceship_hum", "reactor_drone", "force_field",
        "car_revving", "motorcycle", "truck", "propeller_plane", "jet_engine",
        "applause", "stadium_crowd", "restaurant_chatter",
        "notification_chime", "coin_pickup", "power_up", "error_buzz", "level_up",
    }  # fmt: skip


def chosen(index: RecipeIndex, prompt: str) -> str:
    return interpret(prompt, index)[0].recipe.name


def test_paraphrases_choose_the_intended_recipe(index: RecipeIndex) -> None:
    prompts = [(name, p) for name, pair in ESC50_PARAPHRASES.items() for p in pair]
    assert len(prompts) == 100
    misses = [(name, p, got) for name, p in prompts if (got := chosen(index, p)) != name]
    assert len(misses) <= 10, misses  # >= 90% right
    effects = [(name, p) for name, ps in BEYOND_ESC50_PARAPHRASES.items() for p in ps]
    effect_misses = [(n, p, got) for n, p in effects if (got := chosen(index, p)) != n]
    assert len(effect_misses) <= len(effects) // 10, effect_misses


@pytest.mark.parametrize(
    ("prompt", "layers"),
    [
        ("rain on a tin roof with distant thunder", ["rain", "thunderstorm"]),
        ("a crackling fire and crickets outside", ["crackling_fire", "crickets"]),
        ("a cow mooing, crickets chirping", ["cow", "crickets"]),
        ("church bells ringing while birds sing", ["church_bells", "chirping_birds"]),
        ("ocean waves with wind and seagulls", ["sea_waves", "wind"]),
        ("a siren, a car horn honking and a helicopter", ["siren", "car_horn", "helicopter"]),
        ("typing on a keyboard then a mouse click", ["keyboard_typing", "mouse_click"]),
    ],
)
def test_several_elements_are_layered(index: RecipeIndex, prompt: str, layers: list[str]) -> None:
    assert [element.recipe.name for element in interpret(prompt, index)] == layers


@pytest.mark.parametrize(
    ("prompt", "recipe"),
    [
        ("a man with a bad cough", "coughing"),
        ("glass breaking and falling", "glass_breaking"),
        ("filling a cup with water", "pouring_water"),
        ("a dog barking and growling", "dog"),
    ],
)
def test_words_that_name_no_sound_stay_with_their_element(
    index: RecipeIndex, prompt: str, recipe: str
) -> None:
    elements = interpret(prompt, index)
    assert [element.recipe.name for element in elements] == [recipe]
    assert elements[0].text == prompt


def test_adjectives_steer_their_own_element(index: RecipeIndex) -> None:
    rain, thunder = interpret("rain on a tin roof with distant thunder", index)
    assert (rain.steering.modifiers, thunder.steering.modifiers) == (("metallic",), ("distant",))
    # A space named anywhere is the whole scene's.
    fire, crickets = interpret("a crackling fire and crickets outside", index)
    assert fire.steering.has("outdoor")
    assert crickets.steering.has("outdoor")
    (dog,) = interpret("a dog barking in the distance", index)
    assert (dog.recipe.name, dog.steering.modifiers) == ("dog", ("distant",))


def test_then_puts_a_layer_after_the_previous_one(index: RecipeIndex) -> None:
    elements = interpret("a quick whoosh then a heavy impact", index)
    assert [(e.recipe.name, e.after_previous) for e in elements] == [
        ("whoosh", False),
        ("impact", True),
    ]
    elements = interpret("a dog barking, followed by a cat meowing and a cow", index)
    assert [e.after_previous for e in elements] == [False, True, False]
    assert not any(e.after_previous for e in interpret("a whoosh and an impact", index))


def test_at_most_four_layers(index: RecipeIndex) -> None:
    prompt = "a dog, a cat, a cow, a sheep, a rooster and a pig"
    assert len(interpret(prompt, index)) == MAX_LAYERS


@pytest.mark.parametrize(
    "prompt", ["asdf qwerty zxcv", "a unicorn singing opera", "x", "the", "chien qui aboie"]
)
def test_a_prompt_naming_no_known_sound_is_a_blend_of_the_closest(
    index: RecipeIndex, prompt: str
) -> None:
    (element,) = interpret(prompt, index)
    assert element.similarity < SURE_SIMILARITY
    assert 2 <= len(element.blend) <= 3
    assert element.blend[0][0] == element.recipe
    weights = [weight for _, weight in element.blend]
    assert weights == sorted(weights, reverse=True)
    assert sum(weights) == pytest.approx(1, abs=0.01)
    # The weights follow the similarities: the closest recipe weighs the most.
    (ranking,) = index.rank([prompt])
    assert [r.name for r, _ in ranking[: len(weights)]] == [r.name for r, _ in element.blend]
    assert confidence([element]) == pytest.approx(max(element.similarity, 0), abs=0.001)


def test_a_sure_match_is_one_recipe_and_a_blend_is_steered_by_its_adjectives(
    index: RecipeIndex,
) -> None:
    (dog,) = interpret("a dog barking", index)
    assert dog.similarity >= SURE_SIMILARITY
    assert dog.blend == ()
    assert dog.mix == ((dog.recipe, 1.0),)
    assert confidence([dog]) >= SURE_SIMILARITY
    (unicorn,) = interpret("a distant, heavy unicorn singing opera indoors", index)
    assert len(unicorn.blend) >= 2
    assert unicorn.steering.modifiers == ("distant", "heavy", "indoor")


def test_a_layer_blends_no_recipe_another_layer_is_made_of(index: RecipeIndex) -> None:
    for elements in (
        interpret("a dragon snoring with distant thunder", index),
        interpret("a haunted attic and a crackling fire", index),
    ):
        mains = {element.recipe.name for element in elements}
        for element in elements:
            assert not {r.name for r, _ in element.blend} & (mains - {element.recipe.name})


@pytest.mark.parametrize(
    ("text", "modifiers"),
    [
        ("a dog barking far away", ("distant",)),
        ("close-up footsteps", ("close",)),
        ("heavy rain", ("heavy",)),
        ("a gentle breeze", ("light",)),
        ("a quick whoosh", ("short",)),
        ("a deep, bassy drone", ("deep",)),
        ("a low-pitched hum", ("deep",)),
        ("a bright, crisp chime", ("bright",)),
        ("a long, drawn-out creak", ("long",)),
        ("rain on a corrugated iron roof", ("metallic",)),
        ("music through the wall", ("muffled",)),
        ("footsteps in a hallway indoors", ("indoor",)),
        ("church bells outdoors", ("outdoor",)),
        (
            "a distant, heavy, long, muffled explosion indoors",
            ("distant", "heavy", "long", "muffled", "indoor"),
        ),
        # Contradictions: the first word written wins.
        ("a loud but soft knock", ("heavy",)),
        ("near then far", ("close",)),
        ("a bright but deep hum", ("bright",)),
        ("a dog barking", ()),
    ],
)  # fmt: skip
def test_modifier_words(text: str, modifiers: tuple[str, ...]) -> None:
    assert find_modifiers(text) == modifiers


def test_the_twelve_modifiers_and_stripping() -> None:
    assert set(MODIFIER_WORDS) == {
        "distant", "close", "heavy", "light", "short", "long", "deep", "bright", "metallic",
        "muffled", "indoor", "outdoor",
    }  # fmt: skip
    assert strip_modifiers("a distant dog barking outdoors") == "a dog barking"
