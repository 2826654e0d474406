"""The registry of games: each game module registers its state class last, and games
are started (`new`) and replayed (`replay`) by name, their options and records checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.core import (
    BadOptions,
    Code,
    GameInfo,
    GameState,
    IllegalMove,
    OptionValue,
    clean_text,
    shown,
    whole_number,
)

_STATES: dict[str, type[GameState]] = {}
GAMES: dict[str, GameInfo] = {}


def register(state_class: type[GameState]) -> type[GameState]:
    """Add a game to the registry. A duplicate name raises."""
    info = state_class.info
    if info.name in _STATES:
        raise ValueError(f"a game named {info.name!r} is already registered")
    _STATES[info.name] = state_class
    GAMES[info.name] = info
    return state_class


def state_class(name: str) -> type[GameState]:
    try:
        return _STATES[name]
    except KeyError:
        raise unknown_game(name) from None


def unknown_game(name: str, meant: str | None = None) -> BadOptions:
    """The refusal of a game name that is none of the registry's; `meant`, the name the
    asker most likely meant, when one is close."""
    games = f"did you mean {meant}? The games are" if meant else "the games are"
    return BadOptions(
        f"There is no game called {shown(name)}; {games} {', '.join(_STATES)}.",
        code=Code.UNKNOWN_GAME,
    )


def new(name: str, /, players: object = None, **options: object) -> GameState:
    """Start a game. Options may be the strings a player types (size="7x7").

    `players` is the number of seats (or a sequence of names, one per seat);
    by default the game's minimum. Options are a closed vocabulary: an unknown
    key, a value of the wrong type or out of range raises BadOptions (and
    nothing else), naming the constraint and what is allowed; so do an unknown
    game and a player count out of range. An option given as None takes its
    default.
    """
    cls = state_class(name)
    info = cls.info
    count = _player_count(info, players)
    canonical: dict[str, OptionValue] = {"players": count}
    unknown = sorted(set(options) - set(info.options))
    if unknown:
        known = ", ".join(info.options) or "none"
        raise BadOptions(
            f"{info.title} has no option {shown(unknown[0])}; its options are: {known}."
        )
    for key, option in info.options.items():
        raw = options.get(key)
        if raw is None:
            raw = option.default
        if raw is None:
            continue  # derived by the state from the others
        try:
            canonical[key] = option.parse(_typed(raw))
        except BadOptions as exc:
            raise BadOptions(f"{info.title} option {key}: {exc}", code=exc.code) from None
    return cls(canonical)


def replay(name: str, options: Mapping[str, object], moves: Sequence[str]) -> GameState:
    """Rebuild a state from its record, re-checking every move.

    Forced passes in the record are matched against the ones the engine makes;
    a record cut just before a forced pass gives the state after that pass.
    Raises IllegalMove when the record does not replay.
    """
    settings = dict(options)
    players = settings.pop("players", None)
    state = new(name, players if isinstance(players, int | str) else None, **settings)
    return replay_onto(state, moves)


def replay_onto(state: GameState, moves: Sequence[str]) -> GameState:
    """The state after the whole record `moves`, of which `state` holds the start.

    Only the moves after `state.ply` are played, on a copy; `state` is unchanged.
    """
    if tuple(moves[: state.ply]) != state.moves:
        raise ValueError("the record does not continue this state")
    state = state.copy()
    for index in range(state.ply, len(moves)):
        text = moves[index]
        if index < state.ply:
            if state._moves[index] != text:
                raise IllegalMove(
                    f"The record has {shown(text)} at ply {index + 1} where the game "
                    f"made {shown(state._moves[index])}.",
                    code=Code.BAD_RECORD,
                )
            continue
        if state.outcome is not None:
            raise IllegalMove(
                f"The record goes on after the game ended (ply {index + 1}).",
                code=Code.BAD_RECORD,
            )
        state._play_text(clean_text(text))
        if state._moves[index] != text:
            raise IllegalMove(
                f"The record has {shown(text)} at ply {index + 1}, which is not "
                f"canonical ({shown(state._moves[index])}).",
                code=Code.BAD_RECORD,
            )
    return state


def _typed(raw: object) -> object:
    """An option value as a player could give it: text, on/off, or a whole number."""
    if isinstance(raw, str | bool) or (isinstance(raw, int) and abs(raw) < 10**18):
        return raw
    raise BadOptions(f"give a word or a whole number, not {shown(raw)}.")


def _player_count(info: GameInfo, players: object) -> int:
    if players is None:
        count: int | None = info.min_players
    elif isinstance(players, str | int):
        count = whole_number(players)
    elif isinstance(players, list | tuple):
        count = len(players)
    else:
        count = None
    if count is None:
        raise BadOptions(
            "The players must be a number of seats or a list of names.", code=Code.PLAYER_COUNT
        )
    if not info.min_players <= count <= info.max_players:
        if info.min_players == info.max_players:
            allowed = f"exactly {info.min_players}"
        else:
            allowed = f"{info.min_players} to {info.max_players}"
        many = count if abs(count) < 1000 else "that many"
        raise BadOptions(
            f"{info.title} is played by {allowed} players, not {many}.", code=Code.PLAYER_COUNT
        )
    return count
