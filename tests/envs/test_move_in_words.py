"""``GameState.move_in_words``: every game's moves in players' words, beside the notation (the
play room's move list shows both)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.registry import env_ids, spec


@pytest.mark.parametrize(
    ("env_id", "kwargs", "move", "words"),
    [
        ("ataxx_v0", {}, "g2", "clone to g2"),
        ("ataxx_v0", {}, "A1C3", "jump from a1 to c3"),
        ("ataxx_v0", {}, "0000", "pass"),
        ("twixt_v0", {}, "c5", "peg on c5"),
        ("twixt_v0", {}, "swap", "swap (the pie rule)"),
        ("twixt_v0", {"links": "manual"}, "+c5e6", "link c5-e6"),
        ("twixt_v0", {"links": "manual"}, "-c5e6", "remove the link c5-e6"),
        ("twixt_v0", {"links": "manual"}, "end", "end of the turn"),
        ("double_twixt_v0", {}, "c5!", "peg on c5, claiming the Privilege"),
        ("tantrix_v0", {}, "t23@0,-1r2", "tile 23 on hex 0,-1, turned 2 sixths clockwise"),
        ("tantrix_v0", {}, "t40@0,0r0", "tile 40 on hex 0,0, not turned"),
        ("smartrix_v0", {}, "17r1@-1,+2", "card 17 on row -1, column +2, turned 1 quarter clockwise"),
        ("smartrix_v0", {}, "pass", "pass"),
    ],
)
def test_examples(env_id, kwargs, move, words):
    assert spec(env_id).initial_state(**kwargs).move_in_words(move) == words


@pytest.mark.parametrize("env_id", ["ataxx_v0", "twixt_v0", "tantrix_v0", "smartrix_v0"])
def test_a_text_that_is_no_move_comes_back_as_it_is(env_id):
    st = spec(env_id).initial_state()
    for text in ["", "hello", "z99", "t1@0,0r9x", "99r9@1,1"]:
        assert st.move_in_words(text) == text


@pytest.mark.parametrize("env_id", env_ids())
def test_every_move_of_a_random_game_reads_in_words(env_id):
    """Each move of a short random game has words (different from the notation, but for a pass
    written ``pass``), and reading them changes nothing in the state."""
    st = spec(env_id).initial_state()
    rng = np.random.default_rng(0)
    for _ in range(12):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        st.apply(legal[int(rng.integers(len(legal)))])
    before = (list(st.history), st.moves())
    words = [st.move_in_words(m) for m in st.moves()]
    assert (list(st.history), st.moves()) == before
    assert words and all(isinstance(w, str) and w for w in words)
    assert all(w != m for w, m in zip(words, st.moves()) if m != "pass"), list(zip(st.moves(), words))
