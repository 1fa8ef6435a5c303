// The profile's timeline on the page, zoomable: drag across it to see that part of the profile.
// A zoom asks the daemon for the window (GET /api/profile/timeline), which sends the longest
// spans there, so the short ones the whole view had to leave out come back; "back" and "whole
// profile" return to the views seen before, without asking again.

import type { Profile, ProfileTimeline, TimelineResult } from "./api";
import { h, s } from "./dom";
import { formatDuration } from "./format";
import { timelineLegend, timelineSvg, windowOf } from "./profile_timeline";
import { PLOT_X0, PLOT_X1 } from "./timeline";

/** Asks the daemon for the profile's timeline from `fromUs` to `toUs`. */
export type FetchWindow = (fromUs: number, toUs: number) => Promise<TimelineResult>;

/** A drag narrower than this is a click: the spans' tooltips stay usable. */
const MIN_DRAG_PX = 4;
/** The narrowest window: the spans' times come in nanoseconds, the axis labels do not. */
const MIN_WINDOW_US = 1;

/**
 * The profile's timeline with its controls; `fetchWindow` absent (a daemon that keeps no
 * profiles) gives the whole profile only.
 */
export function renderProfileTimeline(p: Profile, fetchWindow?: FetchWindow): HTMLElement | null {
  if (!p.timeline) return null;
  const box = h("div", { class: "profile-timeline-box", "data-testid": "profile-timeline-box" });
  const views: ProfileTimeline[] = [p.timeline]; // the whole profile, then each zoom in turn

  const show = (problem?: string): void => {
    const t = views[views.length - 1];
    const svg = timelineSvg(t);
    if (fetchWindow) {
      svg.classList.add("zoomable");
      onDrag(svg, t, (from, to) => void zoom(from, to));
    }
    box.replaceChildren(h("h3", {}, "Timeline"), controls(t, problem), svg, timelineLegend(t, fetchWindow !== undefined));
  };

  const zoom = async (fromUs: number, toUs: number): Promise<void> => {
    if (!fetchWindow || box.dataset.state === "loading") return;
    box.dataset.state = "loading";
    const result = await fetchWindow(fromUs, toUs);
    delete box.dataset.state;
    if (result.ok) views.push(result.timeline);
    show(result.ok ? undefined : `could not zoom in: ${result.message}`);
  };

  const controls = (t: ProfileTimeline, problem?: string): HTMLElement => {
    const { from, to } = windowOf(t);
    const whole = views.length === 1;
    const shown = whole
      ? `the whole profile, ${formatDuration(to / 1000)}`
      : `${formatDuration(from / 1000)} to ${formatDuration(to / 1000)} of ${formatDuration(t.duration_us / 1000)}`;
    // Returns to the first n views, dropping the later ones.
    const button = (testid: string, text: string, n: number): HTMLButtonElement => {
      const b = h("button", { type: "button", "data-testid": testid }, text);
      b.addEventListener("click", () => {
        views.length = n;
        show();
      });
      return b;
    };
    return h("p", { class: "zoom-controls" },
      h("span", { "data-testid": "profile-window", "data-from-us": from, "data-to-us": to }, shown),
      ...(whole ? [] : [" ", button("profile-zoom-back", "back", views.length - 1), " ",
        button("profile-zoom-reset", "whole profile", 1)]),
      ...(problem ? [h("span", { class: "bad", "data-testid": "profile-zoom-error" }, ` ${problem}`)] : []));
  };

  show();
  return box;
}

/** Calls `onZoom` with the times under a drag across `svg`, drawing the band dragged meanwhile. */
function onDrag(svg: SVGSVGElement, t: ProfileTimeline, onZoom: (fromUs: number, toUs: number) => void): void {
  const { from, to } = windowOf(t);
  const band = s("rect", {
    "data-testid": "profile-zoom-band", class: "zoom-band", x: 0, y: 0, width: 0,
    height: svg.viewBox.baseVal.height, visibility: "hidden",
  });
  svg.append(band);
  const xAt = (e: PointerEvent): number => {
    const m = svg.getScreenCTM();
    const x = m ? new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse()).x : PLOT_X0;
    return Math.min(Math.max(x, PLOT_X0), PLOT_X1);
  };
  const usAt = (x: number): number => from + ((x - PLOT_X0) / (PLOT_X1 - PLOT_X0)) * (to - from);
  let start: number | null = null;
  const extent = (e: PointerEvent): [number, number] => {
    const x = xAt(e);
    return [Math.min(start ?? x, x), Math.max(start ?? x, x)];
  };
  svg.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    start = xAt(e);
    svg.setPointerCapture(e.pointerId);
    e.preventDefault(); // no text selection while dragging
  });
  svg.addEventListener("pointermove", (e) => {
    if (start === null) return;
    const [a, b] = extent(e);
    band.setAttribute("x", a.toFixed(2));
    band.setAttribute("width", (b - a).toFixed(2));
    band.setAttribute("visibility", b - a >= MIN_DRAG_PX ? "visible" : "hidden");
  });
  svg.addEventListener("pointerup", (e) => {
    if (start === null) return;
    const [a, b] = extent(e);
    start = null;
    band.setAttribute("visibility", "hidden");
    if (b - a < MIN_DRAG_PX) return;
    const fromUs = usAt(a);
    onZoom(fromUs, Math.max(usAt(b), fromUs + MIN_WINDOW_US));
  });
  svg.addEventListener("pointercancel", () => {
    start = null;
    band.setAttribute("visibility", "hidden");
  });
}
