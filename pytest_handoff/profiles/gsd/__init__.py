"""GSD ("Get Shit Done"): the ``.planning/`` tree its agents write and read."""
