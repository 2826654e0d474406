"""What the web pages read: where a server's pages are, a game's page, the lists and the
event and player pages."""
