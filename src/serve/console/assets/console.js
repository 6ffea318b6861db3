// kpty console: the overview of every session kpty knows, pushed over one WebSocket.
// Plain script, no framework, no inline code (the page's CSP forbids it). Everything a
// session says (labels, commands, paths) is untrusted: it is only ever set as text.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  let socket = null;
  let sessions = [];
  let retries = 0;

  function show(which) {
    $('login').hidden = which !== 'login';
    $('overview').hidden = which !== 'overview';
    $('logout').hidden = which !== 'overview';
  }

  function status(state, text) {
    const el = $('status');
    el.dataset.status = state;
    el.textContent = text;
  }

  function loginError(text) {
    const el = $('login-error');
    el.textContent = text;
    el.hidden = !text;
  }

  async function login(token) {
    const r = await fetch('/console/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: token.trim() }),
      credentials: 'same-origin',
    });
    return r.status === 204;
  }

  // The state a tile shows: the terminal's own (prompt, running, full_screen,
  // waiting_input) while the session runs, else the session's (exited, dead …).
  function stateOf(s) {
    if (s.process && s.process.state === 'restarting') return 'restarting';
    if (s.state !== 'running') return s.state || 'unknown';
    return s.terminal_state || (s.at_prompt ? 'prompt' : 'running');
  }

  function age(since) {
    const t = Date.parse(since);
    if (Number.isNaN(t)) return '';
    let s = Math.max(0, Math.round((Date.now() - t) / 1000));
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min';
    s = Math.floor(s / 60);
    return Math.floor(s / 60) + ' h ' + (s % 60) + ' min';
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function tile(s) {
    const state = stateOf(s);
    const t = el('article', 'tile');
    t.setAttribute('role', 'listitem');
    // A session on another host opens as a local one does, named by its tile's key
    // (HOST:ID: the server joins it over that host's channel).
    const remote = s.source === 'remote';
    t.dataset.sessionId = keyOf(s);
    t.dataset.state = state;
    const h = el('h3');
    const link = el('a', 'label', s.label || s.session_id);
    link.href = '/console/session/' + encodeURIComponent(keyOf(s));
    link.dataset.action = 'open';
    h.append(link);
    if (s.label) h.append(el('span', 'id', s.session_id));
    h.append(el('span', 'state', state.replace('_', ' ')));
    t.append(h);
    const dl = el('dl');
    const row = (name, value) => {
      if (value === undefined || value === null || value === '') return;
      dl.append(el('dt', null, name), el('dd', null, value));
    };
    const running = s.command_started_at && state !== 'prompt' ? ` · ${age(s.command_started_at)}` : '';
    const what = s.foreground_command ||
      (state === 'prompt' ? '(at the prompt)' : running ? '(a command)' : '');
    row('command', what + running);
    row('cwd', s.cwd);
    row('agent', [s.owner_agent_id, s.owner_role].filter(Boolean).join(' · '));
    row('shell', s.cli_type);
    row('attached', s.attached);
    if (s.state === 'exited') row('exit code', s.exit_code);
    row('age', age(s.created_at));
    if (remote) {
      row('host', s.host);
    } else if (s.source && s.source !== 'local') {
      row('source', s.source);
    }
    t.append(dl);
    if (Array.isArray(s.miniature)) {
      // The screen in small, as text; a click on it opens the terminal too.
      const mini = el('a', 'mini');
      mini.href = link.href;
      mini.tabIndex = -1;
      mini.setAttribute('aria-hidden', 'true');
      mini.append(el('pre', null, s.miniature.join('\n')));
      t.append(mini);
    }
    return t;
  }

  // A tile's key: the session id, with its host for another machine's.
  function keyOf(s) {
    return s.source === 'remote' ? `${s.host}:${s.session_id}` : s.session_id;
  }

  function matches(s, words) {
    const hay = [s.session_id, s.label, s.owner_agent_id, s.owner_role, stateOf(s),
      s.foreground_command, s.cwd, s.host].filter(Boolean).join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  }

  function render(list, down) {
    if (list) sessions = list;
    if (down) {
      const names = down.map((d) => `${d.host} (${d.error})`);
      $('hosts-down').textContent = names.length ? 'Not answering: ' + names.join(', ') : '';
      $('hosts-down').hidden = names.length === 0;
    }
    const words = $('filter').value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = sessions.filter((s) => matches(s, words));
    // A tile whose session did not change is kept as it is (a click on it is not lost).
    const before = new Map([...$('tiles').children].map((t) => [t.dataset.sessionId, t]));
    $('tiles').replaceChildren(...shown.map((s) => {
      const key = JSON.stringify(s) + age(s.created_at);
      const old = before.get(keyOf(s));
      if (old && old.dataset.key === key) return old;
      const t = tile(s);
      t.dataset.key = key;
      return t;
    }));
    $('count').textContent = words.length
      ? `(${shown.length} of ${sessions.length})` : `(${sessions.length})`;
    $('empty').hidden = sessions.length !== 0;
  }

  function later() {
    retries = Math.min(retries + 1, 6);
    setTimeout(connect, 500 * retries);
  }

  async function connect() {
    let r;
    try {
      r = await fetch('/console/api/sessions', { credentials: 'same-origin' });
    } catch (_) {
      status('offline', 'kpty serve is not answering');
      later();
      return;
    }
    if (r.status === 401) {
      show('login');
      status('out', 'not logged in');
      return;
    }
    if (!r.ok) {
      status('error', 'error ' + r.status);
      later();
      return;
    }
    const first = await r.json();
    render(first.sessions || [], first.hosts_down || []);
    show('overview');
    if (socket) {
      const old = socket;
      socket = null;
      old.close();
    }
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') +
      location.host + '/console/ws');
    socket = ws;
    ws.onopen = () => {
      retries = 0;
      status('live', 'live');
    };
    ws.onmessage = (e) => {
      try {
        const m = JSON.parse(e.data);
        render(m.sessions || [], m.hosts_down || []);
      } catch (_) {
        // A message this page cannot read: keep what it shows.
      }
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      status('connecting', 'reconnecting…');
      later();
    };
  }

  // A login link's token (after `#`): taken out of the address bar (and the history) before
  // anything else happens, then traded for the login cookie. True when there was one.
  async function fromLink() {
    const m = /(?:^|&)token=([^&]+)/.exec(location.hash.slice(1));
    if (!m) return false;
    history.replaceState(null, '', location.pathname);
    if (!(await login(decodeURIComponent(m[1])))) {
      loginError('This link is not (or no longer) valid: run `kpty console` for a new one.');
    } else {
      loginError('');
    }
    return true;
  }

  async function start() {
    await fromLink();
    // A link opened in a tab that shows the console already only changes the fragment.
    window.addEventListener('hashchange', async () => {
      if (await fromLink()) connect();
    });
    $('filter').addEventListener('input', () => render());
    $('login-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const ok = await login($('token').value);
      $('token').value = '';
      loginError(ok ? '' : 'That token is not (or no longer) valid.');
      if (ok) connect();
    });
    $('logout').addEventListener('click', async () => {
      await fetch('/console/logout', { method: 'POST', credentials: 'same-origin' });
      if (socket) {
        const ws = socket;
        socket = null;
        ws.close();
      }
      show('login');
      status('out', 'logged out');
    });
    setInterval(() => render(), 30000); // ages move on
    connect();
  }

  start();
})();
