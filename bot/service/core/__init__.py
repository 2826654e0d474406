"""What every family of use cases stands on: the game records (row, summary, state, the
turn's deadlines, the end of a game), the outbox, the models and the words."""
