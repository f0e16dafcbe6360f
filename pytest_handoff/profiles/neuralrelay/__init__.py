"""NeuralRelay: BA, dev, test and review agents writing ``.neuralrelay/handoffs/{chain-id}/NN-agent.json``.

- :mod:`~pytest_handoff.profiles.neuralrelay.format`: its names (handoff types, agents, file names)
- :mod:`~pytest_handoff.profiles.neuralrelay.profile`: the format (files, chains, handoff types)
- :mod:`~pytest_handoff.profiles.neuralrelay.rules`: the rule table
- :mod:`~pytest_handoff.profiles.neuralrelay.views`: chains as people read them

Nothing is imported here: discovery names the profile's module in the spec table.
"""
