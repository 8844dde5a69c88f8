"""The review pipeline: prompts, fan-out to every (provider, persona, chunk), reply parsing and
path audit, the budget guard, and verification (inspector and voting).
"""
