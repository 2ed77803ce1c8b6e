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
        if (next && now) keepOpenDisclosures(now, next);
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
  // A "More providers" the customer opened stays open: it is not a change of the payment, and a swap must not close it.
  function keepOpenDisclosures(now, next) {
    var opened = now.querySelectorAll('details[id][open]');
    for (var i = 0; i < opened.length; i += 1) {
      var same = next.querySelector('details#' + opened[i].id);
      if (same) same.setAttribute('open', '');
    }
  }
  setTimeout(poll, INTERVAL_MS);
})();
