// The OpenAPI operations of returns, the waitlist and resale (src/routes/resale.ts), listed with the others by document.ts.
import { acceptRequest, originJoinRequest, returnRequest, visitorJoinRequest } from '../routes/resale';
import type { Operation } from './operation';

const E = '/_wr/events/:eventId';
const O = '/_wr/origin/events/:eventId';

/** The visitor's waitlist join and the origin's resale routes. */
export const RESALE_OPERATIONS: readonly Operation[] = [
  {
    method: 'POST',
    path: `${E}/waitlist`,
    api: 'visitor',
    summary: 'Join a sold-out event’s waitlist (queue ticket; JSON, or the waiting page’s form, answered with a 303 back to it)',
    body: visitorJoinRequest,
  },
  {
    method: 'POST',
    path: `${O}/offers/:holdId/accept`,
    api: 'origin',
    summary: 'The offered account takes its offer',
    body: acceptRequest,
  },
  { method: 'POST', path: `${O}/holds/:holdId/return`, api: 'origin', summary: 'Return seats of a sold order', body: returnRequest },
  { method: 'GET', path: `${O}/waitlist`, api: 'origin', summary: 'The waitlist and the resale counts, paged' },
  { method: 'POST', path: `${O}/waitlist`, api: 'origin', summary: 'Put an account on the waitlist', body: originJoinRequest },
  { method: 'GET', path: `${O}/resale/feed`, api: 'origin', summary: 'Returns, offers, resales and refunds, paged' },
];
