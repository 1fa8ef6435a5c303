// The timeline: the runs of the last 60 s as an SVG, one lane per session.
// "Now" is daemon.uptime_s; run.start_s is on the same clock.

import type { Run, Status } from "./api";
import { h, s } from "./dom";
import { formatDuration } from "./format";

export const WINDOW_S = 60;

// Shared with the profile's timeline (profile_timeline.ts), so that the two read alike.
export const WIDTH = 960;
const LABEL_W = 150;
export const PLOT_X0 = LABEL_W;
export const PLOT_X1 = WIDTH - 12;
export const AXIS_H = 22;
const LANE_H = 24;
export const BAR_H = 14;
const MIN_BAR_W = 2;

// Tableau 10: the profile's ops (by name) and the memory history's sessions (by id) keep their
// colour from poll to poll.
export const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
  "#ff9da7", "#9c755f", "#bab0ac"];

/** The x of a time on the uptime clock, in the window that ends `now` (the memory chart's too). */
export function windowX(now: number): (t: number) => number {
  const from = now - WINDOW_S;
  return (t) => PLOT_X0 + ((t - from) / WINDOW_S) * (PLOT_X1 - PLOT_X0);
}

/** The window's axis: a tick every 10 s labelled relative to now, its grid line down to `height`. */
export function windowAxis(svg: SVGSVGElement, now: number, height: number): void {
  const xOf = windowX(now);
  for (let ago = WINDOW_S; ago >= 0; ago -= 10) {
    const x = xOf(now - ago);
    svg.append(
      s("line", { class: "grid", x1: x, x2: x, y1: AXIS_H - 4, y2: height }),
      s("text", { class: "tick", x, y: AXIS_H - 8, "text-anchor": "middle" }, ago === 0 ? "now" : `−${ago} s`),
    );
  }
}

interface Lane {
  id: number;
  name: string;
  open: boolean;
  runs: Run[];
}

/** Lanes by session id: every session with a run in the window, and every open session. */
function lanes(status: Status, from: number): Lane[] {
  const byId = new Map<number, Lane>();
  const openIds = new Set(status.sessions.map((x) => x.id));
  for (const session of status.sessions) {
    byId.set(session.id, { id: session.id, name: session.name, open: true, runs: [] });
  }
  for (const run of status.recent_runs) {
    if (run.start_s + run.duration_ms / 1000 < from) continue;
    let lane = byId.get(run.session);
    if (!lane) {
      lane = { id: run.session, name: run.session_name, open: openIds.has(run.session), runs: [] };
      byId.set(run.session, lane);
    }
    lane.runs.push(run);
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

function runTitle(run: Run): string {
  const lines = [
    `${run.session_name} #${run.session}`,
    `${run.nodes} nodes, ${formatDuration(run.duration_ms)}` +
      (run.wait_ms ? ` (waited ${formatDuration(run.wait_ms)} for the device)` : ""),
    `started at uptime ${run.start_s.toFixed(3)} s`,
  ];
  if (!run.ok) lines.push(`error: ${run.error || "(no error text)"}`);
  return lines.join("\n");
}

export function renderTimeline(status: Status): HTMLElement {
  const now = status.daemon.uptime_s;
  const from = now - WINDOW_S;
  const all = lanes(status, from);
  const section = h("section", { class: "panel", "data-section": "timeline" },
    h("h2", {}, `Runs, last ${WINDOW_S} s`));
  const height = AXIS_H + Math.max(all.length, 1) * LANE_H + 4;
  const svg = s("svg", {
    "data-testid": "timeline",
    class: "timeline",
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: "img",
    "aria-label": `runs of the last ${WINDOW_S} seconds, one lane per session`,
  });
  const xOf = windowX(now);
  windowAxis(svg, now, height);

  if (all.length === 0) {
    svg.append(
      s("text", { class: "empty", x: (PLOT_X0 + PLOT_X1) / 2, y: AXIS_H + 16, "text-anchor": "middle" },
        "no sessions and no runs in this window"),
    );
  }

  all.forEach((lane, i) => {
    const y = AXIS_H + i * LANE_H;
    const g = s("g", {
      "data-testid": "timeline-lane",
      "data-session-id": lane.id,
      "data-session-name": lane.name,
      class: lane.open ? "lane" : "lane closed",
    });
    g.append(
      s("line", { class: "lane-line", x1: PLOT_X0, x2: PLOT_X1, y1: y + LANE_H / 2, y2: y + LANE_H / 2 }),
      s("text", { class: "lane-label", x: 4, y: y + LANE_H / 2 + 4 },
        s("title", {}, `${lane.name}, session ${lane.id}${lane.open ? "" : " (closed)"}`),
        `${truncate(lane.name, 14)} #${lane.id}`),
    );
    for (const run of lane.runs) {
      // The wait for a device worker, as a pale bar ahead of the run's own.
      const begin = xOf(run.start_s);
      const waitEnd = Math.min(xOf(run.start_s + (run.wait_ms ?? 0) / 1000), PLOT_X1);
      if (waitEnd - Math.max(begin, PLOT_X0) >= 1) {
        g.append(s("rect", {
          "data-testid": "timeline-wait",
          class: "bar wait",
          x: Math.max(begin, PLOT_X0).toFixed(2),
          y: y + (LANE_H - BAR_H) / 2,
          width: (waitEnd - Math.max(begin, PLOT_X0)).toFixed(2),
          height: BAR_H,
        }, s("title", {}, runTitle(run))));
      }
      const x = Math.max(waitEnd, begin, PLOT_X0);
      const end = Math.min(xOf(run.start_s + run.duration_ms / 1000), PLOT_X1);
      const width = Math.max(end - x, MIN_BAR_W);
      g.append(
        s("rect", {
          "data-testid": "timeline-bar",
          "data-ok": run.ok ? "true" : "false",
          class: run.ok ? "bar ok" : "bar failed",
          x: x.toFixed(2),
          y: y + (LANE_H - BAR_H) / 2,
          width: width.toFixed(2),
          height: BAR_H,
          rx: 1,
        }, s("title", {}, runTitle(run))),
      );
    }
    svg.append(g);
  });

  section.append(svg, legend());
  return section;
}

function legend(): HTMLElement {
  return h("p", { class: "legend" },
    h("span", { class: "swatch ok" }), "ok ",
    h("span", { class: "swatch failed" }), "failed ",
    h("span", { class: "swatch wait" }), "waiting for the device ",
    h("span", { class: "hint" }, "· hover a bar for nodes, duration and error (the timeline holds still meanwhile); greyed lanes are closed sessions"));
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
