// Human-readable numbers for the dashboard.

const BYTE_UNITS = ["KiB", "MiB", "GiB", "TiB"];

/** 512 -> "512 B", 4096 -> "4.0 KiB", 3.5 * 2**30 -> "3.5 GiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "—";
  if (Math.abs(bytes) < 1024) return `${Math.round(bytes)} B`;
  let value = bytes;
  let unit = "B";
  for (const next of BYTE_UNITS) {
    if (Math.abs(value) < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${unit}`;
}

/** A duration given in milliseconds: 0.0123 -> "12 µs", 1.25 -> "1.25 ms", 2500 -> "2.50 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 1 : 0)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** A span given in seconds, coarse: 42 -> "42 s", 125 -> "2 min 5 s", 7300 -> "2 h 1 min". */
export function formatSpan(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "—";
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** How long ago something happened, in seconds: 3.2 -> "3 s ago", 0.4 -> "just now". */
export function formatAge(seconds: number): string {
  if (!Number.isFinite(seconds)) return "—";
  if (seconds < 1) return "just now";
  return `${formatSpan(seconds)} ago`;
}

/** Integers with thousands separators: 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—";
}
