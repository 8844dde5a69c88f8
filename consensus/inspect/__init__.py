"""The verification tools: what a judge may read of a pull request's trees, and the check
of every line it cites.

`snapshot` (the trees behind the `TreeReader` port, each file read once and redacted as
the prompt is), `paths` (what a tool may read at all), `tools` (read_file, search,
find_definition, find_references, list_tests: arguments in, a `ToolResult` out, with the
exact lines it showed), `symbols` (definitions and references from tree-sitter's parsers),
`schema` (the tools as OpenAI-style function schemas, and a model's arguments parsed),
`budget` (the calls one claim may make), `citations` (a verdict's evidence checked against
the tree and against what the judge was shown), `inline` (the same evidence, for a model
that cannot call tools).
"""
