// Pearson's chi-square goodness-of-fit statistic for uniform counts, and its p = 0.001 critical values.

/** Critical values of the chi-square distribution at p = 0.001, by degrees of freedom (NIST/SEMATECH e-Handbook, table 1.3.6.7.4). */
export const CHI_SQUARE_P001: Readonly<Record<number, number>> = {
  1: 10.828,
  2: 13.816,
  3: 16.266,
  4: 18.467,
  5: 20.515,
  7: 24.322,
  9: 27.877,
};

/**
 * Pearson's statistic of observed counts against equal expected counts (sum / number of cells):
 * under the uniform hypothesis it follows chi-square with (cells - 1) degrees of freedom.
 */
export function chiSquareUniform(counts: readonly number[]): number {
  const expected = counts.reduce((a, b) => a + b, 0) / counts.length;
  return counts.reduce((a, n) => a + (n - expected) ** 2 / expected, 0);
}
