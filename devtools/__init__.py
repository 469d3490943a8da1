"""Helpers for planmode's tests, examples and benchmarks, kept out of the installed package.

``devtools.nodes`` starts real processes (a ``redis-server`` and AgentScope app nodes under uvicorn);
``devtools.scripted_app`` is AgentScope's app with an offline scripted model. Both run from a
checkout: the tests' ``conftest.py``, the examples and the benchmarks put the checkout on ``sys.path``.
"""
