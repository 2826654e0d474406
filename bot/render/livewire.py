"""Being written."""

from bot.render.kit import BoardRenderer


class LivewireRenderer(BoardRenderer):
    game = "livewire"
