import type { ApiKeyAuthenticator, WalletChallenges, WalletKeyService } from '@dob/auth';
import type { RateLimiter } from '@dob/rate-limit';

export interface JwtSettings {
  /** HS256 secret shared by every API instance. */
  readonly secret: string;
  readonly issuer: string;
  readonly audience: string;
  /** Token lifetime; 900 s (15 minutes), docs/decisions.md#d6. */
  readonly ttlSeconds: number;
}

/** The auth part of ApiDependencies: built by the composition root (see createApiAuth). */
export interface ApiAuthDependencies {
  readonly challenges: WalletChallenges;
  readonly keys: WalletKeyService;
  readonly authenticator: ApiKeyAuthenticator;
  /** Redis in production (shared by instances), in-process in the embedded default. */
  readonly rateLimiter: RateLimiter;
  readonly jwt: JwtSettings;
  /** Per-IP budget of requests without a valid API key (auth endpoints, key management, bad keys). */
  readonly ipRateLimitRpm: number;
}

export const API_AUTH = Symbol('API_AUTH');
