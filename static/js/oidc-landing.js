// The landing of single sign-on: the OIDC callback redirects to /login#token=...&refresh_token=...
// (or #error=...&error_description=...). The fragment never reaches the server, so this script
// trades the token for the session cookie (POST /login/token) and removes it from the address bar.
(function () {
  "use strict";
  var fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has("token") && !fragment.has("error")) return;
  history.replaceState(null, "", location.pathname + location.search);
  var message = document.getElementById("oidc-message");

  function show(text) {
    if (!message) return;
    message.textContent = text;
    message.hidden = false;
  }

  if (fragment.has("error")) {
    show(window.pageMessage("signInFailed", { reason: fragment.get("error_description") || fragment.get("error") }));
    return;
  }
  show(window.pageMessage("signingIn"));
  var body = { token: fragment.get("token") };
  if (fragment.get("refresh_token")) body.refresh_token = fragment.get("refresh_token");
  fetch("/login/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) throw new Error(window.pageMessage("signInRefused", { status: response.status }));
      // Where to go is what the server decided for this page's form (sameSitePath in
      // src/http/web/page-guard.ts), never the raw query: only a path of this site.
      var next = document.querySelector("form input[name=next]");
      location.replace(next && next.value ? next.value : "/");
    })
    .catch(function (error) {
      show(window.pageMessage("signInFailed", { reason: error.message }));
    });
})();
