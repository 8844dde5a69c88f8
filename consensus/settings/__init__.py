"""What the user configured: `.consensus.yml`, provider families, personas, command files,
Action inputs.
"""
