// memkit's plugin for OpenCode, written by `memkit install opencode` (docs/agents.md): before
// each prompt reaches the model, the team's memory about it (and, on a session's first
// prompt, the session's index) is added to the message as text parts the model reads, as
// `memkit-hook` answers them. It names no path of one machine: the repositories are taken
// from this project's folder. It never breaks a session: whatever fails, the prompt goes on.
import { spawn } from "node:child_process";

const ARGS = __MEMKIT_ARGS__;
const DEADLINE_MS = 6000; // memkit-hook keeps its own 5 s deadline

function hook(event, payload, cwd) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn("memkit-hook", [event, ...ARGS], { cwd, stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve("");
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve("");
    }, DEADLINE_MS);
    child.on("error", () => {
      clearTimeout(timer);
      resolve("");
    });
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function context(answer) {
  try {
    const text = JSON.parse(answer).hookSpecificOutput.additionalContext;
    return typeof text === "string" ? text : "";
  } catch {
    return "";
  }
}

export const MemkitPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  const started = new Set();
  return {
    "chat.message": async (input, output) => {
      try {
        const session = input.sessionID || output.message.sessionID || "";
        const own = output.parts.filter((p) => p.type === "text" && !p.synthetic);
        const prompt = own.map((p) => p.text).join("\n");
        const notes = [];
        if (!started.has(session)) {
          started.add(session);
          const payload = { session_id: session, cwd, source: "startup" };
          notes.push(context(await hook("session-start", payload, cwd)));
        }
        if (prompt.trim()) {
          const payload = { session_id: session, cwd, prompt };
          notes.push(context(await hook("user-prompt-submit", payload, cwd)));
        }
        const base = own[0] || output.parts[0];
        notes.filter(Boolean).forEach((text, n) => {
          output.parts.push({
            id: `${base.id}memkit${n}`,
            sessionID: output.message.sessionID,
            messageID: output.message.id,
            type: "text",
            text,
            synthetic: true,
          });
        });
      } catch {
        // Memory is never worth a broken prompt.
      }
    },
    event: async ({ event }) => {
      try {
        const session = event.properties && event.properties.sessionID;
        if (event.type === "session.idle" && session) {
          await hook("stop", { session_id: session, cwd }, cwd);
        }
      } catch {
        // Nothing to undo.
      }
    },
  };
};
