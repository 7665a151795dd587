import type { ServiceMetrics } from './metrics';

/**
 * Wraps an event store (any object with appendToStream / appendMany) so every append is timed into
 * event_store_append_duration_seconds. Other methods pass through bound to the original (its private state intact).
 */
export function instrumentEventStore<T extends object>(store: T, metrics: ServiceMetrics): T {
  const timed = new Set(['appendToStream', 'appendMany']);
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => unknown).bind(target);
      if (typeof prop !== 'string' || !timed.has(prop)) return bound;
      return async (...args: unknown[]) => {
        const end = metrics.eventStoreAppendLatency.startTimer({ operation: prop });
        try {
          const result = await bound(...args);
          end({ result: 'ok' });
          return result;
        } catch (e) {
          end({ result: 'error' });
          throw e;
        }
      };
    },
  });
}

/** The outcome label of one webhook delivery attempt. */
export function deliveryOutcome(result: { readonly ok: boolean; readonly responseCode: number | null }): 'success' | 'http_error' | 'network_error' {
  return result.ok ? 'success' : result.responseCode !== null ? 'http_error' : 'network_error';
}

/** Records a delivery attempt: outcome counter and duration histogram. */
export function recordDelivery(
  metrics: ServiceMetrics,
  result: { readonly ok: boolean; readonly responseCode: number | null; readonly durationMs: number },
): void {
  const outcome = deliveryOutcome(result);
  metrics.webhookDeliveries.inc({ outcome });
  metrics.webhookDeliveryLatency.observe({ outcome }, result.durationMs / 1000);
}
