// Hold an OpenClaw 2026.9.6 agent database open the way every OpenClaw process does: its own
// openOpenClawAgentDatabase claims a lease in the shared state database
// (<state dir>/state/openclaw.sqlite, agent_database_leases) for this process. Prints "held"
// once it has it, then waits until stdin closes; the lease goes when the process exits.
//   HOME=<openclaw home> node openclaw_hold_store.mjs DIST AGENT_ID
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, agentId] = process.argv.slice(2);

async function moduleWith(prefix, marker) {
  for (const name of readdirSync(dist).sort()) {
    if (!name.endsWith(".mjs") || !name.startsWith(prefix)) continue;
    const text = readFileSync(join(dist, name), "utf8");
    if (text.includes(marker)) return import(pathToFileURL(resolve(dist, name)).href);
  }
  throw new Error(`no module in ${dist} holds ${marker}`);
}

const db = await moduleWith("openclaw-agent-db-", "function openOpenClawAgentDatabase(");
const open = Object.values(db).find((v) => typeof v === "function"
  && v.name === "openOpenClawAgentDatabase");
const database = open({ agentId });
database.db.prepare("SELECT count(*) AS n FROM transcript_events").get();
process.stdout.write("held\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
