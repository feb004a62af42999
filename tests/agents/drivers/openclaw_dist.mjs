// Finding functions inside OpenClaw's bundled dist: its modules are named
// `<prefix>-<hash>.mjs` and their exports minified, so a module is found by a line of its
// own code and a function by its own name. Shared by the drivers that run OpenClaw's code.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The dist module (`prefix-<hash>.mjs`) whose text holds `marker`, and its exports. */
export async function moduleWith(dist, prefix, marker) {
  for (const name of readdirSync(dist).sort()) {
    if (!name.endsWith(".mjs") || !name.startsWith(prefix)) continue;
    const text = readFileSync(join(dist, name), "utf8");
    if (text.includes(marker)) return import(pathToFileURL(resolve(dist, name)).href);
  }
  throw new Error(`no module in ${dist} holds ${marker}`);
}

/** The export of `mod` that is the function or class named `name`. */
export function exported(mod, name) {
  const found = Object.values(mod).find((v) => typeof v === "function" && v.name === name);
  if (!found) throw new Error(`no export named ${name}`);
  return found;
}
