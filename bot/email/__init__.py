"""The email adapter: Paperboard's games played by mail."""
