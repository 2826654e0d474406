"""The bot's thinking: its levels, the queue of move and hint jobs, analysis."""
