"""Pure decisions over findings: align into clusters, fingerprint, score agreement, assemble
the report.
"""
