// Follows the payment in place: fetches this same page every few seconds and swaps the receipt
// when it changed, until the server marks it final. Without JavaScript a <noscript> refresh does
// the same, so the page never depends on this file.
(function () {
  var INTERVAL_MS = 2000;
  function current() {
    return document.getElementById('receipt');
  }
  function poll() {
    var receipt = current();
    if (!receipt || receipt.getAttribute('data-final') === 'true') return;
    fetch(window.location.href, { cache: 'no-store', headers: { accept: 'text/html' } })
      .then(function (response) {
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (!html) return;
        var page = new DOMParser().parseFromString(html, 'text/html');
        var next = page.getElementById('receipt');
        var now = current();
        if (next && now && next.outerHTML !== now.outerHTML) {
          now.replaceWith(document.importNode(next, true));
          document.title = page.title || document.title;
        }
      })
      .catch(function () {
        /* offline for a moment: the next poll tries again */
      })
      .then(function () {
        setTimeout(poll, INTERVAL_MS);
      });
  }
  setTimeout(poll, INTERVAL_MS);
})();
