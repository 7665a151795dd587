import type { Scope } from '@dob/auth';

/** Who is calling an agent endpoint: the API key's id, its wallet, scopes and tier. */
export interface AgentPrincipal {
  readonly keyId: string;
  readonly wallet: string;
  readonly scopes: readonly Scope[];
  readonly rateLimitRpm: number;
}

/** What the request gate leaves on the request for the scope guard and @CurrentAgent(). */
export interface AgentAuthState {
  /** An X-API-Key header was sent. */
  readonly keySent: boolean;
  /** The active key behind it, or null (missing, malformed, unknown, revoked, rotated away). */
  readonly principal: AgentPrincipal | null;
}

export type RequestWithAgent = { agentAuth?: AgentAuthState | null };
