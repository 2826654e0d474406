"""Option parsers shared by the games: a whole number in a range, on/off, a board size."""

from __future__ import annotations

from collections.abc import Callable

from engine.core import BadOptions, OptionValue, shown, whole_number


def int_option(low: int, high: int) -> Callable[[object], OptionValue]:
    """A whole number in [low, high]."""

    def parse(raw: object) -> OptionValue:
        value = whole_number(raw)
        if value is None or not low <= value <= high:
            raise BadOptions(f"must be a whole number from {low} to {high}, not {shown(raw)}.")
        return value

    return parse


def bool_option(raw: object) -> OptionValue:
    """on/off, yes/no, true/false."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in {"on", "yes", "true", "1"}:
        return True
    if text in {"off", "no", "false", "0"}:
        return False
    raise BadOptions(f"must be on or off, not {shown(raw)}.")


def dims_option(
    low: tuple[int, int], high: tuple[int, int], *, square: bool = False
) -> Callable[[object], OptionValue]:
    """A board size typed "7x7" or "7" (square), canonical "WxH" (or "n" when square)."""

    def parse(raw: object) -> OptionValue:
        text = str(raw).strip().lower().replace("×", "x").replace(" ", "")
        parts = text.split("x")
        numbers = [whole_number(p) for p in parts]
        if len(parts) == 1 and numbers[0] is not None:
            width = height = numbers[0]
        elif len(parts) == 2 and numbers[0] is not None and numbers[1] is not None:
            width, height = numbers[0], numbers[1]
        elif 1 <= len(parts) <= 2 and all(part.isdecimal() for part in parts):
            # numbers, but too long to be read as one
            raise BadOptions(
                f"must be from {low[0]}x{low[1]} to {high[0]}x{high[1]}, not {shown(raw)}."
            )
        else:
            raise BadOptions(f"must look like 7x7, not {shown(raw)}.")
        if square and width != height:
            raise BadOptions(f"the board is square: give one number, not {shown(raw)}.")
        if not (low[0] <= width <= high[0] and low[1] <= height <= high[1]):
            raise BadOptions(
                f"must be from {low[0]}x{low[1]} to {high[0]}x{high[1]}, not {width}x{height}."
            )
        return width if square else f"{width}x{height}"

    return parse


def dims(value: OptionValue) -> tuple[int, int]:
    """Width and height from a canonical size option ("7x5" or 7)."""
    if isinstance(value, int):
        return value, value
    width, height = str(value).split("x")
    return int(width), int(height)
