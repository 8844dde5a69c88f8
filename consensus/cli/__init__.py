"""The `consensus` command line: parse options, call app/, map errors to exit codes."""
