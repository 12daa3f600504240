"""The server-side fixes of the room's newcomer pass and last review (issue 26, room-fix-server):
seat menus per game with each agent's own description, draws without winners, results in
players' words (live and in the lobby's summary of finished games read off their journal), the
end caption after a resignation, seats numbered from 1 where people read them."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

from test_room_protocol import TestClient, _close_pages, close_pages, connect, create, room, watch  # noqa: E402,F401

from envs.registry import make_raw, spec  # noqa: E402
from room.app import create_app  # noqa: E402
from room.game import RoomGame, Seat  # noqa: E402
from room.words import result_words, seat_label  # noqa: E402


def _random_game(env_id: str, kwargs: dict, seed: int) -> RoomGame:
    """A room game of ``env_id`` played by random moves to its end."""
    st = spec(env_id).initial_state(**kwargs)
    g = RoomGame("g", "play", env_id, kwargs, 0, "now", [Seat("agent", "random") for _ in range(st.num_players)])
    rng = np.random.default_rng(seed)
    while not g.over:
        g.apply(int(rng.choice(g.state.legal_actions())), "agent")
    return g


# ------------------------------------------------------------------ 1. seat menus
class _Heuristics:
    def __init__(self, agents):
        self.agents = agents


class _State:
    """A stand-in state whose game offers agent ``robot`` with its own description."""

    def __init__(self, doc):
        def factory():
            pass

        factory.__doc__ = doc
        self._h = _Heuristics({"robot": factory})

    def heuristics(self):
        return self._h


def test_a_game_agents_description_is_that_games_own():
    from room.agents import RoomAgents

    agents = RoomAgents()
    # two games offering an agent of the same name: each menu describes its own game's agent
    assert (
        agents.summary("robot", _State("Other robot: plays the other game.\n\nMore."))
        == "Other robot: plays the other game."
    )
    assert agents.summary("robot", _State("Tantrix robot: x.")) == "Tantrix robot: x."


@pytest.mark.parametrize(
    "env_id,kwargs",
    [
        ("smartrix_v0", {}),
        ("smartrix_v0", {"num_players": 4, "teams": True}),
        ("tantrix_v0", {}),
        ("twixt_v0", {"board_size": 8}),
    ],
)
def test_a_seat_menu_offers_only_the_agents_that_can_play_the_setting(room, env_id, kwargs):  # noqa: F811
    client, app = room
    p = connect(client)
    p.send({"type": "setup", "env_id": env_id, "env_kwargs": kwargs})
    setup = p.until(lambda f: f["type"] == "setup")
    assert setup["env_id"] == env_id and setup["env_kwargs"] == kwargs
    env = make_raw(env_id, **kwargs)
    env.reset(seed=0)
    h = env.state.heuristics()
    offered = set(h.agents) if h is not None else set()
    for a in setup["agents"]:
        app.state.room.agents.make(a["name"], env, env_id, kwargs, seed=0)  # each one can play it
        if a["name"] in ("robot",) or a["name"] in offered:
            assert a["name"] in offered
            doc = " ".join((h.agents[a["name"]].__doc__ or "").strip().split("\n\n")[0].split())
            assert a["summary"] == doc
    names = {a["name"] for a in setup["agents"]}
    assert ("robot" in names) == ("robot" in offered)
    assert "Tantrix" not in " ".join(a["summary"] for a in setup["agents"]) or env_id == "tantrix_v0"


# ------------------------------------------------------------------ 2. draws and team results
def test_a_double_twixt_draw_has_no_winners_and_says_draw():
    g = _random_game("double_twixt_v0", {"board_size": 6}, seed=2)  # ends in an early draw at ply 24
    assert g.state.outcome().result == "1/2-1/2" and g.state.winners() == [0, 1, 2, 3]  # the rules' own
    out = g.outcome()
    assert out["draw"] is True and out["winners"] == [] and out["words"] == "draw"
    assert out["result"] == "1/2-1/2"  # the game's own text stays (the journal's)


@pytest.mark.parametrize(
    "env_id,kwargs",
    [
        ("ataxx_v0", {}),
        ("double_twixt_v0", {"board_size": 6}),
        ("twixt_v0", {"board_size": 6}),
        ("tantrix_v0", {"num_players": 4, "teams": True}),
        ("smartrix_v0", {"num_players": 3}),
    ],
)
def test_every_games_result_in_words_names_the_winners_or_says_draw(env_id, kwargs):
    for seed in range(3):
        g = _random_game(env_id, kwargs, seed)
        out = g.outcome()
        labels = [g.label(i) for i in range(g.num_players)]
        if out["draw"]:
            assert out["winners"] == [] and out["words"] == "draw"
        elif out["result"] == "unfinished":
            assert out["words"].startswith("unfinished: the step limit")
        else:
            assert out["winners"] and len(out["winners"]) < g.num_players
            assert out["words"].endswith(" won") and all(labels[w] in out["words"] for w in out["winners"])
            losers = set(range(g.num_players)) - set(out["winners"])
            assert not any(labels[x] in out["words"] for x in losers)


def test_result_words_for_a_team_a_resignation_and_a_step_limit():
    labels = [seat_label(["red", "black", "red", "black"], i) for i in range(4)]
    assert labels[0] == "player 1 (red)" and labels[3] == "player 4 (black)"
    assert result_words(labels, [1, 3], draw=False) == "player 2 (black) and player 4 (black) won"
    assert result_words(labels, [], draw=True) == "draw"
    assert (
        result_words(labels, [1, 3], draw=False, resigned=[0])
        == "player 1 (red) resigned: player 2 (black) and player 4 (black) won"
    )
    assert (
        result_words(labels, [], draw=False, unfinished="the step limit (9 moves)")
        == "unfinished: the step limit (9 moves)"
    )
    three = [seat_label(["", "", ""], i) for i in range(3)]
    assert result_words(three, [1], draw=False, resigned=[0, 2]) == "player 1 and player 3 resigned: player 2 won"


# ------------------------------------------------------------------ 3. the lobby's summary of finished games
def test_a_finished_game_off_memory_shows_its_result_and_winners_in_the_lobby(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["me", "random"], seed=1)
        watch(p, c["game"], c["tokens"]["0"])
        p.send({"type": "resign", "game": c["game"]})
        s = p.state(lambda f: f["over"])
        assert s["outcome"]["words"] == "player 1 (red, x) resigned: player 2 (blue, o) won"
        close_pages()
    last = json.loads((records / f"{c['game']}.jsonl").read_text().splitlines()[-1])
    ev = last if last.get("event") == "result" else last["then"][-1]
    assert ev["winners"] == [1] and ev["words"] == "player 1 (red, x) resigned: player 2 (blue, o) won"
    app2 = create_app(records, agent_delay=0)
    with TestClient(app2) as client:
        room2 = app2.state.room
        assert c["game"] in room2.shelf and c["game"] not in room2.games  # not replayed
        p = connect(client)
        p.send({"type": "lobby"})
        lobby = p.until(lambda f: f["type"] == "lobby")
        g = next(x for x in lobby["games"] if x["game"] == c["game"])
        assert (
            g["outcome"]["winners"] == [1]
            and g["outcome"]["words"] == "player 1 (red, x) resigned: player 2 (blue, o) won"
        )
        assert g["setting"] == "Ataxx" and [s["label"] for s in g["seats"]] == [
            "player 1 (red, x)",
            "player 2 (blue, o)",
        ]
        assert c["game"] not in room2.games  # still not replayed
        close_pages()


def test_an_older_journal_without_winners_shows_its_result_text(tmp_path):
    from room.shelf import _event_outcome

    out = _event_outcome({"event": "result", "result": "1-0", "termination": "connection", "ply": 9}, ["a", "b"])
    assert out["words"] == "1-0" and out["winners"] == [] and out["draw"] is False
    bad = _event_outcome({"event": "result", "result": "1-0", "winners": [5, "x"], "words": 3, "ply": 9}, ["a", "b"])
    assert bad["winners"] == [] and bad["words"] == "1-0"
    # an uploaded record's result has winners and no words: the words are made from them
    rec = _event_outcome(
        {"result": "0-1", "termination": "connection", "winners": [1]}, ["player 1 (red, x)", "player 2 (blue, o)"]
    )
    assert rec["words"] == "player 2 (blue, o) won" and rec["winners"] == [1]
    drawn = _event_outcome({"result": "1/2-1/2", "winners": [0, 1]}, ["player 1 (red, x)", "player 2 (blue, o)"])
    assert drawn["words"] == "draw" and drawn["winners"] == [] and drawn["draw"] is True


# ------------------------------------------------------------------ 4. the end caption after a resignation
@pytest.mark.parametrize(
    "env_id,kwargs,seat",
    [
        ("ataxx_v0", {}, 0),
        ("twixt_v0", {"board_size": 8}, 0),
        ("twixt_v0", {"board_size": 8}, 1),
        ("double_twixt_v0", {"board_size": 8}, 1),
        ("tantrix_v0", {}, 0),
        ("smartrix_v0", {}, 1),
        ("smartrix_v0", {"num_players": 4, "teams": True}, 0),
    ],
)
def test_every_games_end_caption_says_who_resigned(env_id, kwargs, seat):
    g = RoomGame(
        "g",
        "play",
        env_id,
        kwargs,
        0,
        "now",
        [Seat("agent", "random") for _ in range(spec(env_id).initial_state(**kwargs).num_players)],
    )
    g.resign(seat)
    svg = g.svg(g.ply, None)
    assert "resigned" in svg and "to move" not in svg
    assert "resigned" in g.outcome()["words"]


def test_twixt_status_line_after_a_resignation_names_who_resigned():
    st = spec("twixt_v0").initial_state(board_size=8)
    st.resign(0)
    assert st.status_line() == "game over after 0 plies: black won (0-1, red resigned)"


# ------------------------------------------------------------------ 5. seats numbered from 1
def test_seats_are_numbered_from_1_where_people_read_them(room):  # noqa: F811
    client, _ = room
    p = connect(client)
    p.send({"type": "setup", "env_id": "double_twixt_v0", "env_kwargs": {"board_size": 8}})
    setup = p.until(lambda f: f["type"] == "setup")
    assert [s["seat"] for s in setup["seats"]] == [0, 1, 2, 3]  # the API's seat numbers
    assert [s["label"] for s in setup["seats"]][0] == "player 1 (red A)"
    assert all(s["label"].startswith(f"player {s['seat'] + 1}") for s in setup["seats"])
    c = create(p, "ataxx_v0", ["me", "random"], seed=1)
    s = watch(p, c["game"], c["tokens"]["0"])
    assert [x["label"] for x in s["seats"]] == ["player 1 (red, x)", "player 2 (blue, o)"]
    assert "player_0" not in json.dumps(s) and "player 0" not in json.dumps(s)


# ------------------------------------------------------------------ 6. only agents fast enough for the setting
def test_the_estimate_of_a_deeper_search_grows_as_counted():
    import math

    from room.agents import PROBE_BUDGET, SpeedProbe, _deeper
    from training.agents.search import AlphaBetaAgent, MCTSAgent

    assert _deeper((100, 5000), (0.01, 0.5), 100, 2) == 0.5  # measured
    assert _deeper((100, 5000), (0.01, 0.5), 100, 3) == pytest.approx(25.0)  # 50 times the evaluations a ply
    assert _deeper((100,), (0.01,), 300, 2) == pytest.approx(3.0)  # from depth 1: b a ply
    assert _deeper((100,), (0.001,), 300, 2) == PROBE_BUDGET  # a search the probe stopped took at least that
    assert _deeper((), (), 100, 1) == math.inf  # no search measured: never offered
    probe = SpeedProbe(100, (100, 5000), (0.01, 0.5), 1e-3)
    assert probe.estimate(AlphaBetaAgent(4)) == pytest.approx(1250.0)
    assert probe.estimate(MCTSAgent(200)) == pytest.approx(0.2)
    assert probe.estimate(object()) is None


def test_the_menus_offer_only_search_agents_fast_enough_for_the_setting(tmp_path, monkeypatch):
    import room.agents as ra
    from room.limits import RoomLimits

    # alphabeta:2 0.5 s, alphabeta:3 25 s (over half of 30 s), mcts:1000 1 s
    monkeypatch.setattr(ra, "_probe", lambda env, depth: ra.SpeedProbe(100, (100, 5000), (0.01, 0.5), 1e-3))
    app = create_app(tmp_path / "records", agent_delay=0, limits=RoomLimits(move_time_limit=30.0))
    with TestClient(app) as client:
        p = connect(client)
        p.send({"type": "setup", "env_id": "ataxx_v0"})
        setup = p.until(lambda f: f["type"] == "setup")
        names = [a["name"] for a in setup["agents"]]
        assert "alphabeta:2" in names and "mcts:1000" in names and "alphabeta:3" not in names
        why = {u["name"]: u["why"] for u in setup["unavailable"]}["alphabeta:3"]
        assert "too slow for this setting" in why and "25 s" in why and "--move-time-limit" in why
        # a crafted create with such a seat is refused as the menus refuse it (round 3, see
        # tests/room/test_room_fixes3_server.py; a game restored from its journal keeps its agent)
        msg = p.error({"type": "create", "env_id": "ataxx_v0", "seats": ["me", "alphabeta:3"], "seed": 1})
        assert "not offered for this setting" in msg and "too slow" in msg
        close_pages()


def test_a_real_probe_offers_alphabeta_2_for_ataxx_and_not_alphabeta_3_on_twixt_24x24():
    from room.agents import RoomAgents

    agents = RoomAgents()
    for env_id, kwargs, present, absent in [
        ("ataxx_v0", {}, {"alphabeta:2", "mcts:200"}, set()),
        ("twixt_v0", {}, {"mcts:200"}, {"alphabeta:3"}),  # 528 moves: alphabeta:2 took 43 s here
    ]:
        env = make_raw(env_id, **kwargs)
        env.reset(seed=0)
        names = {m.name for m in agents.menu(env, env_id, kwargs)}
        assert present <= names and not (absent & names), (env_id, names)


# ------------------------------------------------------------------ 7. a game's length is bounded
def test_a_game_past_its_journaled_events_bound_is_refused_unchanged_and_can_still_be_resigned(tmp_path):
    from room.limits import RoomLimits

    records = tmp_path / "records"
    app = create_app(records, agent_delay=0, limits=RoomLimits(max_game_events=3))
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["me", "me"], seed=1)  # one person plays both sides: no agent
        gid = c["game"]
        s = watch(p, gid, c["tokens"]["0"], c["tokens"]["1"])
        for ply in range(3):
            p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
            s = p.state(lambda f, ply=ply: f["ply"] == ply + 1)
        before = (records / f"{gid}.jsonl").read_bytes()
        msg = p.error({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
        assert "3 journaled events" in msg and "at most 3 a game (--max-game-events)" in msg and "resigned" in msg
        assert (records / f"{gid}.jsonl").read_bytes() == before and app.state.room.get(gid).ply == 3
        p.send({"type": "resign", "game": gid})
        assert p.state(lambda f: f["over"])["outcome"]["termination"] == "resignation"
        close_pages()
    app2 = create_app(records, agent_delay=0, limits=RoomLimits(max_game_events=3))
    with TestClient(app2):
        assert app2.state.room.get(gid).journaled == 5  # 3 moves, the resignation and its result, replayed


# ------------------------------------------------------------------ 8. thread agents: waited for at most the limit
def test_a_thread_agent_past_the_move_time_limit_is_reported_and_the_game_waits_unchanged(tmp_path):
    from room_helpers import SlowAgent, agents_with

    from room.limits import RoomLimits

    records = tmp_path / "records"
    app = create_app(records, agents_with(slow=SlowAgent), agent_delay=0, limits=RoomLimits(move_time_limit=0.5))
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["slow", "me"], seed=1)  # SlowAgent sleeps 3 s in a thread
        s = watch(p, c["game"], c["tokens"]["1"])
        s = p.state(lambda f: f["seats"][0]["error"])
        assert "did not answer within 0.5 s" in s["seats"][0]["error"] and s["ply"] == 0
        assert not s["seats"][0]["thinking"]
        close_pages()


def test_a_game_agent_thinks_in_the_killable_worker():
    from room.workers import uses_process
    from training.agents import make_agent

    assert uses_process(make_agent("robot", seed=0)) and not uses_process(make_agent("greedy", seed=0))


# ------------------------------------------------------------------ nits: agents-only options, notation per setting
def test_an_option_for_agents_only_is_marked_so_in_the_lobby(room):  # noqa: F811
    client, _ = room
    p = connect(client)
    p.send({"type": "lobby"})
    lobby = p.until(lambda f: f["type"] == "lobby")
    twixt = next(e for e in lobby["envs"] if e["id"] == "twixt_v0")
    assert twixt["argument_words"]["distance_planes"]["agents_only"] is True
    assert twixt["argument_words"]["board_size"]["agents_only"] is False


@pytest.mark.parametrize(
    "env_id,kwargs,has,lacks",
    [
        ("twixt_v0", {"board_size": 8}, ["c5 = peg"], ["swap", "Privilege", "+c5e6", "Double TwixT"]),
        ("twixt_v0", {"board_size": 8, "swap": True}, ["swap"], ["Privilege", "+c5e6"]),
        ("twixt_v0", {"board_size": 8, "links": "manual"}, ["+c5e6", "end ends the turn"], ["Privilege", "swap"]),
        ("double_twixt_v0", {"board_size": 8}, ["c5! = peg on c5 and claim"], ["swap", "+c5e6"]),
        ("double_twixt_v0", {"board_size": 8, "links": "manual"}, ["end! claims the Privilege"], ["swap"]),
    ],
)
def test_the_notation_help_names_only_the_settings_own_moves(room, env_id, kwargs, has, lacks):  # noqa: F811
    client, _ = room
    p = connect(client)
    p.send({"type": "setup", "env_id": env_id, "env_kwargs": kwargs})
    text = p.until(lambda f: f["type"] == "setup")["notation"]
    assert all(h in text for h in has) and not any(x in text for x in lacks), text
    c = create(p, env_id, ["me", "random"] if env_id == "twixt_v0" else ["me", "random", "random", "random"], **kwargs)
    assert watch(p, c["game"], c["tokens"]["0"])["notation_help"] == text


def test_a_robot_seat_plays_through_the_worker_process(room):  # noqa: F811
    client, _ = room
    p = connect(client)
    c = create(p, "tantrix_v0", ["robot", "me"], seed=1)
    watch(p, c["game"], c["tokens"]["1"])
    s = p.state(lambda f: f["ply"] >= 1 or f["seats"][0]["error"])
    assert s["seats"][0]["error"] is None and s["ply"] >= 1 and s["move_seats"][0] == 0


def test_a_downloaded_record_names_the_spec_a_shipped_search_agent_played_with(room):  # noqa: F811
    """The menu name of a shipped AlphaZero agent (``ataxx_az``) plays with the room's simulations
    (``ataxx_az:256``): the record's players give both, so a replay of its moves can rebuild it."""
    pytest.importorskip("torch")
    from training.agents.shipped import ROOM_SIMULATIONS

    client, _ = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "ataxx_az"], seed=2)
    rec = client.get(f"/game/{c['game']}/record.json").json()
    players = rec["meta"]["players"]
    assert players[1]["agent"] == "ataxx_az" and players[1]["spec"] == f"ataxx_az:{ROOM_SIMULATIONS}"
    assert players[0]["kind"] == "human" and "spec" not in players[0]
