"""The agent-PR queue: observe GitHub through the port, decide where each PR stands, plan and
apply the writes.
"""
