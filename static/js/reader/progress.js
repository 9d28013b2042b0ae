/**
 * Saves reading progress to the server: debounced while reading, and at once (with `keepalive`,
 * so the request outlives the page) when the page is hidden or left.
 */
const DEBOUNCE_MS = 800;

/** The session's CSRF token (the reader's `data-csrf-token`), which every state change must carry. */
export function csrfHeaders() {
  const token = document.querySelector("[data-csrf-token]")?.getAttribute("data-csrf-token");
  return token ? { "x-csrf-token": token } : {};
}

export function progressSaver(url) {
  let pending = null;
  let timer = 0;
  const flush = (keepalive = false) => {
    clearTimeout(timer);
    if (!pending) return Promise.resolve();
    const body = JSON.stringify(pending);
    pending = null;
    return fetch(url, {
      method: "PUT",
      credentials: "same-origin",
      keepalive,
      headers: { "content-type": "application/json", ...csrfHeaders() },
      body,
    }).catch(() => undefined);
  };
  addEventListener("pagehide", () => flush(true));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush(true);
  });
  return {
    /** Records `progress` shortly, replacing whatever was waiting. */
    save(progress) {
      pending = progress;
      clearTimeout(timer);
      timer = setTimeout(() => flush(), DEBOUNCE_MS);
    },
    /** Sends what is waiting now (before following a link, for example). */
    flush,
  };
}

/** Full screen for the whole document; resolves false when the browser refuses it. */
export async function toggleFullscreen() {
  try {
    if (document.fullscreenElement) await document.exitFullscreen();
    else await document.documentElement.requestFullscreen();
    return true;
  } catch {
    return false;
  }
}

/** True when a key press belongs to a form control or a dialog (or activates a button) and must not turn pages. */
export function typingInto(event) {
  const target = event.target;
  if (!(target instanceof HTMLElement)) return false;
  // An open dialog (the list of shortcuts) has the keys: Escape closes it.
  if (target.closest("dialog[open]")) return true;
  if (target.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return true;
  return /^(BUTTON|A|SUMMARY)$/.test(target.tagName) && (event.key === " " || event.key === "Enter");
}
