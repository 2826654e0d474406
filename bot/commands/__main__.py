"""`python -m bot.commands > docs/COMMANDS.md`."""

from bot.commands.page import markdown

print(markdown(), end="")
