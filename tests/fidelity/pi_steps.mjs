// The plumbing harness.mjs and harness_pi.mjs share: the active path of a prefix, the shape a
// preparation is reported in, pi's threshold check (one paraphrase for every release that
// runs the same code), and the job loop that reads stdin and writes one JSON line per record.

import { readFileSync } from "node:fs";

export function branchOf(entries, k, byId, pos) {
  // the active path of the first k entries: pi's leaf is the last entry, walk parentId up
  const path = [];
  const seen = new Set();
  let cur = entries[k - 1];
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    path.unshift(cur);
    const parent = cur.parentId ? byId.get(cur.parentId) : undefined;
    cur = parent && pos.get(parent) < k ? parent : undefined;
  }
  return path;
}

export function indexEntries(entries) {
  // entry -> position, id -> entry, id -> position (what branchOf and prepared look up)
  const byId = new Map();
  const index = new Map();
  const pos = new Map();
  entries.forEach((e, i) => { pos.set(e, i); byId.set(e.id, e); index.set(e.id, i); });
  return { byId, index, pos };
}

export const isoMs = (ts) => new Date(ts).getTime();

export function lastAssistant(messages) {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "assistant") return messages[i];
  return undefined;
}

const messagesIn = (list) => (list ? list.length : 0);

export function prepared(prep, index) {
  if (!prep) return null;
  const first = index.get(prep.firstKeptEntryId);
  return [first === undefined ? -1 : first, prep.isSplitTurn, prep.tokensBefore,
    messagesIn(prep.messagesToSummarize), messagesIn(prep.turnPrefixMessages)];
}

// pi 0.58.3 agent-session.js _checkCompaction, threshold case only, as run before the next
// prompt (_findLastAssistantMessage, skipAbortedCheck=false); 0.73.1 runs the same code.
// Given a release's compaction and session-manager modules, returns
// (path, messages, window, settings) => [tokens|null, compact].
export function piThresholdOf(compaction, session) {
  return (path, messages, window, settings) => {
    const a = lastAssistant(messages);
    if (!a || !settings.enabled) return [null, false];
    const comp = session.getLatestCompactionEntry(path);
    if (comp !== null && a.timestamp <= isoMs(comp.timestamp)) return [null, false];
    let tokens;
    if (a.stopReason === "error") {
      const est = compaction.estimateContextTokens(messages);
      if (est.lastUsageIndex === null) return [null, false];
      const u = messages[est.lastUsageIndex];
      if (comp && u.role === "assistant" && u.timestamp <= isoMs(comp.timestamp)) return [null, false];
      tokens = est.tokens;
    } else {
      if (!a.usage) return [null, false];
      tokens = compaction.calculateContextTokens(a.usage);
    }
    return [tokens, compaction.shouldCompact(tokens, window, settings)];
  };
}

export function readJob() {
  return JSON.parse(readFileSync(0, "utf8"));
}

export function emit(record) {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

export function emitFiles(job, runFile) {
  // one line per file; a file the agent's code throws on reports the error in its line
  for (const file of job.files ?? []) {
    let out;
    try {
      out = runFile(file);
    } catch (err) {
      out = { path: file.path, error: String(err?.stack ?? err) };
    }
    emit(out);
  }
}
