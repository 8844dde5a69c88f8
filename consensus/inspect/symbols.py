"""Where a name is defined and used, from tree-sitter's parsers, not from regexes.

The grammars are tree-sitter's own wheels (tree-sitter-python, -javascript, -typescript,
-go, -java, -rust), compiled into the package: no grammar is fetched at run time. They
are imported on the first file that needs one, so a run that never asks stays as fast.

A file is parsed only when its text holds the name. Each occurrence of the name as a
word is looked up in the syntax tree: it is a use when the parser says it is an
identifier there (never in a string or a comment), and a definition when it is the name
of a function, class, method, type, or a module- or class-level variable. The
`container` of a definition is the class, interface, trait or impl (Go: the receiver's
type) it is defined in, so `Class.method` finds that method alone.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

SUFFIXES = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".java": "java", ".rs": "rust",
}  # fmt: skip
IDENTIFIERS = frozenset(
    {
        "identifier", "type_identifier", "property_identifier", "field_identifier",
        "shorthand_property_identifier", "shorthand_property_identifier_pattern",
        "private_property_identifier",
    }
)  # fmt: skip
_JS = {
    "function_declaration": "function", "generator_function_declaration": "function",
    "class_declaration": "class", "class": "class", "method_definition": "method",
    "public_field_definition": "field", "field_definition": "field",
}  # fmt: skip
_TS = {
    **_JS, "abstract_class_declaration": "class", "interface_declaration": "interface",
    "type_alias_declaration": "type", "enum_declaration": "enum", "method_signature": "method",
    "abstract_method_signature": "method", "function_signature": "function",
}  # fmt: skip
# Node type → the kind of definition its `name` field makes.
DEFINITIONS: dict[str, dict[str, str]] = {
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": {
        "function_declaration": "function", "method_declaration": "method",
        "type_spec": "type", "type_alias": "type", "const_spec": "constant", "var_spec": "variable",
    },
    "java": {
        "class_declaration": "class", "interface_declaration": "interface",
        "enum_declaration": "enum", "record_declaration": "record",
        "annotation_type_declaration": "interface", "method_declaration": "method",
        "constructor_declaration": "constructor",
    },
    "rust": {
        "function_item": "function", "function_signature_item": "function",
        "struct_item": "struct", "enum_item": "enum", "union_item": "union",
        "trait_item": "trait", "type_item": "type", "const_item": "constant",
        "static_item": "static", "mod_item": "module", "macro_definition": "macro",
    },
}  # fmt: skip
# Node types a definition is a member of, and the field that names them.
CONTAINERS: dict[str, dict[str, str]] = {
    "python": {"class_definition": "name"},
    "javascript": {"class_declaration": "name", "class": "name"},
    "typescript": {
        "class_declaration": "name", "abstract_class_declaration": "name",
        "interface_declaration": "name",
    },
    "go": {},
    "java": {
        "class_declaration": "name", "interface_declaration": "name",
        "enum_declaration": "name", "record_declaration": "name",
    },
    "rust": {"impl_item": "type", "trait_item": "name"},
}  # fmt: skip
CONTAINERS["tsx"] = CONTAINERS["typescript"]
# Each grammar's wheel and the function that gives its language, imported when first asked.
GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
}
_METHOD_IN = {"python": "method", "rust": "method"}  # a function in a container


class Definition(NamedTuple):
    path: str
    line: int  # where the definition starts (its `def`, `class`, `func` …)
    end_line: int
    name: str
    kind: str
    container: str | None


class Reference(NamedTuple):
    path: str
    line: int
    column: int


def language_of(path: str) -> str | None:
    """The grammar for a file, by its suffix; None when there is none."""
    dot = path.rfind(".")
    return SUFFIXES.get(path[dot:].lower()) if dot > path.rfind("/") else None


def definitions(path: str, text: str, name: str, container: str | None = None) -> list[Definition]:
    """The definitions of `name` in one file (of `container` only, when given)."""
    found = []
    for node in _named(path, text, name):
        definition = _definition(path, node)
        if definition is not None and (container is None or definition.container == container):
            found.append(definition)
    return found


def references(path: str, text: str, name: str) -> list[Reference]:
    """The uses of `name` in one file: identifiers that are no definition's name."""
    return [
        Reference(path, node.start_point.row + 1, node.start_point.column + 1)
        for node in _named(path, text, name)
        if _definition(path, node) is None
    ]


CALLABLE = frozenset({"function", "method", "constructor"})


def enclosing(path: str, text: str, line: int) -> Definition | None:
    """The innermost function, method or constructor around `line` of a file; None
    outside any, or where the file's language has no grammar."""
    language = language_of(path)
    lines = text.split("\n")
    if language is None or not 1 <= line <= len(lines):
        return None
    row = lines[line - 1]
    column = len(row.encode("utf-8", errors="surrogatepass")) - len(
        row.lstrip().encode("utf-8", errors="surrogatepass")
    )
    source = text.encode("utf-8", errors="surrogatepass")
    node: Node | None = (
        _parser(language)
        .parse(source)
        .root_node.named_descendant_for_point_range((line - 1, column), (line - 1, column))
    )
    while node is not None:
        if DEFINITIONS[language].get(node.type) in CALLABLE:
            name = node.child_by_field_name("name")
            definition = _definition(path, name) if name is not None else None
            if definition is not None:
                return definition
        node = node.parent
    return None


def _named(path: str, text: str, name: str) -> list[Node]:
    """The identifier nodes spelling `name` in the file's syntax tree."""
    language = language_of(path)
    if language is None or name not in text:
        return []
    source = text.encode("utf-8", errors="surrogatepass")
    word = re.compile(rb"(?<![\w$])" + re.escape(name.encode("utf-8")) + rb"(?![\w$])")
    starts = [match.start() for match in word.finditer(source)]
    if not starts:
        return []
    root = _parser(language).parse(source).root_node
    nodes = []
    for start in starts:
        node = root.descendant_for_byte_range(start, start + len(name.encode("utf-8")))
        if node is not None and node.type in IDENTIFIERS and node.text == name.encode("utf-8"):
            nodes.append(node)
    return nodes


def _definition(path: str, node: Node) -> Definition | None:
    language = language_of(path) or ""
    parent = node.parent
    if parent is None:
        return None
    kind = DEFINITIONS[language].get(parent.type)
    if kind is not None and not _names(parent, node):
        kind = None
    if kind is None:
        kind = _variable(language, parent, node)
    if kind is None:
        return None
    container = _container(language, parent)
    if container is not None and kind == "function":
        kind = _METHOD_IN.get(language, kind)
    text = (node.text or b"").decode("utf-8", errors="replace")
    return Definition(
        path, parent.start_point.row + 1, parent.end_point.row + 1, text, kind, container
    )


def _names(parent: Node, node: Node) -> bool:
    return any(_same(child, node) for child in parent.children_by_field_name("name"))


def _same(a: Node | None, b: Node) -> bool:
    return a is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte


def _variable(language: str, parent: Node, node: Node) -> str | None:
    """A module- or class-level variable (Python's assignment, JS/TS's top-level `const`,
    Java's field)."""
    above = parent.parent
    if language == "python" and parent.type == "assignment":
        if not _same(parent.child_by_field_name("left"), node) or above is None:
            return None
        scope = above.parent
        if above.type != "expression_statement" or scope is None:
            return None
        if scope.type == "module":
            return "variable"
        owner = scope.parent if scope.type == "block" else None
        return "attribute" if owner is not None and owner.type == "class_definition" else None
    if parent.type != "variable_declarator" or not _names(parent, node) or above is None:
        return None
    if language == "java":
        return "field" if above.type in ("field_declaration", "constant_declaration") else None
    top = above.parent
    if above.type in ("lexical_declaration", "variable_declaration") and top is not None:
        return "variable" if top.type in ("program", "export_statement") else None
    return None


def _container(language: str, parent: Node) -> str | None:
    """The name of the class, interface, trait or impl a definition is a member of."""
    if language == "go" and parent.type == "method_declaration":
        receiver = parent.child_by_field_name("receiver")
        declared = receiver.named_children if receiver is not None else []
        kind = declared[0].child_by_field_name("type") if declared else None
        return _type_name(kind) if kind is not None else None
    fields = CONTAINERS.get(language, {})
    above = parent.parent
    while above is not None:
        if above.type in fields:
            named = above.child_by_field_name(fields[above.type])
            return _type_name(named) if named is not None else None
        if above.type in DEFINITIONS[language] and above.type not in fields:
            return None  # a function's local definition belongs to no class
        above = above.parent
    return None


def _type_name(node: Node) -> str | None:
    """The first type or plain identifier at or under `node` (`*Server` → Server)."""
    stack: list[Node] = [node]
    while stack:
        current = stack.pop(0)
        if current.type in ("type_identifier", "identifier"):
            return (current.text or b"").decode("utf-8", errors="replace")
        stack.extend(current.children)
    return None


@functools.lru_cache(maxsize=8)
def _parser(language: str) -> Parser:
    from tree_sitter import Language, Parser

    module, function = GRAMMARS[language]
    pointer = getattr(importlib.import_module(module), function)()
    return Parser(Language(pointer))


def parsed_languages(paths: Sequence[str]) -> set[str]:
    """The grammars among `paths` (for a note on what the answer rests on)."""
    return {language for path in paths if (language := language_of(path)) is not None}
