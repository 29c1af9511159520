"""The agent layer: normalize an evaluated ``Agent`` into a definition, check it against a program.

Modules: ``definition`` (format constants and shapes), ``annotations`` (the fixed MCP hints),
``names`` (tool names), ``diagnostics`` (diagnostics and errors), ``describe`` and ``json_text``
(JavaScript-like value readings and JSON text), ``normalize`` (``normalize_agent``), ``check``
(``check_agent_tools``).
"""
