// The published API description: served at /_wr/openapi.json, equal to the committed
// docs/reference/openapi.json, describing exactly the routes the app mounts, with the roles of the
// organizer table and the error codes and statuses of src/lib/errors.ts.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import committed from '../../docs/reference/openapi.json?raw';
import { createApp } from '../../src/app';
import { ERROR_TABLE } from '../../src/lib/errors';
import { ORGANIZER_BASE, ORGANIZER_ROUTES } from '../../src/lib/organizer-routes';
import { BASE } from '../helpers/client';

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { 'x-role'?: string; responses: Record<string, unknown> }>>;
  components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
  'x-error-codes': Record<string, { status: number; title: string }>;
}

async function served(): Promise<{ res: Response; text: string }> {
  const res = await exports.default.fetch(new Request(`${BASE}/_wr/openapi.json`));
  return { res, text: await res.text() };
}

describe('OpenAPI document', () => {
  it('is served publicly, and is the committed docs/reference/openapi.json (else run node scripts/openapi.ts)', async () => {
    const { res, text } = await served();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect((JSON.parse(text) as Doc).openapi).toBe('3.1.0');
    expect(text, 'docs/reference/openapi.json is stale: run `node_modules/.bin/node scripts/openapi.ts`').toBe(committed);
  });

  it('describes every route the app mounts, and no route it does not', async () => {
    const doc = JSON.parse((await served()).text) as Doc;
    const described = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const mounted = createApp()
      .routes.filter((r) => r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path}`);
    expect(new Set(described)).toEqual(new Set(mounted));
  });

  it('names the role of every organizer operation as the role table does', async () => {
    const doc = JSON.parse((await served()).text) as Doc;
    for (const [route, role] of Object.entries(ORGANIZER_ROUTES)) {
      const [method, path] = route.split(' ') as [string, string];
      const op = doc.paths[`${ORGANIZER_BASE}${path}`.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      expect(op?.['x-role'], route).toBe(role);
    }
  });

  it('documents exactly the error codes and statuses of the error table', async () => {
    const doc = JSON.parse((await served()).text) as Doc;
    expect(doc['x-error-codes']).toEqual(ERROR_TABLE);
    expect(new Set(doc.components.schemas.Problem.properties.code.enum)).toEqual(new Set(Object.keys(ERROR_TABLE)));
    const statuses = new Set(Object.values(ERROR_TABLE).map((e) => `${Math.floor(e.status / 100)}XX`));
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) for (const s of statuses) expect(op.responses[s], s).toBeDefined();
  });
});
