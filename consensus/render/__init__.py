"""Report → text, JSON, Markdown, SARIF, HTML. Pure functions of a Report."""
