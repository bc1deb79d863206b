// The reference page's own script: loads the OpenAPI document (with the pasted key, sent only in
// the Authorization header, when there is one) and renders it with Redoc. The key lives in this
// page's memory only: never in the URL, never in storage.
(function () {
  'use strict';

  var container = document.getElementById('reference');
  var input = document.getElementById('api-key');
  var useKey = document.getElementById('use-key');
  var forgetKey = document.getElementById('forget-key');
  var status = document.getElementById('status');
  var documentUrl = container.getAttribute('data-openapi-url');

  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'error' : '';
  }

  function render(spec) {
    return new Promise(function (resolve) {
      window.Redoc.init(spec, { expandResponses: '200,201', disableSearch: true, hideHostname: true, sanitize: true }, container, resolve);
    });
  }

  function show(key) {
    var headers = key ? { Authorization: 'Bearer ' + key } : {};
    say(key ? 'Loading the document of your organization…' : 'Loading…', false);
    return fetch(documentUrl, { headers: headers, cache: 'no-store', credentials: 'omit' })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) {
            var message = body && body.error ? body.error.message : 'HTTP ' + response.status;
            throw new Error(response.status === 401 ? 'That key is not valid: ' + message : message);
          }
          return body;
        });
      })
      .then(function (spec) {
        return render(spec).then(function () {
          var models = Object.keys((spec.components && spec.components.schemas) || {}).filter(function (name) {
            return /\.Data$/.test(name);
          }).length;
          forgetKey.hidden = !key;
          say(
            key
              ? models > 0
                ? 'Typed for your organization: ' + models + ' model' + (models === 1 ? '' : 's') + '.'
                : 'This key may not read the models of its organization: the generic reference is shown.'
              : 'The generic reference. Paste an API key to see the models of your organization, typed.',
            false,
          );
        });
      })
      .catch(function (error) {
        say(error.message, true);
      });
  }

  useKey.addEventListener('click', function () {
    var key = input.value.trim();
    if (key) show(key);
  });
  input.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') useKey.click();
  });
  forgetKey.addEventListener('click', function () {
    input.value = '';
    show('');
  });

  show('');
})();
