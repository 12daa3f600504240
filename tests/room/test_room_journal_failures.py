"""The room's journal when the disk refuses a write (issue 26, item 9: the journal never disagrees
with what was said).

Each failure is made twice where it can be: for real (a 64 KiB tmpfs filled up, a journal made
immutable with ``chattr +i``; skipped, with the reason, where this machine does not allow it) and
simulated (``room.journal``'s ``os`` replaced by :class:`FlakyOS`, which runs out of space after a
given number of bytes, or refuses fsync, truncate or open), so CI always tests it. After each, the
records folder is read back by a fresh room (a restart), which must give exactly the acknowledged
moves: nothing refused reaches the file, then or later.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

from room_helpers import Page  # noqa: E402

# the loopback TestClient (a browser on this machine: room.trust) and its pages
from test_room_protocol import TestClient, close_pages, connect  # noqa: E402

import room.journal as journal_module  # noqa: E402
from room.app import create_app  # noqa: E402
from room.journal import Journal, JournalWriteError, read_journal  # noqa: E402
from room.records import load_records  # noqa: E402

#: One empty square, next to x: x's g7 fills the board and ends the game (22 x against 28 o).
LAST_MOVE_FEN = "xxxxxx1/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooooo/ooooooo x 0 1"


# ---------------------------------------------------------------------------------- a flaky disk
class FlakyOS:
    """Stands in for ``os`` inside :mod:`room.journal` only: a disk with :attr:`free` bytes left
    (``None``: no limit; a write past it is cut short, the next one raises ENOSPC, as Linux does),
    and ``fail_*`` errnos that make every ``write`` / ``ftruncate`` / ``open`` raise (``None``:
    works), and the next :attr:`fsync_failures` fsyncs."""

    def __init__(self):
        self.free: int | None = None
        self.fail_write: int | None = None
        self.fail_fsync: int | None = None
        self.fsync_failures = 1
        self.fail_truncate: int | None = None
        self.fail_open: int | None = None

    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def _raise(code: int):
        raise OSError(code, os.strerror(code))

    def write(self, fd, data):
        if self.fail_write is not None:
            self._raise(self.fail_write)
        if self.free is None:
            return os.write(fd, data)
        if self.free == 0:
            self._raise(errno.ENOSPC)
        n = os.write(fd, bytes(data[: self.free]))
        self.free -= n
        return n

    def fsync(self, fd):
        if self.fail_fsync is not None and self.fsync_failures > 0:
            self.fsync_failures -= 1
            self._raise(self.fail_fsync)
        return os.fsync(fd)

    def ftruncate(self, fd, length):
        if self.fail_truncate is not None:
            self._raise(self.fail_truncate)
        return os.ftruncate(fd, length)

    def open(self, path, flags, mode=0o777):
        if self.fail_open is not None:
            self._raise(self.fail_open)
        return os.open(path, flags, mode)


@pytest.fixture
def disk(monkeypatch) -> FlakyOS:
    flaky = FlakyOS()
    monkeypatch.setattr(journal_module, "os", flaky)
    return flaky


# ---------------------------------------------------------------------------------- real failures
@pytest.fixture
def small_tmpfs(tmp_path):
    """A 64 KiB tmpfs (needs root and permission to mount: skipped otherwise)."""
    where = tmp_path / "tmpfs"
    where.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root and mount(8); the simulated full disk tests cover it")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip()}); the simulated full disk tests cover it")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> Path:
    """Fill the filesystem of ``folder`` to the last byte; return the filler (delete it to free)."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (4096, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC
    return filler


def chattr(path: Path, flag: str) -> None:
    """``chattr flag path`` (skips the test where the filesystem or the machine refuses it)."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr(1) is not installed; the simulated EPERM test covers an unwritable journal")
    r = subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"chattr {flag} is not supported here ({r.stderr.strip()}); the simulated EPERM test covers it")


# ---------------------------------------------------------------------------------- the Journal
HEADER = {
    "format": "tabletop-room-journal",
    "version": 1,
    "game": "aaaa0001",
    "kind": "play",
    "env_id": "ataxx_v0",
    "env_kwargs": {},
    "seed": 1,
    "created": "2026-12-05T00:00:00Z",
    "seats": [{"kind": "agent", "agent": "random"}, {"kind": "agent", "agent": "random"}],
}


def undo(k: int) -> dict:  # a small, well-formed event (read_journal does not replay)
    return {"event": "undo", "to": k}


@pytest.mark.parametrize("free", [0, 1, 7, 13])
def test_a_refused_write_leaves_nothing_even_once_space_returns(tmp_path, disk, free):
    path = tmp_path / "aaaa0001.jsonl"
    j = Journal.create(path, HEADER)
    j.write(undo(0))
    before = path.read_bytes()
    disk.free = free  # the disk fills in the middle of the next line (a short write, then ENOSPC)
    with pytest.raises(JournalWriteError) as e:
        j.write(undo(1))
    assert e.value.rolled_back and e.value.errno == errno.ENOSPC and "No space left" in e.value.reason
    assert path.read_bytes() == before  # truncated back to its last complete line
    disk.free = None  # space returns: the refused line must not come back with the next one
    j.write(undo(2))
    j.write([undo(3), undo(4)][:1])
    j.close()
    assert [e["to"] for e in read_journal(path).events] == [0, 2, 3]
    assert read_journal(path).problem is None


def test_a_failed_fsync_is_rolled_back(tmp_path, disk):
    path = tmp_path / "aaaa0001.jsonl"
    j = Journal.create(path, HEADER)
    before = path.read_bytes()
    disk.fail_fsync = errno.EIO  # the line reached the file, its fsync failed: taken out again
    with pytest.raises(JournalWriteError) as e:
        j.write(undo(0))
    assert e.value.rolled_back and e.value.errno == errno.EIO and path.read_bytes() == before
    j.write(undo(1))
    assert [e["to"] for e in read_journal(path).events] == [1]
    disk.fsync_failures = 2  # the rollback's own fsync fails too: the truncation may not be on disk
    with pytest.raises(JournalWriteError) as e:
        j.write(undo(2))
    assert not e.value.rolled_back and j.broken


def test_a_write_that_cannot_be_taken_back_closes_the_journal(tmp_path, disk):
    path = tmp_path / "aaaa0001.jsonl"
    j = Journal.create(path, HEADER)
    j.write(undo(0))
    disk.free, disk.fail_truncate = 9, errno.EIO  # 9 bytes of the line stay in the file
    with pytest.raises(JournalWriteError) as e:
        j.write(undo(1))
    assert not e.value.rolled_back and "could not be taken back" in e.value.reason and j.broken
    disk.free = disk.fail_truncate = None
    with pytest.raises(JournalWriteError, match="could not be taken back"):
        j.write(undo(2))  # closed for good: nothing appended after the unfinished line
    content = read_journal(path)  # what a restart reads: the unfinished line is cut off
    assert [e["to"] for e in content.events] == [0] and "line 3 is cut short" in content.problem


@pytest.mark.parametrize("code", [errno.EPERM, errno.EROFS, errno.EACCES])
def test_an_unwritable_journal_is_refused_cleanly_simulated(tmp_path, disk, code):
    path = tmp_path / "aaaa0001.jsonl"
    Journal.create(path, HEADER).close()
    before = path.read_bytes()
    j = Journal(path)  # a journal opened at its first write (a game read back at start)
    disk.fail_open = code
    with pytest.raises(JournalWriteError) as e:
        j.write(undo(0))
    assert e.value.rolled_back and e.value.errno == code and str(path) not in e.value.reason
    disk.fail_open, disk.fail_write = None, code  # open works, the write is refused
    with pytest.raises(JournalWriteError) as e:
        j.write(undo(1))
    assert e.value.rolled_back and path.read_bytes() == before
    disk.fail_write = None
    j.write(undo(2))
    assert [e["to"] for e in read_journal(path).events] == [2]


def test_create_leaves_no_file_when_refused(tmp_path, disk):
    path = tmp_path / "aaaa0001.jsonl"
    disk.free = 20
    with pytest.raises(JournalWriteError) as e:
        Journal.create(path, HEADER, [undo(0)])
    assert e.value.rolled_back and not path.exists()
    with pytest.raises(ValueError):  # a value UTF-8 cannot hold: refused before any file exists
        Journal.create(path, {**HEADER, "env_id": "\ud800"})
    assert not path.exists()


def test_a_full_tmpfs_refuses_a_line_and_takes_the_next_once_space_returns(small_tmpfs):
    path = small_tmpfs / "aaaa0001.jsonl"
    j = Journal.create(path, HEADER)
    filler = fill(small_tmpfs)
    acked, refused = [], 0
    for k in range(2000):  # the page the file ends in fills up, then a line is refused
        try:
            j.write({"event": "seat", "seat": 0, "kind": "agent", "agent": "x" * 40, "k": k})
            acked.append(k)
        except JournalWriteError as e:
            assert e.rolled_back and e.errno == errno.ENOSPC
            refused += 1
            if refused == 3:
                break
    assert refused == 3 and path.read_bytes().endswith(b"\n")
    assert [e["k"] for e in read_journal(path).events] == acked
    filler.unlink()
    j.write({"event": "seat", "seat": 0, "kind": "agent", "agent": "y", "k": -1})
    j.close()
    content = read_journal(path)
    assert content.problem is None and [e["k"] for e in content.events] == [*acked, -1]


def test_an_immutable_journal_refuses_a_line_and_takes_the_next_once_writable(tmp_path):
    path = tmp_path / "aaaa0001.jsonl"
    j = Journal.create(path, HEADER)
    j.write(undo(0))
    chattr(path, "+i")
    try:
        with pytest.raises(JournalWriteError) as e:
            j.write(undo(1))
        assert e.value.rolled_back and e.value.errno == errno.EPERM
    finally:
        chattr(path, "-i")
    j.write(undo(2))
    assert [e["to"] for e in read_journal(path).events] == [0, 2]


# ---------------------------------------------------------------------------------- lines of a change
def test_a_change_and_its_consequences_are_one_line_read_back_in_order(tmp_path):
    path = tmp_path / "aaaa0001.jsonl"
    move = {"event": "move", "ply": 0, "action": 1, "notation": "a", "seat": 0, "by": "human"}
    auto = {**move, "ply": 1, "seat": 1, "by": "auto"}
    result = {"event": "result", "result": "1-0", "ply": 2}
    j = Journal.create(path, HEADER)
    j.write([move, auto, result])
    j.write(undo(0))
    j.close()
    assert path.read_text().count("\n") == 3
    content = read_journal(path)
    assert content.events == [move, auto, result, undo(0)] and content.event_lines == [2, 2, 2, 3]
    assert content.lines() == [(2, [move, auto, result]), (3, [undo(0)])]


@pytest.mark.parametrize(
    "then, why",
    [
        ("x", "must be a non-empty list"),
        ([], "must be a non-empty list"),
        ([{"event": "undo", "to": 0}], "does not follow from a change"),
        ([{"event": "result", "result": "1-0", "then": [{"event": "result", "result": "1-0"}]}], "of its own"),
        ([{"event": "move"}], "event 1 of 'then'"),
    ],
)
def test_a_malformed_then_is_a_bad_line(tmp_path, then, why):
    path = tmp_path / "aaaa0001.jsonl"
    ok = {"event": "resign", "seat": 0}
    path.write_text("\n".join(json.dumps(x) for x in (HEADER, undo(0), {**ok, "then": then})) + "\n")
    content = read_journal(path)
    assert content.events == [undo(0)] and "line 3" in content.problem and why in content.problem


def test_a_line_that_does_not_replay_whole_is_cut_back_whole(tmp_path):
    """A line whose ``then`` does not replay (here an event for the wrong ply) is taken out whole:
    the game is restored as it was before the line, not half-way through it."""
    records = tmp_path / "records"
    with running(records) as client:
        p, gid = two_seat_game(client)
        assert play(p, gid, 0)[0] == "ok"
        legal = client.app.state.room.games[gid].state.legal_actions()[0]
    path = records / f"{gid}.jsonl"
    lines = path.read_text().splitlines()
    move = {"event": "move", "ply": 1, "action": legal, "notation": "?", "seat": 1, "by": "human"}
    line = {**move, "then": [{**move, "ply": 5, "seat": 0, "by": "auto"}]}
    path.write_text("\n".join([*lines, json.dumps(line)]) + "\n")
    games, problems = load_records(records, lambda g, i: None)
    assert games[gid].ply == 1  # the line's first move, which replays, is not kept either
    assert f"{gid}.jsonl line {len(lines) + 1}: move for ply 5 at ply 2" in games[gid].problem
    assert len(read_journal(path).events) == len(lines) - 1  # the file cut back to its good lines


# ---------------------------------------------------------------------------------- the room
def create(page: Page, env_id: str, seats: list[str], seed: int = 1, **kwargs) -> dict:
    msg = {"type": "create", "env_id": env_id, "seats": seats, "seed": seed}
    if kwargs:
        msg["env_kwargs"] = kwargs
    page.send(msg)
    return page.until(lambda f: f["type"] in ("created", "error"))


def watch(page: Page, game: str, *tokens) -> dict:
    page.send({"type": "watch", "game": game, "tokens": list(tokens)})
    return page.state(lambda f: f["game"] == game)


def last_state(page: Page) -> dict:
    """The last ``state`` frame the page received."""
    return next(f for f in map(json.loads, reversed(page.frames)) if f["type"] == "state")


def play(page: Page, gid: str, ply: int) -> tuple[str, dict]:
    """Play the first legal move of the page's last state (at ``ply``; the page holds every
    seat); return ``("ok", the next state)`` or ``("refused", the error frame)``."""
    s = last_state(page)
    assert s["ply"] == ply and s["legal"], (s["ply"], ply)
    page.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
    m = page.until(lambda f: f["type"] == "error" or (f["type"] == "state" and f["ply"] > ply))
    return ("refused", m) if m["type"] == "error" else ("ok", m)


@contextlib.contextmanager
def running(records: Path):
    """A room over ``records`` and its TestClient; its pages closed before it stops."""
    with TestClient(create_app(records, agent_delay=0)) as client:
        try:
            yield client
        finally:
            close_pages()


def restarted(records: Path, gid: str):
    """The game as a fresh room reads it back from the records folder."""
    return create_app(records, agent_delay=0).state.room.get(gid)  # a finished game: replayed when opened


def two_seat_game(client, env_id: str = "ataxx_v0", **kwargs) -> tuple[Page, str]:
    """A game whose two seats this page holds."""
    p = connect(client)
    c = create(p, env_id, ["me", "me"], seed=5, **kwargs)
    gid = c["game"]
    watch(p, gid, c["tokens"]["0"], c["tokens"]["1"])
    return p, gid


def test_a_full_disk_refuses_a_move_whole_and_play_goes_on_once_space_returns(tmp_path, disk):
    """The finding: a refused move stayed in a buffer and came back, in place of three
    acknowledged moves, after a restart."""
    records = tmp_path / "records"
    with running(records) as client:
        p, gid = two_seat_game(client)
        assert play(p, gid, 0)[0] == "ok"
        disk.free = 11  # the disk fills in the middle of the next move's line
        how, err = play(p, gid, 1)
        assert how == "refused"
        assert "was not saved and the game is unchanged" in err["message"]
        assert "No space left on device" in err["message"] and str(records) not in err["message"]
        s = last_state(p)  # the game's page says so too
        assert s["ply"] == 1 and "refused to write the game's journal (No space left" in s["problem"]
        p.send({"type": "lobby"})
        lobby = p.until(lambda f: f["type"] == "lobby")
        assert "No space left" in lobby["games"][0]["problem"]
        disk.free = None  # space returns: the next moves are journaled, the status goes away
        for ply in (1, 2, 3):
            how, s = play(p, gid, ply)
            assert how == "ok"
        assert s["problem"] is None
        acked = s["moves"]
    game = restarted(records, gid)
    assert game.state.moves() == acked and len(acked) == 4 and game.problem is None


def test_the_failure_between_a_winning_move_and_its_result_leaves_the_game_unchanged(tmp_path, disk):
    """The finding: the disk filled between a winning move and its result line, and the page was
    told "the game is unchanged" while the game was over. Now the move and its result are one
    line: cut anywhere (before it, inside the move, between the move and the result), the move is
    refused whole, the game is not over, and a restart agrees."""
    records = tmp_path / "records"
    with running(records) as client:
        p, gid = two_seat_game(client, fen=LAST_MOVE_FEN)
        room_game = client.app.state.room.games[gid]
        path = records / f"{gid}.jsonl"
        before = path.read_bytes()
        move = room_game.move_event(room_game.state.string_to_action("g7"), "human")
        move_part = len(json.dumps(move, separators=(",", ":"), ensure_ascii=False)) - 1  # without "}"
        for free in (0, move_part // 2, move_part, move_part + 12):
            disk.free = free
            assert "not saved and the game is unchanged" in p.error({"type": "move", "game": gid, "notation": "g7"})
            s = last_state(p)
            assert s["over"] is False and s["ply"] == 0 and s["outcome"] is None and s["legal"]
            assert room_game.ply == 0 and not room_game.over and path.read_bytes() == before
        disk.free = None
        p.send({"type": "move", "game": gid, "notation": "g7"})
        s = p.state(lambda f: f["over"])
        assert s["outcome"]["winners"] == [1] and s["problem"] is None
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["notation"] == "g7" and last["then"][-1]["event"] == "result"
    game = restarted(records, gid)
    assert game.over and game.state.moves() == ["g7"]


def test_a_cut_line_that_cannot_be_taken_back_makes_the_game_read_only(tmp_path, disk):
    records = tmp_path / "records"
    with running(records) as client:
        p, gid = two_seat_game(client)
        assert play(p, gid, 0)[0] == "ok"
        disk.free, disk.fail_truncate = 30, errno.EIO
        how, err = play(p, gid, 1)
        assert how == "refused" and "read-only until the room restarts" in err["message"]
        disk.free = disk.fail_truncate = None
        s = last_state(p)
        assert "read-only" in s["problem"] and s["legal"] is None and not s["can_resign"] and not s["can_seat"]
        assert "is read-only" in p.error({"type": "move", "game": gid, "notation": "a1"})
        assert "is read-only" in p.error({"type": "resign", "game": gid})
        acked = s["moves"]
    # a restart: the unfinished line is cut off (kept aside), the game resumes at the last ack
    game = restarted(records, gid)
    assert game.state.moves() == acked and len(acked) == 1
    assert "is cut short" in game.problem and not game.read_only
    assert len(list(records.glob(f"{gid}.jsonl.damaged-*"))) == 1


def test_an_agent_move_refused_by_the_disk_is_reported_in_its_seat_and_retried(tmp_path, disk):
    records = tmp_path / "records"
    with running(records) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["me", "random"], seed=2)
        gid = c["game"]
        s = watch(p, gid, c["tokens"]["0"])
        game = client.app.state.room.games[gid]
        move = json.dumps(game.move_event(s["legal"][0]["a"], "human"), separators=(",", ":"))
        disk.free = len(move) + 1  # the person's move fits, the agent's answer does not
        p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
        s = p.state(lambda f: f["seats"][1]["error"])
        assert s["ply"] == 1 and "was not saved" in s["seats"][1]["error"] and "No space left" in s["problem"]
        disk.free = None
        p.send({"type": "seat", "game": gid, "seat": 1, "to": "random"})  # the same agent: try again
        s = p.state(lambda f: f["ply"] == 2)
        assert s["seats"][1]["error"] is None and s["problem"] is None
        acked = s["moves"]
    assert restarted(records, gid).state.moves() == acked


def test_a_game_whose_journal_cannot_be_created_is_not_created(tmp_path, disk):
    records = tmp_path / "records"
    with running(records) as client:
        p = connect(client)
        disk.free = 100
        m = create(p, "ataxx_v0", ["me", "random"])
        assert m["type"] == "error" and "no game was created" in m["message"] and "No space left" in m["message"]
        assert str(records) not in m["message"]
        assert client.app.state.room.games == {} and list(records.glob("*.jsonl")) == []
        disk.free, disk.fail_open = None, errno.EROFS
        m = create(p, "ataxx_v0", ["me", "random"])
        assert m["type"] == "error" and "Read-only file system" in m["message"]


def test_the_step_limit_result_is_in_the_line_of_the_move_that_reached_it(tmp_path):
    """The change is tried on a copy of the game (its stand-in environment must truncate as the
    real one does): the move that reaches ``max_steps`` carries the result."""
    records = tmp_path / "records"
    with running(records) as client:
        p, gid = two_seat_game(client, max_steps=2)
        play(p, gid, 0)
        how, s = play(p, gid, 1)
        assert how == "ok" and s["over"] and s["outcome"]["result"] == "unfinished"
    last = json.loads((records / f"{gid}.jsonl").read_text().splitlines()[-1])
    assert last["ply"] == 1 and last["then"] == [
        {
            "event": "result",
            "result": "unfinished",
            "termination": "the step limit (2 moves)",
            "winners": [],
            "words": "unfinished: the step limit (2 moves)",
            "ply": 2,
        }
    ]
    assert restarted(records, gid).over


def test_a_room_on_a_full_tmpfs_refuses_moves_then_goes_on(small_tmpfs):
    records = small_tmpfs / "records"
    with running(records) as client:
        p, gid = two_seat_game(client, "twixt_v0")  # long enough to fill the file's last page
        filler = fill(small_tmpfs)
        refused, ply = 0, 0
        while refused == 0:  # moves fit in the file's last page, then one is refused
            how, m = play(p, gid, ply)
            if how == "ok":
                ply += 1
                assert not m["over"]
            else:
                refused += 1
                assert "No space left on device" in m["message"] and "unchanged" in m["message"]
        s = last_state(p)
        assert s["ply"] == ply and "No space left" in s["problem"]
        filler.unlink()
        for k in range(3):
            how, s = play(p, gid, ply + k)
            assert how == "ok"
        acked = s["moves"]
    game = restarted(records, gid)
    assert game.state.moves() == acked and game.problem is None


@pytest.mark.parametrize("real", [False, True], ids=["simulated-EPERM", "chattr+i"])
def test_a_room_with_an_unwritable_journal_refuses_moves_then_goes_on(tmp_path, disk, real):
    records = tmp_path / "records"
    with running(records) as client:
        p, gid = two_seat_game(client)
        assert play(p, gid, 0)[0] == "ok"
        path = records / f"{gid}.jsonl"
        if real:
            chattr(path, "+i")
        else:
            disk.fail_write = errno.EPERM
        try:
            how, err = play(p, gid, 1)
            assert how == "refused" and "Operation not permitted" in err["message"]
        finally:
            if real:
                chattr(path, "-i")
            disk.fail_write = None
        for ply in (1, 2):
            assert play(p, gid, ply)[0] == "ok"
        s = last_state(p)
        acked = s["moves"]
    assert restarted(records, gid).state.moves() == acked and len(acked) == 3
