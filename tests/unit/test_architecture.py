"""The package's shape, held by tests (as click tests what its package imports).

Parts are folders; imports run one way: faces (cli, action) → app → the core parts →
model. Adapters implement ports and only app/wiring.py imports them. Every import counts
here: top-level, inside functions, and under TYPE_CHECKING.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "consensus"
ROOT_MODULES = {"__init__", "__main__", "errors", "ports", "testing"}
CORE = [
    "model", "settings", "ingest", "inspect", "decide", "review", "render", "publish", "queue",
    "bench",
]  # fmt: skip
# Each part, and the parts it may import besides itself. The core is a ladder: a part
# may import the parts before it in CORE.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "model": set(),
    "ports": {"model"},
    "adapters": {"model", "errors", "ports", "settings", "ingest"},
    "testing": {"model", "errors", "ports", "settings", "ingest", "publish"},
    "app": {*CORE, "errors", "ports", "adapters", "__init__"},
    # `consensus action` is the command line's door to the Action face.
    "cli": {*CORE, "errors", "ports", "app", "action", "__init__"},
    "action": {*CORE, "errors", "ports", "app", "__init__"},
    "__main__": {"cli"},
    "__init__": set(),
}
for index, part in enumerate(CORE):
    ALLOWED[part] = {*CORE[:index], "errors", "ports"}
ALLOWED["render"].add("__init__")  # the version string in reports
ALLOWED["publish"].add("__init__")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
# The loopback servers beside the package (consensus_sim/, shipped in the same wheel) are
# held to the same sizes as the product's modules; their imports have a rule of their own.
SIMULATION = {module_name(p): p for p in sorted((PACKAGE.parent / "consensus_sim").rglob("*.py"))}


def part_of(module: str) -> str:
    pieces = module.split(".")
    if len(pieces) == 1:
        return "__init__"
    return pieces[1]


def _imports(path: Path) -> Iterator[tuple[str, list[str], int]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, [a.name for a in node.names], node.lineno


# Parsed once, at collection: CPython 3.11's ast.parse can fail with "recursion depth
# mismatch" after another test has hit a RecursionError in the same process.
_IMPORTS = {path: list(_imports(path)) for path in MODULES.values()}


def imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, names, line) for every import in the file, at any depth."""
    return _IMPORTS[path]


def internal_targets(module: str, names: list[str]) -> list[str]:
    """The consensus modules an import reaches (`from pkg import submodule` included)."""
    if not (module == "consensus" or module.startswith("consensus.")):
        return []
    found = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    return found if found and len(found) == len(names) else [module]


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for name, path in MODULES.items():
        for module, names, _ in imports(path):
            for target in internal_targets(module, names):
                if target != name and target in MODULES:
                    edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_there_is_no_import_cycle_counting_function_level_and_type_checking_imports() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_one_way_faces_app_core_model(module: str) -> None:
    part = part_of(module)
    wrong = sorted(
        f"{target} (line {line})"
        for imported, names, line in imports(MODULES[module])
        for target in internal_targets(imported, names)
        if part_of(target) != part and part_of(target) not in ALLOWED[part]
    )
    assert wrong == [], f"{module} ({part}/) may import only {sorted(ALLOWED[part])}"


def test_no_private_name_is_imported_from_another_module() -> None:
    borrowed = sorted(
        f"{name}: {module}.{n} (line {line})"
        for name, path in MODULES.items()
        for module, names, line in imports(path)
        for n in names
        if module.startswith("consensus") and n.startswith("_") and n != "__version__"
    )
    assert borrowed == []


@pytest.mark.parametrize(
    ("library", "owners"),
    [
        ("litellm", {"consensus.adapters.llm"}),
        ("github", {"consensus.adapters.github", "consensus.adapters.github_wire"}),
        ("gitlab", {"consensus.adapters.gitlab_http"}),
        (
            "requests",
            {
                "consensus.adapters.github",
                "consensus.adapters.github_wire",
                "consensus.adapters.gitlab_http",
            },
        ),
        ("sqlite3", {"consensus.adapters.journal"}),
        ("detect_secrets", {"consensus.ingest.detector"}),
    ],
)
def test_one_module_imports_each_outside_world_library(library: str, owners: set[str]) -> None:
    importers = {
        name
        for name, path in MODULES.items()
        for module, _, _ in imports(path)
        if module == library or module.startswith(f"{library}.")
    }
    assert importers <= owners


def test_the_package_root_holds_at_most_ten_modules() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 10, root
    assert {Path(n).stem for n in root} <= ROOT_MODULES


MAX_MODULE_LINES = 450
ARCHITECTURE = PACKAGE.parent / "ARCHITECTURE.md"
# A row of ARCHITECTURE.md's table of modules allowed more lines: the module, its cap, why.
LONGER_ROW = re.compile(r"^\| `(consensus/[\w/]+)\.py` \| (\d+) \| (.+) \|$")


def longer_modules() -> dict[str, int]:
    """module → its own cap, from ARCHITECTURE.md (each row says why it is longer)."""
    rows = [LONGER_ROW.match(line) for line in ARCHITECTURE.read_text().splitlines()]
    return {m.group(1).replace("/", "."): int(m.group(2)) for m in rows if m is not None}


@pytest.mark.parametrize("module", sorted({**MODULES, **SIMULATION}))
def test_no_module_is_over_450_lines(module: str) -> None:
    """Over the cap, split where the meaning splits; or, when it does not, raise the cap
    for the module in ARCHITECTURE.md with the reason."""
    lines = {**MODULES, **SIMULATION}[module].read_text(encoding="utf-8").count("\n")
    cap = longer_modules().get(module, MAX_MODULE_LINES)
    assert lines <= cap, f"{module}: {lines} lines"


def test_every_longer_module_exists_and_needs_its_cap() -> None:
    longer = longer_modules()
    assert longer, "the table in ARCHITECTURE.md is read"
    for module, cap in longer.items():
        lines = MODULES[module].read_text(encoding="utf-8").count("\n")
        assert cap > MAX_MODULE_LINES and lines > MAX_MODULE_LINES - 50, (module, lines)


def test_a_forbidden_import_is_caught() -> None:
    """The checker itself can fail: an adapter imported by the core is reported."""
    part = part_of("consensus.decide.align")
    assert part_of("consensus.adapters.llm") not in ALLOWED[part]
    assert cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]


def _crossings(tree: str, other: str) -> list[str]:
    """Imports of the `other` tree from any module under `tree`, as `path: module (line)`."""
    root = PACKAGE.parent
    return sorted(
        f"{path.relative_to(root)}: {module} (line {line})"
        for path in (root / tree).rglob("*.py")
        for module, _, line in _imports(path)
        if module == other or module.startswith(f"{other}.")
    )


def test_the_simulation_stands_apart_and_only_the_demo_uses_it() -> None:
    """The loopback servers (consensus_sim/, shipped in the wheel for `consensus demo`)
    stand for the outside world: they import nothing of the product, and of the product
    only the demo's flow imports them, so no other command loads them."""
    assert _crossings("consensus_sim", "consensus") == []
    importers = {c.split(":")[0] for c in _crossings("consensus", "consensus_sim")}
    assert importers == {
        "consensus/app/demo/demo.py",
        "consensus/app/demo/demo_github.py",
        "consensus/app/demo/demo_gitlab.py",
    }


def test_fakes_and_benchmarks_never_import_the_tests() -> None:
    assert _crossings("benchmarks", "tests") == [] and _crossings("fakes", "tests") == []


def test_the_fakes_never_import_the_benchmarks() -> None:
    assert _crossings("fakes", "benchmarks") == []


def test_only_the_simulation_tests_import_the_benchmarks_simulations() -> None:
    """tests/sim runs reduced benchmark simulations; no other test imports benchmarks/."""
    outside = [c for c in _crossings("tests", "benchmarks") if not c.startswith("tests/sim/")]
    inside = _crossings("tests/sim", "benchmarks")
    assert outside == []
    assert inside and all(": benchmarks.sim." in c for c in inside)


# --------------------------------------------------------------------------- functions

MAX_PARAMETERS = 8  # a click command's options are its parameters: those are counted apart
MAX_FUNCTION_LINES = 80
SETTINGS_RECEIVER = re.compile(
    r"(^|[._])(settings|publish|inspector|budget|queue_settings|commands_settings)$"
)


def functions() -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for module, path in {**MODULES, **SIMULATION}.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield module, node


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if named and named[0].arg in ("self", "cls"):
        named = named[1:]
    return len(named) + (args.vararg is not None) + (args.kwarg is not None)


def is_click_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(ast.unparse(d).startswith(("click.", "cli.command")) for d in node.decorator_list)


def test_no_function_takes_more_than_eight_parameters() -> None:
    wide = [
        f"{module}.{node.name}: {parameter_count(node)}"
        for module, node in functions()
        if parameter_count(node) > MAX_PARAMETERS and not is_click_command(node)
    ]
    assert wide == [], "bundle them into a typed object (a job, the services)"


def test_no_function_is_over_eighty_lines() -> None:
    long = [
        f"{module}.{node.name}: {(node.end_lineno or node.lineno) - node.lineno + 1}"
        for module, node in functions()
        if (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], "a flow reads like its table of contents: split it into its steps"


def settings_copies(source: str) -> list[str]:
    """`<settings>.model_copy(update=...)` calls: they accept a misspelt key silently."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "model_copy"
            and any(k.arg == "update" for k in node.keywords)
        ):
            receiver = ast.unparse(node.func.value)
            if SETTINGS_RECEIVER.search(receiver) or "Settings(" in receiver:
                found.append(receiver)
    return found


def test_settings_are_never_layered_by_model_copy() -> None:
    copies = {m: settings_copies(p.read_text(encoding="utf-8")) for m, p in MODULES.items()}
    assert {m: c for m, c in copies.items() if c} == {}, "use settings.config.layered"


def test_the_settings_copy_rule_catches_one() -> None:
    assert settings_copies("s = settings.publish.model_copy(update={'x': 1})") == [
        "settings.publish"
    ]
    assert settings_copies("plan = plan.model_copy(update={'state': s})") == []


# --------------------------------------------------------------------------- the hallway

# The flows in app/ take their Services; only the faces (cli/, action/) ask wiring for them,
# and `consensus review`'s preparation and the demo's for their git readers.
ASKS_WIRING = {"consensus.app.local_review", "consensus.app.demo.demo"}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("consensus.app.")))
def test_flows_read_no_environment_and_ask_wiring_for_nothing(module: str) -> None:
    if module in {"consensus.app.wiring", "consensus.app"}:
        return
    source = MODULES[module].read_text(encoding="utf-8")
    tree = ast.parse(source)
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not names & {"environ", "getenv", "from_env"}, "the face reads the environment"
    wired = any(target == "consensus.app.wiring" for target, _, _ in imports(MODULES[module]))
    assert not wired or module in ASKS_WIRING, "take Services from the face instead"


def test_only_wiring_builds_adapters() -> None:
    """Of app/, wiring.py alone imports consensus.adapters: every flow is handed what it
    uses (the run journal as app/journal_port.RunJournal, its journaled ports from it)."""
    importers = sorted(
        f"{name} (line {line})"
        for name, path in MODULES.items()
        if name.startswith("consensus.app.") and name != "consensus.app.wiring"
        for imported, names, line in imports(path)
        for target in internal_targets(imported, names)
        if part_of(target) == "adapters"
    )
    assert importers == []


# --------------------------------------------------------------------------- one name per thing

MAX_REPEATED_NAMES = 12
# A row of ARCHITECTURE.md's table of module names that repeat: the name, where, why.
REPEATED_ROW = re.compile(r"^\| `(\w+)\.py` \| ([^|]+) \| (.+) \|$")


def repeated_names(paths: list[Path]) -> dict[str, list[str]]:
    """Module basenames (packages' `__init__` aside) found in more than one folder."""
    where: dict[str, list[str]] = {}
    for path in paths:
        if path.stem != "__init__":
            where.setdefault(path.stem, []).append(str(path.parent.relative_to(PACKAGE)))
    return {name: sorted(found) for name, found in where.items() if len(found) > 1}


def explained_names() -> set[str]:
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    return {m.group(1) for line in lines if (m := REPEATED_ROW.match(line))}


def test_at_most_a_dozen_module_names_repeat_each_explained() -> None:
    repeated = repeated_names(list(MODULES.values()))
    assert len(repeated) <= MAX_REPEATED_NAMES, sorted(repeated)
    assert set(repeated) == explained_names(), "ARCHITECTURE.md's table of repeated names"


def test_a_repeated_name_is_counted() -> None:
    paths = [PACKAGE / "publish" / "plan.py", PACKAGE / "queue" / "plan.py", PACKAGE / "x.py"]
    assert repeated_names(paths) == {"plan": ["publish", "queue"]}


# --------------------------------------------------------------------------- the host as a type

HOST_NAMES = {"GitHub", "GitLab"}
# The host's adapters and the faces that start a run on one host know which host it is;
# everything else asks the host's type (model/host.HostWords) what it does.
KNOWS_THE_HOST = {"adapters", "cli", "action"}


def host_name_branches(source: str) -> list[int]:
    """The lines where a host's name is compared, or is a type's value (Literal["GitLab"])."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Subscript) and getattr(node.value, "id", "") == "Literal":
            operands = list(ast.walk(node.slice))
        else:
            continue
        if any(isinstance(o, ast.Constant) and o.value in HOST_NAMES for o in operands):
            found.append(node.lineno)
    return found


def test_no_host_name_is_compared_outside_the_adapters_and_the_faces() -> None:
    branches = sorted(
        f"{name} (line {line})"
        for name, path in MODULES.items()
        if part_of(name) not in KNOWS_THE_HOST
        for line in host_name_branches(path.read_text(encoding="utf-8"))
    )
    assert branches == []


def test_a_branch_on_the_host_name_is_caught() -> None:
    assert host_name_branches('if words.name == "GitLab":\n    pass\n') == [1]
    assert host_name_branches('host: Literal["GitHub", "GitLab"] = "GitHub"\n') == [1]
    assert host_name_branches('name = "GitLab"\n') == []


# --------------------------------------------------------------------------- one edit per adapter


def host_calls(role: type) -> dict[str, tuple[str, ...]]:
    """Each call a role of the port declares (its own and its parents'), with the names
    of its parameters, `self` aside."""
    calls: dict[str, tuple[str, ...]] = {}
    for cls in reversed(role.__mro__):
        for name, value in vars(cls).items():
            if not name.startswith("_") and inspect.isfunction(value):
                calls[name] = tuple(inspect.signature(value).parameters)[1:]
    return calls


def calls_that_differ(role: type, adapter: type) -> list[str]:
    """The calls of `role` that `adapter` lacks, or takes with other parameters."""
    differ = []
    for name, wanted in host_calls(role).items():
        found = getattr(adapter, name, None)
        got = tuple(inspect.signature(found).parameters)[1:] if callable(found) else None
        if got != wanted:
            differ.append(f"{adapter.__name__}.{name}{got or ''} is not the port's {wanted}")
    return differ


def test_each_adapter_takes_every_host_call_as_the_port_declares_it() -> None:
    """A new host call is one method on a role of ports.py and one in each adapter (GitHub's,
    GitLab's, the fake): no flow, wrapper or host-specific branch to touch besides."""
    from consensus.adapters.github import GitHubHost
    from consensus.adapters.gitlab import GitLabHost
    from consensus.ports import GitHubPort, GitLabPort
    from consensus.testing import FakeGitHubHost

    differ = [
        *calls_that_differ(GitHubPort, GitHubHost),
        *calls_that_differ(GitHubPort, FakeGitHubHost),
        *calls_that_differ(GitLabPort, GitLabHost),
    ]
    assert differ == []


def test_a_call_on_a_comment_names_its_pull_request_first() -> None:
    """A comment (or a review thread) is addressed under its pull request, as GitLab's API
    addresses a note: an adapter reaches it from the call alone, remembering nothing."""
    from consensus.ports import GitHubPort

    addressed = {
        name: params
        for name, params in host_calls(GitHubPort).items()
        if {"comment_id", "thread_id"} & set(params)
    }
    assert len(addressed) >= 7
    assert {name for name, params in addressed.items() if params[0] != "number"} == set()


def test_a_call_an_adapter_takes_otherwise_is_caught() -> None:
    class Role(Protocol):
        def add_reaction(self, number: int, comment_id: int, content: str) -> None: ...

    class Forgetful:
        def add_reaction(self, comment_id: int, content: str) -> None: ...

    class Missing:
        pass

    assert calls_that_differ(Role, Forgetful) == [
        "Forgetful.add_reaction('comment_id', 'content') is not the port's "
        "('number', 'comment_id', 'content')"
    ]
    assert len(calls_that_differ(Role, Missing)) == 1


# --------------------------------------------------------------------------- the PR's context


def calling_properties(source: str, cls: str) -> list[str]:
    """The properties of class `cls` that call anything: a property of a plain-data object
    reads what it holds; what fetches is a method whose name says so (`read_settings()`)."""
    tree = ast.parse(source)
    [found] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    return sorted(
        node.name
        for node in found.body
        if isinstance(node, ast.FunctionDef)
        and any(getattr(d, "id", "") == "property" for d in node.decorator_list)
        and any(isinstance(n, ast.Call) for n in ast.walk(node))
    )


def test_no_property_of_the_pull_request_context_does_io() -> None:
    source = MODULES["consensus.app.pull.pull_context"].read_text(encoding="utf-8")
    assert calling_properties(source, "PullContext") == []


def test_a_property_that_fetches_is_caught() -> None:
    source = "class C:\n    @property\n    def thread(self):\n        return load(self.host)\n"
    assert calling_properties(source, "C") == ["thread"]


# --------------------------------------------------------------------------- the flows' rooms

# What every flow of app/ shares: the hallway. Everything else in app/ is a flow: a room of
# its own (app/pull/, app/talk/), or modules named after one (bench, bench_plan…).
HALLWAY = {"services", "wiring", "jobs", "journaled", "exit_codes", "progress", "run_log"}
HALLWAY |= {"run_page", "secrets", "journal_port"}


def flow_of(module: str) -> str | None:
    """The flow a module of app/ belongs to (its room); None for the hallway."""
    parts = module.split(".")
    if parts[:2] != ["consensus", "app"] or len(parts) < 3 or parts[2] in HALLWAY:
        return None
    return parts[2].split("_")[0]


def declared(module: str) -> set[str]:
    """The names a module opens to other flows: its `__all__`."""
    for node in ast.parse(MODULES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def borrowed_across_flows(imports_of: dict[str, list[tuple[str, list[str], int]]]) -> list[str]:
    """`importer: module.name` for each name a flow takes from another flow's module that
    the module does not open (`__all__`)."""
    return sorted(
        f"{importer}: {module}.{name} (line {line})"
        for importer, found in imports_of.items()
        for module, names, line in found
        if flow_of(importer) and flow_of(module) and flow_of(importer) != flow_of(module)
        for name in names
        if name not in declared(module)
    )


def test_no_flow_imports_another_flows_helpers() -> None:
    """A flow reaches another only through the names that flow opens (its `__all__`): the
    PR's context, the review and the base branch's readers of app/pull/, the labels and
    outcomes of app/pull/outcomes.py, the flags `consensus review` layers for the bench."""
    imports_of = {name: imports(path) for name, path in MODULES.items()}
    assert borrowed_across_flows(imports_of) == []


def test_a_helper_borrowed_from_another_flow_is_caught() -> None:
    reach = {"consensus.app.talk.commands": [("consensus.app.pull.review", ["_stopped"], 1)]}
    assert borrowed_across_flows(reach) == [
        "consensus.app.talk.commands: consensus.app.pull.review._stopped (line 1)"
    ]
    assert (
        flow_of("consensus.app.bench.bench_plan") == flow_of("consensus.app.bench.bench") == "bench"
    )
    assert flow_of("consensus.app.jobs") is None
