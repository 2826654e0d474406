"""Playing a game: challenges, moves, the bot's moves, undo, conditional lines."""
