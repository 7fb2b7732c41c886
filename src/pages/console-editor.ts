// The console's event editor, a part of its one script (console-script.ts joins the parts, so a
// single CSP hash still allows exactly it). A form for the common fields and the raw JSON for the
// rest, kept in sync; checked as the organizer types by the organizer API's own dry run, each
// problem shown beside the field whose path the API names; saved with PATCH and If-Match of the
// version it opened, so an edit never silently overwrites another organizer's.

/** The editor part: uses `$`, `api`, `problem`, `say`, `preview` and `eventId` of the script around it; defines `openEditor`, `copyEvent`, `newEvent`, `current`, `isObj`. */
export const CONSOLE_EDITOR_SCRIPT = `
  // The form's fields by the configuration path each edits; how each reads and writes its value.
  const FIELDS = [...document.querySelectorAll('#fields [data-path]')];
  const ID_RULE = /^[a-z0-9][a-z0-9-]{0,63}$/;
  const ed = { mode: 'edit', opened: null, etag: '', seq: 0, timer: 0, lastGood: {} };
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const getAt = (o, path) => path.split('.').reduce((x, k) => (isObj(x) ? x[k] : undefined), o);
  function setAt(o, path, v) {
    const ks = path.split('.'), last = ks.pop();
    let x = o;
    for (const k of ks) { if (!isObj(x[k])) x[k] = {}; x = x[k]; }
    if (v === undefined) delete x[last]; else x[last] = v;
  }
  // datetime-local shows the organizer's local time; the configuration keeps ISO 8601 UTC.
  const toLocal = (iso) => { const d = new Date(iso); return isNaN(d) ? '' : new Date(d - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16); };
  function readField(el) {
    const v = el.value.trim();
    if (v === '') return undefined;
    if (el.dataset.kind === 'number') return Number(v);
    if (el.dataset.kind === 'lines') { const l = v.split('\\n').map((s) => s.trim()).filter(Boolean); return l.length ? l : undefined; }
    if (el.dataset.kind === 'time') { const d = new Date(v); return isNaN(d) ? v : d.toISOString(); }
    return el.tagName === 'TEXTAREA' ? el.value : v;
  }
  function showField(el, v) {
    if (v === undefined || v === null) el.value = el.tagName === 'SELECT' ? el.options[0].value : '';
    else if (el.dataset.kind === 'lines') el.value = Array.isArray(v) ? v.join('\\n') : String(v);
    else if (el.dataset.kind === 'time') el.value = toLocal(v);
    else el.value = String(v);
  }
  function parsedJson() { try { const v = JSON.parse($('config').value); return isObj(v) ? v : null; } catch { return null; } }
  function current() { return parsedJson() || ed.lastGood; }
  function fillForm(cfg) { for (const el of FIELDS) if (el !== document.activeElement) showField(el, getAt(cfg, el.dataset.path)); }

  // A JSON Merge Patch (RFC 7396) from the opened configuration to the edited one.
  function diffPatch(from, to) {
    const p = {};
    for (const k of Object.keys(from)) if (!(k in to)) p[k] = null;
    for (const [k, v] of Object.entries(to)) {
      if (isObj(v) && isObj(from[k])) { const sub = diffPatch(from[k], v); if (Object.keys(sub).length) p[k] = sub; }
      else if (JSON.stringify(v) !== JSON.stringify(from[k])) p[k] = v;
    }
    return p;
  }
  function flat(o, pre, out) {
    for (const [k, v] of Object.entries(o || {})) { const p = pre ? pre + '.' + k : k; if (isObj(v)) flat(v, p, out); else out[p] = JSON.stringify(v); }
    return out;
  }

  // Problems: each beside the field whose path is the longest prefix of the one the API names; the rest under the JSON.
  function clearProblems() {
    for (const el of [$('id'), $('config'), ...FIELDS]) { el.removeAttribute('aria-invalid'); $(el.id + '-err').textContent = ''; }
  }
  function showProblems(list) {
    clearProblems();
    const rest = [];
    for (const p of list) {
      const el = p.path === 'id' ? $('id') : FIELDS.filter((f) => p.path === f.dataset.path || p.path.startsWith(f.dataset.path + '.')).sort((a, b) => b.dataset.path.length - a.dataset.path.length)[0];
      if (el) { el.setAttribute('aria-invalid', 'true'); const e = $(el.id + '-err'); e.textContent = (e.textContent ? e.textContent + ' ' : '') + p.message; }
      else rest.push(p);
    }
    if (rest.length) { $('config').setAttribute('aria-invalid', 'true'); $('config-err').textContent = rest.map((p) => (p.path ? p.path + ': ' : '') + p.message).join(' \\u2022 '); }
  }
  // A refusal without a field list still names where it belongs when its code says so.
  const CODE_PATHS = { ROUTE_INVALID: 'patterns', ROUTE_OVERLAP: 'patterns', ROUTE_RESERVED: 'patterns', ROUTE_TAKEN: 'patterns', SIGN_IN_URL_INVALID: 'entry.signInUrl' };
  const problemsOf = (d) => d.errors && d.errors.length ? d.errors : [{ path: CODE_PATHS[d.code] || '', message: d.detail || d.title || 'refused' }];

  function request(dry) {
    const cfg = current();
    if (ed.mode === 'new') return { method: 'PUT', path: '/events/' + $('id').value + (dry ? '?dryRun=true' : ''), body: cfg, headers: {} };
    return { method: 'PATCH', path: '/events/' + eventId + (dry ? '?dryRun=true' : ''), body: diffPatch(ed.opened, cfg),
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': ed.etag } };
  }
  function edited() {
    clearTimeout(ed.timer);
    $('config-msg').textContent = '';
    const cfg = parsedJson();
    if (cfg) ed.lastGood = cfg;
    ed.timer = setTimeout(check, 400);
  }
  // The dry run: the API's own verdict, shown unless a newer edit was checked meanwhile.
  async function check() {
    clearTimeout(ed.timer);
    const seq = ++ed.seq;
    if (!parsedJson()) { showProblems([{ path: '', message: 'Not JSON yet: fix the text before anything else is checked' }]); $('save').disabled = true; return false; }
    if (ed.mode === 'new' && !ID_RULE.test($('id').value)) { showProblems([{ path: 'id', message: 'lower-case letters, digits and dashes, at most 64' }]); $('save').disabled = true; return false; }
    $('check-msg').textContent = 'Checking\\u2026';
    const q = request(true), r = await api(q.method, q.path, q.body, q.headers);
    if (seq !== ed.seq) return false;
    if (r.status === 412) { $('check-msg').textContent = ''; await conflict(); return false; }
    if (!r.ok) { showProblems(problemsOf(r.data)); $('check-msg').textContent = 'Not valid: see the marked fields'; $('save').disabled = true; return false; }
    if (ed.mode === 'new' && !r.data.created) { showProblems([{ path: 'id', message: 'an event with this id exists already: pick another' }]); $('save').disabled = true; return false; }
    clearProblems();
    if (ed.mode === 'edit') preview();
    const n = (r.data.changes || []).length;
    $('check-msg').textContent = ed.mode === 'new' ? 'Valid: ready to create ' + $('id').value : n ? 'Valid: ' + n + ' change' + (n > 1 ? 's' : '') + ' to save' : 'No changes';
    $('save').disabled = ed.mode === 'edit' && n === 0;
    return true;
  }

  function openEditor(cfg, etag) {
    Object.assign(ed, { mode: 'edit', opened: cfg, etag: etag || '', lastGood: cfg });
    $('id').value = eventId; $('id').readOnly = true;
    $('config').value = JSON.stringify(cfg, null, 2);
    fillForm(cfg); clearProblems(); $('conflict').hidden = true;
    $('check-msg').textContent = ''; $('save').disabled = true; $('save').textContent = 'Save';
  }
  // A new event is created with PUT through the same checks as an edit. A copy keeps every setting
  // but the URLs (another event may not cover them; without any it gets /events/{id}/*); a blank one
  // starts from the few fields the API requires.
  function startNew(cfg, id, message) {
    Object.assign(ed, { mode: 'new', lastGood: cfg });
    $('id').readOnly = false; $('id').value = id;
    $('config').value = JSON.stringify(cfg, null, 2); fillForm(cfg); clearProblems();
    $('save').textContent = 'Create event'; $('conflict').hidden = true;
    $('config-msg').textContent = message; $('config-msg').className = '';
    $('id').focus(); $('id').select();
    check();
  }
  function copyEvent() {
    const cfg = JSON.parse(JSON.stringify(current()));
    delete cfg.patterns;
    startNew(cfg, eventId + '-copy', 'Copy of ' + eventId + ': pick its id and change what differs, then create it');
  }
  function newEvent() {
    startNew({ name: 'New sale', releaseRatePerMinute: 600, maxActiveVisitors: 1000, seats: 100 }, 'new-sale', 'A new event: pick its id, its URLs, its seats and its rates, then create it');
  }
  async function save(e) {
    e.preventDefault();
    if (!(await check())) return;
    const q = request(false), r = await api(q.method, q.path, q.body, q.headers);
    if (r.status === 412) { await conflict(); return; }
    if (!r.ok) { showProblems(problemsOf(r.data)); $('config-msg').textContent = problem(r.data); $('config-msg').className = 'warn'; return; }
    const id = $('id').value;
    if (ed.mode === 'new') { eventId = id; await loadEvents(); } else openEditor(r.data.config, r.etag);
    $('config-msg').textContent = (r.status === 201 ? 'Created ' : 'Saved ') + id; $('config-msg').className = 'ok';
  }

  // Someone else saved since this editor opened the event: nothing was written. Show what differs
  // (opened, theirs now, yours) and let the organizer take theirs or put their own changes on it.
  async function conflict() {
    const r = await api('GET', '/events/' + eventId);
    if (!r.ok) { say(problem(r.data), true); return; }
    const theirs = r.data.config, mine = current(), was = flat(ed.opened, '', {}), now = flat(theirs, '', {}), yours = flat(mine, '', {});
    const keys = [...new Set([...Object.keys(was), ...Object.keys(now), ...Object.keys(yours)])].filter((k) => was[k] !== now[k] || was[k] !== yours[k]).sort();
    const cell = (t, v) => { const c = document.createElement(t); c.textContent = v === undefined ? '(not set)' : v; return c; };
    const rows = keys.map((k) => { const tr = document.createElement('tr'); tr.append(cell('th', k), cell('td', was[k]), cell('td', now[k]), cell('td', yours[k])); return tr; });
    const head = document.createElement('tr'); head.append(...['Field', 'When you opened it', 'Saved by someone else', 'Yours'].map((t) => cell('th', t)));
    $('conflict-diff').replaceChildren(head, ...rows);
    ed.theirs = { config: theirs, etag: r.etag };
    $('conflict').hidden = false; $('check-msg').textContent = ''; $('config-msg').textContent = ''; $('save').disabled = true;
    $('conflict-title').focus();
  }
  $('reload').onclick = () => { openEditor(ed.theirs.config, ed.theirs.etag); $('config-msg').textContent = 'Reloaded: their version is open'; $('config-msg').className = ''; };
  $('rebase').onclick = () => {
    const mine = diffPatch(ed.opened, current());
    const merged = JSON.parse(JSON.stringify(ed.theirs.config));
    (function apply(t, p) { for (const [k, v] of Object.entries(p)) { if (v === null) delete t[k]; else if (isObj(v) && isObj(t[k])) apply(t[k], v); else t[k] = v; } })(merged, mine);
    openEditor(ed.theirs.config, ed.theirs.etag);
    $('config').value = JSON.stringify(merged, null, 2); ed.lastGood = merged; fillForm(merged);
    $('config-msg').textContent = 'Your changes are on their version: check them, then save'; $('config-msg').className = '';
    check();
  };

  for (const el of FIELDS) el.addEventListener('input', () => {
    const cfg = JSON.parse(JSON.stringify(current()));
    setAt(cfg, el.dataset.path, readField(el));
    if (isObj(cfg.page) && Object.keys(cfg.page).length === 0) delete cfg.page;
    $('config').value = JSON.stringify(cfg, null, 2);
    edited();
  });
  $('config').addEventListener('input', () => { const cfg = parsedJson(); if (cfg) fillForm(cfg); edited(); });
  $('id').addEventListener('input', edited);
  $('editor').onsubmit = save;
  $('copy').onclick = copyEvent;
  $('new').onclick = newEvent;
`;

/** One field of the editor's form: the configuration path it edits, its label, control and hint. */
interface EditorField {
  path: string;
  label: string;
  /** The control's tag and attributes, without id, data-path and aria-describedby. */
  control: string;
  hint: string;
}

const EDITOR_FIELDS: readonly EditorField[] = [
  { path: 'name', label: 'Name', control: 'input maxlength="200"', hint: 'On the waiting page; empty: the event id' },
  {
    path: 'patterns',
    label: 'URL patterns',
    control: 'textarea data-kind="lines" rows="2" spellcheck="false"',
    hint: 'One per line, e.g. /events/spring-tour/*; empty: /events/{id}/*',
  },
  {
    path: 'policy',
    label: 'Queue order',
    control: 'select',
    hint: 'A lottery draws the pre-queue at the sale start',
  },
  {
    path: 'saleStartsAt',
    label: 'Sale starts',
    control: 'input type="datetime-local" data-kind="time"',
    hint: 'Your local time; visitors before it wait in the pre-queue; empty: on sale now',
  },
  {
    path: 'releaseRatePerMinute',
    label: 'Max release rate',
    control: 'input type="number" inputmode="numeric" data-kind="number"',
    hint: 'New visitors per minute, at most',
  },
  {
    path: 'minReleaseRatePerMinute',
    label: 'Min release rate',
    control: 'input type="number" inputmode="numeric" data-kind="number"',
    hint: 'Per minute, even for a silent origin; empty: a tenth of the max',
  },
  {
    path: 'maxActiveVisitors',
    label: 'Max active visitors',
    control: 'input type="number" inputmode="numeric" data-kind="number"',
    hint: 'Admitted visitors at once',
  },
  { path: 'page.message', label: 'Page message', control: 'textarea rows="2" maxlength="500"', hint: 'Shown on the waiting page' },
  { path: 'page.accentColor', label: 'Page colour', control: 'input placeholder="#2563eb" maxlength="7"', hint: '#rrggbb' },
  {
    path: 'page.template',
    label: 'Page template',
    control: 'textarea rows="4" spellcheck="false"',
    hint: 'Your own waiting page: HTML with {{placeholders}} (docs/how-to/custom-waiting-page.md); empty: ours',
  },
];

const POLICY_OPTIONS = '<option value="fifo">First come, first served</option><option value="random">Lottery</option>';

/** The editor's markup: the form's fields (each error tied to its control by aria-describedby), the JSON, the conflict panel. */
export function editorHtml(): string {
  const fields = EDITOR_FIELDS.map((f) => {
    const id = `f-${f.path.replace('.', '-')}`;
    const [tag] = f.control.split(' ');
    const attrs = `id="${id}" data-path="${f.path}" aria-describedby="${id}-hint ${id}-err"`;
    const control =
      tag === 'select'
        ? `<select ${attrs}>${POLICY_OPTIONS}</select>`
        : tag === 'textarea'
          ? `<${f.control} ${attrs}></textarea>`
          : `<${f.control} ${attrs}>`;
    return `<div class="field"><label for="${id}">${f.label}</label>${control}<small id="${id}-hint">${f.hint}</small><span class="err" id="${id}-err"></span></div>`;
  }).join('\n        ');
  return `<form id="editor" novalidate aria-labelledby="event-h">
      <div class="field"><label for="id">Event id</label><input id="id" data-testid="event-id" aria-describedby="id-err" autocomplete="off" spellcheck="false"><span class="err" id="id-err"></span></div>
      <p class="actions"><button id="save" type="submit">Save</button> <button id="copy" type="button">Copy as new event</button> <button id="new" type="button">New event</button></p>
      <p id="check-msg" role="status" data-testid="check-msg"></p>
      <p id="config-msg" role="status" data-testid="config-msg"></p>
      <div id="conflict" class="conflict" role="alert" data-testid="conflict" hidden>
        <h3 id="conflict-title" tabindex="-1">This event was changed by someone else since you opened it</h3>
        <p>Nothing was saved. What differs:</p>
        <div class="scroll"><table id="conflict-diff"></table></div>
        <button id="reload" type="button">Reload their version</button> <button id="rebase" type="button">Put my changes on their version</button>
      </div>
      <fieldset id="fields" class="grid"><legend>Common settings</legend>
        ${fields}
      </fieldset>
      <label for="config">Every setting (JSON, as the API's PUT body)</label>
      <textarea id="config" spellcheck="false" aria-describedby="config-err"></textarea>
      <p class="err" id="config-err" data-testid="config-err"></p>
    </form>`;
}
