// kpty console: one session's terminal, joined over a WebSocket as one more attached client.
// Read-only until "Take control"; the server enforces it (keys of a watching page are
// dropped there), this page only stops sending them. Plain script, no inline code (CSP).
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const sessionId = decodeURIComponent(location.pathname.replace(/^\/console\/session\//, ''));
  const term = new Terminal({
    cursorBlink: true,
    scrollback: 5000,
    fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace',
    fontSize: 14,
  });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  const search = new SearchAddon.SearchAddon();
  term.loadAddon(search);
  term.open($('terminal'));
  $('terminal').dataset.sessionId = sessionId;
  $('recording').href = '/console/recording/' + encodeURIComponent(sessionId);
  let socket = null;
  let mode = 'read';
  let canWrite = false;
  let ended = false;
  let retries = 0;
  // The offset of the session's output this page has everything before (null: not known).
  let offset = null;

  function status(state, text) {
    const el = $('status');
    el.dataset.status = state;
    el.textContent = text;
  }

  function notice(text) {
    const el = $('notice');
    el.textContent = text || '';
    el.hidden = !text;
  }

  function send(msg) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
  }

  function setMode(m) {
    mode = m;
    $('terminal').dataset.mode = m;
    const badge = $('mode');
    badge.dataset.mode = m;
    badge.textContent = m === 'write' ? 'writing' : 'watching';
    $('write').hidden = m === 'write' || !canWrite || ended;
    $('read').hidden = m !== 'write' || ended;
    $('keys').hidden = m !== 'write' || ended;
    if (m === 'write') term.focus();
  }

  // What this page could show: the session is drawn at its own size, this is only told.
  function tellSize() {
    const d = fit.proposeDimensions();
    if (d && d.cols > 0 && d.rows > 0) send({ type: 'resize', cols: d.cols, rows: d.rows });
  }

  function type(data) {
    if (mode === 'write') send({ type: 'input', data });
  }

  function onEvent(m) {
    switch (m.type) {
      case 'joined':
        $('title').textContent = m.label ? `${m.label} (${m.session_id})` : m.session_id;
        document.title = `kpty · ${m.label || m.session_id}`;
        canWrite = m.can_write;
        if (m.host) {
          // Another machine's session: its trail and its recording are kept there.
          $('terminal').dataset.host = m.host;
          $('show-activity').hidden = true;
          $('recording').hidden = true;
        }
        $('terminal').dataset.joined = m.resumed ? 'resumed' : 'fresh';
        if (!m.resumed) {
          // The scrollback and the screen follow, from the start.
          term.reset();
          offset = null;
        }
        term.resize(m.cols, m.rows);
        retries = 0;
        status('live', 'live');
        setMode('read');
        tellSize();
        break;
      case 'size':
        term.resize(m.cols, m.rows);
        break;
      case 'resync':
        // Output was skipped: a redraw follows, then its offset.
        offset = null;
        break;
      case 'offset':
        offset = m.at;
        break;
      case 'mode':
        setMode(m.mode);
        notice(m.notice || '');
        break;
      case 'blocked':
        notice('Blocked from web: ' + m.blocked.join(', ') + '. Use a local terminal to exit.');
        break;
      case 'exited':
        ended = true;
        status('exited', m.signal ? `ended (${m.signal})` : `ended (exit ${m.code})`);
        setMode('read');
        break;
      case 'error':
        ended = true;
        status('error', m.error_code);
        notice(m.message);
        setMode('read');
        break;
      default:
        break;
    }
  }

  function later() {
    retries = Math.min(retries + 1, 6);
    setTimeout(connect, 500 * retries);
  }

  function connect() {
    // Coming back: from the offset this page has everything before, when it knows one.
    const from = offset === null ? '' : '?from=' + offset;
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') +
      location.host + '/console/ws/session/' + encodeURIComponent(sessionId) + from);
    ws.binaryType = 'arraybuffer';
    socket = ws;
    ws.onmessage = (e) => {
      if (typeof e.data !== 'string') {
        // 8 bytes of offset (all ones: not known), then the terminal's bytes.
        const head = new DataView(e.data, 0, 8);
        const hi = head.getUint32(0);
        const lo = head.getUint32(4);
        offset = hi === 0xffffffff && lo === 0xffffffff ? null : hi * 4294967296 + lo;
        term.write(new Uint8Array(e.data, 8));
        return;
      }
      try {
        onEvent(JSON.parse(e.data));
      } catch (_) {
        // A message this page cannot read: ignored.
      }
    };
    ws.onclose = (e) => {
      if (socket !== ws) return;
      socket = null;
      setMode('read');
      if (e.code === 4001 || e.code === 1006 && !ws.everOpened) {
        // Logged out (or never let in): the overview page says how to log in.
        fetch('/console/api/sessions', { credentials: 'same-origin' }).then((r) => {
          if (r.status === 401) {
            $('login').hidden = false;
            $('view').hidden = true;
            status('out', 'not logged in');
          } else if (!ended) {
            status('connecting', 'reconnecting…');
            later();
          }
        }, () => later());
        return;
      }
      if (ended || e.code === 4004 || e.code === 1000) {
        ended = true;
        if ($('status').dataset.status === 'live') status('exited', 'ended');
        return;
      }
      // The terminal stays as it is: the page carries on from its offset, or is sent the
      // screen afresh (`joined` says which).
      status('connecting', 'reconnecting…');
      later();
    };
    ws.onopen = () => {
      ws.everOpened = true;
    };
  }

  // The activity timeline: the session's audit trail, fetched while it is shown.
  let activityTimer = null;

  function describe(e) {
    const parts = [];
    if (e.exit_code !== null && e.exit_code !== undefined) parts.push('exit ' + e.exit_code);
    if (e.blocked) parts.push('blocked');
    else if (e.error_code) parts.push(e.error_code);
    if (e.duration_ms !== null && e.duration_ms !== undefined) parts.push(e.duration_ms + ' ms');
    return parts.join(' · ');
  }

  function renderActivity(a) {
    const items = a.events.slice().reverse().map((e) => {
      const li = document.createElement('li');
      li.dataset.action = e.action || '';
      if (e.success === false) li.dataset.failed = 'true';
      const when = new Date(e.ts);
      const span = (cls, text) => {
        const s = document.createElement('span');
        s.className = cls;
        s.textContent = text || '';
        return s;
      };
      li.append(
        span('when', Number.isNaN(when.getTime()) ? '' : when.toLocaleTimeString()),
        span('who', e.agent_id || 'cli'),
        span('what', e.action),
        span('command', e.command || ''),
        span('result', describe(e)),
      );
      return li;
    });
    $('events').replaceChildren(...items);
    $('activity-earlier').hidden = !a.earlier;
    $('activity-earlier').textContent = a.earlier ? `${a.earlier} earlier events (kpty log)` : '';
  }

  async function loadActivity() {
    try {
      const r = await fetch('/console/api/sessions/' + encodeURIComponent(sessionId) +
        '/activity', { credentials: 'same-origin' });
      if (r.ok) renderActivity(await r.json());
    } catch (_) {
      // Offline for a moment: the next refresh tries again.
    }
  }

  function toggleActivity() {
    const shown = $('activity').hidden;
    $('activity').hidden = !shown;
    $('show-activity').setAttribute('aria-expanded', String(shown));
    clearInterval(activityTimer);
    activityTimer = null;
    if (shown) {
      loadActivity();
      activityTimer = setInterval(loadActivity, 2000);
    }
  }

  const KEYS = {
    esc: () => '\x1b',
    tab: () => '\t',
    'ctrl-c': () => '\x03',
    up: () => (term.modes.applicationCursorKeysMode ? '\x1bOA' : '\x1b[A'),
    down: () => (term.modes.applicationCursorKeysMode ? '\x1bOB' : '\x1b[B'),
    right: () => (term.modes.applicationCursorKeysMode ? '\x1bOC' : '\x1b[C'),
    left: () => (term.modes.applicationCursorKeysMode ? '\x1bOD' : '\x1b[D'),
  };

  function start() {
    term.onData(type);
    term.onBinary(type);
    // Ctrl-Shift-C copies the selection, Ctrl-Shift-V pastes (the context menu works too).
    term.attachCustomKeyEventHandler((ev) => {
      if (ev.type !== 'keydown' || !ev.ctrlKey || !ev.shiftKey) return true;
      if (ev.code === 'KeyC') {
        const text = term.getSelection();
        if (text && navigator.clipboard) navigator.clipboard.writeText(text);
        return false;
      }
      if (ev.code === 'KeyF') {
        $('search').focus();
        return false;
      }
      if (ev.code === 'KeyV') {
        if (navigator.clipboard) navigator.clipboard.readText().then((t) => term.paste(t), () => {});
        return false;
      }
      return true;
    });
    $('write').addEventListener('click', () => send({ type: 'write' }));
    $('read').addEventListener('click', () => send({ type: 'read' }));
    $('show-activity').addEventListener('click', toggleActivity);
    // Enter finds the next match (Shift-Enter the one before), Escape goes back to the terminal.
    $('search').addEventListener('keydown', (ev) => {
      const text = $('search').value;
      if (ev.key === 'Enter' && text) {
        if (ev.shiftKey) search.findPrevious(text);
        else search.findNext(text);
        ev.preventDefault();
      } else if (ev.key === 'Escape') {
        search.clearDecorations();
        term.clearSelection();
        term.focus();
      }
    });
    for (const b of document.querySelectorAll('#keys button')) {
      b.addEventListener('click', () => {
        const k = KEYS[b.dataset.key];
        if (k) type(k());
        term.focus();
      });
    }
    window.addEventListener('resize', tellSize);
    connect();
  }

  start();
})();
