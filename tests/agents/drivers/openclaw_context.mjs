// What OpenClaw's own code reads from one session of its SQLite store, as JSON on stdout:
// the entries (ids in seq order), the active path (SessionManager.getBranch) and the replayed
// context (buildSessionContext, then convertToLlm: what goes to the model), each message as
// {role, text}; one object per session id. Run with the pinned Node 24:
//   node openclaw_context.mjs DIST DB SESSION_ID...
//
// The rows are read with OpenClaw's own read-only reader (ReadOnlySqliteTranscriptReader: its
// SQL decodes event_zstd through the decoder OpenClaw registers), the tree and leaf are
// OpenClaw's SessionManager's, the replay its harness's (buildSessionContext) followed by the
// cleanup its runner applies before each model call (sanitizeSessionHistory). The database is
// opened read-only.
import { DatabaseSync } from "node:sqlite";
import { exported, moduleWith } from "./openclaw_dist.mjs";

const [dist, dbPath, ...sessionIds] = process.argv.slice(2);

const readers = await moduleWith(dist, "doctor-session-sqlite-transcript-readers-", "var ReadOnlySqliteTranscriptReader = class");
const Reader = exported(readers, "ReadOnlySqliteTranscriptReader");
const harness = await moduleWith(dist, "session-", "function buildSessionContext(pathEntries)");
const convertToLlm = exported(harness, "convertToLlm");
const managers = await moduleWith(dist, "session-manager-", "var SessionManager = class");
const SessionManager = exported(managers, "SessionManager");
const runtime = await moduleWith(dist, "builtin-openclaw-", "async function sanitizeSessionHistory(");
const sanitizeSessionHistory = exported(runtime, "sanitizeSessionHistory");

const db = new DatabaseSync(dbPath, { readOnly: true });
const reader = new Reader(db);

function text(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => b && b.type === "text").map((b) => b.text).join("\n");
}

const out = {};
for (const sessionId of sessionIds) {
  const rows = db.prepare(reader.labelRowsSql).all(sessionId);
  const events = rows.map((row) => JSON.parse(row.event_json));
  const manager = SessionManager.fromEntries(events);
  const header = events.find((e) => e.type === "session");
  const snapshot = events.findLast((e) => e.type === "custom" && e.customType === "model-snapshot");
  const model = snapshot?.data ?? {};
  // the replay cleanup OpenClaw runs before every model call (it drops transcript-only rows)
  const replayed = await sanitizeSessionHistory({
    messages: manager.buildSessionContext().messages, sessionManager: manager,
    sessionId: header?.id ?? sessionId, provider: model.provider, modelApi: model.modelApi,
    modelId: model.modelId, config: {},
  });
  const context = convertToLlm(replayed);
  out[sessionId] = {
    entries: events.filter((e) => e.type !== "session").map((e) => e.id),
    active_path: manager.getBranch().map((e) => e.id),
    leaf_id: manager.getLeafId(),
    context: context.map((m) => ({ role: m.role, text: text(m.content) })),
  };
}
db.close();
process.stdout.write(JSON.stringify(out));
