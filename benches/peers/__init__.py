"""Peers measured beside nx-agent: the same workloads written for each engine.

Each peer module exposes the workloads it can express as plain callables that take Python
arguments and return plain Python values (argument and result conversion included), under the
budget the peer offers, if any. `workloads.py` holds the expected values every peer must produce.
"""
