/**
 * The reader's settings, kept on the server for the signed-in user (src/library/reader-settings.ts):
 * the page carries the user's settings for the book's series and their defaults
 * (`data-reader-settings`: { series, effective }); a change is sent back at once. A setting the
 * series has its own value for stays the series' own; any other becomes the user's default.
 */
import { csrfHeaders } from "./progress.js";

const DEFAULTS_URL = "/api/v1/reader-settings";

export function serverSettings(root) {
  const { series = {}, effective = {} } = JSON.parse(root.dataset.readerSettings || "{}");
  const seriesUrl = root.dataset.seriesSettingsUrl;
  const send = (url, change) =>
    fetch(url, {
      method: "PATCH",
      credentials: "same-origin",
      headers: { "content-type": "application/json", ...csrfHeaders() },
      body: JSON.stringify(change),
      // A choice made just before leaving (the next book, the back link) still reaches the server.
      keepalive: true,
    }).catch(() => undefined);
  return {
    /** The series' own choice for `field`, if it has one. */
    series: (field) => series[field],
    /** The series' choice, else the user's default. */
    value: (field) => effective[field],
    /** Keeps a choice: for the series when `forSeries` or when the series has its own value, else as the default. */
    save(field, value, { forSeries = false } = {}) {
      if (forSeries || series[field] !== undefined) {
        series[field] = value;
        return send(seriesUrl, { [field]: value });
      }
      return send(DEFAULTS_URL, { [field]: value });
    },
  };
}
