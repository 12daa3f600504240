"""tabletop-rl: multi-agent environments for Ataxx, TwixT, Tantrix and Smartrix.

>>> import envs
>>> env = envs.make("ataxx_v0")
>>> envs.ENV_IDS
('ataxx_v0', 'twixt_v0', 'double_twixt_v0', 'tantrix_v0', 'smartrix_v0')

Environments follow PettingZoo's AEC API; each game also has a pure rules core
(``envs.ataxx.AtaxxState``) usable without any RL library.
"""

from envs.core.errors import IllegalActionError, InvalidMoveError, InvalidPositionError, ParameterError
from envs.core.state import GameInfo, GameState, Outcome
from envs.registry import ENV_IDS, EnvSpec, env_ids, make, make_raw, make_vec, register, spec

__version__ = "0.1.0"


def __getattr__(name: str):
    """``envs.ataxx_v0`` (and every other id in ``ENV_IDS``) imports its module on first use."""
    if name in ENV_IDS:
        import importlib

        return importlib.import_module(f"envs.{name}")
    raise AttributeError(f"module 'envs' has no attribute {name!r}")


__all__ = [
    "ENV_IDS",
    "EnvSpec",
    "register",
    "spec",
    "env_ids",
    "make",
    "make_raw",
    "make_vec",
    "GameState",
    "GameInfo",
    "Outcome",
    "IllegalActionError",
    "InvalidMoveError",
    "InvalidPositionError",
    "ParameterError",
    "__version__",
]
