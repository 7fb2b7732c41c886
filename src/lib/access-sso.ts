// Optional single sign-on through Cloudflare Access: the settings, the check of the
// `Cf-Access-Jwt-Assertion` header, and the organizer role of a verified identity.
// Cloudflare's rules: developers.cloudflare.com/cloudflare-one/identity/authorization-cookie/validating-json/
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { JOSEError, JWKSInvalid, JWKSTimeout, JWTExpired } from 'jose/errors';
import { SettingsError } from '../../contracts/settings';
import { ORGANIZER_ROLES, roleCovers, type OrganizerRole } from '../../contracts/organizer-access';
import { GatewayError } from './errors';

/** The header Access adds to every request it lets through to the application. */
export const ACCESS_HEADER = 'cf-access-jwt-assertion';
/** Clock skew allowed on the assertion's `exp`, `nbf` and `iat`, seconds (Access and Cloudflare's edge share a clock; a minute covers any drift). */
export const ACCESS_CLOCK_TOLERANCE_S = 60;

/** One `ACCESS_ROLES` rule: an exact email, every email of a domain (`*@example.com`), or a group (`group:Box office`). */
export type AccessRule = { role: OrganizerRole } & ({ email: string } | { domain: string } | { group: string });

/** `ACCESS_TEAM_DOMAIN`, `ACCESS_AUD` and `ACCESS_ROLES`, parsed. */
export interface AccessSettings {
  /** The team's issuer, `https://<team>.cloudflareaccess.com` (the assertion's `iss`). */
  issuer: string;
  /** Where the team publishes its signing keys. */
  certsUrl: string;
  /** The Access application's audience (AUD) tag. */
  audience: string;
  rules: AccessRule[];
}

/**
 * The Access settings, or null when single sign-on is off (all three variables unset).
 * `ACCESS_ROLES` is a comma-separated list of `<who>=<role>`, e.g.
 * `ana@example.com=admin, group:Box office=operator, *@example.com=viewer`; an identity gets the
 * strongest role of every rule it matches.
 * @throws SettingsError naming the variable when one is set without the others, or malformed
 */
export function parseAccessSettings(env: {
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  ACCESS_ROLES?: string;
}): AccessSettings | null {
  const team = (env.ACCESS_TEAM_DOMAIN ?? '').trim();
  const audience = (env.ACCESS_AUD ?? '').trim();
  const roles = (env.ACCESS_ROLES ?? '').trim();
  if (!team && !audience && !roles) return null;
  if (!team) throw new SettingsError('ACCESS_TEAM_DOMAIN', 'ACCESS_TEAM_DOMAIN must be set with ACCESS_AUD and ACCESS_ROLES');
  if (!audience) throw new SettingsError('ACCESS_AUD', 'ACCESS_AUD must be set to the Access application audience (AUD) tag');
  if (!roles) throw new SettingsError('ACCESS_ROLES', 'ACCESS_ROLES must map at least one email, domain or group to a role');
  const host = team.replace(/^https:\/\//, '').replace(/\/+$/, '');
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host))
    throw new SettingsError(
      'ACCESS_TEAM_DOMAIN',
      `ACCESS_TEAM_DOMAIN must be a host such as myteam.cloudflareaccess.com, got "${team.slice(0, 80)}"`,
    );
  const issuer = `https://${host.toLowerCase()}`;
  return { issuer, certsUrl: `${issuer}/cdn-cgi/access/certs`, audience, rules: roles.split(',').map(parseRule) };
}

function parseRule(raw: string): AccessRule {
  const at = raw.lastIndexOf('=');
  const who = raw.slice(0, at).trim();
  const role = raw.slice(at + 1).trim() as OrganizerRole;
  if (at < 1 || !who || !ORGANIZER_ROLES.includes(role))
    throw new SettingsError(
      'ACCESS_ROLES',
      `ACCESS_ROLES entries are <email, *@domain or group:name>=<viewer|operator|admin>, got "${raw.trim().slice(0, 80)}"`,
    );
  if (who.startsWith('group:') && who.length > 6) return { role, group: who.slice(6).trim() };
  if (who.startsWith('*@') && who.length > 2) return { role, domain: who.slice(2).toLowerCase() };
  if (/^[^@\s]+@[^@\s]+$/.test(who)) return { role, email: who.toLowerCase() };
  throw new SettingsError('ACCESS_ROLES', `ACCESS_ROLES: "${who.slice(0, 80)}" is not an email, *@domain or group:name`);
}

/** The strongest role the rules give this identity, or null when none matches. */
export function accessRole(rules: readonly AccessRule[], email: string, groups: readonly string[]): OrganizerRole | null {
  const lower = email.toLowerCase();
  let best: OrganizerRole | null = null;
  for (const rule of rules) {
    const hit = 'email' in rule ? rule.email === lower : 'domain' in rule ? lower.endsWith(`@${rule.domain}`) : groups.includes(rule.group);
    if (hit && (best === null || roleCovers(rule.role, best))) best = rule.role;
  }
  return best;
}

// One remote key set per settings object (so per isolate): jose keeps the fetched keys, refetches
// on an unknown `kid` at most every 30 s, and after 10 minutes.
const keySets = new WeakMap<AccessSettings, JWTVerifyGetKey>();

/** The team's key set for these settings (created once). */
export function accessKeySet(settings: AccessSettings): JWTVerifyGetKey {
  let keys = keySets.get(settings);
  if (!keys) keySets.set(settings, (keys = createRemoteJWKSet(new URL(settings.certsUrl), { timeoutDuration: 5_000 })));
  return keys;
}

/** A verified Access identity. */
export interface AccessIdentity {
  email: string;
  groups: string[];
}

/**
 * Verifies an Access assertion: RS256 only, signed by one of the team's keys, `iss` = the team,
 * `aud` containing the application's tag, `exp`/`nbf` with ACCESS_CLOCK_TOLERANCE_S, an `email`.
 * @throws GatewayError ACCESS_TOKEN_EXPIRED (401); ACCESS_TOKEN_INVALID (401: malformed, forged,
 *   unknown key, another team or application, no email); OVERLOADED (503) when the team's keys
 *   cannot be fetched
 */
export async function verifyAccessAssertion(
  token: string,
  settings: AccessSettings,
  keys: JWTVerifyGetKey,
  nowMs: number,
): Promise<AccessIdentity> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      algorithms: ['RS256'],
      issuer: settings.issuer,
      audience: settings.audience,
      clockTolerance: ACCESS_CLOCK_TOLERANCE_S,
      currentDate: new Date(nowMs),
    }));
  } catch (err) {
    if (err instanceof JWKSTimeout || err instanceof JWKSInvalid || !(err instanceof JOSEError) || err.code === 'ERR_JOSE_GENERIC')
      throw new GatewayError('OVERLOADED', {
        detail: 'the Cloudflare Access signing keys could not be fetched; try again',
        retryAfterS: 10,
      });
    if (err instanceof JWTExpired)
      throw new GatewayError('ACCESS_TOKEN_EXPIRED', { detail: 'the Access session has expired; sign in again' });
    throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: `the Cf-Access-Jwt-Assertion does not verify (${err.code})` });
  }
  const email = payload['email'];
  if (typeof email !== 'string' || email.length === 0 || email.length > 254)
    throw new GatewayError('ACCESS_TOKEN_INVALID', {
      detail: 'the Access assertion names no email (a service token has no organizer role)',
    });
  // Groups reach the token only when the identity provider passes them: as `groups`, or among the
  // OIDC claims Access copies into `custom`.
  const custom = payload['custom'];
  const raw =
    payload['groups'] ?? (typeof custom === 'object' && custom !== null ? (custom as Record<string, unknown>)['groups'] : undefined);
  const groups = Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string') : [];
  return { email, groups };
}

const parsedAccess = new WeakMap<object, AccessSettings | null>();

/** `parseAccessSettings`, once per env object. @throws SettingsError as it does */
export function accessSettings(env: { ACCESS_TEAM_DOMAIN?: string; ACCESS_AUD?: string; ACCESS_ROLES?: string }): AccessSettings | null {
  let s = parsedAccess.get(env);
  if (s === undefined) parsedAccess.set(env, (s = parseAccessSettings(env)));
  return s;
}
