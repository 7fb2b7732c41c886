// The organizer's preview of the waiting page: the real template and script with sample data, per phase.
import type { AdmissionCursor } from '../../contracts/queue/cursor';
import { GatewayError } from '../lib/errors';
import { pageSecurityHeaders } from '../lib/security-headers';
import type { StatusBody } from '../lib/status-body';
import { LANGS, langOf } from '../../contracts/i18n';
import type { AssetReader } from '../lib/page-assets';
import { waitingTexts } from './page-texts';
import { waitingPage } from './waiting-page';
import type { Phase } from './waiting-view';

/** The phases a preview can show (everything a waiting visitor can see; `admitted` is the sale page). */
export const PREVIEW_PHASES = [
  'not_open',
  'prequeue',
  'drawing',
  'waiting',
  'paused',
  'sold_out',
  'closed',
] as const satisfies readonly Phase[];

/** A phase the preview shows. */
type PreviewPhase = (typeof PREVIEW_PHASES)[number];

/** A commitment for lottery phases of an event that is not a lottery (64 hex digits, obviously a sample). */
const SAMPLE_COMMITMENT = '0123456789abcdef'.repeat(4);
/** The preview's sample entrant id (the shape of a random visitor id). */
const SAMPLE_ENTRANT = '00000000-0000-4000-8000-000000000000';

/**
 * Sample status of one phase for the event the cursor describes: its name, policy and commitment,
 * a sale start 15 minutes ahead (or 5 s past once on sale), 1,234 people in line for the waiting
 * phases. Lottery phases (`prequeue`, `drawing`) are shown as a lottery whatever the event's policy.
 */
function previewStatus(
  phase: PreviewPhase,
  cursor: Pick<AdmissionCursor, 'eventName' | 'policy' | 'commitment'>,
  nowMs: number,
): StatusBody {
  const lottery = phase === 'prequeue' || phase === 'drawing';
  const policy = lottery ? 'random' : cursor.policy;
  const inLine = phase === 'not_open' || phase === 'waiting' || phase === 'paused';
  const beforeSale = phase === 'not_open' || phase === 'prequeue';
  return {
    state: phase === 'prequeue' ? 'not_open' : phase === 'drawing' ? 'waiting' : phase,
    eventName: cursor.eventName,
    policy,
    position: inLine ? 1234 : null,
    positionRange: null,
    counting: false,
    ahead: inLine ? 1233 : null,
    estimatedWaitSeconds: phase === 'waiting' ? 9 * 60 : phase === 'not_open' ? 24 * 60 : null,
    pollAfterMs: 5000,
    saleStartsAt: new Date(beforeSale ? nowMs + 15 * 60_000 : nowMs - 5_000).toISOString(),
    commitment: policy === 'random' ? (cursor.commitment ?? SAMPLE_COMMITMENT) : null,
    entrantId: policy === 'random' ? SAMPLE_ENTRANT : null,
    lane: null,
    asOf: new Date(nowMs).toISOString(),
    // Sample stock for the waiting phases (1,233 ahead at 2.4 seats each would take more than is left).
    stock: inLine ? { left: 2_000, held: 120, seatsPerBuyer: 2.4, sellOutLikely: true } : null,
  };
}

/**
 * `GET /_wr/admin/events/{eventId}/preview?phase=&lang=`: the waiting page of `phase` (default
 * `waiting`) in `lang` (default English) with the event's name, template and own words and sample numbers,
 * marked as a preview; its script renders but never polls. Same CSP as the real page, `no-store`.
 *
 * @param read the page assets (the page's words and script)
 * @throws GatewayError INVALID_REQUEST for an unknown phase or language
 */
export async function previewResponse(
  read: AssetReader,
  cursor: AdmissionCursor,
  phaseParam: string | undefined,
  langParam: string | undefined,
  nowMs: number,
): Promise<Response> {
  const phase = (phaseParam ?? 'waiting') as PreviewPhase;
  if (!PREVIEW_PHASES.includes(phase))
    throw new GatewayError('INVALID_REQUEST', { detail: `phase must be one of ${PREVIEW_PHASES.join(', ')}` });
  const lang = langParam === undefined ? 'en' : langOf(langParam);
  if (!lang) throw new GatewayError('INVALID_REQUEST', { detail: `lang must be one of ${LANGS.join(', ')}` });
  const texts = await waitingTexts(read, lang, cursor.page.texts, !!cursor.page.template);
  const body = await waitingPage(cursor.eventId, previewStatus(phase, cursor, nowMs), lang, cursor.page, texts, { preview: true, nowMs });
  return new Response(String(body), {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...(await pageSecurityHeaders([texts.script])),
    },
  });
}
