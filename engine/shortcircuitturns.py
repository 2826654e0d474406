"""A Short Circuit turn of several actions (any pops, then the piece that ends it),
typed as one string ("pop e5 f6, y c3") or tapped on the board picture, as the base
class of engine/shortcircuit.py's `ShortCircuitState`: each action is played on a trial
copy by the rules (`_play_action`) and refused, in the turn's words, at the action that
broke the turn.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Sequence

from engine.core import Code, GameState, IllegalMove, Tapped, shown

_TURN_SEPARATOR = re.compile(r"\s*[,;]\s*")
#: A pop's word: the one action that names two cells (the capacitor, then the connector).
POP_WORD = "pop"


class ShortCircuitTurns(GameState):
    """Turns of several actions; the actions' rules are the subclass's."""

    _turn_actions: list[str]  # the current turn's actions so far (pops)

    @property
    def mid_turn(self) -> bool:
        return bool(self._turn_actions)

    def _play_text(self, text: str) -> None:
        """One action, or a whole turn: actions separated by commas or semicolons."""
        parts = [part for part in _TURN_SEPARATOR.split(text) if part]
        if len(parts) <= 1:
            self._play_action(parts[0] if parts else text)
            return
        trial = self.copy()
        played = ""  # the canonical text of the string's previous action
        for number, part in enumerate(parts, start=1):
            if number > 1 and (trial.outcome is not None or not trial._turn_actions):
                raise IllegalMove(
                    f"The turn ends with {played}, so {shown(part)} would belong to the next turn.",
                    code=Code.AFTER_PIECE,
                )
            ply = trial.ply
            try:
                trial._play_action(part)
            except IllegalMove as refused:
                raise IllegalMove(
                    f"Action {number} ({shown(part)}) is refused: {refused}",
                    code=refused.code,
                ) from None
            played = trial._moves[ply]
        vars(self).update(vars(trial))

    def tapped(self, taps: Sequence[str]) -> Tapped:
        """A turn tapped: each action a tool (a colour, cap, pop) then its cells (a pop's
        capacitor, then the connector), pops first; a cell tapped without a tool is a
        connector of the one colour that may go there. Each action is checked as its last
        cell completes it, so a refusal comes at the tap that broke the turn."""
        trial = self.copy()
        actions: list[str] = []
        tool: str | None = None
        cells: list[str] = []
        for word in self._tap_words(taps):
            if actions and not trial.mid_turn:
                raise IllegalMove(
                    f"The turn ends with {actions[-1]}: confirm it, or start again.",
                    code=Code.AFTER_PIECE,
                )
            if word.isalpha():
                if cells:
                    raise IllegalMove(
                        f"Tap the connector the capacitor on {cells[0]} pops first.",
                        code=Code.SYNTAX,
                    )
                tool = word
                continue
            cells.append(word)
            tool = tool or trial._colour_for(word)
            if tool == POP_WORD and len(cells) < 2:
                continue
            trial._play_action(f"{tool} {' '.join(cells)}")
            actions.append(trial._moves[-1])
            tool, cells = None, []
        partial = " ".join(cells if tool is None else [tool, *cells])
        text = ", ".join([*actions, partial] if partial else actions)
        return Tapped(text, bool(actions) and not trial.mid_turn)

    @abstractmethod
    def _colour_for(self, cell_name: str) -> str:
        """The mover's one colour that may go on `cell_name` (a cell tapped without a
        tool), or IllegalMove."""
