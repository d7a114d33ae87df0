// agentmem inspector: confirmation of destructive forms, instant mode
// switching in the recall playground, and the live thread view. Served as a
// file so the Content-Security-Policy can forbid inline script.
(function () {
  'use strict';

  document.addEventListener('submit', function (e) {
    var msg = e.target.getAttribute('data-confirm');
    if (msg && !window.confirm(msg)) {
      e.preventDefault();
    }
  });

  document.addEventListener('change', function (e) {
    var t = e.target;
    if (t.name === 'mode' && t.form && t.form.id === 'recall-form' && t.form.q.value) {
      t.form.submit();
    }
  });

  var live = document.getElementById('live');
  if (!live || !live.dataset.stateUrl) {
    return;
  }
  var interval = parseInt(live.dataset.poll, 10) || 2000;
  var busy = false;

  function status(text, flash) {
    var s = document.getElementById('live-status');
    if (s) {
      s.textContent = text;
      s.className = flash ? 'flash' : '';
    }
  }

  // openKeys remembers which <details> are open, so a refresh keeps them.
  function openKeys(root) {
    var keys = {};
    root.querySelectorAll('details[open][data-key]').forEach(function (d) { keys[d.dataset.key] = true; });
    return keys;
  }

  function refresh() {
    return fetch(window.location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, 'text/html');
        var fresh = doc.getElementById('live');
        if (!fresh) { return; }
        var keep = openKeys(live);
        var toggle = document.getElementById('live-toggle');
        var on = !toggle || toggle.checked;
        var atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
        live.replaceChildren.apply(live, Array.prototype.map.call(fresh.childNodes, function (n) { return document.importNode(n, true); }));
        live.dataset.state = fresh.dataset.state;
        live.querySelectorAll('details[data-key]').forEach(function (d) { if (keep[d.dataset.key]) { d.open = true; } });
        var t2 = document.getElementById('live-toggle');
        if (t2) { t2.checked = on; }
        ['message-total', 'thread-title'].forEach(function (id) {
          var a = document.getElementById(id), b = doc.getElementById(id);
          if (a && b) { a.textContent = b.textContent; }
        });
        if (atBottom) { window.scrollTo(0, document.body.scrollHeight); }
        status('updated ' + new Date().toLocaleTimeString(), true);
      });
  }

  function poll() {
    var toggle = document.getElementById('live-toggle');
    if (busy || (toggle && !toggle.checked) || document.hidden) {
      return;
    }
    busy = true;
    fetch(live.dataset.stateUrl, { credentials: 'same-origin' })
      .then(function (r) {
        if (r.status === 404) { status('this thread was deleted'); clearInterval(timer); return null; }
        if (!r.ok) { throw new Error(r.status); }
        return r.json();
      })
      .then(function (j) {
        if (j && j.state !== live.dataset.state) { return refresh(); }
      })
      .catch(function (err) { status('cannot reach the server (' + err.message + ')'); })
      .then(function () { busy = false; });
  }

  var timer = setInterval(poll, interval);
})();
