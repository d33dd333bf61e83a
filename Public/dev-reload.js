// Quotebook, --dev only: reloads the page when a file under Templates/ or Public/ changes, or
// when the server restarts. The stream's URL comes from this script tag's data-events-url (the
// server renders it from its routes). The server sends its current version as the event id; a
// browser that reconnects (after a restart, say) sends it back as Last-Event-ID and is told to
// reload when it differs.
(function () {
  "use strict";

  var script = document.currentScript;
  var url = script && script.getAttribute("data-events-url");
  if (!url || !window.EventSource) return;

  var source = new EventSource(url);
  source.addEventListener("reload", function () {
    source.close();
    window.location.reload();
  });
})();
