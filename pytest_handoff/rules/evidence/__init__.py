"""Evidence: a handoff's claims about the repository (files, commits, locations, tests) checked
against git and the working tree."""
