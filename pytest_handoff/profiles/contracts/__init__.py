"""User-defined contracts: a project's own JSON or YAML documents checked against its schemas and rules.

Contracts are declared in ``[tool.handoff.contracts.<name>]`` (or a YAML file named by
``[tool.handoff.contracts] file``): globs, a schema (or one per value of a discriminator
field), how documents group, and built-in rules with the user's own ids (codes UC2xx).
"""
