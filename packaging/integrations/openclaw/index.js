// SessionLens as an OpenClaw compaction provider (tested under openclaw 2026.9.6).
//
// `api.registerCompactionProvider({id: "sessionlens", ...})`; selected with
// `agents.defaults.compaction.provider: "sessionlens"`. summarize() hands the messages to
// `sessionlens compact-for-agent` (one CLI call, JSON on stdin and stdout): the user's pins
// (matched by their text) carried word for word, the standing focus plus OpenClaw's own
// instructions, secrets redacted before the summarizer the user chose, the audit.
// Whenever SessionLens is missing, slower than the deadline, crashes, or its summary fails
// the audit, summarize() throws: OpenClaw then runs its built-in safeguard summarizer (its
// documented fallback), and the reason is in SessionLens's journal. An aborted compaction
// rethrows the abort, as OpenClaw asks of providers.
//
// Configuration: plugins.entries.sessionlens.config = {command: [argv...], deadline_ms,
// journal}, written by `sessionlens integrate openclaw`.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const DEFAULT_DEADLINE_MS = 50000;

function journal(cfg, entry) {
  if (!cfg.journal) return;
  const line = JSON.stringify({
    v: 1, at: new Date().toISOString(), agent: "openclaw", session: "", session_file: "",
    trigger: "", writer: "agent", summarizer: "openclaw", audit_passed: null,
    failed_checks: [], pins_kept: [], pins_missing: [], dropped: [],
    extra: { from: "openclaw-plugin" }, ...entry,
  }) + "\n";
  try {
    fs.mkdirSync(path.dirname(cfg.journal), { recursive: true });
    const fd = fs.openSync(cfg.journal, "a", 0o600); // O_APPEND: one write, one line
    try { fs.writeSync(fd, line); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  } catch {
    // the journal must never break OpenClaw's compaction
  }
}

function abortError(signal) {
  return signal.reason instanceof Error ? signal.reason
    : Object.assign(new Error("the compaction was aborted"), { name: "AbortError" });
}

function callSessionLens(cfg, request, signal) {
  const deadline = Number(cfg.deadline_ms) > 0 ? Number(cfg.deadline_ms) : DEFAULT_DEADLINE_MS;
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(cfg.command[0], cfg.command.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      reject(new Error(`SessionLens could not be started: ${err.message}`));
      return;
    }
    let out = "";
    let errText = "";
    let settled = false;
    const finish = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (signal) signal.removeEventListener("abort", onAbort);
      fn(value);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(reject, new Error(`SessionLens did not answer within ${deadline / 1000} s`));
    }, deadline);
    const onAbort = () => {
      child.kill("SIGKILL");
      finish(reject, abortError(signal));
    };
    if (signal) signal.addEventListener("abort", onAbort);
    child.on("error", (err) => finish(reject, new Error(
      err.code === "ENOENT" ? `SessionLens is not installed (${cfg.command[0]} not found)`
        : `SessionLens could not be started: ${err.message}`)));
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { errText += d; });
    child.stdin.on("error", () => {});
    child.on("close", (code, sig) => {
      if (code !== 0) {
        const tail = errText.trim().split("\n").slice(-1)[0] || "";
        finish(reject, new Error(`SessionLens crashed (exit ${code ?? sig})${tail ? ": " + tail : ""}`));
        return;
      }
      try {
        finish(resolve, JSON.parse(out));
      } catch {
        finish(reject, new Error("SessionLens's answer was not JSON"));
      }
    });
    child.stdin.end(JSON.stringify(request));
  });
}

export function createProvider(cfg) {
  return {
    id: "sessionlens",
    label: "SessionLens",
    async summarize({ messages, signal, customInstructions, summarizationInstructions,
      previousSummary } = {}) {
      if (signal && signal.aborted) throw abortError(signal);
      if (!cfg || !Array.isArray(cfg.command) || cfg.command.length === 0) {
        throw new Error("SessionLens is not configured (plugins.entries.sessionlens.config.command)");
      }
      const extra = [customInstructions || "", summarizationInstructions?.identifierInstructions || ""]
        .filter((x) => x.trim()).join("\n\n");
      let answer;
      try {
        answer = await callSessionLens(cfg, {
          agent: "openclaw", trigger: "auto", messages: Array.isArray(messages) ? messages : [],
          custom_instructions: extra, previous_summary: previousSummary || "",
        }, signal);
      } catch (err) {
        if (signal && signal.aborted) throw err; // abort: rethrown, never a fallback
        journal(cfg, { fallback_reason: `${err.message}: OpenClaw's built-in summarizer ran` });
        throw err;
      }
      if (answer && answer.ok === true && typeof answer.summary === "string" && answer.summary.trim()) {
        return answer.summary;
      }
      // SessionLens journaled why; OpenClaw's built-in summarizer takes over
      throw new Error(`SessionLens: ${(answer && answer.reason) || "no summary"}`);
    },
  };
}

export default {
  id: "sessionlens",
  name: "SessionLens",
  description: "Compactions summarized and audited by SessionLens",
  register(api) {
    api.registerCompactionProvider(createProvider(api.pluginConfig || {}));
  },
};
