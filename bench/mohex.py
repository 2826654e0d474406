"""Our Hex AI against MoHex 2.0 (benzene), built from its public source, over GTP.

Builds MoHex once into a cache directory (--cache, default ~/.cache/paperboard/mohex,
one folder per commit): the Debian packages it needs (cmake, g++, git, the Boost and
Berkeley DB development libraries) are installed with apt-get when missing and listed
otherwise; the source (--source: a git URL or a local clone, default
benzene-vanilla-cmake on GitHub) is checked out at a pinned commit (--commit), its one
second floor on a search lifted, and only the `mohex` target built, two make jobs.

Then plays --games games of Hex (--size, swap off) at --seconds a move: MoHex on one
thread, no pondering, no parallel solver, its time per move fixed (no time management,
no extension of unstable searches); our AI in this process. The openings and the
alternation of colours are bench/ai_openspiel.py's OpenSpiel match's (each random opening
twice, the AI first as Black then as White); a progress line per pair of games gives the
95% (Wilson) interval so far. Every MoHex answer that fails (an error, an illegal cell, no
answer in time, an exit) is counted and printed with the game; MoHex is then restarted,
given the game so far and asked again, once; a second failure forfeits the game (a win
for the AI, counted). Before the games, MoHex's own playouts/s from the empty board.
MoHex computes its connections and a one-move pre-search beside its max_time, so a
move it searches takes about twice --seconds: the last line but one gives its median
time per searched move; --mohex-seconds sets its max_time apart from our AI's time.
MoHex's overhead is fixed (0.7 s a searched move on 7x7 even at a max_time of 0.02 s), so
its moves cannot be made as short as ours: --equal-time instead gives our AI the time
MoHex takes, the median of its searched moves at max_time --seconds, measured before the
games on random positions after two moves.

The last line is the headline:
`mohex: hex7 vs MoHex 2.0 <pct>% (n=<games>, <T> s per move, 95% interval ..., MoHex failures <k>)`.

--connections N instead compares the two programs' connections on N random positions
(8 stones up to half the board, no game over): how many of the positions benzene's
virtual connections settle (a semi or full one between the mover's edges, or a full one
between the opponent's, after its fill-in) our connections settle too (hexsolve.evaluate),
and on how many the two disagree (none yet). The line before it takes the positions
benzene settles and ours do not: how many ours settle on benzene's own fill-in (the rest
need more connections than our H-search finds). Last line:
`mohex: connections hex9 <settled> of <benzene's> (<N> positions, <k> disagreements)`.

Run: .venv/bin/python -m bench.mohex [--games 200] [--seconds 0.5] [--size 7] [--equal-time]
                                     [--opening-seed 11]
     .venv/bin/python -m bench.mohex --speed        (MoHex's playouts/s only)
     .venv/bin/python -m bench.mohex --size 9 --connections 400
     .venv/bin/python -m bench.mohex --build-only [--source PATH] [--commit SHA]
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import random
import selectors
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

import engine
from bench.ai_openspiel import Resigned, paired_hex_games
from bench.ai_strength import Agent, wilson
from engine import GameState
from engine.ai import hexsolve
from engine.ai.registry import adapter_for

SOURCE = "https://github.com/cgao3/benzene-vanilla-cmake.git"
#: The commit built: the last before the 2019 rewrite of the inferior-cell engine, after
#: which MoHex crashes (a segmentation fault in Resistance::ComputeScores) in positions
#: that fill-in decides, as in most games against it (benzene-vanilla-cmake issues 10
#: and 14; the maintainer points to this commit).
COMMIT = "f888938bc7ab051a04034a9e19a31399a31d2429"
#: The Debian packages the build needs.
PACKAGES = (
    "cmake",
    "g++",
    "make",
    "git",
    "libboost-thread-dev",
    "libboost-system-dev",
    "libboost-filesystem-dev",
    "libboost-program-options-dev",
    "libboost-date-time-dev",
    "libdb-dev",
)
#: MoHexPlayer::Search's floor on the search time, and the same line without it.
TIME_FLOOR = "maxTime = std::max(1.0, maxTime);"
NO_TIME_FLOOR = "maxTime = std::max(0.0, maxTime);"


def build(cache: Path, source: str, commit: str = COMMIT) -> Path:
    """The mohex binary under `cache`, built first when missing."""
    cache = cache / commit[:12]
    binary = cache / "build" / "src" / "mohex" / "mohex"
    if binary.exists():
        print(f"mohex: using {binary}", flush=True)
        return binary
    ensure_packages()
    checkout = cache / "src"
    if not (checkout / "CMakeLists.txt").exists():
        shutil.rmtree(checkout, ignore_errors=True)
        cache.mkdir(parents=True, exist_ok=True)
        run(["git", "clone", "--quiet", source, str(checkout)])
        run(["git", "-C", str(checkout), "checkout", "--quiet", commit])
    remove_time_floor(checkout)
    # The share/ pattern files are found by the absolute path compiled in, so the
    # checkout stays in the cache beside the build.
    build_dir = cache / "build"
    build_dir.mkdir(exist_ok=True)
    run(["cmake", "-DCMAKE_BUILD_TYPE=Release", str(checkout)], cwd=build_dir)
    run(["make", "-j2", "mohex"], cwd=build_dir)
    return binary


def remove_time_floor(checkout: Path) -> None:
    """MoHex searches at least one second whatever its max_time: lift that floor so
    that it keeps to the time per move it is given, as our AI does."""
    player = checkout / "src" / "mohex" / "MoHexPlayer.cpp"
    text = player.read_text()
    if NO_TIME_FLOOR not in text:
        assert TIME_FLOOR in text, f"{player} changed: the time floor is not where expected"
        player.write_text(text.replace(TIME_FLOOR, NO_TIME_FLOOR))


def ensure_packages() -> None:
    missing = [name for name in PACKAGES if not installed(name)]
    present = [name for name in PACKAGES if name not in missing]
    print(f"mohex: Debian packages present: {' '.join(present) or 'none'}", flush=True)
    if missing:
        print(f"mohex: installing {' '.join(missing)}", flush=True)
        prefix = [] if os.geteuid() == 0 else ["sudo"]
        run([*prefix, "apt-get", "update", "-qq"])
        run([*prefix, "apt-get", "install", "-y", "-qq", *missing])


def installed(package: str) -> bool:
    status = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
    )
    return status.stdout == "install ok installed"


def run(command: list[str], cwd: Path | None = None) -> None:
    print(f"mohex: $ {' '.join(command)}", flush=True)
    subprocess.run(command, cwd=cwd, check=True)


class EngineFailure(Exception):
    """The engine answered with an error, stopped answering or exited."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


class Gtp:
    """A GTP engine in a child process, asked one command at a time with a deadline.

    Its log (stderr) goes to a file: MoHex logs every search there, and an unread
    pipe fills up and stops the engine mid-game."""

    def __init__(self, command: list[str], log: IO[bytes]) -> None:
        self.log = log
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.pending = b""

    def ask(self, command: str, timeout: float) -> str:
        """The text of the answer (after "= "); EngineFailure for "? ...", silence
        past `timeout` seconds (the engine is then killed) or an exit."""
        try:
            self.stdin.write(command.encode() + b"\n")
            self.stdin.flush()
        except BrokenPipeError:
            raise EngineFailure("exited", self.exit_detail()) from None
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self.stdout, selectors.EVENT_READ)
            while b"\n\n" not in self.pending.replace(b"\r", b""):
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.close()
                    raise EngineFailure("timeout", f"no answer to {command!r} in {timeout:.0f} s")
                chunk = os.read(self.stdout.fileno(), 65536)
                if not chunk:
                    raise EngineFailure("exited", self.exit_detail())
                self.pending += chunk
        text = self.pending.replace(b"\r", b"")
        answer, _, self.pending = text.partition(b"\n\n")
        reply = answer.decode(errors="replace").lstrip("\n")
        status, body = reply[:1], reply[1:].lstrip("0123456789").strip()
        if status != "=":
            raise EngineFailure("error", f"{command!r} -> {reply!r}")
        return body

    def exit_detail(self) -> str:
        code = self.process.wait(timeout=10)
        self.log.flush()
        self.log.seek(0, os.SEEK_END)
        self.log.seek(max(0, self.log.tell() - 600))
        tail = self.log.read().decode(errors="replace").strip().splitlines()[-3:]
        return f"exit code {code}; log ends: {' | '.join(tail)}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.log.close()


class MoHex:
    """MoHex over GTP, one game at a time, swap off, `seconds` a move on one thread.

    A failed answer (an error, an illegal cell, a timeout, an exit) is counted; the
    engine is then restarted, given the game so far and asked again, once: a second
    failure forfeits the game. A resignation loses it."""

    def __init__(self, command: list[str], size: int, seconds: float) -> None:
        self.command, self.size, self.seconds = command, size, seconds
        self.failures: collections.Counter[str] = collections.Counter()
        self.forfeits = self.resignations = 0
        self.move_seconds: list[float] = []
        self.gtp = self.start()
        self.known = 0  # the moves of the current game the engine holds

    def start(self) -> Gtp:
        gtp = Gtp(self.command, tempfile.TemporaryFile())  # noqa: SIM115 (Gtp.close closes it)
        setup = [
            f"boardsize {self.size}",
            "param_game allow_swap 0",
            "param_mohex num_threads 1",
            "param_mohex use_parallel_solver 0",
            "param_mohex ponder 0",
            "param_mohex use_time_management 0",
            f"param_mohex max_time {self.seconds}",
            # Searching half as long again when unsure would break the time per move.
            "param_mohex extend_unstable_search 0",
        ]
        for command in setup:
            gtp.ask(command, timeout=STARTUP_SECONDS)
        # Black joins rows 1 and n for both programs: a chain down column a is Black's win.
        for row in range(1, self.size + 1):
            gtp.ask(f"play b a{row}", timeout=STARTUP_SECONDS)
        assert gtp.ask("final_score", timeout=STARTUP_SECONDS) == "B+", "board orientation"
        gtp.ask("clear_board", timeout=STARTUP_SECONDS)
        return gtp

    def restart(self) -> None:
        self.gtp.close()
        self.gtp = self.start()
        self.known = 0

    def new_game(self, played: int) -> Agent:
        """An agent for game `played`: MoHex's board cleared for it."""
        self.gtp.ask("clear_board", timeout=STARTUP_SECONDS)
        self.known = 0
        return self.reply

    def reply(self, state: GameState) -> str:
        for attempt in (1, 2):
            try:
                move = self.genmove(state)
            except EngineFailure as failure:
                self.failures[failure.kind] += 1
                print(
                    f"  MoHex failed (attempt {attempt}) after {' '.join(state.moves)}: {failure}"
                )
                self.restart()
                continue
            if move == "resign":
                self.resignations += 1
                raise Resigned
            if move in state.legal_moves():
                self.known += 1
                return move
            self.failures["illegal"] += 1
            game = " ".join(state.moves)
            print(f"  MoHex answered {move!r} after {game}: illegal (attempt {attempt})")
            self.restart()
        self.forfeits += 1
        raise Resigned

    def genmove(self, state: GameState) -> str:
        for ply in range(self.known, state.ply):
            colour = "bw"[state.actors[ply]]  # swap off: seat 0 is Black
            self.gtp.ask(f"play {colour} {state.moves[ply]}", timeout=STARTUP_SECONDS)
        self.known = state.ply
        began = time.monotonic()
        assert state.to_move is not None
        move = self.gtp.ask(f"genmove {'bw'[state.to_move]}", timeout=self.genmove_timeout)
        self.move_seconds.append(time.monotonic() - began)
        return move.lower()

    @property
    def genmove_timeout(self) -> float:
        return 20 * self.seconds + STARTUP_SECONDS

    def note(self) -> str:
        failed = sum(self.failures.values())
        return f"MoHex failures {failed}, forfeits {self.forfeits}"

    def searched_seconds(self, positions: int = 12) -> float:
        """The median time MoHex takes on the moves it searches, asked on random
        positions after two moves (its connections and a pre-search come on top of
        max_time)."""
        rng = random.Random(5)
        asked = len(self.move_seconds)
        for _ in range(positions):
            state = engine.new("hex", size=self.size, swap="off")
            for _ in range(2):
                state = state.play(rng.choice(state.legal_moves()))
            self.new_game(0)
            self.genmove(state)
        taken = self.move_seconds[asked:]
        del self.move_seconds[asked:]
        return statistics.median([seconds for seconds in taken if seconds > 0.05] or [0.0])

    def speed(self, seconds: float) -> float:
        """MoHex's playouts per second as it reports them, searching the empty board."""
        self.gtp.ask(f"param_mohex max_time {seconds}", timeout=STARTUP_SECONDS)
        self.gtp.ask("clear_board", timeout=STARTUP_SECONDS)
        self.gtp.ask("genmove b", timeout=20 * seconds + STARTUP_SECONDS)
        statistics_text = self.gtp.ask("mohex-search-statistics", timeout=STARTUP_SECONDS)
        self.gtp.ask(f"param_mohex max_time {self.seconds}", timeout=STARTUP_SECONDS)
        self.gtp.ask("clear_board", timeout=STARTUP_SECONDS)
        for line in statistics_text.splitlines():
            if line.startswith("Games/s"):
                return float(line.split()[1])
        raise EngineFailure("error", f"no Games/s in {statistics_text!r}")


#: Benzene's names of each colour's two edges.
EDGES = ("north south", "west east")


def compare_connections(gtp: Gtp, size: int, count: int, seed: int) -> str:
    """Benzene's connections against hexsolve.evaluate on `count` random positions:
    a line per verdict pair, the line that splits what ours leave open, then the
    headline."""
    rng = random.Random(seed)
    verdicts: collections.Counter[tuple[bool | None, bool | None]] = collections.Counter()
    short: collections.Counter[bool] = collections.Counter()
    while sum(verdicts.values()) < count:
        state = engine.new("hex", size=size, swap="off")
        for _ in range(rng.randint(8, size * size // 2)):
            state = state.play(rng.choice(state.legal_moves()))
            if state.outcome is not None:
                break
        if state.outcome is not None:
            continue
        gtp.ask("clear_board", timeout=STARTUP_SECONDS)
        for ply, move in enumerate(state.moves):
            gtp.ask(f"play {'bw'[state.actors[ply]]} {move}", timeout=STARTUP_SECONDS)
        mover = state.colour_to_move
        own, other = "bw"[mover], "bw"[mover ^ 1]
        gtp.ask(f"vc-build {own}", timeout=STARTUP_SECONDS)

        def between(colour: str, kind: str) -> bool:
            command = f"vc-between-cells-{kind} {colour} {EDGES['bw'.index(colour)]}"
            return bool(gtp.ask(command, timeout=STARTUP_SECONDS))

        theirs = (
            True
            if between(own, "semi") or between(own, "full")
            else False
            if between(other, "full")
            else None
        )
        black, white = adapter_for(state).root(state).masks
        mine, yours = (black, white) if mover == 0 else (white, black)
        ours = hexsolve.evaluate(size, mine, yours, mover, math.inf)[0]
        verdicts[theirs, ours] += 1
        if theirs is not None and ours is None:
            # Which part falls short: our connections on benzene's fill-in.
            black, white = benzene_fill_in(gtp, size, own, black, white)
            mine, yours = (black, white) if mover == 0 else (white, black)
            short[hexsolve.evaluate(size, mine, yours, mover, math.inf)[0] == theirs] += 1
    for (theirs, ours), number in sorted(verdicts.items(), key=str):
        print(f"  benzene {theirs!s:5}  ours {ours!s:5}  {number}")
    print(
        f"  of the {short.total()} benzene settles and ours do not, {short[True]} settle"
        " with benzene's fill-in (the rest need more than our H-search finds)"
    )
    settled = sum(n for (theirs, _), n in verdicts.items() if theirs is not None)
    both = sum(n for (theirs, ours), n in verdicts.items() if theirs is not None and ours == theirs)
    wrong = sum(
        n for (theirs, ours), n in verdicts.items() if None not in (theirs, ours) and ours != theirs
    )
    return (
        f"mohex: connections hex{size} {both} of {settled}"
        f" ({count} positions, {wrong} disagreements)"
    )


def benzene_fill_in(gtp: Gtp, size: int, colour: str, black: int, white: int) -> tuple[int, int]:
    """The stones with benzene's fill-in for `colour` to move added ("compute-fillin":
    a cell and its kind, whose last letter is the colour it is filled with)."""
    words = gtp.ask(f"compute-fillin {colour}", timeout=STARTUP_SECONDS).split()
    cell_of = engine.hex.board(size).cell_of
    for name, kind in zip(words[::2], words[1::2], strict=True):
        if kind.startswith("f"):
            cell = cell_of[name]
            if kind.endswith("b"):
                black |= 1 << cell
            else:
                white |= 1 << cell
    return black, white


#: Seconds for any answer but a move: MoHex loads its patterns at start.
STARTUP_SECONDS = 30.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/paperboard/mohex")
    parser.add_argument("--source", default=SOURCE, help="git URL or local clone of benzene")
    parser.add_argument(
        "--commit", default=COMMIT, help="another benzene commit (the head: to see it crash)"
    )
    parser.add_argument("--games", type=int, default=20, help="games (even: paired openings)")
    parser.add_argument("--seconds", type=float, default=0.5, help="time per move, each side")
    parser.add_argument(
        "--mohex-seconds", type=float, help="MoHex's max_time if not --seconds (it overruns it)"
    )
    parser.add_argument(
        "--equal-time",
        action="store_true",
        help="our AI's time per move: what MoHex's searched moves take at --seconds",
    )
    parser.add_argument("--size", type=int, default=7, help="board size")
    parser.add_argument(
        "--opening-seed", type=int, default=11, help="the random openings' seed (runs side by side)"
    )
    parser.add_argument("--speed-seconds", type=float, default=5.0, help="MoHex's speed search")
    parser.add_argument("--speed", action="store_true", help="only MoHex's playouts/s")
    parser.add_argument(
        "--connections", type=int, metavar="N", help="compare connections on N positions"
    )
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    binary = build(args.cache, args.source, args.commit)
    if args.build_only:
        return
    # Its log goes to stderr only: by default MoHex also writes default.log where it runs.
    command = [str(binary), "--use-logfile=0"]
    mohex = MoHex(command, args.size, args.mohex_seconds or args.seconds)
    if args.connections:
        print(compare_connections(mohex.gtp, args.size, args.connections, args.opening_seed))
        mohex.gtp.close()
        return
    ai_seconds = args.seconds
    if args.equal_time:
        ai_seconds = round(mohex.searched_seconds(), 2)
        print(f"MoHex's searched moves at max_time {mohex.seconds}: {ai_seconds} s (median)")
    times = f"{ai_seconds} s per move" + (
        f", MoHex max_time {mohex.seconds} s" if ai_seconds != mohex.seconds else ""
    )
    rate = mohex.speed(args.speed_seconds)
    board = f"{args.size}x{args.size}"
    print(f"MoHex {board}: {rate:.0f} playouts/s ({args.speed_seconds} s, empty board)")
    if args.speed:
        print(f"mohex: MoHex 2.0 {rate:.0f} playouts/s on {args.size}x{args.size}")
        return
    print(
        f"\nmohex: hex {args.size}x{args.size} at {times}, {args.games} games,"
        f" load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    try:
        scores = paired_hex_games(
            args.size, args.games, ai_seconds, mohex.new_game, mohex.note, args.opening_seed
        )
    finally:
        mohex.gtp.close()
    share = statistics.mean(scores)
    low, high = wilson(scores)
    failures = ", ".join(f"{kind} {count}" for kind, count in mohex.failures.items()) or "none"
    # Moves MoHex proves or finds forced come back at once; the rest are its searches.
    searched = [seconds for seconds in mohex.move_seconds if seconds > 0.05] or [0.0]
    print(
        f"AI vs MoHex 2.0: {share:.0%} of {len(scores)} games,"
        f" 95% interval [{low:.0%}, {high:.0%}];"
        f" MoHex failed answers: {failures}; games forfeited {mohex.forfeits},"
        f" resigned {mohex.resignations}; MoHex searched {len(searched)} of"
        f" {len(mohex.move_seconds)} moves, s/move median {statistics.median(searched):.2f},"
        f" max {max(searched):.2f}; load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"mohex: hex{args.size} vs MoHex 2.0 {share:.0%}"
        f" (n={len(scores)}, {times},"
        f" 95% interval {low:.0%}-{high:.0%}, MoHex failures {sum(mohex.failures.values())})"
    )


if __name__ == "__main__":
    main()
