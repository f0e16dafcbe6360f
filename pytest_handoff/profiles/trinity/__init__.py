"""Trinity: agents leaving ``{workspace}/handoff/{from}-{ISO timestamp}.json`` in each other's workspace.

The profile lives in :mod:`pytest_handoff.profiles.trinity.profile`; this package imports nothing,
so that finding out it exists costs nothing.
"""
