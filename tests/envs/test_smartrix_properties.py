"""Smartrix property tests over many seeded random games.

* the mask is exactly the set of legal placements (+ pass), checked against a slow brute force
  written from the rules alone (facing squares from geometry, the 5x5 box recomputed, the window);
* cards are conserved; the 5x5 rule always holds; records replay exactly;
* determinisations keep everything public identical and redeal exactly the unseen cards;
* an observation does not change when cards its agent cannot see are swapped.

The always-on set takes a few seconds; ``-m slow`` runs many more games.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_smartrix_rules import patterns_match

from envs.smartrix import CARD_PATTERNS, SmartrixState
from envs.smartrix.records import record_from_state, replay
from envs.smartrix_v0 import raw_env

SETTINGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4, teams=True),
    dict(num_players=7),
    dict(num_players=2, grid_limit=False),
]


def brute_force_placements(s: SmartrixState) -> set:
    """{(card number, pattern, row, col)} of every legal placement, from the rules alone."""
    table = {(r, c): int(CARD_PATTERNS[n - 1, k]) for n, k, r, c in s.table()}
    mover = s.current_player
    out = set()
    if not table:
        squares = [(0, 0)]
    else:
        rows = [r for r, _ in table]
        cols = [c for _, c in table]
        squares = [(r, c) for r in range(min(rows) - 8, max(rows) + 9) for c in range(min(cols) - 8, max(cols) + 9)]
        mr, mc = (min(rows) + max(rows)) // 2, (min(cols) + max(cols)) // 2
        h = s.window // 2
    for r, c in squares:
        if table:
            if (r, c) in table:
                continue
            nbs = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (r + dr, c + dc) in table]
            if not nbs:
                continue
            if s.grid_limit:
                rr, cc = rows + [r], cols + [c]
                if max(rr) - min(rr) > 4 or max(cc) - min(cc) > 4:
                    continue
            elif abs(r - mr) > h or abs(c - mc) > h:
                continue
        for n in s.hand(mover):
            for p in {int(x) for x in CARD_PATTERNS[n - 1]}:
                if table and not all(patterns_match(p, table[(r + dr, c + dc)], dr, dc) for dr, dc in nbs):
                    continue
                out.add((n, p, r, c))
    return out


def mask_placements(s: SmartrixState) -> set:
    out = set()
    for a in s.legal_placements():
        n, k, r, c = s.decode(a)
        out.add((n, int(CARD_PATTERNS[n - 1, k]), r, c))
    return out


def check_invariants(s: SmartrixState) -> None:
    pos = s.position()
    cards = (
        [t[0] for t in pos["table"]]
        + [n for h in pos["hands"] for n in h]
        + pos["pile"]
        + [n for h in pos["collected"] for n in h]
    )
    assert sorted(cards) == list(range(1, 71)), "cards not conserved"
    if s.grid_limit and s.table_size():
        rmin, rmax, cmin, cmax = s.bounding_box()
        assert rmax - rmin <= 4 and cmax - cmin <= 4, "5x5 rule broken"
    for q in range(s.num_players):
        assert s.points(q) == sum(
            int(v)
            for v in np.asarray([bin(int(CARD_PATTERNS[n - 1, 0])).count("1") for n in s.collected(q)], dtype=int)
        )


def random_game(settings, seed, check_mask_every=1, pass_prob=0.15):
    rng = np.random.default_rng(seed)
    s = SmartrixState(**settings, rng=np.random.default_rng(seed + 1000))
    states = [s.clone()]
    k = 0
    while not s.is_terminal():
        mask = s.legal_action_mask()
        assert mask[-1] == 1 and mask.dtype == np.int8
        if k % check_mask_every == 0:
            assert mask_placements(s) == brute_force_placements(s)
        legal = np.flatnonzero(mask)
        # Mostly place (games reach their end phase), sometimes pass.
        if len(legal) > 1 and rng.random() >= pass_prob:
            a = int(legal[rng.integers(len(legal) - 1)])
        else:
            a = s.pass_action
        s.apply(a)
        check_invariants(s)
        states.append(s.clone())
        k += 1
    return s, states


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda d: "-".join(f"{k}={v}" for k, v in d.items()))
def test_random_games_mask_is_exact_and_invariants_hold(settings):
    for seed in range(4):
        s, states = random_game(settings, seed, check_mask_every=3)
        assert s.is_terminal() and s.legal_action_mask().sum() == 0
        r = s.returns()
        assert set(r.tolist()) <= {-1.0, 0.0, 1.0} and r.max() >= 0
        if settings.get("teams"):
            assert r[0] == r[2] and r[1] == r[3]
        # records replay exactly, every intermediate state included
        rec = record_from_state(s)
        again = replay(rec)
        assert again == s and str(again) == str(s) and again.returns().tolist() == r.tolist()
        for i in (0, len(states) // 2, len(states) - 1):
            assert replay(rec, upto=i) == states[i]


@pytest.mark.slow
@pytest.mark.parametrize("settings", SETTINGS, ids=lambda d: "-".join(f"{k}={v}" for k, v in d.items()))
def test_random_games_mask_is_exact_many_games(settings):
    for seed in range(2, 22):
        random_game(settings, seed, check_mask_every=1)


def test_game_end_conditions_are_both_reached():
    ends = set()
    for seed in range(12):
        s, _ = random_game(dict(num_players=2), seed, check_mask_every=1000, pass_prob=0.0)
        ends.add("emptied hand" if any(s.hand_size(q) == 0 for q in range(2)) else "all out")
        if all(s.is_out(q) for q in range(2)):
            assert s.pile_size == 0
    assert ends == {"emptied hand", "all out"}


def _unseen_swap(s: SmartrixState, player: int, rng) -> SmartrixState:
    """``s`` with two cards ``player`` cannot see exchanged (other hands / pile)."""
    pos = s.position()
    spots = [(("hands", q), i) for q in range(s.num_players) if q != player for i in range(len(pos["hands"][q]))]
    spots += [(("pile", None), i) for i in range(len(pos["pile"]))]
    if len(spots) < 2:
        return s.clone()
    a, b = rng.choice(len(spots), size=2, replace=False)

    def ref(spot):
        (kind, q), i = spot
        return (pos["hands"][q], i) if kind == "hands" else (pos["pile"], i)

    la, ia = ref(spots[a])
    lb, ib = ref(spots[b])
    la[ia], lb[ib] = lb[ib], la[ia]
    return SmartrixState.from_position(**pos)


def _obs_equal(x, y):
    return all(np.array_equal(x[k], y[k]) for k in x)


def test_observations_hold_only_what_the_agent_may_know():
    rng = np.random.default_rng(5)
    env_ = raw_env(num_players=3)
    for seed in range(8):
        env_.reset(seed=seed)
        for _ in range(int(rng.integers(0, 40))):
            if any(env_.terminations.values()):
                break
            legal = np.flatnonzero(env_.observe(env_.agent_selection)["action_mask"])
            env_.step(int(legal[rng.integers(len(legal))]))
        original = env_.state
        for player in range(3):
            base = env_._observe(player)
            for _ in range(5):
                env_.state = _unseen_swap(original, player, rng)
                assert _obs_equal(env_._observe(player), base)
                # and the sampler: a determinisation looks the same to the player it is for
                env_.state = original.sample_determinization(player, rng)
                assert _obs_equal(env_._observe(player), base)
            env_.state = original


def test_determinisation_keeps_public_information_and_redeals_the_unseen_cards():
    rng = np.random.default_rng(0)
    for settings in SETTINGS:
        for seed in range(3):
            _, states = random_game(settings, seed, check_mask_every=1000)
            for s in states[:: max(1, len(states) // 6)]:
                if s.is_terminal():
                    continue
                for player in range(s.num_players):
                    d = s.sample_determinization(player, rng)
                    a, b = s.position(), d.position()
                    for key in ("table", "collected", "current_player", "out", "num_players", "grid_limit", "teams"):
                        assert a[key] == b[key]
                    assert a["hands"][player] == b["hands"][player]
                    assert [len(h) for h in a["hands"]] == [len(h) for h in b["hands"]]
                    assert len(a["pile"]) == len(b["pile"])
                    hidden_b = sorted([n for q, h in enumerate(b["hands"]) if q != player for n in h] + b["pile"])
                    assert hidden_b == s.unseen_cards(player) == d.unseen_cards(player)
                    assert np.array_equal(d.legal_action_mask(), s.legal_action_mask()) or s.current_player != player
                    assert d.turn_number == s.turn_number
                    # the sample is a complete, playable state
                    legal = d.legal_actions()
                    d.apply(legal[int(rng.integers(len(legal)))])


def test_determinisation_keeps_the_moves_played_and_replays_to_itself():
    """The moves are public (the play room highlights the last one): a sample keeps history,
    moves() and last_collected, and its start is the real one with the redealt cards swapped in,
    so its record replays to exactly the sample, from a dealt deck and from a hand-built position."""
    rng = np.random.default_rng(3)
    for settings in SETTINGS:
        _, states = random_game(settings, 5, check_mask_every=1000)
        s = next(st for st in states[25:] if st.last_collected) if settings.get("grid_limit", True) else states[30]
        assert not s.is_terminal() and len(s.history) >= 25
        hand_built = SmartrixState.from_position(**s.position())
        hand_built.apply(hand_built.pass_action)
        for st in (s, hand_built):
            for player in range(st.num_players):
                d = st.sample_determinization(player, rng)
                assert d.history == st.history and d.moves() == st.moves() and d.turn_number == st.turn_number
                assert d.last_collected == st.last_collected
                assert d.hand(player) == st.hand(player)
                again = replay(record_from_state(d))
                assert again == d and again.history == d.history
                assert again.hand((player + 1) % st.num_players) == d.hand((player + 1) % st.num_players)
            assert hand_built.moves() == ["pass"]


def test_determinisations_are_uniform_over_the_unseen_cards():
    s = SmartrixState(2, rng=np.random.default_rng(4))
    unseen = s.unseen_cards(0)
    counts = dict.fromkeys(unseen, 0)
    rng = np.random.default_rng(1)
    trials = 3000
    for _ in range(trials):
        for n in s.sample_determinization(0, rng).hand(1):
            counts[n] += 1
    expected = trials * 5 / len(unseen)
    assert all(abs(c - expected) < 5 * expected**0.5 for c in counts.values())


def test_clone_and_deepcopy_continue_identically():
    import copy
    import pickle

    s = SmartrixState(3, rng=np.random.default_rng(9))
    for a in [s.legal_actions()[-2], s.pass_action, s.pass_action]:
        s.apply(a)
    copies = [s.clone(), copy.deepcopy(s), pickle.loads(pickle.dumps(s))]
    rng_moves = []
    r = np.random.default_rng(3)
    t = s
    while not t.is_terminal():
        legal = t.legal_actions()
        a = legal[int(r.integers(len(legal)))]
        rng_moves.append(a)
        t.apply(a)
    for c in copies:
        for a in rng_moves:
            c.apply(a)
        assert c == s and str(c) == str(s)
