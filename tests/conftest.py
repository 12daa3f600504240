"""Shared fixtures and helpers for the test suite.

The reference data the tests read (Ataxx perft counts, the Tantrix tiles, the Smartrix cards, TwixT
game records) is carried in the repository, in ``tests/data/`` (about 10 kB; its files say where
each table comes from), so a plain clone runs the whole suite with nothing skipped. Tests reach it
through the ``data_dir`` fixture or :func:`perft_rows`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: The test data folder, ``tests/data`` (in the repository).
DATA_DIR = Path(__file__).resolve().parent / "data"
PERFT_TSV = DATA_DIR / "ataxx_perft.tsv"

# Let plain ``pytest`` (not only ``python -m pytest`` from the root) import the package.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))


def pyproject() -> dict:
    """The parsed ``pyproject.toml`` (``tomllib`` from Python 3.11, the ``tomli`` backport on 3.10)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the test extra installs tomli there
        import tomli as tomllib
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def _require(path: Path) -> Path:
    """``path`` if it exists; otherwise a clear error (the data is part of the repository: never skip)."""
    if not path.exists():
        raise FileNotFoundError(
            f"test data missing: {path} (it is part of the repository, in tests/data/; restore it with git)"
        )
    return path


@pytest.fixture(scope="session")
def wheel_names(tmp_path_factory) -> set[str]:
    """The file names in a wheel built from a copy of the checkout's files (once per test process;
    ``pip wheel --no-deps --no-build-isolation``): what ``pip install`` of the package installs."""
    import shutil
    import subprocess
    import zipfile

    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(
        REPO_ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "runs", "build", "*.egg-info", "__pycache__", "results", "tests", "site"
        ),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(src)]
        + ["-w", str(tmp / "whl")],
        check=True,
        capture_output=True,
    )
    return set(zipfile.ZipFile(next((tmp / "whl").glob("*.whl"))).namelist())


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The test data folder ``tests/data``; an error (not a skip) if it is missing."""
    return _require(DATA_DIR)


def perft_rows() -> list[tuple[str, list[int]]]:
    """Rows of ``tests/data/ataxx_perft.tsv`` as ``(fen, [perft(1), perft(2), ...])``.

    Raises ``FileNotFoundError`` (at collection) if the file is missing.
    """
    rows = []
    for line in _require(PERFT_TSV).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("fen\t"):
            continue
        fen, counts = line.split("\t")
        rows.append((fen.strip(), [int(c) for c in counts.split(",")]))
    return rows


def diagram(text: str, rest: str = "x 0 1") -> str:
    """FEN from a 7-line board diagram (rank 7 first; ``x``, ``o``, ``-`` gap, ``.`` empty).

    >>> diagram('''
    ... x . . . . . o
    ... . . . . . . .
    ... . . . . . . .
    ... . . . . . . .
    ... . . . . . . .
    ... . . . . . . .
    ... o . . . . . x
    ... ''')
    'x5o/7/7/7/7/7/o5x x 0 1'
    """
    rows = [r.split() for r in text.strip().splitlines()]
    assert len(rows) == 7 and all(len(r) == 7 for r in rows), "diagram must be 7 rows of 7 cells"
    return board_fen([c for row in rows for c in row]) + " " + rest


def board_fen(cells: list[str]) -> str:
    """The board field of a FEN from 49 cells, rank 7 first (``x``, ``o``, ``-``, ``.`` empty)."""
    out = []
    for r in range(7):
        s, run = "", 0
        for c in cells[r * 7 : (r + 1) * 7]:
            assert c in "xo-.", c
            if c == ".":
                run += 1
                continue
            if run:
                s += str(run)
                run = 0
            s += c
        out.append(s + (str(run) if run else ""))
    return "/".join(out)


def check_golden(trace: str, golden: Path) -> None:
    """Compare a playthrough trace with its checked-in golden file (first differing line shown).

    With ``REGENERATE_GOLDEN=1`` in the environment the file is rewritten from ``trace`` first.
    """
    if os.environ.get("REGENERATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(trace, encoding="utf-8")
    assert golden.is_file(), f"{golden} is missing; run with REGENERATE_GOLDEN=1 to create it"
    expected = golden.read_text(encoding="utf-8")
    if trace != expected:
        got, want = trace.splitlines(), expected.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(
            f"golden trace differs from {golden.name} at line {first + 1}:\n"
            f"  expected: {want[first] if first < len(want) else '<end of file>'}\n"
            f"  got:      {got[first] if first < len(got) else '<end of trace>'}\n"
            "If the change is intended, regenerate with REGENERATE_GOLDEN=1 and review the diff."
        )


def play_random(state, seed: int, moves: int | None = None):
    """Play uniformly random legal actions on ``state`` (in place) until the game ends or
    ``moves`` actions have been made; return ``state``."""
    rng = np.random.default_rng(seed)
    n = 0
    while not state.is_terminal() and (moves is None or n < moves):
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
        n += 1
    return state


def env_random_steps(env, rng: np.random.Generator, steps: int) -> int:
    """Step an AEC ``env`` with uniformly random legal actions of each agent's mask (``steps`` at
    most, stopping when the agent to act is done); return how many steps were made."""
    done = 0
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        done += 1
    return done


def tiny_checkpoint(
    path: Path,
    env_id: str = "ataxx_v0",
    env_kwargs: dict | None = None,
    *,
    width: int = 16,
    optimizer_step: bool = False,
) -> Path:
    """An untrained MaskablePPO checkpoint with the spaces of ``env_id`` made with ``env_kwargs``
    (as ``training.train`` saves), one hidden layer of ``width`` units; ``optimizer_step`` takes one
    Adam step first, so the file holds the optimizer's moment estimates too."""
    gym = pytest.importorskip("gymnasium")
    sb3c = pytest.importorskip("sb3_contrib")
    from envs.registry import make_raw

    raw = make_raw(env_id, **(env_kwargs or {}))

    class Spaces(gym.Env):
        observation_space = raw.observation_space("player_0")["observation"]
        action_space = raw.action_space("player_0")

        def reset(self, seed=None, options=None):
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(self.action_space.n, dtype=bool)

    model = sb3c.MaskablePPO(
        "MlpPolicy", Spaces(), n_steps=8, batch_size=8, seed=0, device="cpu", policy_kwargs={"net_arch": [width]}
    )
    if optimizer_step:
        sum(p.sum() for p in model.policy.parameters()).backward()
        model.policy.optimizer.step()
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    return path


def contract_cases() -> list:
    """Every registered environment id with each of its variants (``EnvSpec.variants``), as
    ``pytest.param(env_id, kwargs, id="<env_id>-<variant>")``: the parametrization of the
    contract suite (tests/envs/test_contract.py, tests/envs/test_state_contract.py). A new id is covered as
    soon as it is registered."""
    import envs

    return [
        pytest.param(env_id, dict(kwargs), id=f"{env_id}-{name}")
        for env_id in envs.ENV_IDS
        for name, kwargs in envs.spec(env_id).variants.items()
    ]


def start_state(env_id: str, kwargs: dict, seed: int):
    """The rules state at the start of a game of ``env_id`` with ``kwargs``, dealt by ``reset(seed)``."""
    import envs

    env = envs.make_raw(env_id, **kwargs)
    env.reset(seed=seed)
    return env.state
