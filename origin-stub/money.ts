// Amounts for people: minor units shown with the currency's own number of decimals (ISO 4217).

/**
 * An amount in minor units of `currency` as people read it: `EUR 50.00`, `JPY 5000`, `BHD 1.500`.
 * The number of decimals is the currency's ISO 4217 minor unit, as `Intl.NumberFormat` knows it
 * (0 for JPY and KRW, 3 for BHD and KWD, 2 for most); a code Intl refuses gets 2. Self-contained
 * (no imports, no outer names) so the sale page can ship its source to the browser unchanged.
 *
 * @param amountMinor integer amount in minor units (e.g. cents)
 * @param currency ISO 4217 code, e.g. `EUR`
 */
export function formatMoney(amountMinor: number, currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // Not a currency code Intl accepts: two decimals, the common case.
  }
  return `${currency} ${(amountMinor / 10 ** digits).toFixed(digits)}`;
}
