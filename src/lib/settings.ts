// The gateway's Worker variables, parsed once per environment into one typed settings object.
import { SettingsError, requiredSetting, wholeNumberSetting } from '../../contracts/settings';

/** The origin gets this long to answer, in ms, before the visitor sees ORIGIN_UNAVAILABLE. */
export const DEFAULT_ORIGIN_TIMEOUT_MS = 15_000;

/** Where and how admitted visitors are proxied. */
export interface OriginSettings {
  /** `ORIGIN_URL`: an http(s) base URL, or null to use the `ORIGIN` service binding. */
  url: string | null;
  /** `ORIGIN_TIMEOUT_MS`: 1 ms to 5 minutes, default DEFAULT_ORIGIN_TIMEOUT_MS. */
  timeoutMs: number;
}

/** Everything the gateway reads from its plain-text variables and secrets. */
export interface GatewaySettings {
  origin: OriginSettings;
  /** `TOKEN_ISSUER`: the `iss` of admission tokens and queue tickets. */
  tokenIssuer: string;
  /** `ADMISSION_SIGNING_JWK` (secret): private P-256 JWK (JSON); its shape is checked where the key ring is built. */
  signingJwk: string;
  /** `ADMISSION_PREVIOUS_PUBLIC_JWK`: previous public key kept for rotation; '' = none. */
  previousPublicJwk: string;
  /** `ADMIN_TOKEN` (secret): '' locks the admin API. */
  adminToken: string;
  /** `ORIGIN_HMAC_SECRET` (secret): '' refuses every origin API call. */
  originHmacSecret: string;
  /** `CHANNEL_KEY_SECRET` (secret): every sales channel's key is derived from it (src/lib/channel-keys.ts); '' turns the channel API off. */
  channelKeySecret: string;
}

/**
 * `ORIGIN_URL` and `ORIGIN_TIMEOUT_MS`.
 * @throws SettingsError naming the variable when one is set but malformed
 */
export function parseOriginSettings(env: Partial<Pick<Env, 'ORIGIN_URL' | 'ORIGIN_TIMEOUT_MS'>>): OriginSettings {
  const raw = env.ORIGIN_URL ?? '';
  let url: string | null = null;
  if (raw !== '') {
    const parsed = URL.canParse(raw) ? new URL(raw) : null;
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      throw new SettingsError('ORIGIN_URL', `ORIGIN_URL must be an http(s) URL or empty, got "${raw.slice(0, 80)}"`);
    url = raw;
  }
  const timeoutMs = wholeNumberSetting('ORIGIN_TIMEOUT_MS', env.ORIGIN_TIMEOUT_MS, {
    fallback: DEFAULT_ORIGIN_TIMEOUT_MS,
    min: 1,
    max: 300_000,
    unit: 'ms',
  });
  return { url, timeoutMs };
}

/**
 * All of the gateway's variables. Pure: the same env gives the same settings.
 * @throws SettingsError naming the first missing or malformed variable
 */
export function parseGatewaySettings(env: Env): GatewaySettings {
  return {
    origin: parseOriginSettings(env),
    tokenIssuer: requiredSetting('TOKEN_ISSUER', env.TOKEN_ISSUER),
    signingJwk: requiredSetting('ADMISSION_SIGNING_JWK', env.ADMISSION_SIGNING_JWK),
    previousPublicJwk: env.ADMISSION_PREVIOUS_PUBLIC_JWK ?? '',
    adminToken: env.ADMIN_TOKEN ?? '',
    originHmacSecret: env.ORIGIN_HMAC_SECRET ?? '',
    channelKeySecret: env.CHANNEL_KEY_SECRET ?? '',
  };
}

/** `JOIN_COALESCING` / `HOLD_COALESCING`: whether an isolate's concurrent calls to one object share one call (src/lib/coalesce.ts). */
export type JoinCoalescing = 'auto' | 'on' | 'off';

/**
 * `JOIN_COALESCING`, default `auto`.
 * @throws SettingsError when it is set to anything but auto, on or off
 */
export function parseJoinCoalescing(raw: string | undefined): JoinCoalescing {
  return parseCoalescing('JOIN_COALESCING', raw);
}

/**
 * A coalescing switch (`JOIN_COALESCING`, `HOLD_COALESCING`), default `auto`.
 * @throws SettingsError naming `name` when it is set to anything but auto, on or off
 */
export function parseCoalescing(name: 'JOIN_COALESCING' | 'HOLD_COALESCING', raw: string | undefined): JoinCoalescing {
  const v = (raw ?? '').trim() || 'auto';
  if (v === 'auto' || v === 'on' || v === 'off') return v;
  throw new SettingsError(name, `${name} must be auto, on or off, got "${v.slice(0, 40)}"`);
}

// Keyed by the env object the runtime hands every request of an isolate, so each is parsed once;
// a WeakMap holds no env alive and keeps tests with their own env objects apart.
const parsedOrigin = new WeakMap<object, OriginSettings>();
const parsedGateway = new WeakMap<object, GatewaySettings>();

/** `parseOriginSettings`, once per env object. @throws SettingsError as it does */
export function originSettings(env: Partial<Pick<Env, 'ORIGIN_URL' | 'ORIGIN_TIMEOUT_MS'>>): OriginSettings {
  let s = parsedOrigin.get(env);
  if (!s) parsedOrigin.set(env, (s = parseOriginSettings(env)));
  return s;
}

/** `parseGatewaySettings`, once per env object. @throws SettingsError as it does */
export function gatewaySettings(env: Env): GatewaySettings {
  let s = parsedGateway.get(env);
  if (!s) parsedGateway.set(env, (s = parseGatewaySettings(env)));
  return s;
}
