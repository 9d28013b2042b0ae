/**
 * Taps and swipes, shared by the comic and EPUB readers: a tap (the primary pointer lifted
 * within TAP_SLOP of where it went down) is reported with the zone of the screen it fell in,
 * a mostly horizontal move of SWIPE_MIN or more as a swipe. Handled on pointerup rather than
 * click: a click can be swallowed by double-tap detection on touch screens.
 */
const TAP_SLOP = 10;
const SWIPE_MIN = 50;
/** Controls keep their own meaning: a tap on them is no page turn. */
const CONTROLS = "a, button, input, select, textarea, summary, [data-role=end]";

/** The third of `box` that `x` falls in: "left", "middle" or "right". */
export function zoneOf(x, box) {
  const fraction = (x - box.left) / box.width;
  return fraction < 1 / 3 ? "left" : fraction > 2 / 3 ? "right" : "middle";
}

/**
 * Watches `target` (an element, or a book document shown in an iframe) for taps and swipes.
 * `point(event)` gives the pointer's position in the reader page's coordinates (for a document
 * in an iframe, its frame's place and scale are added); `onTap(point, event)`; `onSwipe(dx)`
 * with dx < 0 for a swipe to the left; `capture` listens before the target's own handlers
 * (the comic reader's zoom library stops the events it handles).
 */
export function watchTapsAndSwipes(target, { point = clientPoint, onTap, onSwipe, capture = false }) {
  let start = null;
  target.addEventListener(
    "pointerdown",
    (event) => {
      start = event.isPrimary && event.button === 0 ? point(event) : null;
    },
    { capture },
  );
  target.addEventListener(
    "pointerup",
    (event) => {
      if (!start || !event.isPrimary) return;
      const end = point(event);
      const dx = end.x - start.x;
      const dy = end.y - start.y;
      start = null;
      if (event.target.closest?.(CONTROLS)) return;
      if (Math.hypot(dx, dy) <= TAP_SLOP) onTap(end, event);
      else if (onSwipe && Math.abs(dx) >= SWIPE_MIN && Math.abs(dx) >= 1.5 * Math.abs(dy)) onSwipe(dx, event);
    },
    { capture },
  );
}

const clientPoint = (event) => ({ x: event.clientX, y: event.clientY });

/** A pointer event inside a book document, in the coordinates of the page holding its (maybe scaled) frame. */
export function framePoint(event) {
  const frame = event.view?.frameElement;
  if (!frame) return clientPoint(event);
  const box = frame.getBoundingClientRect();
  const scale = frame.offsetWidth > 0 ? box.width / frame.offsetWidth : 1;
  return { x: box.left + event.clientX * scale, y: box.top + event.clientY * scale };
}
