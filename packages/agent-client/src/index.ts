export { createAgentClient, type AgentClient, type AgentClientOptions } from './client';
export { AgentApiError, isAgentApiError, unwrap, type AgentErrorCode, type KnownAgentErrorCode } from './errors';
export { eventsPage, streamEvents, type EventFilter, type FeedEvent, type StreamOptions } from './events';
export { retryingFetch, retryAfterMs, type RetryOptions } from './retry';
export { registerAgent, signChallenge, type ChallengeSignature, type RegisteredAgent } from './auth';
export {
  TRADE_KINDS,
  TRADE_ROUTES,
  prepareTrade,
  signPreparedTrade,
  submitTrade,
  trade,
  type SubmitRetryOptions,
  type PrepareRequest,
  type PreparedTrade,
  type SubmitResponse,
  type TradeKind,
} from './trading';
export type { components, operations, paths } from './generated/openapi';
export { agentApiDocument, type OpenApiDocument } from './document';
