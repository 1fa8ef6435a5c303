// The dashboard's loop: GET /api/status every second, render what it says,
// show a banner while the daemon cannot be reached (and recover by itself).
// A session row's profile button traces that session for a few seconds, memory included
// (GET /api/profile), and shows the key averages and the timeline below the polled content,
// where the polls leave them; dragging across the timeline zooms in (GET /api/profile/timeline).

import { fetchProfile, fetchProfileWindow, fetchStatus, tokenFromHash, type PollError, type Status } from "./api";
import { h } from "./dom";
import { formatSpan } from "./format";
import { PROFILE_SECONDS, renderContent, renderHeader, renderProfile } from "./render";

const POLL_INTERVAL_MS = 1000;

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`index.html lacks #${id}`);
  return el;
}

const headerInfo = byId("header-info");
const banner = byId("banner");
const content = byId("content");
const updated = byId("updated");
const profilePanel = byId("profile");

let token = tokenFromHash(location.hash);
let lastGood: { status: Status; at: number } | null = null;
let timer: number | undefined;
let generation = 0;

function showBanner(error: PollError): void {
  banner.dataset.kind = error.kind;
  if (error.kind === "unauthorized") {
    const page = `${location.origin}${location.pathname}`;
    const lead = token === ""
      ? "this daemon needs a token: open the page as "
      : "the daemon rejected the token in this page's address: open the page as ";
    banner.replaceChildren(h("strong", {}, lead), h("code", {}, `${page}#token=TOKEN`));
    if (!lastGood) headerInfo.replaceChildren();
    if (error.message) banner.append(h("span", { class: "detail" }, ` (${error.message})`));
  } else {
    const since = lastGood ? ` · last update ${formatSpan((Date.now() - lastGood.at) / 1000)} ago` : "";
    banner.replaceChildren(
      h("strong", {}, "daemon unreachable, retrying"),
      h("span", { class: "detail" }, ` (${error.message}${since})`),
    );
  }
  banner.hidden = false;
  content.classList.add("stale");
}

function show(status: Status): void {
  banner.hidden = true;
  banner.replaceChildren();
  delete banner.dataset.kind;
  content.classList.remove("stale");
  headerInfo.replaceChildren(...renderHeader(status));
  swapSections(renderContent(status));
  const t = status.totals;
  document.title = `tensord · ${t.sessions} session${t.sessions === 1 ? "" : "s"} · ${t.runs} runs`;
  updated.textContent = `updated ${new Date().toLocaleTimeString()} · every ${POLL_INTERVAL_MS / 1000} s`;
}

/**
 * Whether a section on the page is being used and should stay as it is for now: the
 * timeline and the memory chart while the pointer is over them (their tooltips would vanish
 * every second), the failed runs while text in them is selected (to copy an error).
 */
function inUse(section: HTMLElement): boolean {
  const name = section.dataset.section;
  // the sessions while the pointer is over them too: a button replaced under it loses the click
  if (name === "timeline" || name === "memory-history" || name === "sessions") return section.matches(":hover");
  if (name === "failed-runs") {
    const selection = document.getSelection();
    return selection !== null && !selection.isCollapsed && section.contains(selection.anchorNode);
  }
  return false;
}

/** Puts the fresh sections in place of the old ones, one by one, skipping those in use. */
function swapSections(fresh: HTMLElement[]): void {
  const old = [...content.children] as HTMLElement[];
  const sameLayout = old.length === fresh.length &&
    old.every((section, i) => section.dataset.section === fresh[i].dataset.section);
  if (!sameLayout) {
    content.replaceChildren(...fresh);
    return;
  }
  old.forEach((section, i) => {
    if (!inUse(section)) section.replaceWith(fresh[i]);
  });
}

async function poll(): Promise<void> {
  const mine = ++generation;
  const started = Date.now();
  const result = await fetchStatus(token);
  if (mine !== generation) return; // a newer poll (after a hash change) took over
  if (result.ok) {
    lastGood = { status: result.status, at: Date.now() };
    show(result.status);
  } else {
    showBanner(result.error);
  }
  timer = window.setTimeout(() => void poll(), Math.max(0, POLL_INTERVAL_MS - (Date.now() - started)));
}

async function profile(session: number): Promise<void> {
  const name = lastGood?.status.sessions.find((x) => x.id === session)?.name ?? "";
  const previous = profilePanel.querySelector<HTMLAnchorElement>('a[href^="blob:"]');
  if (previous) URL.revokeObjectURL(previous.href); // the last profile's trace download
  profilePanel.hidden = false;
  profilePanel.dataset.state = "running";
  profilePanel.replaceChildren(
    h("h2", {}, `Profiling session ${session} (${name || "unnamed"}) for ${PROFILE_SECONDS} s…`));
  const result = await fetchProfile(token, session, PROFILE_SECONDS);
  if (result.ok) {
    profilePanel.dataset.state = "done";
    const id = result.profile.id;
    const zoom = id === undefined ? undefined : (from: number, to: number) => fetchProfileWindow(token, id, from, to);
    profilePanel.replaceChildren(...renderProfile(result.profile, name, zoom));
  } else {
    profilePanel.dataset.state = "failed";
    profilePanel.replaceChildren(h("h2", {}, `Profile of session ${session}`),
      h("p", { class: "bad" }, result.message));
  }
}

content.addEventListener("click", (event) => {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-profile-session]");
  if (!button || profilePanel.dataset.state === "running") return;
  void profile(Number(button.dataset.profileSession));
});

window.addEventListener("hashchange", () => {
  token = tokenFromHash(location.hash);
  window.clearTimeout(timer);
  void poll();
});

void poll();
