// Runs before Redoc: every <style> element a script of this page creates carries the answer's
// nonce, so the policy lets Redoc's run-time styles apply without 'unsafe-inline'. Redoc's bundle
// creates some while it loads (its own CSS), before any option could hand it a nonce, and its
// styled-components take theirs from the bundle's private webpack nonce, which no page can set.
// A <style> parsed from text the document smuggles in is not created here, has no nonce, and is
// ignored. The nonce is read once, and the element that held it removed.
(function () {
  'use strict';

  var holder = document.querySelector('meta[property="csp-nonce"]');
  var nonce = holder ? holder.getAttribute('content') : '';
  if (holder) holder.remove();
  if (!nonce) return;
  var createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (tagName) {
    var element = createElement.apply(this, arguments);
    if (String(tagName).toLowerCase() === 'style') element.setAttribute('nonce', nonce);
    return element;
  };
})();
