"""Evaluation tools that judge the engine from the outside: the agent-view oracle."""
