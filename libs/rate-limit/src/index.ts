export * from './rate-limiter.port';
export { WINDOW_MS, BURST, capacity } from './sliding-window-rule';
export { InProcessRateLimiter } from './in-process/in-process-rate-limiter';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis/redis-rate-limiter';
export { maxAdmissionsPerWindow } from './window-audit';
export { GRANT_MIN_RPM, GRANT_LIFETIME_MS } from './redis/admission-grants';
export { clientBucketOf } from './client-address';
export { FailSafeRateLimiter, type FailSafeOptions } from './fail-safe/fail-safe-rate-limiter';
