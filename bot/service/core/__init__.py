"""What every family of use cases stands on: the game records (row, summary, state), the
turn's writes (turns, banks), the outbox and the bot's job queue, the models, the words,
the bot's levels."""
