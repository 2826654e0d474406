"""The "View on the web" link buttons: a game's, an event's or the server's page on the
posts that stand for them, while the server's pages are on (`/config web:`); none while
they are off. The addresses come from bot/web/links.py (bot/web/urls.py writes them).
"""

from __future__ import annotations

from typing import Any

import discord

LABEL = "View on the web"


def link_button(url: str, label: str = LABEL) -> discord.ui.Button[discord.ui.View]:
    return discord.ui.Button(label=label[:80], style=discord.ButtonStyle.link, url=url)


def with_link(view: discord.ui.View | None, url: str | None) -> discord.ui.View | None:
    """`view` with the link button added (a view of its own when there is none); `view`
    as it is without a link."""
    if url is None:
        return view
    if view is None:
        view = discord.ui.View(timeout=None)
    view.add_item(link_button(url))
    return view


def view_kwargs(view: discord.ui.View | None) -> dict[str, Any]:
    """A message's `view=` when it has one (a send without buttons names none)."""
    return {} if view is None else {"view": view}
