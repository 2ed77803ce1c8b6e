// Posts the provider's checkout form as soon as the page loads, top-level. Without JavaScript the
// customer presses the form's own button; nothing else on the page depends on this file.
(function () {
  if (window.top !== window.self) return;
  var form = document.getElementById('provider-form');
  if (form) form.submit();
})();
