// SessionLens for pi (tested under pi 1.6.0): every compaction goes through SessionLens.
//
// On `session_before_compact` this hands pi's preparation (session file, first kept entry,
// tokens before, reason, custom instructions) to `sessionlens compact-for-agent` (one CLI
// call, JSON on stdin and stdout) and returns `{compaction: {...}}` with SessionLens's
// summary: the user's pins carried word for word, the standing focus, secrets redacted
// before the summarizer the user chose sees anything, the audit passed.
// When the audit fails SessionLens says what the user chose: hand back pi's own summary
// (return nothing) or cancel. When SessionLens is missing, slower than the deadline,
// crashes or answers nonsense, pi compacts exactly as without this extension, and the
// reason goes into SessionLens's journal (one appended JSON line).
//
// Configuration: $SESSIONLENS_PI_CONFIG, else <pi agent dir>/sessionlens.json, written by
// `sessionlens integrate pi`: {"command": [argv...], "deadline_ms": N, "journal": PATH}.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const DEFAULT_DEADLINE_MS = 50000;

function agentDir() {
  return process.env.PI_CODING_AGENT_DIR || path.join(os.homedir(), ".pi", "agent");
}

function loadConfig() {
  const file = process.env.SESSIONLENS_PI_CONFIG || path.join(agentDir(), "sessionlens.json");
  try {
    const cfg = JSON.parse(fs.readFileSync(file, "utf8"));
    if (!Array.isArray(cfg.command) || cfg.command.length === 0) return null;
    return cfg;
  } catch {
    return null; // not configured: pi as without SessionLens
  }
}

function journal(cfg, entry) {
  if (!cfg.journal) return;
  const line = JSON.stringify({
    v: 1, at: new Date().toISOString(), agent: "pi", writer: "agent", summarizer: "pi",
    audit_passed: null, failed_checks: [], pins_kept: [], pins_missing: [], dropped: [],
    extra: { from: "pi-extension" }, ...entry,
  }) + "\n";
  try {
    fs.mkdirSync(path.dirname(cfg.journal), { recursive: true });
    const fd = fs.openSync(cfg.journal, "a", 0o600); // O_APPEND: one write, one line
    try { fs.writeSync(fd, line); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  } catch {
    // the journal must never break pi's compaction
  }
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
      finish(reject, new Error("the compaction was aborted"));
    };
    if (signal) signal.addEventListener("abort", onAbort);
    child.on("error", (err) => finish(reject, new Error(
      err.code === "ENOENT" ? `SessionLens is not installed (${cfg.command[0]} not found)`
        : `SessionLens could not be started: ${err.message}`)));
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { errText += d; });
    child.stdin.on("error", () => {}); // a child that died early: reported by 'close'
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

export default function sessionlens(pi) {
  pi.on("session_before_compact", async (event, ctx) => {
    const cfg = loadConfig();
    if (!cfg) return undefined;
    const prep = event.preparation;
    const sm = ctx.sessionManager;
    const sessionFile = sm.getSessionFile();
    const base = {
      session: sm.getSessionId(), session_file: sessionFile || "", trigger: event.reason,
      tokens_before: prep.tokensBefore,
    };
    if (!sessionFile) {
      journal(cfg, { ...base, fallback_reason: "the session is not saved to a file (--no-session): pi compacted on its own" });
      return undefined;
    }
    let answer;
    try {
      answer = await callSessionLens(cfg, {
        agent: "pi", session_file: sessionFile, session_id: sm.getSessionId(),
        trigger: event.reason, first_kept_entry_id: prep.firstKeptEntryId,
        tokens_before: prep.tokensBefore, custom_instructions: event.customInstructions || "",
      }, event.signal);
    } catch (err) {
      journal(cfg, { ...base, fallback_reason: `${err.message}: pi wrote its own summary` });
      return undefined;
    }
    if (answer && answer.ok === true && typeof answer.summary === "string" && answer.summary) {
      return {
        compaction: {
          summary: answer.summary,
          firstKeptEntryId: answer.first_kept_entry_id || prep.firstKeptEntryId,
          tokensBefore: prep.tokensBefore,
          details: answer.details || { sessionlens: true },
        },
      };
    }
    // SessionLens journaled why (a failed audit, a refusal); the user's choice decides
    if (answer && answer.use === "cancel") return { cancel: true };
    return undefined;
  });
}
