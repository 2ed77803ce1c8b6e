// Payment pages must be top-level (spec 1.5). Browsers already refuse to frame them
// (frame-ancestors 'none'); an old or embedded browser that renders them anyway hides the page
// and tells the customer to open it in its own window.
(function () {
  if (window.top === window.self) return;
  var main = document.getElementById('main');
  if (main) main.hidden = true;
  var warning = document.getElementById('framed-warning');
  if (warning) {
    warning.hidden = false;
    var link = warning.querySelector('a');
    if (link) link.href = window.location.href;
  }
})();
