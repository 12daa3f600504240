"""Pictures (``render_mode="rgb_array"``): captions fit, legends, scores, seats, hands."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from conftest import play_random


def _finished(env_id, seed=0, **kwargs):
    env = envs.make_raw(env_id, render_mode="rgb_array", **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.state.is_terminal():
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def _capture(monkeypatch, module, name="draw_text_block"):
    calls = []
    real = getattr(module, name)

    def spy(draw, lines, *args, **kwargs):
        calls.append(list(lines))
        return real(draw, lines, *args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


@pytest.mark.parametrize(
    "env_id, size", [("twixt_v0", s) for s in (5, 6, 8, 10, 12, 24)] + [("double_twixt_v0", s) for s in (5, 8, 12)]
)
def test_twixt_caption_fits_inside_the_picture(env_id, size):
    """The status line, the longest at the end of a game, never reaches the picture's edges."""
    env = _finished(env_id, seed=size, board_size=size, **({"swap": True} if env_id == "twixt_v0" else {}))
    img = env.render()
    background = np.array([236, 224, 190])
    cell = max(16, min(48, 560 // size))
    board_h = 2 * cell + (size - 1) * cell
    foot = img[board_h:]
    assert (foot != background).any(axis=2).sum() > 200  # text is there
    edges = np.concatenate([foot[:, :3], foot[:, -3:]], axis=1)
    assert (edges == background).all()  # ...and none of it at the left or right edge
    env.reset(seed=0)
    assert env.render().shape == img.shape  # every frame of an env has the same size


def test_double_twixt_tells_the_seats_of_a_team_apart(monkeypatch):
    import envs.twixt.render as tr
    from envs.twixt import TwixtState

    calls = _capture(monkeypatch, tr)
    state = TwixtState.from_moves("c3 d5 f3 e6", board_size=8, num_players=4)  # players 0, 1, 2, 3
    img = tr.twixt_picture(state)
    assert calls[-1][1] == "last peg: e6, black B (player 3)"
    assert tr._peg_owners(state) == {(2, 2): 0, (4, 3): 1, (2, 5): 2, (5, 4): 3}
    assert tr.last_peg_hole(state) == (5, 4)
    # The last peg's ring is drawn around e6 (row 6, column e), and only there.
    ring = np.argwhere((img[:480] == tr.LAST_RGB).all(axis=2))
    cell = 48
    assert len(ring) > 20
    assert np.abs(ring[:, 0] - (cell + 5 * cell)).max() <= cell // 2
    assert np.abs(ring[:, 1] - (cell + 4 * cell)).max() <= cell // 2
    state.push("g6!")  # red A claims the Privilege: black A (player 1) skips
    tr.twixt_picture(state)
    assert calls[-1][1] == "last peg: g6, red A (player 0)"


def test_ataxx_picture_has_a_legend_of_its_colours(monkeypatch):
    import envs.core.render as core

    items = []
    real = core.draw_legend
    monkeypatch.setattr(core, "draw_legend", lambda draw, it, *a, **k: (items.append(it), real(draw, it, *a, **k)))
    env = envs.make_raw("ataxx_v0", render_mode="rgb_array", fen="x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1")
    env.reset()
    img = env.render()
    assert [text for _, text in items[-1]] == ["x (player 0): 2 stones", "o (player 1): 2 stones", "gap (blocked)"]
    assert [colour for colour, _ in items[-1]] == [core.PIECE_COLOURS[1], core.PIECE_COLOURS[2], (70, 70, 70)]
    legend_rows = img[-28:]
    for colour in (core.PIECE_COLOURS[1], core.PIECE_COLOURS[2]):
        assert (legend_rows == colour).all(axis=2).sum() > 30  # the coloured discs are drawn
    env = envs.make_raw("ataxx_v0", render_mode="rgb_array")
    env.reset()
    env.render()
    assert len(items[-1]) == 2  # no gap entry without gaps


def test_tantrix_final_picture_shows_the_scores(monkeypatch):
    import envs.tantrix.render as tr

    calls = _capture(monkeypatch, tr)
    env = _finished("tantrix_v0", num_players=3)
    env.render()
    status, scores, hands = calls[-1]
    sc = env.state.scores()
    names = ("red", "yellow", "blue", "green")
    assert scores == "scores: " + "   ".join(f"P{p} {names[env.state.colour_of(p) - 1]} {sc[p]}" for p in range(3))
    assert status == env.state.status_line() and "won" in status or "draw" in status
    assert hands == "hands: P0: -   P1: -   P2: -"


def test_smartrix_picture_shows_points_and_hand_sizes(monkeypatch):
    import envs.smartrix.render as sr

    calls = _capture(monkeypatch, sr)
    env = envs.make_raw("smartrix_v0", num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    play_random(env.state, seed=1, moves=20)
    env.render()
    s = env.state
    assert calls[-1][1] == "   ".join(f"P{p}: {s.points(p)} points, {s.hand_size(p)} cards" for p in range(3))
    assert any(s.points(p) for p in range(3))  # some cards were collected in 20 moves
