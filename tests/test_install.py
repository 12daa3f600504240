"""What a fresh clone needs: the test data is in the repository, and missing extras are named."""

from __future__ import annotations

from conftest import DATA_DIR, REPO_ROOT, perft_rows


def test_test_data_is_carried_in_the_repository():
    """Every reference file the suite reads lives under tests/data (nothing outside the clone)."""
    assert DATA_DIR == REPO_ROOT / "tests" / "data"
    names = sorted(p.relative_to(DATA_DIR).as_posix() for p in DATA_DIR.rglob("*") if p.is_file())
    assert names == [
        "ataxx_perft.tsv",
        "smartrix_cards.tsv",
        "tantrix_tiles.tsv",
        "twixt/lg_game2206555.tsgf",
        "twixt/lg_game2220939.tsgf",
        "twixt/sample.T1",
    ]
    assert len(perft_rows()) == 15
