// Quotebook: keeps an open quote page up to date. Progressive enhancement: without this script
// the page is the same, and a reload shows what changed.
//
// The server renders the quote's event stream URL in `data-events-url` (URLs are spelled only by
// its routes) and the version shown in `data-version`. Each `quote` event carries the quote as it
// is now, as JSON; versions the page already shows are ignored. Everything that arrives is put on
// the page with `textContent`, never as markup; no inline script or style is used, so the page's
// Content-Security-Policy (`default-src 'self'`) holds.
(function () {
  "use strict";

  var article = document.querySelector("article[data-events-url]");
  if (!article || !window.EventSource) return;

  var source = new EventSource(article.getAttribute("data-events-url"));

  function each(name, action) {
    Array.prototype.forEach.call(article.querySelectorAll('[data-live="' + name + '"]'), action);
  }

  function shownVersion() {
    return parseInt(article.getAttribute("data-version"), 10) || 0;
  }

  // Says what happened in the page's status line (announced by screen readers).
  function tell(parts, isError) {
    each("notice", function (notice) {
      notice.replaceChildren.apply(notice, parts);
      notice.classList.toggle("error", !!isError);
      notice.hidden = false;
    });
  }

  function link(text, href) {
    if (!href) return document.createTextNode(text);
    var anchor = document.createElement("a");
    anchor.href = href;
    anchor.textContent = text;
    return anchor;
  }

  function showQuote(quote) {
    var oldAuthor = null;
    each("author", function (element) {
      if (oldAuthor === null) oldAuthor = element.textContent;
      element.textContent = quote.author;
    });
    each("text", function (element) { element.textContent = quote.text; });
    each("last-change", function (element) {
      var time = document.createElement("time");
      time.setAttribute("datetime", quote.changedAtISO);
      time.textContent = quote.changedAt;
      element.replaceChildren(time, document.createTextNode(" (version " + quote.version + ")"));
    });
    each("edit", function (element) { element.setAttribute("href", quote.editURL); });
    article.setAttribute("data-version", String(quote.version));
    var before = "Quote by " + oldAuthor;
    if (oldAuthor !== null && document.title.indexOf(before) === 0) {
      document.title = "Quote by " + quote.author + document.title.slice(before.length);
    }
    tell([
      document.createTextNode("Changed just now by "),
      link(quote.changedBy || "no one", quote.changedByURL),
      document.createTextNode(" (version " + quote.version + ", " + quote.changedAt + ").")
    ]);
  }

  source.addEventListener("quote", function (event) {
    var quote;
    try {
      quote = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (typeof quote.version !== "number" || quote.version <= shownVersion()) return;
    showQuote(quote);
  });

  source.addEventListener("deleted", function () {
    source.close();
    article.classList.add("is-deleted");
    each("actions", function (element) { element.hidden = true; });
    tell([document.createTextNode("This quote has been deleted.")], true);
  });

  // Closed for good (the quote was deleted while the connection was down, say): say so once.
  source.addEventListener("error", function () {
    if (source.readyState !== EventSource.CLOSED || article.classList.contains("is-deleted")) return;
    tell([document.createTextNode("Live updates have stopped; reload the page to see changes.")]);
  });
})();
