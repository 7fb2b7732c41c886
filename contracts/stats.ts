// Small statistics helpers shared by the gateway and the origin stub.

/** The q-quantile (0..1) of samples by nearest rank; 0 for no samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
