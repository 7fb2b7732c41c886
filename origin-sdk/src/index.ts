// The origin SDK: what a ticketing site needs to sit behind the waiting room gateway. Web Crypto
// and fetch only (Node >= 20, Workers, Deno, Bun). Middleware: `./hono.ts`, `./node.ts`.
export {
  ADMISSION_ALG,
  ADMISSION_HEADER,
  ADMISSION_TYP,
  CHANNEL_KEY_HEADER,
  CLOCK_TOLERANCE_S,
  COMMAND_HEADER,
  DEFAULT_ISSUER,
  JWKS_PATH,
  MAX_ADMISSION_AGE_S,
  MAX_FUTURE_SKEW_S,
  REVOKE_COMMAND,
  SIGNATURE_HEADER,
  SIGNATURE_WINDOW_S,
  TIMESTAMP_HEADER,
  revokeSession,
  signOriginRequest,
  signingInput,
  timestampFresh,
  verifyOriginSignature,
  type HeaderTarget,
} from './protocol.ts';
export {
  ADMISSION_ERROR_STATUS,
  AdmissionError,
  JWKS_CACHE_MS,
  JWKS_TIMEOUT_MS,
  admissionToken,
  gatewayKeys,
  verifyAdmission,
  type Admission,
  type AdmissionErrorCode,
  type AdmissionInput,
  type AdmissionOptions,
  type FetchLike,
} from './admission.ts';
export {
  DEFAULT_ENTRY_ISSUER,
  ENTRY_ALG,
  ENTRY_HEADER,
  ENTRY_QUERY_PARAM,
  ENTRY_TYP,
  LANE_CLAIM,
  LANE_PATTERN,
  MAX_ACCOUNT_LENGTH,
  MAX_ENTRY_TOKEN_TTL_S,
  entryUrl,
  signEntryToken,
  type EntryTokenInput,
} from './entry.ts';
export { ActiveVisitors, DEFAULT_MAX_SAMPLES, DEFAULT_WINDOW_MS, LatencyWindow, quantile, type WindowStats } from './latency-window.ts';
export {
  DEFAULT_REPORT_INTERVAL_MS,
  DEFAULT_REPORT_TIMEOUT_MS,
  HealthReporter,
  type HealthReport,
  type HealthReporterOptions,
  type ReportOutcome,
} from './health.ts';
export { DEFAULT_RETRY, checkRetryPolicy, retryDelayMs, retryable, type RetryPolicy, type TryOutcome } from './retry.ts';
export {
  DEFAULT_GATEWAY_TIMEOUT_MS,
  GatewayClient,
  HOLD_REFUSALS,
  parseHold,
  type GatewayClientOptions,
  type Hold,
  type HoldListResult,
  type HoldRefusal,
  type HoldResult,
  type HoldStatus,
} from './gateway-client.ts';
