"""Every game in players' words (:mod:`envs.core.words`): each constructor argument of every env
id has a label and a help text, each registry variant a label, each game a short how to play (a
section of its RULES.md) and a legend of its board's marks."""

from __future__ import annotations

import inspect

import pytest

from envs.core.words import NO_WORDS, GameWords, Option, load_words, rules_section
from envs.registry import env_ids, spec


@pytest.mark.parametrize("env_id", env_ids())
def test_every_argument_and_variant_has_words(env_id):
    sp = spec(env_id)
    w = sp.initial_state().words()
    assert isinstance(w, GameWords) and w is not NO_WORDS
    params = inspect.signature(sp.module().raw_env.__init__).parameters
    args = [n for n in params if n not in ("self", "render_mode")]
    for name in args:
        opt = w.option(name)
        assert opt.label and opt.label != name and len(opt.help) > 20, (env_id, name)
    for v in sp.variants:
        assert w.variant(env_id, v) != v, (env_id, v)


@pytest.mark.parametrize("env_id", env_ids())
def test_how_to_play_is_a_section_of_the_rules_file(env_id):
    w = spec(env_id).initial_state().words()
    text = w.rules_text()
    short = w.how_to_play()
    assert 200 < len(short) < 1200 and short in text
    assert text.startswith("# ") and "## In short" in text
    assert w.legend and all(mark and meaning for mark, meaning in w.legend)


def test_the_legends_explain_the_marks_players_asked_about():
    tantrix = " ".join(" ".join(x) for x in spec("tantrix_v0").initial_state().words().legend)
    assert "forced space" in tantrix and "controlled side" in tantrix
    smartrix = " ".join(" ".join(x) for x in spec("smartrix_v0").initial_state().words().legend)
    assert "5x5 box" in smartrix


def test_variant_labels_per_env_id_and_plain_names():
    w = spec("twixt_v0").initial_state().words()
    assert w.variant("twixt_v0", "manual") != w.variant("double_twixt_v0", "manual")
    assert w.variant("twixt_v0", "no-such") == "no-such" and w.option("no_such") == Option("no_such")
    assert NO_WORDS.how_to_play() == "" and NO_WORDS.rules_text() == ""


def test_rules_section():
    md = "# T\n\n## In short\nA **b**.\n\nC.\n## Next\nD\n"
    assert rules_section(md, "In short") == "A **b**.\n\nC."
    assert rules_section(md, "Next") == "D" and rules_section(md, "Missing") == ""


def test_load_words_refuses_a_module_without_words():
    with pytest.raises(TypeError, match="must export WORDS"):
        load_words("envs.core.checks")
    with pytest.raises(TypeError, match="GameInfo.words"):
        load_words("not a path")
    with pytest.raises(ImportError):
        load_words("envs.no_such_module")
