/** The part of an AbortSignal the wait uses. */
export interface SleepSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}
/**
 * Resolves true once at least `ms` have passed (re-armed if a timer fires early), or false as
 * soon as `signal` aborts.
 */
export function sleep(ms: number, signal: SleepSignal | undefined): Promise<boolean>;
