// The profile's timeline (/api/profile's `timeline`, or a window of it from
// /api/profile/timeline) as an SVG: its spans in lanes on a time axis and under them, on the same
// axis, the bytes allocated with their peak, so that an op and the memory it took line up. It
// borrows the runs timeline's geometry and look (timeline.ts); profile_zoom.ts puts it on the page.

import type { MemorySeries, ProfileTimeline, TimelineSpan } from "./api";
import { h, s } from "./dom";
import { formatBytes, formatCount, formatDuration } from "./format";
import { AXIS_H, BAR_H, PALETTE, PLOT_X0, PLOT_X1, WIDTH, truncate } from "./timeline";

const LANE_H = 20;
const GAP = 14;
const MEMORY_H = 100;
const PEAK_ROOM = 16; // above the highest point, for the peak's label
const MIN_SPAN_W = 1;


// The bytes the session held when the profile began (less those of its tracked blocks freed
// since), at the bottom of the stack (the daemon's kHeldBefore), then MemoryCategory's order (engine/profiler/record.h); the JSON object's keys
// come sorted by name.
const HELD_BEFORE = "held_before_profile";
const CATEGORY_ORDER = [HELD_BEFORE, "tensor", "staging", "scratch", "workspace", "graph_pool"];

/** How the page names a category: the daemon's name, but the held bytes in words. */
function categoryLabel(category: string): string {
  return category === HELD_BEFORE ? "held before the profile" : category;
}

function categoryTitle(category: string, m: MemorySeries): string {
  if (category !== HELD_BEFORE) return `${category}: allocated bytes over time (peak of all ${formatBytes(m.peak_bytes)})`;
  return `held before the profile: ${formatBytes(m.held_before ?? 0)}, the session's live tensors when it began ` +
    "(not split by category; it drops when those the daemon tracked, allocated while an earlier profile " +
    "recorded memory, are freed; the profile does not see the others' frees); " +
    `it held ${formatBytes(m.held_at_end ?? 0)} of live tensors when the profile ended` +
    (m.held_before_by?.length ? "; held most by " + m.held_before_by.map((x) => `${x.origin} ${formatBytes(x.bytes)}`).join(", ") : "");
}

interface Lane {
  order: number;
  label: string;
  title: string;
  spans: TimelineSpan[];
}

/** Spans nest (a request holds its stages, an execute its steps): each level gets its lane. */
function laneOf(span: TimelineSpan): Omit<Lane, "spans"> {
  switch (span.stage) {
    case "request":
      return { order: 0, label: "requests", title: "each Session.run, from its arrival to its reply" };
    case "execute":
      return { order: 2, label: "execute", title: "the whole plan of a run" };
    case "step":
      return { order: 3, label: "ops", title: "the plan's steps: an op or a fused group each" };
    case "kernel":
    case "memcpy": {
      const stream = span.stream ?? 0;
      return { order: 10 + stream, label: `GPU stream ${stream}`, title: "kernels and copies on the device" };
    }
    default:
      return { order: 1, label: "stages", title: "receive, queue wait, validate, plan lookup and build, upload, fetch" };
  }
}

function lanesOf(spans: TimelineSpan[]): Lane[] {
  const byLabel = new Map<string, Lane>();
  for (const span of spans) {
    const lane = laneOf(span);
    let found = byLabel.get(lane.label);
    if (!found) {
      found = { ...lane, spans: [] };
      byLabel.set(lane.label, found);
    }
    found.spans.push(span);
  }
  return [...byLabel.values()].sort((a, b) => a.order - b.order);
}

/** Ops get the same colour wherever they show: matmul stays matmul from run to run. */
function opColour(name: string): string {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

/** A time axis step giving 5 to 10 ticks: 1, 2 or 5 times a power of ten microseconds. */
function tickStep(totalUs: number): number {
  const target = totalUs / 8;
  const power = 10 ** Math.floor(Math.log10(Math.max(target, 0.01)));
  for (const m of [1, 2, 5]) if (m * power >= target) return m * power;
  return 10 * power;
}

/** A tick's label in the unit of the axis' end, with the digits its step needs (12.32 ms). */
function tickLabel(us: number, step: number, endUs: number): string {
  if (us === 0) return "0";
  const [scale, unit] = endUs >= 1e6 ? [1e6, "s"] : endUs >= 1e3 ? [1e3, "ms"] : [1, "µs"];
  const digits = Math.max(0, -Math.floor(Math.log10(step / scale) + 1e-9));
  return `${(us / scale).toFixed(digits)} ${unit}`;
}

/** The part of the profile `t` covers, in µs since it started. */
export function windowOf(t: ProfileTimeline): { from: number; to: number } {
  if (t.window) return { from: t.window.from_us, to: t.window.to_us };
  return { from: 0, to: Math.max(t.duration_us, ...t.spans.map((x) => x.start_us + x.duration_us), 1) };
}

function spanTitle(span: TimelineSpan): string {
  const lines = [
    span.name === span.stage ? span.name : `${span.name} · ${span.stage}`,
    `${formatDuration(span.duration_us / 1000)}, from ${formatDuration(span.start_us / 1000)}`,
  ];
  if (span.source) lines.push(`at ${span.source}`);
  lines.push(`request ${span.request}`);
  return lines.join("\n");
}

/** The series' categories, the daemon's order (tensor at the bottom of the stack), unknown ones last. */
function categoriesOf(m: MemorySeries): string[] {
  const rank = (c: string): number => {
    const i = CATEGORY_ORDER.indexOf(c);
    return i < 0 ? CATEGORY_ORDER.length : i;
  };
  return Object.keys(m.by_category).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** A class name from a category the daemon names ("graph_pool"): its letters only. */
function categoryClass(category: string): string {
  return `mem-${category.replace(/[^a-z_]/g, "")}`;
}

/** The spans in lanes on the time axis of `t`'s window, its memory under them. */
export function timelineSvg(t: ProfileTimeline): SVGSVGElement {
  const lanes = lanesOf(t.spans);
  const { from, to } = windowOf(t);
  const xOf = (us: number): number =>
    PLOT_X0 + ((Math.min(Math.max(us, from), to) - from) / (to - from)) * (PLOT_X1 - PLOT_X0);
  const memoryTop = AXIS_H + Math.max(lanes.length, 1) * LANE_H + GAP;
  const height = t.memory ? memoryTop + MEMORY_H + 6 : memoryTop;
  const svg = s("svg", {
    "data-testid": "profile-timeline",
    "data-from-us": from,
    "data-to-us": to,
    class: "timeline profile-timeline",
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: "img",
    "aria-label": "the profile's spans by stage on a time axis, with the memory allocated under them",
  });

  const step = tickStep(to - from);
  for (let us = Math.ceil(from / step - 1e-9) * step; us <= to + 1e-6; us += step) {
    const x = xOf(us);
    svg.append(
      s("line", { class: "grid", x1: x, x2: x, y1: AXIS_H - 4, y2: height }),
      s("text", { "data-testid": "profile-tick", class: "tick", x, y: AXIS_H - 8, "text-anchor": x > PLOT_X1 - 24 ? "end" : "middle" },
        tickLabel(us, step, to)),
    );
  }
  if (lanes.length === 0) {
    svg.append(s("text", { class: "empty", x: (PLOT_X0 + PLOT_X1) / 2, y: AXIS_H + 14, "text-anchor": "middle" },
      t.window ? "no spans in this part of the profile" : "no spans: nothing ran in this session while it was traced"));
  }
  lanes.forEach((lane, i) => {
    const y = AXIS_H + i * LANE_H;
    const g = s("g", { "data-testid": "profile-lane", "data-lane": lane.label, class: "lane" },
      s("line", { class: "lane-line", x1: PLOT_X0, x2: PLOT_X1, y1: y + LANE_H / 2, y2: y + LANE_H / 2 }),
      s("text", { class: "lane-label", x: 4, y: y + LANE_H / 2 + 4 }, s("title", {}, lane.title), lane.label));
    for (const span of lane.spans) {
      const x = Math.min(xOf(span.start_us), PLOT_X1 - MIN_SPAN_W); // its least width within the plot
      const op = span.stage === "step" || span.stage === "kernel";
      g.append(s("rect", {
        "data-testid": "profile-span",
        "data-stage": span.stage,
        "data-name": span.name,
        class: `span stage-${span.stage.replace(/[^a-z_]/g, "")}`,
        fill: op ? opColour(span.name) : undefined,
        x: x.toFixed(2),
        y: y + (LANE_H - BAR_H) / 2,
        width: Math.max(xOf(span.start_us + span.duration_us) - x, MIN_SPAN_W).toFixed(2),
        height: BAR_H,
      }, s("title", {}, spanTitle(span))));
    }
    svg.append(g);
  });
  if (t.memory) svg.append(memoryChart(t.memory, xOf, to, memoryTop));
  return svg;
}

/** The bytes allocated as stacked step areas, one per category, the total as a line on top. */
function memoryChart(m: MemorySeries, xOf: (us: number) => number, end: number, top: number): SVGGElement {
  const bottom = top + MEMORY_H;
  const peak = m.peak_bytes;
  const g = s("g", { "data-testid": "profile-memory-chart", class: "memory" },
    s("text", { class: "lane-label", x: 4, y: top + MEMORY_H / 2 + 4 },
      s("title", {}, "the session's bytes: what it held when the profile began, and the blocks it allocated since"),
      "memory"),
    s("line", { class: "grid", x1: PLOT_X0, x2: PLOT_X1, y1: bottom, y2: bottom }));
  if (peak <= 0 || m.t_us.length === 0) {
    g.append(s("text", { class: "empty", x: (PLOT_X0 + PLOT_X1) / 2, y: top + MEMORY_H / 2, "text-anchor": "middle" },
      "no memory held or allocated while traced"));
    return g;
  }
  const yOf = (bytes: number): number => bottom - (bytes / peak) * (MEMORY_H - PEAK_ROOM);
  const xs = m.t_us.map(xOf);
  // Its first point is the profile's start (t 0), with the bytes held then.
  const steps = (values: number[]): string =>
    `M${PLOT_X0},${bottom}` + values.map((v, i) => `H${xs[i].toFixed(2)}V${yOf(v).toFixed(2)}`).join("") +
    `H${xOf(end).toFixed(2)}`;
  // Stacked: each area reaches the sum of its category and those before it, drawn top first.
  const categories = categoriesOf(m);
  const sums = categories.map((_, c) => m.t_us.map((_, i) =>
    categories.slice(0, c + 1).reduce((total, name) => total + (m.by_category[name][i] ?? 0), 0)));
  for (let c = categories.length - 1; c >= 0; c--) {
    g.append(s("path", {
      "data-testid": "profile-memory",
      "data-category": categories[c],
      class: `area ${categoryClass(categories[c])}`,
      d: `${steps(sums[c])}V${bottom}Z`,
    }, s("title", {}, categoryTitle(categories[c], m))));
  }
  g.append(s("path", { "data-testid": "profile-memory-total", class: "total", d: steps(m.allocated) }));
  const px = xOf(m.peak_us);
  const right = px > (PLOT_X0 + PLOT_X1) / 2;
  g.append(
    s("line", { class: "peak-rule", x1: PLOT_X0, x2: PLOT_X1, y1: yOf(peak), y2: yOf(peak) }),
    s("circle", { class: "peak", cx: px.toFixed(2), cy: yOf(peak).toFixed(2), r: 3 }),
    s("text", {
      "data-testid": "profile-memory-peak",
      "data-value": peak,
      class: "peak-label",
      x: (right ? px - 6 : px + 6).toFixed(2),
      y: yOf(peak) - 5,
      "text-anchor": right ? "end" : "start",
    }, `peak ${formatBytes(peak)} at ${formatDuration(m.peak_us / 1000)}`),
    s("text", { class: "tick", x: PLOT_X0 - 6, y: yOf(peak) + 4, "text-anchor": "end" }, formatBytes(peak)),
    s("text", { class: "tick", x: PLOT_X0 - 6, y: bottom, "text-anchor": "end" }, "0"),
  );
  return g;
}

/** The memory categories' swatches, then how to read the timeline and what it leaves out. */
export function timelineLegend(t: ProfileTimeline, zoomable: boolean): HTMLElement {
  const notes: string[] = [];
  if (t.spans_left_out > 0) {
    notes.push(`the ${formatCount(t.spans_left_out)} shortest spans ${t.window ? "here " : ""}are left out` +
      (zoomable ? " (zoom in to see them)" : ""));
  }
  if (t.memory && t.memory.points_left_out > 0) {
    notes.push(`memory: ${formatCount(t.memory.events)} changes, drawn as each moment's highest`);
  }
  if (!t.memory) notes.push("memory was not recorded");
  const categories = t.memory ? categoriesOf(t.memory) : [];
  return h("p", { class: "legend" },
    ...categories.flatMap((c) => [h("span", { class: `swatch ${categoryClass(c)}` }),
      h("span", { "data-testid": "profile-memory-legend-item", "data-category": c }, `${truncate(categoryLabel(c), 24)} `)]),
    h("span", { class: "hint" },
      `${categories.length > 0 ? "· " : ""}hover a span for its op, duration and line` +
      (zoomable ? "; drag across the timeline to zoom in" : "") +
      notes.map((n) => `; ${n}`).join("")));
}
