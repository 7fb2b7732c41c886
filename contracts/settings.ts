// Reading plain-text Worker variables (wrangler.toml [vars], `.dev.vars`, secrets) into typed values:
// an unset or empty variable takes its default, anything else malformed throws naming the variable.

/** A Worker variable that is set but malformed (or a required one that is missing). */
export class SettingsError extends Error {
  constructor(
    /** The variable's name, e.g. `ORIGIN_TIMEOUT_MS`. */
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * A whole-number variable.
 * @param name the variable's name, for the error
 * @param raw its value as the runtime gives it (`undefined` or `''` when unset)
 * @param rule `fallback` for an unset variable; the inclusive bounds `min` and `max`; `unit` for the message
 * @throws SettingsError when it is set but not a whole number within the bounds
 */
export function wholeNumberSetting(
  name: string,
  raw: string | undefined,
  rule: { fallback: number; min: number; max: number; unit: string },
): number {
  if (raw === undefined || raw.trim() === '') return rule.fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < rule.min || value > rule.max) {
    throw new SettingsError(
      name,
      `${name} must be a whole number of ${rule.unit} from ${rule.min} to ${rule.max}, got "${raw.slice(0, 40)}"`,
    );
  }
  return value;
}

/**
 * A variable that must be set (never echoed: it may be a secret).
 * @throws SettingsError when it is unset or empty
 */
export function requiredSetting(name: string, raw: string | undefined): string {
  if (raw === undefined || raw === '')
    throw new SettingsError(name, `${name} must be set (wrangler secret put ${name}, or .dev.vars locally)`);
  return raw;
}

/** Release tick of a WaitingRoom while anyone waits or is active, ms (`RELEASE_TICK_MS`, default 1 s). */
const DEFAULT_RELEASE_TICK_MS = 1_000;

/**
 * `RELEASE_TICK_MS`: 50 ms to 1 day (tests set an hour so ticks fire only when a test fires them).
 * @throws SettingsError when set but malformed
 */
export function releaseTickMs(raw: string | undefined): number {
  return wholeNumberSetting('RELEASE_TICK_MS', raw, { fallback: DEFAULT_RELEASE_TICK_MS, min: 50, max: 86_400_000, unit: 'ms' });
}
