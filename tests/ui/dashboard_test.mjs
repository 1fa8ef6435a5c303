#!/usr/bin/env node
// The dashboard end to end, no mocks: the real daemon serving the built page, a real
// Python client making runs (one of them failing inside the daemon), the real Chromium.
//
//   node tests/ui/dashboard_test.mjs        (or: cd profiler_ui && npm test)
//
// Needs: the page, the daemon and the Python module built (scripts/build; by hand:
// `npm run build` in profiler_ui/ makes dist/), Debian's chromium. Environment, all optional:
//   TENSORD_BIN    the daemon            (default: build/bin/tensord)
//   DASHBOARD_DIR  the built page        (default: build/dashboard, as scripts/build makes it)
//   PYTHON         the interpreter       (default: /usr/bin/python3)
//   PYTHONPATH     where `tensord` is    (default: build/python)
//   CHROMIUM       the browser           (default: /usr/bin/chromium)
//   UI_ARTIFACTS   where the screenshots go (default: the test's temporary folder,
//                  removed at the end; set it to keep them)
// Prints `dashboard test: N checks passed`; exits 1 with the reason (and the daemon's,
// the workload's and the page's state) on the first failure.

import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { start, stop, waitForOutput, waitUntil } from "./harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const fromEnv = (name, fallback) => path.resolve(process.env[name] || fallback);

const TENSORD_BIN = fromEnv("TENSORD_BIN", path.join(root, "build/bin/tensord"));
const DASHBOARD_DIR = fromEnv("DASHBOARD_DIR", path.join(root, "build/dashboard"));
const PYTHON = process.env.PYTHON || "/usr/bin/python3";
const PYTHONPATH = process.env.PYTHONPATH || path.join(root, "build/python");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

// Markup in the name: a client's bytes must show as text, never run (the page builds with
// textContent only).
const SESSION_NAME = 'ui-test <img src=x onerror="window.__pwned=1">';
const OK_SYNCS = 3; // successful sync points in the workload
const TOKEN = "secret";

let checks = 0;
function check(condition, what, detail = "") {
  if (!condition) throw new Error(`check failed: ${what}${detail ? `\n  ${detail}` : ""}`);
  checks += 1;
  console.log(`ok ${checks} - ${what}`);
}

async function startDaemon(dir, extra = []) {
  const args = [
    "--listen", `unix:${path.join(dir, "tensord.sock")}`,
    "--dashboard", "tcp:127.0.0.1:0",
    "--dashboard-dir", DASHBOARD_DIR,
    "--cache-dir", path.join(dir, "cache"),
    ...extra,
  ];
  const daemon = start(`tensord ${extra.join(" ")}`.trim(), TENSORD_BIN, args);
  const m = await waitForOutput(daemon, /dashboard on (http:\/\/\S+?\/)\s/, "the 'dashboard on http://...' line", 30000);
  const socket = path.join(dir, "tensord.sock");
  await waitUntil(`the daemon's socket ${socket}`, () => fs.existsSync(socket), (exists) => exists, 30000);
  return { daemon, url: m[1], socket };
}

// The workload: a few good runs, one that fails inside the daemon (an index out of range
// is only found when the graph runs; shape errors like a bad matmul are caught by the
// client when recording and never reach the daemon), then it stays connected, holding 256 KiB,
// having freed 4 MiB, which the daemon keeps in its host block cache (the chart's dotted line).
const WORKLOAD = `
import json, sys
import numpy as np
import tensord as td

td.connect(sys.argv[1], name=${JSON.stringify(SESSION_NAME)})
for _ in range(${OK_SYNCS}):
    (td.asarray(np.ones((64, 64), np.float32)) * 2 + 1).numpy()
error = ""
try:
    x = td.asarray(np.arange(4, dtype=np.float32))
    (td.take(x, td.asarray(np.array([0, 7], np.int64)), axis=0) * 2).numpy()
except td.TensorError as e:
    error = str(e)
freed = td.asarray(np.ones((1 << 20,), np.float32))  # 4 MiB: freed, its block stays in the host cache
td.sync(freed)
del freed
held = td.asarray(np.ones((256, 256), np.float32))  # 256 KiB for the memory chart
td.sync(held)
info = td.info()["session"]
print("RESULT " + json.dumps({"error": error, "runs": info["runs"]}), flush=True)
print("ready", flush=True)
sys.stdin.read()
`;

// Two sessions sharing the device: a long eager run (sin steps) and, while it runs, a small
// request from another process, served in a pause between the long run's steps
// (docs/scheduling.md): the device line then counts the pause.
const HEAVY = path.join(root, "tests/support/clients/long_eager_run.py"); // one run of SECONDS of steps
const LIGHT = `
import sys, numpy as np, tensord as td
td.connect(sys.argv[1], name="light")
td.sum(td.asarray(np.ones(4, np.float32))).numpy()
`;

// A session that keeps the device busy with small runs until its stdin closes (the profile).
const BUSY = `
import select, sys, numpy as np, tensord as td
td.connect(sys.argv[1], name="busy")
x = td.asarray(np.ones((128, 128), np.float32))
td.sync(x)  # 64 KiB held before the profile: its memory starts from them
print("ready", flush=True)
while not select.select([sys.stdin], [], [], 0)[0]:
    float(td.softmax(x @ x, axis=-1).sum())
`;

/** What the page shows, read in one go (the page re-renders every second). */
function snapshot(page) {
  return page.evaluate(() => {
    const all = (sel, from = document) => [...from.querySelectorAll(sel)];
    const one = (id) => document.querySelector(`[data-testid="${id}"]`);
    const number = (el) => (el ? Number(el.dataset.value ?? el.textContent.replace(/[^0-9]/g, "")) : null);
    const banner = one("banner");
    return {
      sessions: all('[data-testid="session-row"]').map((r) => ({
        id: r.dataset.sessionId,
        name: r.dataset.sessionName,
        runs: r.querySelector('[data-field="runs"]')?.textContent.trim() ?? null,
        failed: r.querySelector('[data-field="failed_runs"]')?.textContent.trim() ?? null,
        client: r.querySelector('[data-field="client"]')?.textContent.trim() ?? null,
        peer: r.querySelector('[data-field="peer"]')?.textContent.trim() ?? null,
        holding: r.querySelector('[data-field="holding"]')?.textContent.trim() ?? null,
      })),
      summary: {
        sessions: number(one("summary-sessions")),
        runs: number(one("summary-runs")),
        failed: number(one("summary-failed")),
      },
      timeline: Boolean(one("timeline")),
      bars: all('[data-testid="timeline-bar"]').map((b) => ({
        ok: b.dataset.ok,
        lane: b.closest('[data-testid="timeline-lane"]')?.dataset.sessionName ?? null,
        title: b.querySelector("title")?.textContent ?? "",
      })),
      failedRuns: all('[data-testid="failed-run"]').map((e) => e.textContent),
      kernelRows: all('[data-testid="kernel-row"]').length,
      devices: all('[data-testid="device"]').map((e) => e.textContent),
      banner: banner ? { visible: banner.checkVisibility(), text: banner.textContent } : null,
    };
  });
}

async function main() {
  for (const [what, file] of [["TENSORD_BIN", TENSORD_BIN], ["CHROMIUM", CHROMIUM],
    ["DASHBOARD_DIR/index.html (run `npm run build` in profiler_ui/)", path.join(DASHBOARD_DIR, "index.html")]]) {
    if (!fs.existsSync(file)) throw new Error(`missing ${what}: ${file}`);
  }
  const require = createRequire(path.join(root, "profiler_ui/package.json"));
  let chromium;
  try {
    ({ chromium } = require("playwright-core"));
  } catch (e) {
    throw new Error(`playwright-core not found (run \`npm install\` in profiler_ui/): ${e.message}`);
  }

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tensord-ui-"));
  const artifacts = process.env.UI_ARTIFACTS ? path.resolve(process.env.UI_ARTIFACTS) : tmp;
  const children = [];
  let browser;
  let page;
  const pageErrors = [];
  try {
    // 1. The daemon, with its dashboard on a free port.
    const first = await startDaemon(path.join(tmp, "a"));
    children.push(first.daemon);
    console.log(`# daemon: ${first.url}`);
    check(first.url.startsWith("http://127.0.0.1:"), `the daemon prints its dashboard URL (${first.url})`);

    const index = await fetch(first.url);
    const html = await index.text();
    check(index.status === 200 && html.includes('data-testid="banner"'), "GET / serves the built index.html",
      `status ${index.status}, body starts ${JSON.stringify(html.slice(0, 200))}`);
    const missing = await fetch(`${first.url}api/no-such-thing`);
    check(missing.status === 404, "an unknown path answers 404", `status ${missing.status}`);

    // 2. The Python workload, connected until its stdin closes.
    const script = path.join(tmp, "workload.py");
    fs.writeFileSync(script, WORKLOAD);
    const workload = start("python workload", PYTHON, [script, `unix:${first.socket}`], {
      env: { ...process.env, PYTHONPATH },
    });
    children.push(workload);
    const result = JSON.parse((await waitForOutput(workload, /^RESULT (.*)$/m, "its RESULT line", 120000))[1]);
    await waitForOutput(workload, /^ready$/m, "'ready'", 10000);
    console.log(`# workload: ${JSON.stringify(result)}`);
    check(result.error !== "", "the workload's bad index failed inside the daemon", result.error);

    // 3. The page.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless=new"] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    await page.goto(first.url);

    const shown = await waitUntil(`a session row '${SESSION_NAME}' showing ${result.runs} runs`,
      () => snapshot(page),
      (s) => s.sessions.some((r) => r.name === SESSION_NAME && r.runs === String(result.runs)), 20000);
    const row = shown.sessions.find((r) => r.name === SESSION_NAME);
    check(true, `the sessions table shows '${SESSION_NAME}' (id ${row.id}) with ${row.runs} runs`);
    check(row.client.endsWith(` pid ${workload.proc.pid}`), `its client is the workload's process (${row.client})`);
    const heldLine = WORKLOAD.split("\n").findIndex((l) => l.startsWith("held = ")) + 1;
    check(row.holding.endsWith(`workload.py:${heldLine} (upload) 256 KiB`),
      `its live bytes are held most by the workload's line ${heldLine} (${row.holding})`);
    check(row.peer.startsWith(`uid ${process.getuid()} `) && row.peer.endsWith(` pid ${workload.proc.pid}`),
      `its connection is the workload's, as the system says (${row.peer})`);
    const markup = await page.evaluate(() => ({
      pwned: window.__pwned ?? null,
      images: document.querySelectorAll("img").length,
      shownAsText: [...document.querySelectorAll('[data-testid="session-row"]')]
        .some((r) => r.textContent.includes('<img src=x onerror="window.__pwned=1">')),
    }));
    check(markup.pwned === null && markup.images === 0 && markup.shownAsText,
      "the session name's markup shows as text and runs nothing", JSON.stringify(markup));
    check(result.runs >= OK_SYNCS, `the daemon counted the ${OK_SYNCS} good syncs (${result.runs} runs)`);
    check(row.failed === "1", "its failed-runs cell shows 1", JSON.stringify(row));
    check(shown.summary.sessions >= 1, `summary-sessions >= 1 (${shown.summary.sessions})`);
    check(shown.summary.runs >= result.runs, `summary-runs >= ${result.runs} (${shown.summary.runs})`);
    check(shown.summary.failed >= 1, `summary-failed >= 1 (${shown.summary.failed})`);

    const failedEntry = shown.failedRuns.find((t) => /index_select|out of bounds/.test(t));
    check(failedEntry !== undefined, "a failed-run entry carries the daemon's error (index_select ... out of bounds)",
      `entries: ${JSON.stringify(shown.failedRuns)}; the client got: ${result.error}`);
    check(failedEntry.includes(SESSION_NAME), "the failed-run entry names the session", failedEntry);

    check(shown.timeline, "the timeline is there");
    const ours = shown.bars.filter((b) => b.lane === SESSION_NAME);
    check(ours.some((b) => b.ok === "true"), "the timeline has a bar with data-ok=true", JSON.stringify(shown.bars));
    check(ours.some((b) => b.ok === "false"), "the timeline has a bar with data-ok=false", JSON.stringify(shown.bars));
    const failedBar = ours.find((b) => b.ok === "false");
    check(/out of bounds|index_select/.test(failedBar.title), "the failed bar's tooltip has the error", failedBar.title);
    check(shown.kernelRows >= 1, `the kernel cache table has rows (${shown.kernelRows})`);
    check(shown.banner && !shown.banner.visible, "no banner while the daemon answers", JSON.stringify(shown.banner));

    // Under the timeline, the memory history: the session's live bytes as an area, its name in
    // the legend as text (the markup in it runs nothing there either).
    const chart = await waitUntil(`the memory chart's area for session ${row.id}`, () => page.evaluate((id) => {
      const svg = document.querySelector('svg[data-testid="memory-history"]');
      const area = svg?.querySelector(`path[data-testid="memory-area"][data-session-id="${id}"]`);
      const item = document.querySelector(`[data-testid="memory-legend-item"][data-session-id="${id}"]`);
      return {
        chart: Boolean(svg),
        d: area?.getAttribute("d") ?? "",
        title: area?.querySelector("title")?.textContent ?? "",
        legend: item?.textContent ?? "",
        legendElements: item?.children.length ?? null,
        images: document.querySelectorAll("img").length,
      };
    }, row.id), (c) => c.d !== "", 10000);
    check(/^M[\d.,L]+Z$/.test(chart.d), "the memory chart has an area path for the session", chart.d);
    check(chart.title.startsWith(`${SESSION_NAME} · session ${row.id}`) && chart.title.includes("256 KiB at the last sample"),
      "the area's hover title has the session's name and bytes", chart.title);
    check(chart.legend.includes(SESSION_NAME.slice(0, 30)) && chart.legendElements === 0 && chart.images === 0,
      "the chart's legend shows the session name as text", JSON.stringify(chart));

    // The CPU's cache of freed host blocks (the workload's 4 MiB): on a daemon with only the CPU,
    // a dotted line over the sessions' stack, their bytes plus the cache, named in the legend.
    const cpuOnly = (await (await fetch(`${first.url}api/status`)).json()).devices.every((d) => d.kind === "cpu");
    const cache = await waitUntil("the memory chart's host-cache line", () => page.evaluate((id) => {
      const svg = document.querySelector('svg[data-testid="memory-history"]');
      const cached = svg?.querySelector('path[data-testid="memory-host-cached"]');
      const area = svg?.querySelector(`path[data-testid="memory-area"][data-session-id="${id}"]`);
      // The last point of a path: "x,y" pairs joined by L (the area's top runs first, left to right).
      const pointsOf = (d) => (d ?? "").replace(/^M/, "").replace(/Z$/, "").split("L").map((p) => p.split(",").map(Number));
      const top = pointsOf(area?.getAttribute("d"));
      const areaTop = top.length > 1 ? top[top.length / 2 - 1] : null;
      const linePoints = pointsOf(cached?.getAttribute("d"));
      return {
        d: cached?.getAttribute("d") ?? "",
        stacked: cached?.dataset.stacked ?? null,
        title: cached?.querySelector("title")?.textContent ?? "",
        legend: document.querySelector('[data-testid="memory-legend-host-cached"]')?.textContent ?? "",
        lineEnd: linePoints.at(-1) ?? null,
        areaTop,
      };
    }, row.id), (c) => c.d !== "", 10000);
    check(/^M[\d.,L]+$/.test(cache.d), "the memory chart draws the host cache as a line", JSON.stringify(cache));
    check(cache.title.startsWith("cpu:0 cached host memory") && /^4\.\d MiB at the last sample/m.test(cache.title.split("\n")[1]),
      "its hover title names the CPU's cached host memory and its bytes (the freed 4 MiB)", cache.title);
    check(cache.legend.startsWith("cpu:0 cached host memory"), "the legend names the cached host memory", cache.legend);
    if (cpuOnly) {
      check(cache.stacked === "true" && cache.legend.includes("stacked on the sessions' bytes"),
        "on a CPU-only daemon it is drawn over the sessions' live bytes", JSON.stringify(cache));
      check(cache.lineEnd && cache.areaTop && cache.lineEnd[1] < cache.areaTop[1] - 1,
        "the cache's line is above the session's area (its bytes plus the cache)", JSON.stringify(cache));
      check(/the line: 4\.\d MiB at the last sample/.test(cache.title),
        "the line is the session's 256 KiB plus the cache (over 4 MiB)", cache.title);
    }

    fs.mkdirSync(artifacts, { recursive: true });
    const shot = path.join(artifacts, "dashboard.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`# screenshot: ${shot}${artifacts === tmp ? " (removed at exit; set UI_ARTIFACTS to keep it)" : ""}`);

    // 4. The workload ends: its session goes, its runs stay on the timeline.
    workload.proc.stdin.end();
    const closed = await waitUntil(`the session row '${SESSION_NAME}' to go`, () => snapshot(page),
      (s) => !s.sessions.some((r) => r.name === SESSION_NAME), 20000);
    check(true, "the session row goes once the client disconnects");
    const stillThere = closed.bars.filter((b) => b.lane === SESSION_NAME);
    check(stillThere.length >= ours.length, `its ${ours.length} runs stay on the timeline (${stillThere.length})`,
      JSON.stringify(closed.bars));
    const workloadExit = await workload.exited;
    check(workloadExit.code === 0, "the workload exited 0", `${JSON.stringify(workloadExit)}\n${workload.output}`);

    // 4b. Another session's request served in a pause of a long run shows on the device line.
    // 4 s: under ctest's load the calibrated run came out at 0.9 s once, over before the light
    // client had started (its Python and numpy imports take a second or more there).
    const heavy = start("python heavy", PYTHON, [HEAVY, `unix:${first.socket}`, "4"], { env: { ...process.env, PYTHONPATH } });
    children.push(heavy);
    await waitForOutput(heavy, /^sending \d+$/m, "'sending STEPS'", 60000);
    await waitUntil("the heavy run on the device worker (running_s)",
      async () => (await (await fetch(`${first.url}api/status`)).json()).sessions,
      (sessions) => sessions.some((s) => s.name === "heavy" && s.running_s !== undefined), 60000);
    const light = start("python light", PYTHON, ["-c", LIGHT, `unix:${first.socket}`], { env: { ...process.env, PYTHONPATH } });
    children.push(light);
    for (const c of [light, heavy]) {
      const exit = await c.exited;
      check(exit.code === 0, `the ${c.name} client exited 0`, `${JSON.stringify(exit)}\n${c.output}`);
    }
    const paused = await waitUntil("the device line to count a paused run", () => snapshot(page),
      (s) => s.devices.some((d) => /runs? paused for [1-9]/.test(d)), 10000);
    check(true, `the device line counts the pause (${paused.devices.join("; ")})`);

    // 4c. A session row's profile button: the daemon traces that session for 2 s, memory
    // included, and the page shows its key averages, with the client's own line for each op, and
    // its timeline.
    const busy = start("python busy", PYTHON, ["-c", BUSY, `unix:${first.socket}`], { env: { ...process.env, PYTHONPATH } });
    children.push(busy);
    await waitForOutput(busy, /^ready$/m, "'ready'", 60000);
    const busyRow = await waitUntil("the 'busy' session row", () => snapshot(page),
      (s) => s.sessions.some((r) => r.name === "busy"), 10000);
    const busyId = busyRow.sessions.find((r) => r.name === "busy").id;
    await page.hover(`button[data-profile-session="${busyId}"]`);
    await page.click(`button[data-profile-session="${busyId}"]`);
    const profiled = await waitUntil("the profile panel's key averages", () => page.evaluate(() => {
      const panel = document.querySelector('[data-testid="profile"]');
      return {
        state: panel?.dataset.state ?? null,
        title: panel?.querySelector("h2")?.textContent ?? "",
        trace: panel?.querySelector('[data-testid="profile-trace"]')?.getAttribute("href") ?? null,
        rows: [...(panel?.querySelectorAll('[data-testid="profile-row"]') ?? [])].map((r) => ({
          key: r.dataset.key,
          calls: Number(r.querySelector('[data-field="calls"]').textContent.replace(/[^0-9]/g, "")),
          source: r.querySelector('[data-field="source"]').textContent,
        })),
      };
    }), (p) => p.state === "done" || p.state === "failed", 15000);
    check(profiled.state === "done", `the profile of session ${busyId} came back`, JSON.stringify(profiled));
    const matmul = profiled.rows.find((r) => r.key === "matmul");
    check(matmul !== undefined && matmul.calls > 0 && matmul.source === "<string>:8",
      "its key averages list the client's matmul at the client's line", JSON.stringify(profiled));
    check(profiled.title.includes("busy"), `the panel names the session (${profiled.title})`);
    const traceEvents = await page.evaluate(async (href) => {
      const trace = await (await fetch(href)).json();
      return trace.traceEvents.filter((e) => e.ph === "X" && e.name === "matmul").length;
    }, profiled.trace);
    check(profiled.trace?.startsWith("blob:") && traceEvents > 0,
      `the trace download holds Chrome trace events (${traceEvents} matmul spans)`);
    // Under the table, the timeline: spans in lanes, the memory under them on the same axis.
    const drawn = await page.evaluate(() => {
      const svg = document.querySelector('[data-testid="profile"] svg[data-testid="profile-timeline"]');
      if (!svg) return null;
      const spans = [...svg.querySelectorAll('rect[data-testid="profile-span"]')];
      return {
        lanes: [...svg.querySelectorAll('[data-testid="profile-lane"]')].map((g) => g.dataset.lane),
        spans: spans.length,
        matmul: spans.filter((r) => r.dataset.name === "matmul")
          .map((r) => ({ title: r.querySelector("title")?.textContent ?? "", width: Number(r.getAttribute("width")) })),
        memory: [...svg.querySelectorAll('path[data-testid="profile-memory"]')]
          .map((p) => ({ category: p.dataset.category, d: p.getAttribute("d"), title: p.querySelector("title")?.textContent ?? "" })),
        legend: [...document.querySelectorAll('[data-testid="profile"] [data-testid="profile-memory-legend-item"]')]
          .map((e) => ({ category: e.dataset.category, text: e.textContent })),
        total: svg.querySelector('[data-testid="profile-memory-total"]')?.getAttribute("d") ?? "",
        peak: svg.querySelector('[data-testid="profile-memory-peak"]')?.textContent ?? "",
        strayMarkup: svg.querySelectorAll("string").length,
      };
    });
    check(drawn !== null, "the profile panel draws a timeline SVG");
    check(drawn.spans > 0 && ["requests", "execute", "ops"].every((l) => drawn.lanes.includes(l)),
      `it has span rects (${drawn.spans}) in lanes ${drawn.lanes.join(", ")}`);
    check(drawn.matmul.length > 0 && drawn.matmul.every((m) => m.width > 0) &&
      drawn.matmul[0].title.startsWith("matmul") && drawn.matmul[0].title.includes("at <string>:8"),
      "the matmul spans' titles name the op, its duration and the client's line", JSON.stringify(drawn.matmul.slice(0, 2)));
    check(drawn.strayMarkup === 0, "the source '<string>:8' shows as text, not as an element");
    const tensorArea = drawn.memory.find((m) => m.category === "tensor");
    check(tensorArea !== undefined && (tensorArea.d.match(/V/g) ?? []).length > 4 && drawn.total.startsWith("M"),
      "under the spans, a memory path: the tensors' bytes over time", JSON.stringify(drawn.memory).slice(0, 300));
    check(/^peak \d/.test(drawn.peak), `the memory's peak is labelled (${drawn.peak})`);
    // The 64 KiB the client held before the profile began: the memory starts from them, a band of
    // its own at the bottom, named as such.
    const heldArea = drawn.memory.find((m) => m.category === "held_before_profile");
    const heldLegend = drawn.legend.find((l) => l.category === "held_before_profile");
    check(heldArea !== undefined && heldArea.title.startsWith("held before the profile: 64 KiB,") &&
      heldLegend?.text.startsWith("held before the profile"),
      "the memory starts from the 64 KiB held before the profile, a band named so", JSON.stringify({ heldArea, heldLegend }));
    const xLine = BUSY.split("\n").findIndex((l) => l.startsWith("x = ")) + 1;
    check(heldArea.title.includes(`held most by <string>:${xLine} (upload) 64 KiB`),
      "the band's title says which line made the bytes held before", heldArea.title);
    await page.locator('[data-testid="profile"]').screenshot({ path: path.join(artifacts, "dashboard-profile-panel.png") });
    await page.screenshot({ path: path.join(artifacts, "dashboard-profile.png"), fullPage: true });

    // Zoom: a drag across the timeline from 30% to 50% of its plot asks the daemon for that part
    // of the profile and draws it on its own axis; "whole profile" comes back.
    const timelineSelector = '[data-testid="profile"] svg[data-testid="profile-timeline"]';
    const view = () => page.evaluate((sel) => {
      const svg = document.querySelector(sel);
      const box = svg.getBoundingClientRect();
      const rects = [...svg.querySelectorAll('rect[data-testid="profile-span"]')];
      return {
        from: Number(svg.dataset.fromUs), to: Number(svg.dataset.toUs),
        box: { left: box.left, top: box.top, width: box.width, height: box.height },
        xs: rects.map((r) => Number(r.getAttribute("x"))),
        ends: rects.map((r) => Number(r.getAttribute("x")) + Number(r.getAttribute("width"))),
        ticks: [...svg.querySelectorAll('[data-testid="profile-tick"]')].map((t) => t.textContent),
        shown: document.querySelector('[data-testid="profile-window"]')?.textContent ?? "",
        memory: svg.querySelectorAll('path[data-testid="profile-memory"]').length,
        error: document.querySelector('[data-testid="profile-zoom-error"]')?.textContent ?? "",
      };
    }, timelineSelector);
    const whole = await view();
    const [PLOT_X0, PLOT_X1, VIEW_W] = [150, 948, 960]; // timeline.ts's geometry
    const at = (fraction) => PLOT_X0 + fraction * (PLOT_X1 - PLOT_X0);
    const pageX = (x) => whole.box.left + (x * whole.box.width) / VIEW_W;
    const y = whole.box.top + whole.box.height / 2;
    await page.mouse.move(pageX(at(0.3)), y);
    await page.mouse.down();
    await page.mouse.move(pageX(at(0.4)), y, { steps: 4 });
    await page.mouse.move(pageX(at(0.5)), y, { steps: 4 });
    await page.mouse.up();
    const zoomed = await waitUntil("the zoomed timeline", view, (v) => v.from > 0 || v.error !== "", 10000);
    const span = whole.to - whole.from;
    check(zoomed.error === "" && Math.abs(zoomed.from - 0.3 * span) < 0.02 * span &&
      Math.abs(zoomed.to - 0.5 * span) < 0.02 * span,
      `a drag from 30% to 50% shows that part (${zoomed.from.toFixed(0)} to ${zoomed.to.toFixed(0)} µs of ${span.toFixed(0)})`,
      JSON.stringify({ ...zoomed, xs: zoomed.xs.length }));
    check(zoomed.shown.includes(" to ") && zoomed.shown.includes(" of ") && zoomed.ticks[0] !== "0",
      `it says which part (${zoomed.shown}) and the axis starts there (${zoomed.ticks.slice(0, 3).join(", ")})`);
    // Every span the whole view drew inside that part is there, and the short ones it left out too.
    const inside = whole.xs.filter((x, i) => x >= at(0.3) && whole.ends[i] <= at(0.5)).length;
    check(zoomed.xs.length >= inside && zoomed.xs.length > 0 && zoomed.memory > 0 &&
      zoomed.xs.every((x, i) => x >= PLOT_X0 - 0.01 && zoomed.ends[i] <= PLOT_X1 + 0.01),
      `the part draws ${zoomed.xs.length} spans (the whole view had ${inside} in it), within the plot, and its memory`);
    await page.locator('[data-testid="profile"]').screenshot({ path: path.join(artifacts, "dashboard-profile-zoomed.png") });
    await page.click('[data-testid="profile-zoom-reset"]');
    const back = await view();
    check(back.from === 0 && back.to === whole.to && back.xs.length === whole.xs.length && back.shown.startsWith("the whole profile"),
      "'whole profile' draws the whole profile again", JSON.stringify({ ...back, xs: back.xs.length }));
    busy.proc.stdin.end();
    const busyExit = await busy.exited;
    check(busyExit.code === 0, "the busy client exited 0", `${JSON.stringify(busyExit)}\n${busy.output}`);

    // 5. The daemon stops: exit 0, and the page says it cannot reach it.
    const daemonExit = await stop(first.daemon);
    check(daemonExit.code === 0 && !daemonExit.timedOut, "the daemon exits 0 on SIGTERM",
      `${JSON.stringify(daemonExit)}; its output:\n${first.daemon.output}`);
    const down = await waitUntil("the 'daemon unreachable' banner", () => snapshot(page),
      (s) => s.banner?.visible && /daemon unreachable/.test(s.banner.text), 5000);
    check(true, `the page shows the banner: ${down.banner.text}`);

    // 6. A daemon with a token.
    const second = await startDaemon(path.join(tmp, "b"), ["--token", TOKEN]);
    children.push(second.daemon);
    const api = `${second.url}api/status`;
    const anon = await fetch(api);
    const anonBody = await anon.text();
    check(anon.status === 401, "without a token /api/status answers 401", `status ${anon.status}: ${anonBody}`);
    let anonJson = null;
    try {
      anonJson = JSON.parse(anonBody);
    } catch {
      // reported by the check below
    }
    check(typeof anonJson?.error === "string", "the 401 body is {\"error\": ...}", anonBody);
    const anonZoom = await fetch(`${second.url}api/profile/timeline?id=1`);
    check(anonZoom.status === 401, "without a token /api/profile/timeline answers 401", `status ${anonZoom.status}`);
    const wrong = await fetch(api, { headers: { Authorization: "Bearer not-the-token" } });
    check(wrong.status === 401, "a wrong token answers 401", `status ${wrong.status}`);
    const authed = await fetch(api, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const status = authed.status === 200 ? await authed.json() : await authed.text();
    check(authed.status === 200, "with the token it answers 200", `status ${authed.status}: ${JSON.stringify(status)}`);
    check(Array.isArray(status.devices) && status.devices.length > 0, "the status lists devices", JSON.stringify(status));

    await page.goto(second.url);
    await waitUntil("the 'needs a token' banner", () => snapshot(page),
      (s) => s.banner?.visible && /needs a token/.test(s.banner.text) && s.banner.text.includes("#token="), 5000);
    check(true, "without #token= the page says the daemon needs a token");

    await page.goto(`${second.url}#token=${TOKEN}`);
    const withToken = await waitUntil("the devices with #token=", () => snapshot(page),
      (s) => s.devices.length > 0 && !s.banner?.visible, 10000);
    check(withToken.devices.some((d) => d.includes(status.devices[0].name)),
      `with #token= the page shows the devices (${withToken.devices.join("; ")})`);
    const memoryWords = status.devices[0].kind === "cpu" ? "cached for reuse" : "reserved";
    check(withToken.devices.some((d) => d.includes(memoryWords)),
      `the device line gives its memory ('${memoryWords}')`);

    const secondExit = await stop(second.daemon);
    check(secondExit.code === 0 && !secondExit.timedOut, "the token daemon exits 0 on SIGTERM",
      `${JSON.stringify(secondExit)}; its output:\n${second.daemon.output}`);
    check(pageErrors.length === 0, "no uncaught errors in the page", pageErrors.join("\n"));
  } catch (e) {
    if (page) {
      try {
        fs.mkdirSync(artifacts, { recursive: true });
        const shot = path.join(artifacts, "dashboard-failure.png");
        await page.screenshot({ path: shot, fullPage: true });
        e.message += `\n# failure screenshot: ${shot}${artifacts === tmp ? " (removed at exit)" : ""}`;
      } catch {
        // the browser may be the thing that failed
      }
    }
    for (const child of children) e.message += `\n--- ${child.name} output ---\n${child.output.trimEnd()}`;
    if (pageErrors.length) e.message += `\n--- page errors ---\n${pageErrors.join("\n")}`;
    throw e;
  } finally {
    if (browser) await browser.close().catch(() => {});
    for (const child of children) {
      await stop(child, "SIGKILL", 5000);
      for (const stream of [child.proc.stdin, child.proc.stdout, child.proc.stderr]) stream.destroy();
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

try {
  await main();
  console.log(`dashboard test: ${checks} checks passed`);
} catch (e) {
  console.error(`dashboard test FAILED after ${checks} checks: ${e.message}`);
  process.exitCode = 1;
}
