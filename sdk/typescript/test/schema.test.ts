// The committed types (src/schema.ts) must be what openapi-typescript makes
// of the OpenAPI document the server serves; regenerate with `npm run generate`
// (or `make generate` at the top of the repository).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

test("src/schema.ts is generated from the current OpenAPI document", () => {
  const dir = mkdtempSync(join(tmpdir(), "trawl-schema-"));
  try {
    const out = join(dir, "schema.ts");
    const cli = join(root, "node_modules", "openapi-typescript", "bin", "cli.js");
    execFileSync(process.execPath, [cli, join(root, "..", "..", "adapters", "httpapi", "openapi", "openapi.yaml"), "--output", out], { cwd: root, stdio: "pipe" });
    const committed = readFileSync(join(root, "src", "schema.ts"), "utf8");
    assert.ok(readFileSync(out, "utf8") === committed, "src/schema.ts is out of date: run `npm run generate` in sdk/typescript (or `make generate`) and commit it");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
