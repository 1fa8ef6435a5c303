// The UI test's harness: child processes whose output is gathered, and waiting for things
// (tests/ui/dashboard_test.mjs).

import { spawn } from "node:child_process";

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until `accept(value)` holds; on timeout, throws with the last value seen. */
export async function waitUntil(what, probe, accept, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last;
  let lastError;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (accept(last)) return last;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      const seen = lastError ? `error: ${lastError.message}` : JSON.stringify(last, null, 2);
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; last seen:\n${seen}`);
    }
    await sleep(200);
  }
}

/** A child process whose stdout and stderr are gathered, with a way to wait for a line. */
export function start(name, command, args, options = {}) {
  const proc = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], ...options });
  const child = { name, proc, output: "", exit: null };
  child.exited = new Promise((resolve) => {
    proc.on("exit", (code, signal) => {
      child.exit = { code, signal };
      resolve(child.exit);
    });
    proc.on("error", (e) => {
      child.output += `\n[${name}: ${e.message}]`;
      child.exit = { code: null, signal: null, error: e.message };
      resolve(child.exit);
    });
  });
  proc.stdout.on("data", (d) => { child.output += d; });
  proc.stderr.on("data", (d) => { child.output += d; });
  proc.stdin.on("error", () => {}); // EPIPE when it has gone already
  return child;
}

/** Resolves with the first match of `re` in the child's output; rejects on exit or timeout. */
export async function waitForOutput(child, re, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = child.output.match(re);
    if (m) return m;
    if (child.exit) {
      throw new Error(`${child.name} exited (${JSON.stringify(child.exit)}) before ${what}; its output:\n${child.output}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`${child.name}: no ${what} within ${timeoutMs / 1000} s; its output:\n${child.output}`);
    }
    await sleep(100);
  }
}

export async function stop(child, signal = "SIGTERM", timeoutMs = 10000) {
  if (!child || child.exit) return child?.exit;
  child.proc.kill(signal);
  const timer = sleep(timeoutMs).then(() => "timeout");
  if ((await Promise.race([child.exited, timer])) === "timeout") {
    child.proc.kill("SIGKILL");
    await child.exited;
    return { ...child.exit, timedOut: true };
  }
  return child.exit;
}
