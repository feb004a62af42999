// Differential harness: runs the agents' own published compaction code over every prefix of
// session files and prints what each decides, for tests/fidelity/test_differential.py.
//
// One Node process handles a whole job (a list of files), so the costly imports happen once.
// Input (stdin, JSON): {"files": [{"path": ..., "settings": [{keepRecentTokens,
// reserveTokens, contextWindow}, ...]}], "resume": [path, ...]}.
// Output (stdout): one JSON line per file, {"path", "n", "estimates", "runs"}; one per
// "resume" path, {"resume", "model", "thinkingLevel"}; one per "summaries" path, the summary
// each agent's context starts with and the compaction's details; one per "pairing" path, the rows
// OpenClaw's selectResetKeptEntries keeps of the file's rows (as indices).
//
// Only the pinned packages' own functions decide; what this file adds is plumbing (prefixes,
// index mapping) and two short paraphrases the packages do not export in a form that loads
// under Node 20: OpenClaw's manual preflight and both agents' threshold check. Each says
// where it comes from.

import {
  branchOf, emit, emitFiles, indexEntries, isoMs, lastAssistant, piThresholdOf, prepared, readJob,
} from "./pi_steps.mjs";

const here = new URL("./node/node_modules/", import.meta.url);
const piCompaction = await import(new URL("@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js", here));
const piSession = await import(new URL("@mariozechner/pi-coding-agent/dist/core/session-manager.js", here));
const piMessages = await import(new URL("@mariozechner/pi-coding-agent/dist/core/messages.js", here));

// openclaw 2026.9.6 ships bundled chunks with minified export names; pick its functions by
// their own names (the bundler keeps them) so a wrong chunk fails loudly instead of silently.
async function named(file, wanted) {
  const mod = await import(new URL(`openclaw/dist/${file}`, here));
  const out = {};
  for (const value of Object.values(mod)) {
    if (typeof value === "function" && wanted.includes(value.name)) out[value.name] = value;
  }
  for (const name of wanted) {
    if (!out[name]) throw new Error(`openclaw/dist/${file} has no function ${name}`);
  }
  return out;
}
const oc = await named("compaction-CAzwgOuQ.mjs", [
  "prepareCompaction", "estimateTokens", "estimateContextTokens", "calculateContextTokens",
  "shouldCompact",
]);
const ocSession = await named("session-D9cHHQGH.mjs", ["buildSessionContext", "projectSessionEntryMessage"]);
const ocPairing = await named("tool-result-pairing-Bky0eubt.mjs", ["selectResetKeptEntries"]);

function loadEntries(path) {
  // pi's own reader and migration (v1 -> v3 gives fresh ids; indices are what we report)
  const all = piSession.loadEntriesFromFile(path);
  if (all.length === 0) throw new Error(`${path}: pi does not read this file as a session`);
  piSession.migrateSessionEntries(all);
  return all.filter((e) => e.type !== "session");
}

// pi 0.58.3 compaction.js getMessageFromEntry (not exported)
function piMessageOf(entry) {
  if (entry.type === "message") return entry.message;
  if (entry.type === "custom_message") {
    return piMessages.createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
  }
  if (entry.type === "branch_summary") return piMessages.createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
  if (entry.type === "compaction") return piMessages.createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp);
  return undefined;
}

// pi 0.58.3 agent-session.js _checkCompaction, threshold case (see pi_steps.mjs)
const piThreshold = piThresholdOf(piCompaction, piSession);

// openclaw 2026.9.6 resource-loader AgentSession.checkCompaction, threshold case only, before
// the next prompt (skipAbortedCheck=false); "contextUsage unavailable" is not modelled.
function ocThreshold(path, messages, window, settings) {
  const a = lastAssistant(messages);
  if (!a || !settings.enabled) return [null, false];
  let comp = null;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i].type === "reset") break;
    if (path[i].type === "compaction") { comp = path[i]; break; }
  }
  if (comp !== null && a.timestamp <= isoMs(comp.timestamp)) return [null, false];
  let tokens;
  if (a.stopReason === "error") {
    const est = oc.estimateContextTokens(messages);
    if (est.lastUsageIndex === null) return [null, false];
    tokens = est.tokens;
  } else if (a.usage?.contextUsage?.state === "unavailable") {
    return ["unmodelled", false];
  } else {
    if (!a.usage) return [null, false];
    tokens = oc.calculateContextTokens(a.usage);
  }
  return [tokens, oc.shouldCompact(tokens, window, settings)];
}

function ocPrepare(path, settings) {
  const r = oc.prepareCompaction(path, settings);
  if (!r.ok) return { error: r.error.code ?? String(r.error) };
  return { value: r.value };
}

// openclaw 2026.9.6 resource-loader preflightManualSessionCompaction (what /compact runs):
// prepare with the settings; if that leaves nothing, prepare again with keepRecentTokens 0.
function ocManual(path, settings) {
  const first = ocPrepare(path, settings);
  if (first.error || first.value) return first;
  return ocPrepare(path, { ...settings, keepRecentTokens: 0 });
}

function ocResult(r, index) {
  return r.error ? `error:${r.error}` : prepared(r.value, index);
}

function runFile(job) {
  const entries = loadEntries(job.path);
  const { byId, index, pos } = indexEntries(entries);
  const estimates = {
    pi: entries.map((e) => { const m = piMessageOf(e); return m ? piCompaction.estimateTokens(m) : null; }),
    openclaw: entries.map((e) => { const m = ocSession.projectSessionEntryMessage(e); return m ? oc.estimateTokens(m) : null; }),
  };
  const runs = job.settings.map((s) => {
    const settings = { enabled: true, reserveTokens: s.reserveTokens, keepRecentTokens: s.keepRecentTokens };
    const prefixes = [];
    for (let k = 1; k <= entries.length; k++) {
      const path = branchOf(entries, k, byId, pos);
      const at = (i) => (i >= 0 && i < path.length ? pos.get(path[i]) : -1);
      // pi: the cut on its own, then the whole preparation
      let prev = -1;
      for (let i = path.length - 1; i >= 0; i--) if (path[i].type === "compaction") { prev = i; break; }
      const cut = piCompaction.findCutPoint(path, prev + 1, path.length, s.keepRecentTokens);
      const piCtx = piSession.buildSessionContext(path).messages;
      const ocCtx = ocSession.buildSessionContext(path).messages;
      prefixes.push({
        k,
        pi: {
          cut: [at(cut.firstKeptEntryIndex), at(cut.turnStartIndex), cut.isSplitTurn],
          prep: prepared(piCompaction.prepareCompaction(path, settings), index),
          check: piThreshold(path, piCtx, s.contextWindow, settings),
        },
        openclaw: {
          prep: ocResult(ocPrepare(path, settings), index),
          manual: ocResult(ocManual(path, settings), index),
          check: ocThreshold(path, ocCtx, s.contextWindow, settings),
        },
      });
    }
    return { settings: s, prefixes };
  });
  return { path: job.path, n: entries.length, estimates, runs };
}

function resumeState(path) {
  // what pi restores when it resumes this file: SessionManager's own context (model, level)
  const sm = piSession.SessionManager.open(path);
  const ctx = sm.buildSessionContext();
  return { resume: path, model: ctx.model, thinkingLevel: ctx.thinkingLevel };
}

function stateOf(path) {
  // the same for a file pi must not rewrite (a sample): read and migrate in memory only
  const entries = loadEntries(path);
  const ctx = piSession.buildSessionContext(entries);
  return { state: path, model: ctx.model, thinkingLevel: ctx.thinkingLevel };
}

function summaryOf(path) {
  // how each agent reads back the last compaction of a file: the summary message its
  // context starts with, and the entry's details as pi's own reader keeps them
  const entries = loadEntries(path);
  const comps = entries.filter((e) => e.type === "compaction");
  const text = (m) => (m ? (m.summary ?? m.content ?? null) : null);
  const pi = piSession.SessionManager.open(path).buildSessionContext().messages;
  const openclaw = ocSession.buildSessionContext(entries).messages;
  return { summaries: path, pi: text(pi[0]), piRole: pi[0]?.role ?? null,
           openclaw: text(openclaw[0]), openclawRole: openclaw[0]?.role ?? null,
           details: comps.length ? comps[comps.length - 1].details ?? null : null };
}

const job = readJob();
emitFiles(job, runFile);
for (const path of job.resume ?? []) emit(resumeState(path));
for (const path of job.state ?? []) emit(stateOf(path));
for (const path of job.summaries ?? []) emit(summaryOf(path));
for (const path of job.pairing ?? []) {
  const entries = loadEntries(path);
  const kept = ocPairing.selectResetKeptEntries(entries);
  emit({ pairing: path, kept: kept.map((e) => entries.indexOf(e)) });
}
