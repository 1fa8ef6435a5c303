// The daemon's dashboard API: GET /api/status, GET /api/profile and GET /api/profile/timeline
// (relative URLs, same origin).
// The types mirror the JSON the daemon serves; see server/ for the producer.

export interface DaemonInfo {
  version: string;
  pid: number;
  uptime_s: number;
  listen: string[];
}

/** What a device says of its memory; each part only where the device has it. */
export interface DeviceMemory {
  /** A caching allocator's (CUDA) bytes: handed out, and held from the device. */
  allocated?: number;
  allocated_peak?: number;
  reserved?: number;
  reserved_peak?: number;
  ooms?: number;
  /** The CPU's cache of freed large blocks, kept for reuse. */
  host_cached?: number;
}

export interface Device {
  kind: string;
  index: number;
  name: string;
  total_memory?: number;
  threads?: number;
  memory?: DeviceMemory;
  /** Time slicing (docs/scheduling.md): runs paused between steps for other sessions, and the
   * other sessions' requests served in those pauses. */
  pauses?: number;
  jobs_in_pauses?: number;
  /** Small runs the event loop ran itself while the worker idled (--inline-small-runs). */
  inline_runs?: number;
}

export interface Totals {
  sessions: number;
  live_tensors: number;
  live_bytes: number;
  runs: number;
  failed_runs: number;
}

export interface KernelCache {
  target: string;
  memory_hits: number;
  disk_hits: number;
  misses: number;
  compiles: number;
  compile_ms: number;
}

export interface Session {
  id: number;
  name: string;
  /** Where the session says it comes from ("alice@laptop pid 4242"); protocol 1.5 clients. */
  client?: string;
  /** Who is at the other end of its connection, as the daemon's system says: "uid 1000 (alice)
   * pid 4242" on a unix socket, the address on TCP. */
  peer?: string;
  runs: number;
  failed_runs: number;
  live_tensors: number;
  live_bytes: number;
  /** What holds its live bytes, largest first (at most 3): where the tensors were made. */
  holdings?: Holding[];
  compile_mode: string;
  profiling: boolean;
  age_s: number;
  idle_s: number;
}

export interface Holding {
  /** "fit.py:12 (matmul)": the op and user's line that made the tensors; "upload". */
  origin: string;
  bytes: number;
  tensors: number;
}

export interface Run {
  session: number;
  session_name: string;
  /** Seconds since the daemon started: the same clock as daemon.uptime_s. */
  start_s: number;
  duration_ms: number;
  /** The part of duration_ms before a device worker took the run (queue behind other sessions). */
  wait_ms?: number;
  nodes: number;
  ok: boolean;
  error: string;
}

/** One session's live bytes over the memory history, aligned with its t_s. */
export interface SessionMemory {
  id: number;
  name: string;
  live_bytes: number[];
}

/** One device's memory figures over the memory history, each only where the device has it. */
export interface DeviceMemoryHistory {
  kind: string;
  index: number;
  allocated?: number[];
  reserved?: number[];
  host_cached?: number[];
}

/** A sample a second of the last 60 s: live bytes per session (closed ones too) and per device. */
export interface MemoryHistory {
  interval_s: number;
  /** When each sample was taken, on the uptime_s clock, oldest first. */
  t_s: number[];
  sessions: SessionMemory[];
  devices: DeviceMemoryHistory[];
}

export interface Status {
  daemon: DaemonInfo;
  devices: Device[];
  totals: Totals;
  kernels: KernelCache[];
  sessions: Session[];
  /** Oldest first, at most 200. */
  recent_runs: Run[];
  memory_history: MemoryHistory;
}

/** Why a poll did not give a status. */
export type PollError =
  | { kind: "unauthorized"; message: string }
  | { kind: "unreachable"; message: string };

export type PollResult = { ok: true; status: Status } | { ok: false; error: PollError };

const REQUEST_TIMEOUT_MS = 3000;

/** The token from the page's hash (`#token=...`), or "" when there is none. */
export function tokenFromHash(hash: string): string {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  return params.get("token") ?? "";
}

/** One GET /api/status; never throws. */
export async function fetchStatus(token: string): Promise<PollResult> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token !== "") headers["Authorization"] = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch("api/status", {
      headers,
      cache: "no-store",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    return { ok: false, error: { kind: "unreachable", message: describe(e) } };
  }
  if (response.status === 401) {
    return { ok: false, error: { kind: "unauthorized", message: await errorText(response) } };
  }
  if (!response.ok) {
    const text = await errorText(response);
    return {
      ok: false,
      error: { kind: "unreachable", message: `HTTP ${response.status}${text ? `: ${text}` : ""}` },
    };
  }
  try {
    return { ok: true, status: normalize(await response.json()) };
  } catch (e) {
    return { ok: false, error: { kind: "unreachable", message: `bad response: ${describe(e)}` } };
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The `error` field of a JSON error body, else the body's text (shortened). */
async function errorText(response: Response): Promise<string> {
  let text = "";
  try {
    text = await response.text();
    const body: unknown = JSON.parse(text);
    if (body && typeof body === "object" && "error" in body) return String(body.error);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 200);
}

/** Fills in missing lists so that rendering never trips over an older or partial daemon. */
function normalize(raw: unknown): Status {
  if (!raw || typeof raw !== "object" || !("daemon" in raw)) {
    throw new Error("not a tensord status object");
  }
  const s = raw as Partial<Status> & { daemon: DaemonInfo };
  return {
    daemon: { ...s.daemon, listen: s.daemon.listen ?? [] },
    devices: s.devices ?? [],
    totals: s.totals ?? { sessions: 0, live_tensors: 0, live_bytes: 0, runs: 0, failed_runs: 0 },
    kernels: s.kernels ?? [],
    sessions: s.sessions ?? [],
    recent_runs: s.recent_runs ?? [],
    memory_history: s.memory_history ?? { interval_s: 1, t_s: [], sessions: [], devices: [] },
  };
}

/** One row of /api/profile's key averages (torch.profiler's table): an op, or a stage in brackets. */
export interface KeyAverage {
  key: string;
  calls: number;
  self_us: number;
  total_us: number;
  /** The user's line of the costliest call ("file:line"), "" for stages. */
  source: string;
}

/**
 * One span of /api/profile's timeline: a stage of a request, a plan step (an op), a GPU kernel
 * or copy. Times are microseconds since the profile started.
 */
export interface TimelineSpan {
  start_us: number;
  duration_us: number;
  /** The op (steps, from the client), the kernel, or the stage's name. */
  name: string;
  /** "request", "receive", "queue_wait", "validate", "plan_lookup", "plan_build", "upload",
   * "execute", "step", "fetch", "kernel" or "memcpy". */
  stage: string;
  /** The user's line ("file:line", from the client), "" where there is none. */
  source: string;
  request: number;
  /** Kernels and copies: the GPU stream. */
  stream?: number;
}

/** The session's bytes over a profile recording memory: held at the start (t 0), then after each change, by time. */
export interface MemorySeries {
  t_us: number[];
  allocated: number[];
  /** The same points split by category ("tensor", "staging", "scratch", ..., and "held_before_profile": the bytes held when the profile began, less those of the blocks the daemon tracked then that were freed since); only categories that held bytes. */
  by_category: Record<string, number[]>;
  /** The session's live tensor bytes when the profile began (the series' first point) and when it ended; absent from older daemons. */
  held_before?: number;
  held_at_end?: number;
  /** Where the largest of held_before were made, largest first (at most 3). */
  held_before_by?: Holding[];
  peak_bytes: number;
  peak_us: number;
  events: number;
  points_left_out: number;
}

export interface ProfileTimeline {
  /** How long the profile ran: the time axis. */
  duration_us: number;
  /** A part of the profile (/api/profile/timeline): what the spans and memory cover; absent for the whole. */
  window?: { from_us: number; to_us: number };
  /** The longest spans, by start time. */
  spans: TimelineSpan[];
  spans_left_out: number;
  memory?: MemorySeries;
}

export interface Profile {
  /** The daemon keeps its last few profiles under this id, to zoom into (/api/profile/timeline); absent from older daemons. */
  id?: number;
  session: number;
  seconds: number;
  /** Whether the profile recorded memory. */
  memory: boolean;
  records: number;
  dropped: number;
  key_averages: KeyAverage[];
  timeline?: ProfileTimeline;
  /** The Chrome trace of those seconds (Perfetto, chrome://tracing), as the daemon wrote it. */
  chrome_trace?: unknown;
}

export type ProfileResult = { ok: true; profile: Profile } | { ok: false; message: string };

/** GET /api/profile: traces session `session` for `seconds` on the daemon, memory included; never throws. */
export async function fetchProfile(token: string, session: number, seconds: number): Promise<ProfileResult> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token !== "") headers["Authorization"] = `Bearer ${token}`;
  try {
    const response = await fetch(`api/profile?session=${session}&seconds=${seconds}&trace=1&memory=1`, {
      headers,
      cache: "no-store",
      signal: AbortSignal.timeout(seconds * 1000 + REQUEST_TIMEOUT_MS),
    });
    if (!response.ok) return { ok: false, message: `HTTP ${response.status}: ${await errorText(response)}` };
    const body = (await response.json()) as Partial<Profile>;
    return {
      ok: true,
      profile: {
        id: body.id,
        session: body.session ?? session,
        seconds: body.seconds ?? seconds,
        memory: body.memory ?? false,
        records: body.records ?? 0,
        dropped: body.dropped ?? 0,
        key_averages: body.key_averages ?? [],
        timeline: body.timeline,
        chrome_trace: body.chrome_trace,
      },
    };
  } catch (e) {
    return { ok: false, message: describe(e) };
  }
}

export type TimelineResult = { ok: true; timeline: ProfileTimeline } | { ok: false; message: string };

/** GET /api/profile/timeline: the timeline of profile `id` from `fromUs` to `toUs` (its longest spans there); never throws. */
export async function fetchProfileWindow(token: string, id: number, fromUs: number, toUs: number): Promise<TimelineResult> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token !== "") headers["Authorization"] = `Bearer ${token}`;
  try {
    const response = await fetch(`api/profile/timeline?id=${id}&from_us=${fromUs}&to_us=${toUs}`, {
      headers,
      cache: "no-store",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!response.ok) return { ok: false, message: `HTTP ${response.status}: ${await errorText(response)}` };
    const body = (await response.json()) as { timeline?: ProfileTimeline };
    if (!body.timeline) return { ok: false, message: "the answer has no timeline" };
    return { ok: true, timeline: body.timeline };
  } catch (e) {
    return { ok: false, message: describe(e) };
  }
}
