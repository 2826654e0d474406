"""Events: tournaments, ladders and leagues; their store, rounds, news and words."""
