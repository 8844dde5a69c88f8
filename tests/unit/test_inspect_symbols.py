"""find_definition and find_references: from tree-sitter's parsers, not from regexes."""

from __future__ import annotations

import pytest

from consensus.inspect.lookups import Lookups
from consensus.inspect.snapshot import PathPolicy, Snapshot, redactor
from consensus.inspect.symbols import enclosing
from consensus.testing.trees import FakeTrees

HEAD = {
    "shop/cart.py": (
        "from shop.pricing import total\n"
        "\n"
        "\n"
        "class Cart:\n"
        '    """A Cart holds items; see checkout() below."""\n'
        "\n"
        "    def __init__(self):\n"
        "        self.items = []\n"
        "\n"
        "    def checkout(self, coupon=None):\n"
        "        # checkout applies the coupon first\n"
        "        return total(self.items, coupon)\n"
        "\n"
        "\n"
        "def checkout(cart):\n"
        "    return cart.checkout()\n"
    ),
    "shop/pricing.py": (
        "TAX = 0.2\n\n\ndef total(items, coupon=None):\n    return sum(items) * (1 + TAX)\n"
    ),
    "shop/legacy.py": (
        "def total(items):\n"
        '    """The old total, kept for the report."""\n'
        "    return sum(items)\n"
        "\n"
        "LABEL = 'total'  # the word total, in a string and a comment\n"
    ),
    "web/cart.ts": (
        "import { total } from './pricing';\n"
        "\n"
        "export interface Item { price: number }\n"
        "\n"
        "export class Cart {\n"
        "  items: Item[] = [];\n"
        "  checkout(): number {\n"
        "    // checkout: the sum\n"
        "    return total(this.items);\n"
        "  }\n"
        "}\n"
    ),
    "web/pricing.ts": (
        "import { Item } from './cart';\n"
        "\n"
        "export const total = (items: Item[]): number =>\n"
        "  items.reduce((s, i) => s + i.price, 0);\n"
        "const label = 'total';\n"
    ),
    "web/legacy.js": "function total(items) {\n  return 0;\n}\nmodule.exports = { total };\n",
    "server/main.go": (
        "package server\n\ntype Server struct{}\n\n"
        "func (s *Server) Start() error { return nil }\n\nfunc Start() {}\n"
    ),
    "core/Engine.java": "class Engine {\n  void start() {}\n  Engine() { start(); }\n}\n",
    "core/lib.rs": (
        "struct Engine;\nimpl Engine {\n    fn start(&self) {}\n}\nfn main() { Engine.start(); }\n"
    ),
    "scripts/deploy.rb": "def total(x)\n  x\nend\nputs total(1)\n",
    "docs/guide.md": "Call it as:\n\n```python\ndef total(items):\n```\n",
}


def ask(tool: str, symbol: str) -> list[str]:
    snapshot = Snapshot(FakeTrees(head=HEAD), redactor(), PathPolicy())
    result = Lookups(snapshot).call(tool, {"symbol": symbol})
    assert not result.error, result.text
    return result.text.splitlines()


def test_a_function_defined_in_two_files_is_found_in_both() -> None:
    assert ask("find_definition", "total") == [
        "scripts/deploy.rb:1: def total(x) (text match)",
        "shop/legacy.py:1: def total(items): (function)",
        "shop/pricing.py:4: def total(items, coupon=None): (function)",
        "web/legacy.js:1: function total(items) { (function)",
        "web/pricing.ts:3: export const total = (items: Item[]): number => (variable)",
        "[text match: files without a parser were searched for a keyword and the name]",
    ]


def test_an_example_in_prose_is_no_definition() -> None:
    assert not any(line.startswith("docs/") for line in ask("find_definition", "total"))


def test_only_the_files_that_hold_the_name_are_redacted_and_parsed() -> None:
    redacted: list[str] = []

    def redact(text: str) -> str:
        redacted.append(text)
        return text

    snapshot = Snapshot(FakeTrees(head=HEAD), redact, PathPolicy())
    Lookups(snapshot).call("find_definition", {"symbol": "Engine"})
    assert len(redacted) == 2  # core/Engine.java and core/lib.rs, of 11 files


def test_a_method_and_a_function_of_the_same_name_are_told_apart() -> None:
    assert ask("find_definition", "checkout") == [
        "shop/cart.py:10:     def checkout(self, coupon=None): (method of Cart)",
        "shop/cart.py:15: def checkout(cart): (function)",
        "web/cart.ts:7:   checkout(): number { (method of Cart)",
    ]


def test_class_dot_member_finds_that_member_only() -> None:
    assert ask("find_definition", "Cart.checkout") == [
        "shop/cart.py:10:     def checkout(self, coupon=None): (method of Cart)",
        "web/cart.ts:7:   checkout(): number { (method of Cart)",
    ]


def test_a_class_and_an_interface_are_definitions() -> None:
    assert ask("find_definition", "Cart") == [
        "shop/cart.py:4: class Cart: (class)",
        "web/cart.ts:5: export class Cart { (class)",
    ]
    assert ask("find_definition", "Item") == [
        "web/cart.ts:3: export interface Item { price: number } (interface)"
    ]


def test_a_name_only_in_a_string_or_a_comment_is_no_reference() -> None:
    found = ask("find_references", "checkout")
    assert found == [
        "shop/cart.py:16:     return cart.checkout()",
    ]


def test_references_are_uses_across_files_and_languages_not_definitions() -> None:
    assert ask("find_references", "total") == [
        "docs/guide.md:4: def total(items): (text match)",
        "scripts/deploy.rb:1: def total(x) (text match)",
        "scripts/deploy.rb:4: puts total(1) (text match)",
        "shop/cart.py:1: from shop.pricing import total",
        "shop/cart.py:12:         return total(self.items, coupon)",
        "web/cart.ts:1: import { total } from './pricing';",
        "web/cart.ts:9:     return total(this.items);",
        "web/legacy.js:4: module.exports = { total };",
    ]


@pytest.mark.parametrize(
    ("symbol", "expected"),
    [
        (
            "Start",
            [
                "server/main.go:5: func (s *Server) Start() error { return nil }"
                " (method of Server)",
                "server/main.go:7: func Start() {} (function)",
            ],
        ),
        ("Server", ["server/main.go:3: type Server struct{} (type)"]),
        (
            "start",
            [
                "core/Engine.java:2:   void start() {} (method of Engine)",
                "core/lib.rs:3:     fn start(&self) {} (method of Engine)",
            ],
        ),
    ],
)
def test_go_java_and_rust_definitions_come_from_their_parsers(
    symbol: str, expected: list[str]
) -> None:
    assert ask("find_definition", symbol) == expected


def test_a_name_defined_nowhere_says_so() -> None:
    assert ask("find_definition", "refund") == ["no definition of 'refund' in the head tree"]


def test_a_symbol_that_is_no_name_is_a_tool_error() -> None:
    snapshot = Snapshot(FakeTrees(head=HEAD), redactor(), PathPolicy())
    result = Lookups(snapshot).call("find_definition", {"symbol": "total; rm -rf /"})
    assert result.error
    assert result.text.startswith("error: find_definition: symbol: String should match pattern")


def test_the_function_around_a_line_is_the_innermost_one() -> None:
    source = (
        "class Cart:\n"
        "    def total(self, items):\n"
        "        def price(item):\n"
        "            return item.price\n"
        "        return sum(price(i) for i in items)\n"
        "\n"
        "LIMIT = 3\n"
    )
    assert enclosing("cart.py", source, 4)[:5] == ("cart.py", 3, 4, "price", "function")
    assert enclosing("cart.py", source, 5)[:5] == ("cart.py", 2, 5, "total", "method")
    assert enclosing("cart.py", source, 7) is None
    assert enclosing("cart.txt", source, 4) is None
    js = "function pay(order) {\n  if (!order) return;\n  charge(order);\n}\n"
    assert enclosing("pay.js", js, 3)[3] == "pay"
