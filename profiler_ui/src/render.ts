// Builds the dashboard's DOM from one /api/status snapshot. No framework:
// each poll rebuilds the content from scratch, which is cheap at this size.

import type { Device, Holding, KernelCache, Profile, Run, Session, Status } from "./api";
import { h } from "./dom";
import { formatAge, formatBytes, formatCount, formatDuration, formatSpan } from "./format";
import { renderMemoryHistory } from "./memory_history";
import { renderProfileTimeline, type FetchWindow } from "./profile_zoom";
import { renderTimeline } from "./timeline";

const MAX_FAILED_SHOWN = 20;

/** The header line under the title: version, uptime, where it listens, its devices. */
export function renderHeader(status: Status): HTMLElement[] {
  const d = status.daemon;
  const meta = h("p", { class: "meta" },
    h("span", { "data-testid": "daemon-version" }, `version ${d.version}`),
    h("span", {}, `pid ${d.pid}`),
    h("span", { "data-testid": "daemon-uptime" }, `up ${formatSpan(d.uptime_s)}`),
    d.listen.length > 0 ? h("span", {}, `clients on ${d.listen.join(", ")}`) : null,
  );
  const devices = h("ul", { class: "devices", "data-testid": "devices" },
    ...status.devices.map(renderDevice));
  if (status.devices.length === 0) devices.append(h("li", { class: "muted" }, "no devices reported"));
  return [meta, devices];
}

function renderDevice(device: Device): HTMLElement {
  const parts: string[] = [];
  if (device.total_memory !== undefined) parts.push(formatBytes(device.total_memory));
  if (device.threads !== undefined) parts.push(`${device.threads} threads`);
  const memory = device.memory ?? {};
  if (memory.allocated !== undefined) {
    parts.push(`allocated ${formatBytes(memory.allocated)} (peak ${formatBytes(memory.allocated_peak ?? 0)})`);
  }
  if (memory.reserved !== undefined) parts.push(`reserved ${formatBytes(memory.reserved)}`);
  if (memory.ooms) parts.push(`${memory.ooms} out-of-memory errors`);
  if (memory.host_cached !== undefined) parts.push(`${formatBytes(memory.host_cached)} cached for reuse`);
  if (device.pauses) {
    const served = device.jobs_in_pauses ?? 0;
    parts.push(`${formatCount(device.pauses)} ${device.pauses === 1 ? "run" : "runs"} paused for ` +
      `${formatCount(served)} other ${served === 1 ? "request" : "requests"}`);
  }
  if (device.inline_runs) {
    parts.push(`${formatCount(device.inline_runs)} small ${device.inline_runs === 1 ? "run" : "runs"} ` +
      "on the event loop");
  }
  return h("li", { class: "device", "data-testid": "device", "data-kind": device.kind },
    h("span", { class: "device-id" }, `${device.kind}:${device.index}`),
    ` ${device.name}`,
    parts.length > 0 ? h("span", { class: "muted" }, ` · ${parts.join(" · ")}`) : null,
  );
}

/** Everything below the header. */
export function renderContent(status: Status): HTMLElement[] {
  return [
    renderSummary(status),
    renderSessions(status.sessions),
    renderTimeline(status),
    renderMemoryHistory(status),
    renderFailedRuns(status.recent_runs, status.daemon.uptime_s),
    renderKernels(status.kernels),
  ];
}

function card(testid: string, label: string, value: number, shown: string, extra = ""): HTMLElement {
  return h("div", { class: `card ${extra}`, "data-testid": testid, "data-value": value },
    h("div", { class: "card-value" }, shown),
    h("div", { class: "card-label" }, label));
}

function renderSummary(status: Status): HTMLElement {
  const t = status.totals;
  return h("section", { class: "cards", "data-section": "summary" },
    card("summary-sessions", "sessions", t.sessions, formatCount(t.sessions)),
    card("summary-tensors", "live tensors", t.live_tensors, formatCount(t.live_tensors)),
    card("summary-bytes", "live bytes", t.live_bytes, formatBytes(t.live_bytes)),
    card("summary-runs", "runs", t.runs, formatCount(t.runs)),
    card("summary-failed", "failed runs", t.failed_runs, formatCount(t.failed_runs),
      t.failed_runs > 0 ? "bad" : ""),
  );
}

function table(headers: [string, boolean][], rows: HTMLElement[], empty: string): HTMLElement {
  const head = h("tr", {}, ...headers.map(([name, numeric]) => h("th", { class: numeric ? "num" : "" }, name)));
  const body = h("tbody", {}, ...rows);
  if (rows.length === 0) {
    body.append(h("tr", { class: "empty" }, h("td", { colspan: headers.length }, empty)));
  }
  return h("table", {}, h("thead", {}, head), body);
}

function num(text: string, field?: string): HTMLElement {
  return h("td", { class: "num", "data-field": field }, text);
}

/** How long the sessions table's profile button traces a session. */
export const PROFILE_SECONDS = 2;

/**
 * /api/profile's answer: the key averages, longest total first, as torch.profiler prints them,
 * then the timeline of its spans and memory (zoomable with `fetchWindow`).
 */
export function renderProfile(p: Profile, name: string, fetchWindow?: FetchWindow): HTMLElement[] {
  const ms = (us: number) => (us / 1000).toFixed(us < 10000 ? 3 : 1);
  const rows = p.key_averages.map((k) =>
    h("tr", { "data-testid": "profile-row", "data-key": k.key },
      h("td", { "data-field": "key" }, k.key),
      num(formatCount(k.calls), "calls"),
      num(ms(k.self_us), "self_ms"),
      num(ms(k.total_us), "total_ms"),
      h("td", { class: "muted", "data-field": "source" }, k.source)));
  const dropped = p.dropped > 0 ? ` · ${formatCount(p.dropped)} records dropped (the buffer was full)` : "";
  const download = p.chrome_trace === undefined ? null : h("a", {
    "data-testid": "profile-trace",
    download: `tensord-session-${p.session}-trace.json`,
    href: URL.createObjectURL(new Blob([JSON.stringify(p.chrome_trace)], { type: "application/json" })),
  }, "download the trace (opens in ui.perfetto.dev or chrome://tracing)");
  return [
    h("h2", {}, `Profile of session ${p.session} (${name || "unnamed"}), ${p.seconds} s`),
    h("p", { class: "meta" }, `${formatCount(p.records)} records${dropped}. Runs that started before the profile are not in it. `, download),
    table([["op or stage", false], ["calls", true], ["self ms", true], ["total ms", true], ["source (costliest call)", false]],
      rows, "nothing ran in this session while it was traced"),
    renderProfileTimeline(p, fetchWindow),
  ].filter((e): e is HTMLElement => e !== null);
}

/** The origin holding most of a session's bytes; the others in its tooltip. */
function renderHolding(holdings: Holding[]): HTMLElement {
  const text = (x: Holding) =>
    `${x.origin} ${formatBytes(x.bytes)} in ${formatCount(x.tensors)} ${x.tensors === 1 ? "tensor" : "tensors"}`;
  return h("td", { class: "muted", "data-field": "holding", title: holdings.map(text).join("\n") },
    holdings.length === 0 ? "" : `${holdings[0].origin} ${formatBytes(holdings[0].bytes)}`);
}

function renderSessions(sessions: Session[]): HTMLElement {
  const rows = [...sessions].sort((a, b) => a.id - b.id).map((x) =>
    h("tr", { "data-testid": "session-row", "data-session-id": x.id, "data-session-name": x.name },
      num(String(x.id), "id"),
      h("td", { "data-field": "name" }, x.name || "(unnamed)"),
      h("td", { class: "muted", "data-field": "client" }, x.client ?? ""),
      h("td", { "data-field": "peer" }, x.peer ?? ""),
      num(formatCount(x.runs), "runs"),
      h("td", { class: x.failed_runs > 0 ? "num bad" : "num", "data-field": "failed_runs" },
        formatCount(x.failed_runs)),
      num(formatCount(x.live_tensors), "live_tensors"),
      num(formatBytes(x.live_bytes), "live_bytes"),
      renderHolding(x.holdings ?? []),
      h("td", { "data-field": "compile_mode" }, x.compile_mode),
      h("td", { "data-field": "profiling" }, x.profiling ? "on" : "off"),
      num(formatSpan(x.age_s), "age"),
      num(formatSpan(x.idle_s), "idle"),
      h("td", {},
        h("button", { type: "button", "data-testid": "profile-button", "data-profile-session": x.id,
          title: `trace this session for ${PROFILE_SECONDS} s (GET /api/profile)`,
          disabled: x.profiling }, `profile ${PROFILE_SECONDS} s`)),
    ));
  return h("section", { class: "panel", "data-section": "sessions" },
    h("h2", {}, "Sessions"),
    table([["id", true], ["name", false], ["client (its word)", false], ["connection", false], ["runs", true], ["failed", true], ["live tensors", true],
      ["live bytes", true], ["held most by", false], ["compile mode", false], ["profiling", false], ["open for", true],
      ["idle for", true], ["", false]], rows, "no open sessions"),
  );
}

function renderFailedRuns(runs: Run[], now: number): HTMLElement {
  const failed = runs.filter((r) => !r.ok).reverse();
  const list = h("ol", { class: "failed-runs" },
    ...failed.slice(0, MAX_FAILED_SHOWN).map((r) =>
      h("li", { "data-testid": "failed-run" },
        h("div", { class: "failed-meta" },
          h("strong", {}, `${r.session_name} #${r.session}`),
          ` · ${formatAge(now - r.start_s)} · ${r.nodes} nodes · ${formatDuration(r.duration_ms)}`),
        h("pre", { class: "error" }, r.error || "(no error text)"),
      )));
  const section = h("section", { class: "panel", "data-section": "failed-runs" },
    h("h2", {}, "Recent failed runs"));
  if (failed.length === 0) {
    section.append(h("p", { class: "muted" }, "none among the recent runs"));
  } else {
    section.append(list);
    if (failed.length > MAX_FAILED_SHOWN) {
      section.append(h("p", { class: "muted" }, `and ${failed.length - MAX_FAILED_SHOWN} older ones`));
    }
  }
  return section;
}

function renderKernels(kernels: KernelCache[]): HTMLElement {
  const rows = kernels.map((k) => {
    const lookups = k.memory_hits + k.disk_hits + k.misses;
    const hitRate = lookups > 0 ? `${(((k.memory_hits + k.disk_hits) / lookups) * 100).toFixed(0)} %` : "—";
    return h("tr", { "data-testid": "kernel-row", "data-target": k.target },
      h("td", {}, k.target),
      num(formatCount(k.memory_hits)),
      num(formatCount(k.disk_hits)),
      num(formatCount(k.misses)),
      num(hitRate),
      num(formatCount(k.compiles)),
      num(formatDuration(k.compile_ms)),
    );
  });
  return h("section", { class: "panel", "data-section": "kernels" },
    h("h2", {}, "Kernel cache"),
    table([["target", false], ["memory hits", true], ["disk hits", true], ["misses", true],
      ["hit rate", true], ["compiles", true], ["compile time", true]], rows, "no kernel cache yet"),
  );
}
