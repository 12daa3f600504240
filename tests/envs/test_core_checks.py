"""envs.core.errors (one home, old paths still work), envs.core.checks (one "integer, not a bool")
and envs.core.plugins (plug-ins loaded by name)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import checks, errors, plugins


def test_the_errors_have_one_home_and_the_old_paths_name_the_same_classes():
    import envs
    import envs.core.state as state
    import envs.registry as registry

    for name in ("IllegalActionError", "InvalidMoveError", "InvalidPositionError", "ParameterError"):
        cls = getattr(errors, name)
        assert cls.__module__ == "envs.core.errors" and issubclass(cls, ValueError)
        assert getattr(state, name) is cls and getattr(envs, name) is cls
    assert registry.UnknownEnvError is errors.UnknownEnvError
    assert issubclass(errors.InvalidMoveError, errors.IllegalActionError)
    assert issubclass(errors.UnknownEnvError, KeyError) and str(errors.UnknownEnvError("no such id")) == "no such id"


@pytest.mark.parametrize(
    "value, integer, plain",
    [
        (3, True, True),
        (0, True, True),
        (-2, True, True),
        (np.int64(3), True, False),
        (np.uint8(1), True, False),
        (True, False, False),
        (np.True_, False, False),
        (3.0, False, False),
        ("3", False, False),
        (None, False, False),
        (np.array(3), False, False),
    ],
)
def test_an_integer_is_never_a_bool(value, integer, plain):
    assert checks.is_int(value) is integer
    assert checks.is_plain_int(value) is plain


def test_numbers_and_bools():
    assert checks.is_plain_number(2.5) and checks.is_plain_number(2)
    assert not checks.is_plain_number(True) and not checks.is_plain_number("2")
    assert checks.is_plain_number(np.float64(1.0))  # a subclass of float: JSON writes it
    assert checks.is_bool(True) and checks.is_bool(np.False_) and not checks.is_bool(1)


def test_require_bool_keeps_the_message():
    checks.require_bool("teams", np.True_)
    with pytest.raises(errors.ParameterError, match=r"^teams must be True or False, got 1$"):
        checks.require_bool("teams", 1)
    with pytest.raises(
        errors.ParameterError,
        match=r"^swap must be True or False, got np.True_$|"
        r"^swap must be True or False, got True$",
    ):
        checks.require_bool("swap", np.True_, numpy=False)
    with pytest.raises(ValueError, match="^x must be True or False"):
        checks.require_bool("x", None, error=ValueError)


def test_plug_ins_load_by_name():
    assert plugins.load_module("envs.core.checks") is checks
    assert plugins.load_object("envs.core.checks:is_int") is checks.is_int
    with pytest.raises(TypeError, match=r"^robot must be an import path 'package.module:name', got 'envs.x'$"):
        plugins.load_object("envs.x", "robot")
    with pytest.raises(TypeError, match="must be an import path 'package.module'"):
        plugins.load_module("not a path")
    with pytest.raises(ImportError, match=r"module envs.core.checks has no 'nothing'"):
        plugins.load_object("envs.core.checks:nothing")
    with pytest.raises(ImportError):
        plugins.load_module("envs.no_such_module")


def test_declared_agents_load_by_name():
    from envs.core.heuristics import load_agents

    assert load_agents((("plain", "envs.core.checks:is_int"),)) == {"plain": checks.is_int}
    for bad in ((("Robot", "envs.core.checks:is_int"),), ("robot",), {"robot": "envs.core.checks:is_int"}):
        with pytest.raises(TypeError, match="GameInfo.agents must be pairs"):
            load_agents(bad)
    with pytest.raises(TypeError, match="declares 'a' twice"):
        load_agents((("a", "envs.core.checks:is_int"), ("a", "envs.core.checks:is_bool")))
    with pytest.raises(TypeError, match="is not callable"):
        load_agents((("a", "envs.core.records:FORMAT"),))


def test_declared_evaluators_load_by_name_and_the_heuristics_offer_them():
    """``GameInfo.evaluators`` (further evaluations for search) load as agents do; ``evaluate`` is
    the module's own and may not be declared again; ``Heuristics.evaluator(name)`` answers each
    name and refuses another, naming those there are."""
    import envs
    from envs.core.heuristics import load_evaluators, load_heuristics
    from envs.tantrix.heuristics import tantrix_score_gap
    from envs.tantrix.robot import robot_value, turn_end_value

    assert load_evaluators((("plain", "envs.core.checks:is_int"),)) == {"plain": checks.is_int}
    for bad in ((("Plain", "envs.core.checks:is_int"),), ("plain",), {"plain": "envs.core.checks:is_int"}):
        with pytest.raises(TypeError, match=r"GameInfo.evaluators must be pairs \(name, 'module:function'\)"):
            load_evaluators(bad)
    with pytest.raises(TypeError, match="GameInfo.evaluators may not declare 'evaluate'"):
        load_evaluators((("evaluate", "envs.core.checks:is_int"),))
    with pytest.raises(TypeError, match="declares 'a' twice"):
        load_evaluators((("a", "envs.core.checks:is_int"), ("a", "envs.core.checks:is_bool")))
    with pytest.raises(TypeError, match="evaluator 'a': envs.core.records:FORMAT is not callable"):
        load_evaluators((("a", "envs.core.records:FORMAT"),))
    h = envs.spec("tantrix_v0").initial_state().heuristics()
    assert h.evaluator_names() == ["evaluate", "predicted", "predicted_turn"]
    assert h.evaluator("evaluate") is tantrix_score_gap and h.evaluator("predicted") is robot_value
    assert h.evaluator("predicted_turn") is turn_end_value
    with pytest.raises(
        ValueError, match=r"has no evaluation 'nope'; expected one of \['evaluate', 'predicted', 'predicted_turn'\]"
    ):
        h.evaluator("nope")
    plain = load_heuristics("envs.ataxx.heuristics")
    assert plain.evaluators == {} and plain.evaluator_names() == ["evaluate"]
    with pytest.raises(ValueError, match="expected one of \\['evaluate'\\]"):
        plain.evaluator("predicted")
