"""The documentation site's generator (``docs/gen_pages.py``) and its griffe extension
(``docs/griffe_rst.py``), without a whole mkdocs build (CI builds the site once, ``.ci/run``)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import envs
from envs.registry import env_ids, spec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load(name: str):
    loaded = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


pytest.importorskip("mkdocs", reason="the docs extra (pip install -e .[docs]) builds the site")
gen = _load("gen_pages")


def _row(page: str, label: str) -> str:
    """The second cell of the table row ``| label | ... |`` of ``page``."""
    rows = [line for line in page.splitlines() if line.startswith(f"| {label} |")]
    assert len(rows) == 1, f"expected one row {label!r}, got {rows}"
    return rows[0].split(" | ", 1)[1].rsplit(" |", 1)[0]


def _section(page: str, heading: str) -> str:
    """The text of ``page`` under ``## heading`` up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", page, flags=re.M | re.S)
    assert match, f"no section {heading!r}"
    return match.group(1)


def _shape(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def check_index(text: str, ids) -> None:
    """Raise ``AssertionError`` unless the environments index links every id's page, with its picture."""
    for env_id in ids:
        assert f"[`{env_id}`]({env_id}.md)" in text, f"{env_id} is not in the environments index"
        assert f'<img src="{env_id}.svg"' in text, f"{env_id}'s picture is not in the environments index"


@pytest.fixture(scope="module")
def env_pages() -> dict[str, str]:
    return {env_id: gen.env_page(env_id) for env_id in env_ids()}


@pytest.mark.parametrize("env_id", env_ids())
def test_env_page_spaces_are_those_of_make(env_pages, env_id):
    page = _section(env_pages[env_id], "Overview")  # the docstring's own table is further down
    env = envs.make(env_id)
    agent = env.possible_agents[0]
    assert _row(page, "Action space") == f"`{env.action_space(agent)}`"
    obs = env.observation_space(agent)
    inner = obs["observation"]
    entries = dict(inner.spaces) if hasattr(inner, "spaces") else {None: inner}
    overview = _row(page, "Observation")
    for key, box in entries.items():
        shape = f"`{_shape(box.shape)}` {box.dtype}"
        assert (shape if key is None else f"`{key}` {shape}") in overview
    mask = obs["action_mask"]
    assert _row(page, "Action mask").startswith(f"`action_mask`: `{_shape(mask.shape)}` {mask.dtype}")
    assert _row(page, "Agents (defaults)") == ", ".join(f"`{a}`" for a in env.possible_agents)
    assert f'envs.make("{env_id}")' in _row(page, "Import")
    env.close()


@pytest.mark.parametrize("env_id", env_ids())
def test_env_page_lists_every_variant_with_its_kwargs(env_pages, env_id):
    variants = _section(env_pages[env_id], "Variants")
    rows = {line.split(" | ")[0][2:].strip("`"): line for line in variants.splitlines() if line.startswith("| `")}
    assert set(rows) == set(spec(env_id).variants)
    for name, kwargs in spec(env_id).variants.items():
        env = envs.make(env_id, **kwargs)
        agent = env.possible_agents[0]
        cells = rows[name].split(" | ")
        assert cells[1] == gen.kwargs_text(kwargs)
        assert cells[2].split()[0] == str(len(env.possible_agents))
        assert cells[3] == f"`{env.action_space(agent)}`"
        env.close()


@pytest.mark.parametrize("env_id", env_ids())
def test_env_page_sections(env_pages, env_id):
    page = env_pages[env_id]
    for heading in ("Overview", "Variants", "Observation and actions", "Rules", "Agents", "Version history"):
        assert f"\n## {heading}\n" in page
    assert f"]({env_id}.svg)" in page
    layout = envs.make_raw(env_id).action_layout()
    if layout is not None:
        row = _row(_section(page, "Observation and actions"), "Planes x height x width")
        assert row == f"{layout.planes} x {layout.height} x {layout.width}"
    # the rules summary links the game's rules page, at anchors that page has
    rules = gen.rules_file(env_id)
    assert rules is not None
    page_name = f"{gen.game_name(env_id)}-rules.md"
    headings = [h for h, _ in gen.rules_sections(rules.read_text(encoding="utf-8"))[1] if h]
    for heading in headings:
        assert f"]({page_name}#{gen.slug(heading)})" in page
    # every shipped agent of this id is listed
    from training.agents.shipped import shipped_names, shipped_spec

    for name in shipped_names():
        if shipped_spec(name, verify=False).env_id == env_id:
            assert f"| `{name}` |" in _section(page, "Agents")


def test_index_lists_every_id_and_a_missing_one_is_caught():
    text = gen.index_page()
    check_index(text, env_ids())
    first = env_ids()[0]
    without = "\n".join(line for line in text.splitlines() if f"[`{first}`]" not in line)
    with pytest.raises(AssertionError, match=first):
        check_index(without, env_ids())


def test_every_generated_page_is_in_the_nav():
    pages = gen.pages()
    sections = gen.nav_sections()

    def paths(items):
        for item in items:
            if isinstance(item, str):
                yield item
            else:
                for value in item.values():
                    yield from paths(value) if isinstance(value, list) else [value]

    in_nav = set(sections) | {p for entries in sections.values() for p in paths(entries)}
    # the pages that mkdocs.yml's nav names itself (benchmarks-details.md)
    import yaml

    static = set(paths(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))
    assert set(pages) - in_nav == {"benchmarks-details.md"} and "benchmarks-details.md" in static
    assert in_nav <= set(pages)
    assert {f"environments/{env_id}.md" for env_id in env_ids()} <= in_nav
    # the hook appends them after the index page that heads their section
    config = {"nav": [{"Home": "index.md"}, {"Environments": ["environments/index.md"]}]}
    gen.on_config(config)
    assert config["nav"][1]["Environments"][1:] == sections["environments/index.md"]


def test_api_modules_import_and_cover_each_game_state_module():
    modules = gen.api_modules()
    for module in modules:
        importlib.import_module(module)
    for env_id in env_ids():
        assert type(spec(env_id).initial_state()).__module__ in modules
    assert gen.api_page("envs.registry") == "# `envs.registry`\n\n::: envs.registry\n"


def test_pictures_the_pages_link_are_generated():
    files = gen.picture_files()
    linked = set()
    for md in DOCS.rglob("*.md"):
        linked |= set(re.findall(r"assets/pictures/([\w.-]+)", md.read_text(encoding="utf-8")))
    assert linked, "no page links a picture: the pattern is stale"
    assert {f"assets/pictures/{name}" for name in linked} <= set(files)
    plots = set()
    for md in DOCS.rglob("*.md"):
        plots |= set(re.findall(r"\((results-files/[\w./-]+\.png)\)", md.read_text(encoding="utf-8")))
    assert "results-files/alphazero/ataxx_az-0/curve.png" in plots
    assert plots <= set(files) and all(files[p] == ROOT / "results" / p.removeprefix("results-files/") for p in plots)


def test_env_svg_is_drawn_by_the_game():
    svg = gen.env_svg(env_ids()[0])
    assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>")


def test_md_text():
    doc = "Title.\n\nSee :class:`~envs.core.state.GameInfo` and ``x``.\nPlanes:\n* one\n  two\n\n0. first; 1. second\n"
    text = gen.md_text(doc)
    assert "See `envs.core.state.GameInfo` and `x`." in text
    assert "Planes:\n\n* one\n    two" in text  # a blank line before the list, its indentation doubled
    assert "0\\. first; 1. second" in text  # not an ordered list renumbered from 1


def test_griffe_extension_rewrites_roles_and_doctests():
    rst = _load("griffe_rst")
    text = rst.to_markdown("See :func:`~envs.registry.make` and :mod:`envs.core`.\n\n>>> 1 + 1\n2\n\nAfter.")
    assert text == "See `make` and `envs.core`.\n\n```pycon\n>>> 1 + 1\n2\n```\n\nAfter."


def test_lists_after_a_paragraph_line_get_their_blank_line():
    """Found by a newcomer: RULES.md lists that follow a paragraph line directly ran into it on the
    site (Python-Markdown needs the blank line that GitHub does not)."""
    assert gen.lists_apart("when:\n1. a side has no stones; or\n2. neither side can move.") == (
        "when:\n\n1. a side has no stones; or\n2. neither side can move."
    )
    assert gen.lists_apart("A turn:\n- one\n  - nested\n- two") == "A turn:\n\n- one\n  - nested\n- two"
    fenced = "```\ncode\n- not a list\n```"
    assert gen.lists_apart(fenced) == fenced
    rules = gen.rules_pages()
    assert all(not re.search(r"\n[^\n\s][^\n]*\n1\. ", text) for text in rules.values())


def test_griffe_extension_rewrites_literals_and_escaped_spaces():
    """Found by a newcomer: the API pages showed ``ValueError``\\ s and raw double backticks."""
    to_markdown = _load("griffe_rst").to_markdown
    assert to_markdown("all are ``ValueError``\\ s; see :mod:`room.protocol`") == (
        "all are `ValueError`s; see `room.protocol`"
    )
    assert to_markdown(to_markdown(">>> 1 + 1\n2\n")) == to_markdown(">>> 1 + 1\n2\n")


def test_the_overview_says_which_variants_have_teams():
    """Found by a newcomer: twixt_v0 said "teams: some variants" (GameInfo.teams is per game)."""
    for env_id in env_ids():
        sp = spec(env_id)
        teamed = [any(len(t) > 1 for t in sp.teams(**kw)) for kw in sp.variants.values()]
        want = "every variant" if all(teamed) else "some variants" if any(teamed) else "none"
        assert f"; teams: {want} |" in gen.env_page(env_id), env_id
