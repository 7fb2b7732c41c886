// The dashboard's access panels: named organizer keys (admins: create, shown once; list; revoke)
// and the audit of the chosen event (newest first, exported as CSV or JSON). A script of its own
// beside the dashboard's: it reads the same session token and the event picker.

/** The panels' script: static, so a CSP hash can allow exactly it. */
export const DASHBOARD_ACCESS_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const auth = () => ({ authorization: 'Bearer ' + (sessionStorage.getItem('wr_admin_token') || '') });
  const eventId = () => $('event').value;
  const when = (ms) => ms ? new Date(ms).toLocaleString() : '-';
  const cell = (text) => { const td = document.createElement('td'); td.textContent = text; return td; };
  async function call(method, path, body) {
    const r = await fetch('/_wr/admin' + path, { method, headers: { ...auth(), 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return { ok: r.ok, res: r, data: r.headers.get('content-type')?.includes('json') ? await r.json().catch(() => ({})) : null };
  }
  const refusal = (r) => (r.data && (r.data.detail || r.data.title)) || 'Refused';

  async function loadKeys() {
    const r = await call('GET', '/keys');
    $('keyNote').textContent = r.ok ? '' : r.res.status === 403 ? 'Only admins manage keys.' : refusal(r);
    $('keyForm').hidden = !r.ok;
    $('keyList').replaceChildren(...(r.ok ? r.data.keys : []).map((k) => {
      const tr = document.createElement('tr');
      tr.append(cell(k.label), cell(k.role), cell(when(k.createdAt)), cell(when(k.lastUsedAt)), cell(k.revokedAt ? 'revoked ' + when(k.revokedAt) : 'active'));
      const td = document.createElement('td');
      if (!k.revokedAt) {
        const b = document.createElement('button'); b.type = 'button'; b.textContent = 'Revoke';
        b.onclick = async () => {
          if (!confirm('Revoke the key "' + k.label + '"? Anyone using it is refused within 10 seconds.')) return;
          const d = await call('DELETE', '/keys/' + k.keyId);
          $('keyNote').textContent = d.ok ? 'Revoked "' + k.label + '".' : refusal(d);
          loadKeys();
        };
        td.append(b);
      }
      tr.append(td);
      return tr;
    }));
  }
  $('keyForm').onsubmit = async (e) => {
    e.preventDefault();
    const r = await call('POST', '/keys', { label: $('keyLabel').value, role: $('keyRole').value });
    if (!r.ok) { $('keyNote').textContent = refusal(r); return; }
    $('keyValue').textContent = r.data.key; $('keyShown').hidden = false; $('keyLabel').value = '';
    loadKeys();
  };
  $('keys').ontoggle = () => { $('keyShown').hidden = true; if ($('keys').open) loadKeys(); };

  const describe = (changes) => changes.map((c) => c.field + ': ' + ('from' in c ? JSON.stringify(c.from) + ' → ' : '') + ('to' in c ? JSON.stringify(c.to) : '(removed)')).join('; ');
  async function loadAudit() {
    if (!eventId()) return;
    const r = await call('GET', '/events/' + encodeURIComponent(eventId()) + '/changes?limit=1000');
    $('auditNote').textContent = r.ok ? (r.data.entries.length ? '' : 'No changes recorded yet.') : refusal(r);
    $('auditList').replaceChildren(...(r.ok ? r.data.entries.slice().reverse() : []).map((e) => {
      const tr = document.createElement('tr');
      tr.append(cell(when(e.at)), cell(e.actor.label + (e.actor.kind === 'key' ? ' (key ' + e.actor.id + ')' : '')), cell(e.action), cell(describe(e.changes)));
      return tr;
    }));
  }
  async function download(format) {
    const r = await fetch('/_wr/admin/events/' + encodeURIComponent(eventId()) + '/changes?format=' + format, { headers: auth() });
    if (!r.ok) { $('auditNote').textContent = 'Export refused'; return; }
    const a = document.createElement('a');
    a.href = URL.createObjectURL(await r.blob()); a.download = 'audit-' + eventId() + '.' + format;
    a.click(); setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }
  $('auditCsv').onclick = () => download('csv');
  $('auditJson').onclick = () => download('json');
  $('audit').ontoggle = () => { if ($('audit').open) loadAudit(); };
  $('event').addEventListener('change', () => { if ($('audit').open) loadAudit(); });
})();
`;

/** The panels' HTML, placed in the dashboard's main area. */
export function accessPanels(): string {
  return `<details id="audit" class="panel">
    <summary>Changes to this event</summary>
    <p class="controls"><button id="auditCsv" type="button">Export CSV</button><button id="auditJson" type="button">Export JSON</button><span id="auditNote" role="status"></span></p>
    <table><thead><tr><th>When</th><th>Who</th><th>What</th><th>Fields</th></tr></thead><tbody id="auditList"></tbody></table>
  </details>
  <details id="keys" class="panel">
    <summary>Organizer keys</summary>
    <p id="keyNote" role="status"></p>
    <form id="keyForm" hidden>
      <label>Label <input id="keyLabel" required maxlength="100"></label>
      <label>Role <select id="keyRole"><option value="viewer">viewer: numbers only</option><option value="operator">operator: pause, resume, close, rate</option><option value="admin">admin: everything</option></select></label>
      <button>Create key</button>
    </form>
    <p id="keyShown" hidden>Copy this key now: it is shown once. <code id="keyValue"></code></p>
    <table><thead><tr><th>Label</th><th>Role</th><th>Created</th><th>Last used</th><th>State</th><th></th></tr></thead><tbody id="keyList"></tbody></table>
  </details>`;
}
