"""Random openings (``opening_plies``) in the game loop and tournaments, and the count of distinct
games per pair that shows when two deterministic agents repeat one game."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest
from rich.console import Console

import training.tournament as tournament
from conftest import REPO_ROOT
from envs.registry import spec
from training.agents import Agent, make_agent
from training.arena import opening_rng, play_game, play_games
from training.ratings import pair_table
from training.report import print_report


class FirstLegal(Agent):
    """Always the first legal action: a deterministic agent, as a network playing its argmax."""

    frame = "state"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.name = "first"

    def _act(self, state, obs):
        return int(np.flatnonzero(state.legal_action_mask())[0])


class LastLegal(FirstLegal):
    """Always the last legal action."""

    def _act(self, state, obs):
        return int(np.flatnonzero(state.legal_action_mask())[-1])


def _opening_by_hand(env_id: str, seed: int, plies: int) -> list[str]:
    """The opening's moves worked out here: reset with ``seed``, then ``plies`` uniform draws over the
    mover's mask from ``default_rng([seed, 1])``."""
    env = spec(env_id).make_raw()
    env.reset(seed=seed)
    rng = np.random.default_rng([seed, 1])
    moves = []
    for _ in range(plies):
        agent_id = env.agent_selection
        player = env.possible_agents.index(agent_id)
        legal = np.flatnonzero(env.observe(agent_id)["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        moves.append(env.state.action_to_string(env.state.to_state_action(player, action)))
        env.step(action)
    return moves


@pytest.mark.parametrize("env_id", ["ataxx_v0", "twixt_v0", "double_twixt_v0", "tantrix_v0", "smartrix_v0"])
def test_opening_is_drawn_from_the_seed_whoever_plays(env_id):
    seats = spec(env_id).make_raw().num_players
    a = play_game(env_id, [FirstLegal()] * seats, seed=11, record=True, opening_plies=3, max_steps=5)
    b = play_game(env_id, [make_agent("random", seed=4)] * seats, seed=11, record=True, opening_plies=3, max_steps=5)
    assert a.opening_plies == b.opening_plies == 3
    assert a.moves[:3] == b.moves[:3] == _opening_by_hand(env_id, 11, 3)
    assert a.plies == 5 and len(a.moves) == 5
    other = play_game(env_id, [FirstLegal()] * seats, seed=12, record=True, opening_plies=3, max_steps=5)
    assert other.moves[:3] != a.moves[:3]  # another seed, another opening (these two seeds differ)


def test_opening_stops_where_the_game_ends():
    result = play_game("ataxx_v0", [FirstLegal(), FirstLegal()], seed=2, max_steps=2, opening_plies=4, record=True)
    assert result.truncated and result.plies == 2 and result.opening_plies == 2


def test_no_opening_is_the_default_and_bad_values_are_refused():
    agents = [FirstLegal(), LastLegal()]
    a = play_game("ataxx_v0", agents, seed=1, record=True, max_steps=6)
    b = play_game("ataxx_v0", agents, seed=2, record=True, max_steps=6)
    assert a.opening_plies == 0 and a.moves == b.moves  # deterministic agents: one game whatever the seed
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match=r"^opening_plies must be an integer >= 0, got "):
            play_game("ataxx_v0", agents, seed=1, opening_plies=bad)
        with pytest.raises(ValueError, match=r"^opening_plies must be an integer >= 0, got "):
            play_games("ataxx_v0", [(agents, 1)], opening_plies=bad)


def test_play_games_side_by_side_plays_the_same_openings():
    games = [([FirstLegal(), LastLegal()], s) for s in (3, 4, 5)]
    alone = [
        play_game("ataxx_v0", list(seats), seed=s, record=True, max_steps=12, opening_plies=2) for seats, s in games
    ]
    together = play_games("ataxx_v0", games, record=True, max_steps=12, concurrency=3, opening_plies=2)
    assert [r.moves for r in together] == [r.moves for r in alone]
    assert all(r.opening_plies == 2 for r in together)


def test_opening_rng_is_a_stream_of_its_own():
    assert opening_rng(7).integers(1 << 30) == np.random.default_rng([7, 1]).integers(1 << 30)
    assert opening_rng(7).integers(1 << 30) != np.random.default_rng(7 * 1000).integers(1 << 30)


@pytest.fixture
def deterministic(monkeypatch):
    """The specs ``first`` and ``last`` name the two deterministic agents in tournaments."""
    made = {"first": FirstLegal, "last": LastLegal}
    real = tournament.make_agent
    monkeypatch.setattr(
        tournament, "make_agent", lambda s, seed=None: made[s](seed) if s in made else real(s, seed=seed)
    )


def test_tournament_without_openings_counts_two_distinct_games(deterministic, tmp_path):
    result = tournament.run_tournament("ataxx_v0", ["first", "last"], 6, seed=0, max_steps=30, out_dir=tmp_path)
    pair = next(p for p in result["pairs"] if p["agent"] == "first")
    assert pair["games"] == 6 and pair["distinct_games"] == 2  # one game per seat order, three times each
    with (tmp_path / "pairs.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["distinct_games"] for r in rows] == ["2", "2"]
    assert result["opening_plies"] == 0
    console = Console(record=True, width=200)
    print_report(result, console)
    assert "Repeated games: first against last: 6 games, 2 distinct" in console.export_text()


def test_report_says_nothing_of_repeats_when_every_game_differs(deterministic):
    result = tournament.run_tournament("ataxx_v0", ["first", "last"], 4, seed=0, max_steps=30, opening_plies=2)
    console = Console(record=True, width=200)
    print_report(result, console)
    assert "Repeated games" not in console.export_text()


def test_tournament_plays_each_opening_with_both_seat_orders(deterministic):
    result = tournament.run_tournament("ataxx_v0", ["first", "last"], 6, seed=0, max_steps=30, opening_plies=2)
    games = result["games"]
    assert result["opening_plies"] == 2 and all(g["opening_plies"] == 2 for g in games)
    for a, b in zip(games[::2], games[1::2]):  # games 2k and 2k + 1: one opening, seats swapped
        assert a["seed"] == b["seed"] and a["seats"] == b["seats"][::-1]
        assert a["moves"][:2] == b["moves"][:2] == _opening_by_hand("ataxx_v0", a["seed"], 2)
    assert len({g["seed"] for g in games}) == 3
    pair = next(p for p in result["pairs"] if p["agent"] == "first")
    assert pair["distinct_games"] == 6


def test_team_tournament_shares_an_opening_per_rotation(deterministic):
    result = tournament.run_tournament("double_twixt_v0", ["first", "last"], 4, seed=1, max_steps=8, opening_plies=4)
    games = result["games"]
    assert [g["sides"] for g in games] == [["first", "last"], ["last", "first"]] * 2
    assert games[0]["seed"] == games[1]["seed"] != games[2]["seed"] == games[3]["seed"]
    assert games[0]["moves"][:4] == games[1]["moves"][:4] == _opening_by_hand("double_twixt_v0", games[0]["seed"], 4)


def test_pair_table_without_moves_has_no_distinct_count():
    games = [{"seats": ["a", "b"], "returns": [1.0, -1.0]}, {"seats": ["b", "a"], "returns": [1.0, -1.0]}]
    assert [p["distinct_games"] for p in pair_table(["a", "b"], games)] == [None, None]
    same = [{**g, "moves": ["x"]} for g in games + games]
    assert [p["distinct_games"] for p in pair_table(["a", "b"], same)] == [2, 2]


def test_run_tournament_refuses_bad_opening_plies():
    with pytest.raises(ValueError, match=r"^opening_plies must be an integer >= 0, got -2$"):
        tournament.run_tournament("ataxx_v0", ["random", "greedy"], 2, seed=0, opening_plies=-2)


def test_cli_opening_plies(tmp_path):
    def run(*extra):
        return subprocess.run(
            [sys.executable, "-m", "training.evaluate", "ataxx_v0", "--agents", "alphabeta:1", "alphabeta:1",
             "--games", "4", "--seed", "0", "--max-steps", "6", "--no-progress", *extra],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    bad = run("--opening-plies", "-1", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "--opening-plies" in bad.stderr and "-1" in bad.stderr
    assert not (tmp_path / "bad").exists()
    done = run("--opening-plies", "2", "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "o" / "results.json").read_text())
    assert result["opening_plies"] == 2 and "--opening-plies 2" in result["command"]
    assert [g["opening_plies"] for g in result["games"]] == [2, 2, 2, 2]


def test_agent_seed_seeds_the_agents_and_not_the_game():
    agents = [make_agent("random", seed=0), make_agent("random", seed=0)]
    a = play_game("ataxx_v0", agents, seed=5, agent_seed=9, record=True, max_steps=10)
    b = play_game("ataxx_v0", agents, seed=9, record=True, max_steps=10)
    assert a.moves == b.moves  # Ataxx has no deal: the agents' seed 9 alone decides the game
    c = play_game("ataxx_v0", agents, seed=5, agent_seed=9, record=True, max_steps=10, opening_plies=2)
    assert c.moves[:2] == _opening_by_hand("ataxx_v0", 5, 2) and c.moves != a.moves
    (d,) = play_games("ataxx_v0", [(agents, 5, 9)], record=True, max_steps=10, opening_plies=2)
    assert d.moves == c.moves
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match=r"^agent_seed must be None or an integer >= 0, got "):
            play_game("ataxx_v0", agents, seed=1, agent_seed=bad)
        with pytest.raises(ValueError, match=r"^agent_seed must be None or an integer >= 0, got "):
            play_games("ataxx_v0", [(agents, 1, bad)])
    with pytest.raises(ValueError, match=r"^games\[0\] must be \(seats, seed\) or \(seats, seed, agent_seed\)"):
        play_games("ataxx_v0", [(agents, 1, 2, 3)])


def test_stochastic_agents_of_one_kind_do_not_replay_a_game_with_the_seats_swapped():
    # both seat orders of an opening share the seed (the opening, the deal), not the agents' seeds:
    # two random agents would otherwise draw, each in the other's seat, the same numbers
    for env_id, kwargs in (("ataxx_v0", None), ("tantrix_v0", {"num_players": 2})):
        result = tournament.run_tournament(
            env_id, ["random", "random"], 6, seed=0, max_steps=12, opening_plies=2, env_kwargs=kwargs
        )
        games = result["games"]
        for a, b in zip(games[::2], games[1::2]):
            assert a["seed"] == b["seed"] and a["agent_seed"] != b["agent_seed"]
            assert a["moves"][:2] == b["moves"][:2] and a["moves"] != b["moves"]
        assert result["pairs"][0]["distinct_games"] == 6


def test_report_counts_games_over_in_the_opening(deterministic):
    result = tournament.run_tournament("ataxx_v0", ["first", "last"], 2, seed=0, max_steps=3, opening_plies=5)
    assert [(g["plies"], g["opening_plies"]) for g in result["games"]] == [(3, 3), (3, 3)]
    console = Console(record=True, width=300)
    print_report(result, console)
    text = console.export_text()
    assert "Games over in the opening: 2 of 2 games ended within the 5 random opening plies" in text
    quiet = Console(record=True, width=300)
    print_report(
        tournament.run_tournament("ataxx_v0", ["first", "last"], 2, seed=0, max_steps=8, opening_plies=2), quiet
    )
    assert "Games over in the opening" not in quiet.export_text()


def test_repeat_warning_with_openings_suggests_a_longer_opening(deterministic):
    # one ply of opening in Ataxx: 16 first moves, so 40 games repeat some
    result = tournament.run_tournament("ataxx_v0", ["first", "last"], 40, seed=0, max_steps=6, opening_plies=1)
    pair = next(p for p in result["pairs"] if p["agent"] == "first")
    assert pair["distinct_games"] < 40
    console = Console(record=True, width=300)
    print_report(result, console)
    text = console.export_text()
    assert f"40 games, {pair['distinct_games']} distinct" in text
    assert "a longer opening than --opening-plies 1 varies them more" in text
