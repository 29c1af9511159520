"""What the SDK adapters share: the error policy of agent-package §7 (:mod:`.policy`).

The adapters themselves are :mod:`nx_agent.openai_agents` and :mod:`nx_agent.pydantic_ai`; each
imports its SDK, so this package imports none.
"""
