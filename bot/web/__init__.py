"""The web pages: an adapter like the console and Discord, calling the service only.

Kept light: the Discord adapter imports `bot.web.urls` to write links, without aiohttp's
server or the templates (bot/web/app.py).
"""
