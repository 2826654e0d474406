"""Play by mail: linked addresses, sign-ups and bounces, and each mail handled once."""
