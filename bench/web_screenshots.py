"""Screenshots of the web pages for the README: each page (a finished game, an event, the
server, a player, a game's rules) light and dark, at a desktop's width and a phone's,
taken in Debian's headless Chromium (Playwright, the system browser) from the pages
tests/webshow.py serves on loopback.

    python -m bench.web_screenshots [docs/img]     (or: make screenshots)

Writes docs/img/web-<page>-<light|dark>-<desktop|phone>.png.
"""

from __future__ import annotations

import asyncio
import io
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from bot.store import Database
from tests.webshow import Showcase, browser_missing, chromium_path, on_this_machine, showcase, urls

#: The widths: a laptop's, and a phone's (CSS pixels).
VIEWPORTS = {"desktop": (1280, 860), "phone": (390, 844)}
SCHEMES = ("light", "dark")


def pages(site: Showcase) -> dict[str, str]:
    """Each page by its short name: its address."""
    place = site.place
    return {
        "game": urls.game(place, site.game.id, 8),
        "event": urls.event(place, site.event_id),
        "server": urls.server(place),
        "player": urls.player(place, site.game.seats[0].player_id or 0),
        "rules": urls.rules("hex"),
    }


async def shoot(out: Path) -> list[Path]:
    from playwright.async_api import Route, async_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'paperboard.db'}"
        await (await Database.open(url)).close()  # migrated
        async with showcase(url) as site, async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=chromium_path(), args=["--no-sandbox"]
            )

            async def loopback_only(route: Route) -> None:
                if on_this_machine(route.request.url):
                    await route.continue_()
                else:
                    await route.abort()

            for scheme in SCHEMES:
                for device, (width, height) in VIEWPORTS.items():
                    context = await browser.new_context(
                        viewport={"width": width, "height": height},
                        color_scheme=scheme,
                        device_scale_factor=1,
                        is_mobile=device == "phone",
                        has_touch=device == "phone",
                        timezone_id="Europe/Paris",
                        locale="en-GB",
                    )
                    await context.route("**/*", loopback_only)
                    page = await context.new_page()
                    for name, path in pages(site).items():
                        await page.goto(site.url(path), wait_until="networkidle")
                        target = out / f"web-{name}-{scheme}-{device}.png"
                        small(await page.screenshot(full_page=True), target)
                        written.append(target)
                    await context.close()
            await browser.close()
    return written


def small(png: bytes, target: Path) -> None:
    """The screenshot in 256 colours (a third of the bytes; the pages have few)."""
    with Image.open(io.BytesIO(png)) as shot:
        shot.convert("RGB").quantize(colors=256).save(target, optimize=True)


def main() -> int:
    missing = browser_missing()
    if missing is not None:
        print(f"web_screenshots: {missing}", file=sys.stderr)
        return 1
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
    start = time.perf_counter()
    written = asyncio.run(shoot(out))
    for path in written:
        print(f"{path}  {path.stat().st_size // 1024} KiB")
    print(f"{len(written)} screenshots in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
