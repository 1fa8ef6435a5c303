// The last minute's memory (/api/status's memory_history) under the runs timeline, on its 60 s
// axis (timeline.ts): the live bytes of each session stacked, closed sessions included, a
// caching allocator's reserved bytes as a dashed line over them, and the CPU's cache of freed
// host blocks (host_cached) as a dotted line, so that a team sharing a device sees whose memory
// grew and what the daemon keeps beyond it. On a daemon with only the CPU every live byte is host
// memory, and the cache is memory the daemon holds on top of the live tensors: its line is drawn
// over the sessions' stack (their sum plus the cache), the gap between them being the cache. With
// a GPU the stack mixes device and host bytes, and the cache's line is drawn from 0 on its own. Session names come from clients: they go in as text only (dom.ts). The
// daemon sends at most 16 sessions' series (the highest peaks) and the rest summed as
// `other_sessions`, drawn as one grey band on top so that the stack's total stays every session's.

import type { MemoryHistory, Status } from "./api";
import { h, s } from "./dom";
import { formatBytes } from "./format";
import { AXIS_H, PALETTE, PLOT_X0, PLOT_X1, WIDTH, WINDOW_S, truncate, windowAxis, windowX } from "./timeline";

const CHART_H = 120;
const TOP_ROOM = 8; // above the highest point
const OTHER_COLOUR = "#5f6368"; // a grey darker than the palette's

/** The sessions the daemon summed, past the 16 it gives a series of their own (api.ts's MemoryHistory, plus this). */
interface OtherSessions {
  count: number;
  live_bytes: number[];
}
type WithOther = MemoryHistory & { other_sessions?: OtherSessions };

interface Stacked {
  id: number;
  name: string;
  open: boolean;
  bytes: number[];
  /** For the band of the summed sessions: how many; undefined for a session's own band. */
  other?: number;
  /** The top of its band: its bytes plus those of the sessions below it. */
  top: number[];
}

export function sessionColour(id: number): string {
  return PALETTE[id % PALETTE.length];
}

function bandColour(band: Stacked): string {
  return band.other === undefined ? sessionColour(band.id) : OTHER_COLOUR;
}

function bandName(band: Stacked): string {
  return band.other === undefined ? band.name || "(unnamed)" : `${band.other} other sessions, summed`;
}

/** The sessions that held bytes in the window, by id (the oldest at the bottom), stacked, the summed others on top. */
function stack(m: WithOther, first: number, openIds: Set<number>): Stacked[] {
  const out: Stacked[] = [];
  for (const x of [...m.sessions].sort((a, b) => a.id - b.id)) {
    const bytes = x.live_bytes.slice(first);
    if (!bytes.some((b) => b > 0)) continue;
    const below = out.length > 0 ? out[out.length - 1].top : bytes.map(() => 0);
    out.push({ id: x.id, name: x.name, open: openIds.has(x.id), bytes, top: bytes.map((b, i) => b + below[i]) });
  }
  const other = m.other_sessions;
  const bytes = other?.live_bytes.slice(first) ?? [];
  if (other && bytes.some((b) => b > 0)) {
    const below = out.length > 0 ? out[out.length - 1].top : bytes.map(() => 0);
    out.push({ id: -1, name: "", open: true, other: other.count, bytes, top: bytes.map((b, i) => b + below[i]) });
  }
  return out;
}

/** What a series did in the window: its last value, and its highest with when it was first reached. */
function describe(values: number[], times: number[], now: number): string {
  let peak = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[peak]) peak = i;
  const ago = Math.round(now - times[peak]);
  return `${formatBytes(values[values.length - 1] ?? 0)} at the last sample; the most, ` +
    `${formatBytes(values[peak] ?? 0)}, first ${ago <= 0 ? "just now" : `${ago} s ago`}`;
}

export function renderMemoryHistory(status: Status): HTMLElement {
  const now = status.daemon.uptime_s;
  const m: WithOther = status.memory_history;
  const first = Math.max(m.t_s.findIndex((t) => t >= now - WINDOW_S), 0);
  const times = m.t_s.slice(first);
  const stacked = stack(m, first, new Set(status.sessions.map((x) => x.id)));
  const reserved = m.devices.flatMap((d) => d.reserved ? [{ label: `${d.kind}:${d.index}`, bytes: d.reserved.slice(first) }] : []);
  const cached = hostCached(m, first, stacked);
  const height = AXIS_H + CHART_H + 6;
  const bottom = AXIS_H + CHART_H;
  const svg = s("svg", {
    "data-testid": "memory-history",
    class: "timeline memory-history",
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: "img",
    "aria-label": `live bytes by session over the last ${WINDOW_S} seconds`,
  });
  windowAxis(svg, now, height);
  svg.append(
    s("line", { class: "grid", x1: PLOT_X0, x2: PLOT_X1, y1: bottom, y2: bottom }),
    s("text", { class: "lane-label", x: 4, y: AXIS_H + CHART_H / 2 + 4 },
      s("title", {}, "the live tensors' bytes of each session, sampled once a second"), "live bytes"),
  );

  const highest = Math.max(0, ...(stacked.at(-1)?.top ?? []), ...reserved.flatMap((r) => r.bytes),
    ...cached.flatMap((c) => c.line));
  if (times.length === 0 || highest <= 0) {
    svg.append(s("text", { class: "empty", x: (PLOT_X0 + PLOT_X1) / 2, y: AXIS_H + CHART_H / 2, "text-anchor": "middle" },
      times.length === 0 ? "no samples yet" : `no session held tensors in the last ${WINDOW_S} s`));
    return section(svg, stacked, reserved.length > 0, cached);
  }
  const xOf = windowX(now);
  const yOf = (bytes: number): number => bottom - (bytes / highest) * (CHART_H - TOP_ROOM);
  // Steps, as the profile's memory: a sample holds until the next (the last one until now), so
  // that a tensor taken shows as a rise, not as a ramp a second long.
  const xs = [...times.map((t) => Math.max(xOf(t), PLOT_X0).toFixed(1)), PLOT_X1.toFixed(1)];
  const line = (values: number[]): string[] => values.flatMap((v, i) => {
    const y = yOf(v).toFixed(1);
    return [`${xs[i]},${y}`, `${xs[i + 1]},${y}`];
  });

  // The scale's top first, under the lines that may run along it.
  svg.append(s("line", { class: "grid", x1: PLOT_X0, x2: PLOT_X1, y1: yOf(highest), y2: yOf(highest) }));
  stacked.forEach((band, i) => {
    const below = i > 0 ? stacked[i - 1].top : band.top.map(() => 0);
    svg.append(s("path", {
      "data-testid": "memory-area",
      "data-session-id": band.other === undefined ? band.id : "other",
      class: band.open ? "area" : "area closed",
      fill: bandColour(band),
      d: `M${line(band.top).join("L")}L${line(below).reverse().join("L")}Z`,
    }, s("title", {}, (band.other === undefined
      ? `${bandName(band)} · session ${band.id}${band.open ? "" : " (closed)"}\n`
      : `${bandName(band)} (open or closed; the ${m.sessions.length} with the highest peaks have bands of their own)\n`) +
      describe(band.bytes, times, now))));
  });
  for (const r of reserved) {
    svg.append(s("path", { "data-testid": "memory-reserved", class: "reserved", d: `M${line(r.bytes).join("L")}` },
      s("title", {}, `${r.label} reserved (held from the device by its caching allocator)\n${describe(r.bytes, times, now)}`)));
  }
  for (const c of cached) {
    const where = c.stacked
      ? "drawn over the sessions' live bytes: the line is their sum plus the cache\n" +
        `the line: ${describe(c.line, times, now)}`
      : "drawn from 0: the sessions' bytes include a GPU's, so the cache is not stacked on them";
    svg.append(s("path", {
      "data-testid": "memory-host-cached",
      "data-stacked": String(c.stacked),
      class: "host-cached",
      d: `M${line(c.line).join("L")}`,
    }, s("title", {}, `${c.label} cached host memory: freed blocks the daemon keeps for reuse, ` +
      `no session's live bytes\n${describe(c.bytes, times, now)}\n${where}`)));
  }
  svg.append(
    s("text", { class: "tick", x: PLOT_X0 - 6, y: yOf(highest) + 4, "text-anchor": "end" }, formatBytes(highest)),
    s("text", { class: "tick", x: PLOT_X0 - 6, y: bottom, "text-anchor": "end" }, "0"),
  );
  return section(svg, stacked, reserved.length > 0, cached);
}

/** A CPU's cache of freed host blocks over the window: its bytes, and the line drawn for them. */
interface HostCached {
  label: string;
  bytes: number[];
  /** Over the sessions' stack (a daemon with only the CPU), or from 0 on its own. */
  stacked: boolean;
  line: number[];
}

/** Each device's host_cached that held bytes in the window, stacked on the sessions' bytes when every device is a CPU. */
function hostCached(m: MemoryHistory, first: number, stacked: Stacked[]): HostCached[] {
  const onTop = m.devices.every((d) => d.kind === "cpu");
  const total = stacked.at(-1)?.top;
  return m.devices.flatMap((d) => {
    const bytes = d.host_cached?.slice(first) ?? [];
    if (!bytes.some((b) => b > 0)) return [];
    const line = onTop ? bytes.map((b, i) => b + (total?.[i] ?? 0)) : bytes;
    return [{ label: `${d.kind}:${d.index}`, bytes, stacked: onTop, line }];
  });
}

function section(svg: SVGSVGElement, stacked: Stacked[], reserved: boolean, cached: HostCached[]): HTMLElement {
  const legend = h("p", { class: "legend", "data-testid": "memory-legend" },
    ...stacked.flatMap((band) => [
      h("span", { class: "swatch", style: `background: ${bandColour(band)}` }),
      band.other === undefined
        ? h("span", { "data-testid": "memory-legend-item", "data-session-id": band.id, class: band.open ? "" : "closed",
          title: `${band.name}, session ${band.id}${band.open ? "" : " (closed)"}` },
        `${truncate(bandName(band), 32)} #${band.id} `)
        : h("span", { "data-testid": "memory-legend-item", "data-session-id": "other",
          title: "sessions past the 16 with the highest peaks in the window, their bytes summed" }, `${bandName(band)} `),
    ]),
    reserved ? h("span", { class: "swatch reserved" }) : null,
    reserved ? "reserved by the device's allocator " : null,
    ...cached.flatMap((c) => [
      h("span", { class: "swatch host-cached" }),
      h("span", { "data-testid": "memory-legend-host-cached" },
        `${c.label} cached host memory (freed blocks kept for reuse)${c.stacked ? ", stacked on the sessions' bytes" : ""} `),
    ]),
    h("span", { class: "hint" }, `${stacked.length > 0 || reserved || cached.length > 0 ? "· " : ""}a sample a second; hover an area ` +
      "for its bytes; names in italics are closed sessions; sessions that held nothing are left out"));
  return h("section", { class: "panel", "data-section": "memory-history" },
    h("h2", {}, `Memory by session, last ${WINDOW_S} s`), svg, legend);
}
