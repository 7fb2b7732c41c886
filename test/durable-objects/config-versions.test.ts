// The EventDirectory's configuration versions and edit leases (durable-objects/directory/audit-store.ts),
// with the clock passed in: If-Match, a second edit during a lease, a crashed edit's lease taken over
// by the same request or after it runs out, and finishing an edit once however often it is retried.
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../durable-objects/directory/audit-store';
import { Sql } from '../../durable-objects/shared/sql';
import { EDIT_LEASE_MS, type AuditInput } from '../../contracts/organizer-access';
import { freshEventId } from '../helpers/client';

const T = 1_800_000_000_000;
const entry = (eventId: string): AuditInput => ({
  eventId,
  actor: { kind: 'bootstrap', id: 'admin-token', label: 'ADMIN_TOKEN' },
  action: 'event.update',
  changes: [{ field: 'name', from: 'a', to: 'b' }],
  requestId: 'r',
});

async function withStore<T>(run: (store: AuditStore) => T): Promise<T> {
  return runInDurableObject(env.DIRECTORY.getByName(`versions-${freshEventId()}`), (_obj, state) =>
    run(new AuditStore(new Sql(state.storage.sql))),
  );
}

describe('configuration versions', () => {
  it('starts at 0, checks If-Match, and raises the version once per finished edit, however often the finish is retried', async () => {
    await withStore((store) => {
      const e = 'ev';
      expect(store.version(e)).toBe(0);
      expect(store.beginEdit(e, [1], { editId: 'x', fingerprint: 'A' }, T)).toEqual({ kind: 'stale', version: 0, editing: false });
      expect(store.beginEdit(e, [0], { editId: 'a', fingerprint: 'A' }, T)).toEqual({ kind: 'ok', version: 0 });
      expect(store.finishEdit(e, 'a', 'k1', entry(e), T)).toBe(1);
      expect(store.finishEdit(e, 'a', 'k1', entry(e), T)).toBe(1);
      expect(store.page(e, 0, 10)).toHaveLength(1);
      expect(store.beginEdit(e, [0], { editId: 'b', fingerprint: 'B' }, T)).toEqual({ kind: 'stale', version: 1, editing: false });
    });
  });

  it('refuses a second edit while a lease runs (412 conditional, busy otherwise), lets the same request take it over, and anyone after it ran out', async () => {
    await withStore((store) => {
      const e = 'ev';
      expect(store.beginEdit(e, null, { editId: 'a', fingerprint: 'A' }, T).kind).toBe('ok');
      expect(store.beginEdit(e, [0], { editId: 'b', fingerprint: 'B' }, T + 1)).toEqual({ kind: 'stale', version: 0, editing: true });
      expect(store.beginEdit(e, null, { editId: 'b', fingerprint: 'B' }, T + 1)).toEqual({ kind: 'busy', retryAfterS: 30 });
      // The first attempt's Worker died: the same request again takes the lease over.
      expect(store.beginEdit(e, null, { editId: 'a2', fingerprint: 'A' }, T + 2).kind).toBe('ok');
      store.abortEdit(e, 'a'); // the dead attempt's late abort frees nothing of the new holder's
      expect(store.beginEdit(e, null, { editId: 'b', fingerprint: 'B' }, T + 3).kind).toBe('busy');
      expect(store.beginEdit(e, null, { editId: 'b', fingerprint: 'B' }, T + 2 + EDIT_LEASE_MS).kind).toBe('ok');
    });
  });
});
