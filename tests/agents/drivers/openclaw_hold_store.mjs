// Hold an OpenClaw 2026.9.6 agent database open the way every OpenClaw process does: its own
// openOpenClawAgentDatabase claims a lease in the shared state database
// (<state dir>/state/openclaw.sqlite, agent_database_leases) for this process. Prints "held"
// once it has it, then waits until stdin closes; the lease goes when the process exits.
//   HOME=<openclaw home> node openclaw_hold_store.mjs DIST AGENT_ID
import { exported, moduleWith } from "./openclaw_dist.mjs";

const [dist, agentId] = process.argv.slice(2);

const db = await moduleWith(dist, "openclaw-agent-db-", "function openOpenClawAgentDatabase(");
const open = exported(db, "openOpenClawAgentDatabase");
const database = open({ agentId });
database.db.prepare("SELECT count(*) AS n FROM transcript_events").get();
process.stdout.write("held\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
