"""The conventions GitHub already uses to hide vendored and generated files.

Two sources, as GitHub Linguist reads them (github-linguist/linguist, MIT licence):

- **`.gitattributes`**: `linguist-vendored` and `linguist-generated` (set, `=true`,
  `=false`, `-attr`, `!attr`), per pattern, the last line that mentions the attribute for
  a file deciding (git's rule). `=false` takes a file back from a default below.
- **Linguist's default vendor patterns** (`lib/linguist/vendor.yml`): regular expressions
  searched in the file's path. They are data, kept here as Linguist writes them (the
  vendored-directory ones in the anchored form GitHub's dependency-graph documentation
  gives); a file one matches is skipped as vendored, and the skip names the pattern.

Pure: text in, rules out. `pathfilter.select_files` applies them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Attribute = Literal["vendored", "generated"]

# lib/linguist/vendor.yml, in its order (comments shortened).
VENDOR_PATTERNS: tuple[str, ...] = (
    # caches, dependencies, distributions, C dependencies and autoconf output
    r"(^|/)cache/", r"^[Dd]ependencies/", r"(^|/)dist/", r"^deps/", r"^tools/",
    r"(^|/)configure$", r"(^|/)config.guess$", r"(^|/)config.sub$", r"(^|/)aclocal.m4",
    r"(^|/)libtool.m4", r"(^|/)ltoptions.m4", r"(^|/)ltsugar.m4", r"(^|/)ltversion.m4",
    r"(^|/)lt~obsolete.m4",
    # linters, Node, Bower, Erlang, Go dependencies
    r"cpplint.py", r"node_modules/", r"bower_components/", r"^rebar$", r"erlang.mk",
    r"Godeps/_workspace/",
    # minified JavaScript and CSS, stylesheets and CSS frameworks
    r"(\.|-)min\.(js|css)$", r"([^\s]*)import\.(css|less|scss|styl)$",
    r"(^|/)bootstrap([^.]*)\.(js|css|less|scss|styl)$",
    r"(^|/)custom\.bootstrap([^\s]*)(js|css|less|scss|styl)$",
    r"(^|/)font-awesome\.(css|less|scss|styl)$", r"(^|/)foundation\.(css|less|scss|styl)$",
    r"(^|/)normalize\.(css|less|scss|styl)$", r"(^|/)[Bb]ourbon/.*\.(css|less|scss|styl)$",
    r"(^|/)animate\.(css|less|scss|styl)$",
    # vendored dependencies, as GitHub documents them today (anchored to a directory name)
    r"(3rd|[Tt]hird)[-_]?[Pp]arty/", r"(^|/)vendors?/", r"(^|/)[Ee]xtern(als?)?/",
    r"(^|/)[Vv]+endor/",
    # Debian packaging, Haxelib, Bootstrap Datepicker
    r"^debian/", r"run.n$", r"bootstrap-datepicker/",
    # commonly bundled JavaScript frameworks
    r"(^|/)jquery([^.]*)\.js$", r"(^|/)jquery\-\d\.\d+(\.\d+)?\.js$",
    r"(^|/)jquery\-ui(\-\d\.\d+(\.\d+)?)?(\.\w+)?\.(js|css)$",
    r"(^|/)jquery\.(ui|effects)\.([^.]*)\.(js|css)$", r"jquery.fn.gantt.js",
    r"jquery.fancybox.(js|css)", r"fuelux.js", r"(^|/)jquery\.fileupload(-\w+)?\.js$",
    r"(^|/)slick\.\w+.js$", r"(^|/)Leaflet\.Coordinates-\d+\.\d+\.\d+\.src\.js$",
    r"leaflet.draw-src.js", r"leaflet.draw.css", r"Control.FullScreen.css",
    r"Control.FullScreen.js", r"leaflet.spin.js", r"wicket-leaflet.js",
    r".sublime-project", r".sublime-workspace",
    r"(^|/)prototype(.*)\.js$", r"(^|/)effects\.js$", r"(^|/)controls\.js$",
    r"(^|/)dragdrop\.js$", r"(.*?)\.d\.ts$", r"(^|/)mootools([^.]*)\d+\.\d+.\d+([^.]*)\.js$",
    r"(^|/)dojo\.js$", r"(^|/)MochiKit\.js$", r"(^|/)yahoo-([^.]*)\.js$", r"(^|/)yui([^.]*)\.js$",
    r"(^|/)ckeditor\.js$", r"(^|/)tiny_mce([^.]*)\.js$",
    r"(^|/)tiny_mce/(langs|plugins|themes|utils)",
    r"(^|/)ace-builds/", r"(^|/)fontello(.*?)\.css$", r"(^|/)MathJax/", r"(^|/)Chart\.js$",
    r"(^|/)[Cc]ode[Mm]irror/(\d+\.\d+/)?(lib|mode|theme|addon|keymap|demo)",
    r"(^|/)shBrush([^.]*)\.js$", r"(^|/)shCore\.js$", r"(^|/)shLegacy\.js$",
    r"(^|/)angular([^.]*)\.js$", r"(^|\/)d3(\.v\d+)?([^.]*)\.js$", r"(^|/)react(-[^.]*)?\.js$",
    r"(^|/)modernizr\-\d\.\d+(\.\d+)?\.js$", r"(^|/)modernizr\.custom\.\d+\.js$",
    r"(^|/)knockout-(\d+\.){3}(debug\.)?js$",
    # Python: Sphinx, django, Fabric, WAF; .osx
    r"(^|/)docs?/_?(build|themes?|templates?|static)/", r"(^|/)admin_media/", r"(^|/)env/",
    r"^fabfile\.py$", r"^waf$", r"^.osx$",
    # Obj-C: Xcode, Carthage, CocoaPods, Sparkle, Crashlytics, Fabric
    r"\.xctemplate/", r"\.imageset/", r"^Carthage/", r"^Pods/", r"(^|/)Sparkle/",
    r"Crashlytics.framework/", r"Fabric.framework/",
    # git config files, Gradle
    r"gitattributes$", r"gitignore$", r"gitmodules$",
    r"(^|/)gradlew$", r"(^|/)gradlew\.bat$", r"(^|/)gradle/wrapper/",
    # .NET: IntelliSense, jQuery validation, Microsoft Ajax, NuGet, ExtJS, Html5shiv
    r"-vsdoc\.js$", r"\.intellisense\.js$",
    r"(^|/)jquery([^.]*)\.validate(\.unobtrusive)?\.js$",
    r"(^|/)jquery([^.]*)\.unobtrusive\-ajax\.js$",
    r"(^|/)[Mm]icrosoft([Mm]vc)?([Aa]jax|[Vv]alidation)(\.debug)?\.js$",
    r"^[Pp]ackages\/.+\.\d+\/",
    r"(^|/)extjs/.*?\.js$", r"(^|/)extjs/.*?\.xml$", r"(^|/)extjs/.*?\.txt$",
    r"(^|/)extjs/.*?\.html$", r"(^|/)extjs/.*?\.properties$", r"(^|/)extjs/.sencha/",
    r"(^|/)extjs/docs/", r"(^|/)extjs/builds/", r"(^|/)extjs/cmd/", r"(^|/)extjs/examples/",
    r"(^|/)extjs/locale/", r"(^|/)extjs/packages/", r"(^|/)extjs/plugins/",
    r"(^|/)extjs/resources/", r"(^|/)extjs/src/", r"(^|/)extjs/welcome/",
    r"(^|/)html5shiv\.js$",
    # test fixtures
    r"^[Tt]ests?/fixtures/", r"^[Ss]pecs?/fixtures/",
    # PhoneGap/Cordova, Foundation, Vagrant, .DS_Store, R packages, Octicons
    r"(^|/)cordova([^.]*)\.js$", r"(^|/)cordova\-\d\.\d(\.\d)?\.js$", r"foundation(\..*)?\.js$",
    r"^Vagrantfile$", r".[Dd][Ss]_[Ss]tore$", r"^vignettes/", r"^inst/extdata/",
    r"octicons.css", r"sprockets-octicons.scss",
    # Typesafe Activator, ProGuard, PuPHPet, Android Google APIs, Jenkins
    r"(^|/)activator$", r"(^|/)activator\.bat$", r"proguard.pro", r"proguard-rules.pro",
    r"^puphpet/", r"(^|/)\.google_apis/", r"^Jenkinsfile$",
)  # fmt: skip

_COMPILED = tuple((pattern, re.compile(pattern)) for pattern in VENDOR_PATTERNS)
_ATTRIBUTES: tuple[Attribute, ...] = ("vendored", "generated")
_VALUES = {"": True, "=true": True, "=false": False}


@dataclass(frozen=True)
class VendorMatch:
    """The Linguist pattern that calls a path vendored, and the text of the path it matched."""

    pattern: str
    matched: str


@dataclass(frozen=True)
class AttributeRule:
    """One .gitattributes line's word on a Linguist attribute: `pattern` is vendored or
    generated (`value` True), is not (False: `=false` or `-attr`), or is back to Linguist's
    own judgement (None: `!attr`, git's "unspecified")."""

    pattern: str
    attribute: Attribute
    value: bool | None


def vendored_by_linguist(path: str) -> VendorMatch | None:
    """The first of Linguist's vendor patterns found in `path`, as Linguist searches them."""
    for pattern, compiled in _COMPILED:
        found = compiled.search(path)
        if found is not None:
            return VendorMatch(pattern, found.group(0))
    return None


def parse_attributes(text: str) -> tuple[AttributeRule, ...]:
    """Every .gitattributes mention of linguist-vendored or linguist-generated, in order."""
    rules: list[AttributeRule] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "[attr]")):
            continue
        pattern, *words = line.split()
        for word in words:
            rule = _rule(pattern, word)
            if rule is not None:
                rules.append(rule)
    return tuple(rules)


def _rule(pattern: str, word: str) -> AttributeRule | None:
    for attribute in _ATTRIBUTES:
        name = f"linguist-{attribute}"
        if word in (f"-{name}", f"!{name}"):
            return AttributeRule(pattern, attribute, False if word[0] == "-" else None)
        if word.startswith(name) and word[len(name) :] in _VALUES:
            return AttributeRule(pattern, attribute, _VALUES[word[len(name) :]])
    return None


# The language of a file, as Linguist names it (lib/linguist/languages.yml), by the
# extensions and file names it lists for the languages an analyzer may cover. An
# analyzer reviews a file only in a language it `covers` (model/analysis.py).
LANGUAGE_EXTENSIONS: dict[str, str] = {
    ".py": "Python", ".pyi": "Python", ".pyw": "Python", ".cgi": "Python",
    ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".tsx": "TSX",
    ".go": "Go", ".java": "Java", ".kt": "Kotlin", ".rs": "Rust", ".rb": "Ruby",
    ".php": "PHP", ".cs": "C#", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++",
    ".hpp": "C++", ".swift": "Swift", ".scala": "Scala", ".sh": "Shell", ".bash": "Shell",
    ".yml": "YAML", ".yaml": "YAML", ".tf": "HCL", ".sql": "SQL",
}  # fmt: skip
LANGUAGE_FILENAMES: dict[str, str] = {
    "Dockerfile": "Dockerfile", "SConstruct": "Python", "SConscript": "Python",
    "Rakefile": "Ruby", "Gemfile": "Ruby",
}  # fmt: skip


def language_of(path: str) -> str | None:
    """The file's language by Linguist's name (`Python`, `TypeScript`); None when it is
    none an analyzer covers."""
    name = path.rsplit("/", 1)[-1]
    if name in LANGUAGE_FILENAMES:
        return LANGUAGE_FILENAMES[name]
    dot = name.rfind(".")
    return LANGUAGE_EXTENSIONS.get(name[dot:].lower()) if dot > 0 else None
