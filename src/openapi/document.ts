// The OpenAPI 3.1 description of the gateway's HTTP API (visitor, organizer, origin and channel
// APIs), generated from the zod schemas the routes validate with and the error table. The Worker
// never imports this module: scripts/openapi.ts writes docs/reference/openapi.json from it, the
// page assets carry that text (served at OPENAPI_PATH), and test/edge/openapi.test.ts checks it
// against the mounted routes, the error table and the committed file.
import { overrideInput } from '../../contracts/schedule';
import * as z from 'zod/mini';
import { eventConfigInput } from '../../contracts/event-input';
import { ERROR_TABLE } from '../lib/errors';
import { OPENAPI_PATH } from '../lib/page-assets';
import { CHANNEL_KEY_HEADER, SIGNATURE_HEADER } from '../../contracts/names';
import { ORGANIZER_BASE, ORGANIZER_ROUTES } from '../lib/organizer-routes';
import { previewBody, rateOverride } from '../routes/admin';
import { allocationBody, channelBody } from '../routes/channel-admin';
import { channelHold, confirmBody, emptyBody } from '../routes/channels';
import { patchBody } from '../routes/event-edits';
import { holdRequest } from '../routes/holds';
import { newKeyBody } from '../routes/organizer-access';
import { accountRequest, confirmRequest, extendRequest, healthReport } from '../routes/origin-api';
import type { Api, Operation } from './operation';
import { RESALE_OPERATIONS } from './resale-operations';

/** The configuration edits' dry run (src/routes/event-dry-run.ts). */
const DRY_RUN = [
  { name: 'dryRun', description: 'true: check the edit and answer what it would change, writing nothing', values: ['true', 'false'] },
];

const E = '/_wr/events/:eventId';
const A = `${ORGANIZER_BASE}/events/:eventId`;
const O = '/_wr/origin/events/:eventId';
const C = '/_wr/channel/events/:eventId';

/** Every route the gateway mounts (test/edge/openapi.test.ts compares this list with the app). */
const OPERATIONS: readonly Operation[] = [
  { method: 'GET', path: '/.well-known/jwks.json', api: 'public', summary: 'Public keys of admission tokens (current and previous)' },
  { method: 'GET', path: OPENAPI_PATH, api: 'public', summary: 'This document' },
  { method: 'POST', path: `${E}/join`, api: 'visitor', summary: 'Join the waiting room: a queue ticket (cookie or bearer) and the turn' },
  { method: 'GET', path: `${E}/status`, api: 'visitor', summary: 'The visitor’s turn: position, estimate, or admission' },
  { method: 'POST', path: `${E}/leave`, api: 'visitor', summary: 'Leave the queue or end the admission' },
  { method: 'GET', path: `${E}/draw`, api: 'visitor', summary: 'The lottery draw record: seed commitment and, after the draw, the seed' },
  { method: 'GET', path: `${E}/challenge`, api: 'visitor', summary: 'A proof-of-work challenge for events that ask for one' },
  { method: 'GET', path: `${E}/seats`, api: 'visitor', summary: 'The seat map (snapshot and deltas), for admitted visitors' },
  { method: 'POST', path: `${E}/holds`, api: 'visitor', summary: 'Hold seats or a tier quantity (Idempotency-Key)', body: holdRequest },
  { method: 'GET', path: `${E}/holds/:holdId`, api: 'visitor', summary: 'One of the visitor’s holds' },
  { method: 'DELETE', path: `${E}/holds/:holdId`, api: 'visitor', summary: 'Release one of the visitor’s holds' },
  {
    method: 'POST',
    path: `${E}/holds/:holdId/extend`,
    api: 'visitor',
    summary: 'More time on one of the visitor’s holds (Idempotency-Key)',
  },
  { method: 'GET', path: ORGANIZER_BASE, api: 'organizer', summary: 'Redirect to the dashboard', produces: 'redirect' },
  {
    method: 'GET',
    path: `${ORGANIZER_BASE}/`,
    api: 'organizer',
    summary: 'The organizer dashboard (a page without data)',
    produces: 'text/html',
  },
  {
    method: 'GET',
    path: `${ORGANIZER_BASE}/console`,
    api: 'organizer',
    summary: 'The organizer console: events, scheduled changes, history, report (a page without data)',
    produces: 'text/html',
  },
  { method: 'GET', path: `${ORGANIZER_BASE}/me`, api: 'organizer', summary: 'The caller and their role' },
  { method: 'GET', path: `${ORGANIZER_BASE}/keys`, api: 'organizer', summary: 'Named organizer keys (never a key or its hash)' },
  {
    method: 'POST',
    path: `${ORGANIZER_BASE}/keys`,
    api: 'organizer',
    summary: 'Create a named key; the key is in this answer only',
    body: newKeyBody,
  },
  { method: 'DELETE', path: `${ORGANIZER_BASE}/keys/:keyId`, api: 'organizer', summary: 'Revoke a key for good' },
  {
    method: 'GET',
    path: `${ORGANIZER_BASE}/changes`,
    api: 'organizer',
    summary: 'Audit entries that belong to no event (keys); format=csv|json exports',
  },
  { method: 'GET', path: `${ORGANIZER_BASE}/events`, api: 'organizer', summary: 'Every event, most recently changed first' },
  { method: 'GET', path: A, api: 'organizer', summary: 'Configuration (ETag = its version), live queue and inventory numbers' },
  {
    method: 'PUT',
    path: A,
    api: 'organizer',
    summary: 'Create or replace the configuration, whole or not at all (If-Match optional; ?dryRun=true checks only)',
    body: eventConfigInput,
    query: DRY_RUN,
  },
  {
    method: 'PATCH',
    path: A,
    api: 'organizer',
    summary: 'Change some fields: JSON Merge Patch (RFC 7396), the same rules as PUT (If-Match optional; ?dryRun=true checks only)',
    body: patchBody,
    bodyType: 'application/merge-patch+json',
    query: DRY_RUN,
  },
  {
    method: 'GET',
    path: `${A}/preview`,
    api: 'organizer',
    summary: 'The waiting page of one phase with sample data',
    produces: 'text/html',
  },
  {
    method: 'POST',
    path: `${A}/preview`,
    api: 'organizer',
    summary: 'The waiting page of one phase with sample data and a page look not saved yet (page.template checked as PUT checks it)',
    body: previewBody,
    produces: 'text/html',
  },
  {
    method: 'POST',
    path: `${A}/rate`,
    api: 'organizer',
    summary: 'Fix the release rate, or hand it back to the controller (null)',
    body: rateOverride,
  },
  { method: 'POST', path: `${A}/pause`, api: 'organizer', summary: 'Stop releases; nobody loses a place' },
  { method: 'POST', path: `${A}/resume`, api: 'organizer', summary: 'Release again and reopen holds' },
  { method: 'POST', path: `${A}/close`, api: 'organizer', summary: 'Close the sale: no new holds, waiting visitors are told' },
  { method: 'GET', path: `${A}/audit`, api: 'organizer', summary: 'The Inventory’s log of seat changes, paged' },
  { method: 'GET', path: `${A}/changes`, api: 'organizer', summary: 'The audit of organizer writes, paged; format=csv|json exports' },
  { method: 'GET', path: `${A}/schedule`, api: 'organizer', summary: 'Scheduled changes of the event, in start order' },
  {
    method: 'PUT',
    path: `${A}/schedule/:overrideId`,
    api: 'organizer',
    summary: 'Schedule a time-boxed change (rate bounds, active limit, admission lifetime, method, page)',
    body: overrideInput,
  },
  { method: 'DELETE', path: `${A}/schedule/:overrideId`, api: 'organizer', summary: 'Cancel a scheduled change, or end one in effect' },
  { method: 'GET', path: `${A}/history`, api: 'organizer', summary: 'Per-minute figures over a range of at most 30 days (from, to)' },
  { method: 'GET', path: `${A}/report`, api: 'organizer', summary: 'The report after the sale; format=csv for the minutes' },
  { method: 'GET', path: `${A}/channels`, api: 'organizer', summary: 'Sales channels and allocations' },
  {
    method: 'PUT',
    path: `${A}/channels/:channelId`,
    api: 'organizer',
    summary: 'Create or re-activate a channel; its key is shown once',
    body: channelBody,
  },
  { method: 'DELETE', path: `${A}/channels/:channelId`, api: 'organizer', summary: 'Revoke a channel’s key' },
  {
    method: 'PUT',
    path: `${A}/allocations/:allocationId`,
    api: 'organizer',
    summary: 'Allocate seats or a tier quota to a channel',
    body: allocationBody,
  },
  { method: 'DELETE', path: `${A}/allocations/:allocationId`, api: 'organizer', summary: 'End an allocation; unsold seats return to sale' },
  { method: 'GET', path: O, api: 'origin', summary: 'What the origin’s pages show of the event' },
  {
    method: 'POST',
    path: `${O}/health`,
    api: 'origin',
    summary: 'A health report for the release controller',
    body: healthReport,
    produces: 'empty',
  },
  { method: 'GET', path: `${O}/holds`, api: 'origin', summary: 'Holds of the event, paged' },
  { method: 'GET', path: `${O}/holds/:holdId`, api: 'origin', summary: 'One hold' },
  {
    method: 'POST',
    path: `${O}/holds/:holdId/payment-pending`,
    api: 'origin',
    summary: 'Checkout started: the hold waits for payment',
    body: accountRequest,
  },
  {
    method: 'POST',
    path: `${O}/holds/:holdId/confirm`,
    api: 'origin',
    summary: 'Payment succeeded: the seats are sold',
    body: confirmRequest,
  },
  { method: 'POST', path: `${O}/holds/:holdId/release`, api: 'origin', summary: 'Give the seats back', body: accountRequest },
  {
    method: 'POST',
    path: `${O}/holds/:holdId/extend`,
    api: 'origin',
    summary: 'More time on a HELD hold, within the event’s holdExtension bounds',
    body: extendRequest,
  },
  {
    method: 'POST',
    path: `${C}/holds`,
    api: 'channel',
    summary: 'Hold allocated seats for a channel’s customer (Idempotency-Key)',
    body: channelHold,
  },
  { method: 'GET', path: `${C}/holds/:holdId`, api: 'channel', summary: 'One of the channel’s holds' },
  { method: 'POST', path: `${C}/holds/:holdId/confirm`, api: 'channel', summary: 'Sell a channel hold', body: confirmBody },
  { method: 'POST', path: `${C}/holds/:holdId/release`, api: 'channel', summary: 'Give a channel hold back', body: emptyBody },
  { method: 'GET', path: `${C}/feed`, api: 'channel', summary: 'Seat changes after a cursor' },
  { method: 'GET', path: `${C}/feed/snapshot`, api: 'channel', summary: 'The whole seat state and a cursor' },
  { method: 'GET', path: `${C}/allocations`, api: 'channel', summary: 'The channel’s allocations' },
  ...RESALE_OPERATIONS,
];

const SECURITY: Record<Api, { [scheme: string]: string[] }[]> = {
  public: [],
  visitor: [{ queueTicket: [] }, {}],
  organizer: [{ organizerKey: [] }, { cloudflareAccess: [] }],
  origin: [{ originSignature: [] }],
  channel: [{ channelSignature: [] }],
};

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), the input side (what a client sends). */
function schemaOf(schema: z.ZodMiniType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  return rest;
}

function operationObject(op: Operation): Record<string, unknown> {
  const params = [
    ...[...op.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
    ...(op.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: false,
      description: q.description,
      schema: { type: 'string', enum: q.values },
    })),
  ];
  const organizerPath = op.path.slice(ORGANIZER_BASE.length);
  const role = op.api === 'organizer' ? (ORGANIZER_ROUTES as Record<string, string>)[`${op.method} ${organizerPath}`] : undefined;
  const success =
    op.produces === 'redirect'
      ? { '301': { description: 'To the dashboard' } }
      : op.produces === 'empty'
        ? { '204': { description: 'Accepted' } }
        : op.produces === 'text/html'
          ? { '200': { description: 'A page', content: { 'text/html': { schema: { type: 'string' } } } } }
          : { '200': { description: 'Success', content: { 'application/json': { schema: { type: 'object' } } } } };
  return {
    operationId: `${op.method.toLowerCase()}${op.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_m, ch: string | undefined) => (ch ?? '').toUpperCase())}`,
    summary: op.summary,
    tags: [op.api],
    ...(role ? { 'x-role': role } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: { [op.bodyType ?? 'application/json']: { schema: schemaOf(op.body) } } } }
      : {}),
    responses: { ...success, '4XX': { $ref: '#/components/responses/Problem' }, '5XX': { $ref: '#/components/responses/Problem' } },
    security: SECURITY[op.api],
  };
}

/** The document (plain JSON). */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const path = op.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[op.method.toLowerCase()] = operationObject(op);
  }
  const codes = Object.keys(ERROR_TABLE);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Waiting room gateway',
      version: '1',
      description:
        'Visitor, organizer, origin and sales-channel APIs of the gateway. Every error is RFC 9457 problem details with a stable `code`; `x-error-codes` lists each code with its HTTP status. Organizer operations name the weakest role that may call them in `x-role`.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      securitySchemes: {
        queueTicket: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-wr_t_{eventId}',
          description: 'The queue ticket cookie (apps: Authorization: Bearer); admitted visitors also send their admission token',
        },
        organizerKey: { type: 'http', scheme: 'bearer', description: 'A named organizer key (wrk_...) or ADMIN_TOKEN' },
        cloudflareAccess: {
          type: 'apiKey',
          in: 'header',
          name: 'Cf-Access-Jwt-Assertion',
          description: 'Cloudflare Access, when configured',
        },
        originSignature: {
          type: 'apiKey',
          in: 'header',
          name: SIGNATURE_HEADER,
          description: 'HMAC-SHA256 over method, path, timestamp and body (docs/reference/origin-contract.md)',
        },
        channelSignature: {
          type: 'apiKey',
          in: 'header',
          name: CHANNEL_KEY_HEADER,
          description: 'The channel’s key id, with a signature made with the channel’s own key',
        },
      },
      responses: {
        Problem: {
          description: 'Problem details',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            code: { type: 'string', enum: codes },
            detail: { type: 'string' },
          },
        },
      },
    },
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_TABLE).map(([code, { status, title }]) => [code, { status, title }])),
  };
}
