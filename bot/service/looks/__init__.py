"""Looking at games: a game, its board and record, the lists, the next game, exports, and
the engine's analysis and hints."""
