// OpenClaw 2026.9.6's own writer appends one compaction event to a session of its SQLite store
// and does the compaction's accounting on the session row, as its compactor does after a
// summary (SessionManager.appendCompaction -> appendTranscriptEvent, then
// incrementCompactionCount with tokensAfter). Used to compare, row by row, what SessionLens
// writes for the same event with what OpenClaw writes for it. Run with the pinned Node 24:
//   node openclaw_store_append.mjs DIST DB SESSION_ID SESSION_KEY EVENT_JSON_FILE
// HOME must be the temporary OpenClaw home the database lives in.
import { readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { exported, moduleWith } from "./openclaw_dist.mjs";

const [dist, dbPath, sessionId, sessionKey, eventFile] = process.argv.slice(2);

const writes = await moduleWith(dist, "session-accessor.sqlite-transcript-write-",
  "async function appendTranscriptEvent(scope, event");
const appendTranscriptEvent = exported(writes, "appendTranscriptEvent");
const updates = await moduleWith(dist, "session-updates-", "async function incrementCompactionCount(");
const incrementCompactionCount = exported(updates, "incrementCompactionCount");

const event = JSON.parse(readFileSync(eventFile, "utf8"));
const scope = { agentId: "main", sessionId, sessionKey, storePath: dbPath };
await appendTranscriptEvent(scope, event);
const read = new DatabaseSync(dbPath, { readOnly: true });
const entry = JSON.parse(read.prepare("SELECT entry_json FROM session_nodes WHERE session_key = ?")
  .get(sessionKey).entry_json);
read.close();
const count = await incrementCompactionCount({ agentId: "main", sessionKey, storePath: dbPath,
  sessionEntry: entry, tokensAfter: event.tokensAfter });
process.stdout.write(JSON.stringify({ compactionCount: count }));
process.exit(0);
