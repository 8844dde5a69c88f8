"""The one place that builds adapters (wiring) and runs the flows: a review with its journal, a
PR run, slash commands, the queue, doctor.
"""
