// The bytes OpenClaw 2026.9's size guard measures for a session of its SQLite store, by its
// own code: readSessionTranscriptActiveStats (session-accessor.sqlite-active-events-*.mjs,
// which runs readVisibleTranscriptStats of session-accessor.sqlite-visible-cursor-*.mjs), the
// number preflight compaction compares with maxActiveTranscriptBytes (agent-runner-memory-*.mjs,
// readSessionLogSnapshot with includeByteSize) and the memory flush with
// forceFlushTranscriptBytes. Run with the pinned Node 24 and HOME set to the store's home:
//   node openclaw_active_bytes.mjs DIST AGENT SESSION_ID=SESSION_KEY...
// Prints {session id: {sizeBytes, eventCount}}. Rows written behind OpenClaw's back leave its
// projection (session_transcript_active_events) stale: the read then starts OpenClaw's own
// reconcile and is retried until it is done. It writes: run it on a copy.
import { exported, moduleWith } from "./openclaw_dist.mjs";

const [dist, agentId, ...pairs] = process.argv.slice(2);

const events = await moduleWith(dist, "session-accessor.sqlite-active-events-",
  "function readSessionTranscriptActiveStats(scope)");
const stats = exported(events, "readSessionTranscriptActiveStats");
const scopes = await moduleWith(dist, "session-accessor.sqlite-entry-", "function resolveSessionStorePathForScope");
const storePathFor = exported(scopes, "resolveSessionStorePathForScope");
const out = {};
for (const pair of pairs) {
  const [sessionId, sessionKey] = pair.split("=");
  const storePath = storePathFor({ agentId, sessionKey });
  for (let attempt = 0; ; attempt += 1) {
    try {
      out[sessionId] = stats({ agentId, sessionId, sessionKey, storePath });
      break;
    } catch (error) {
      if (error?.name !== "SessionTranscriptProjectionUnavailableError" || attempt > 300) throw error;
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}
process.stdout.write(JSON.stringify(out));
