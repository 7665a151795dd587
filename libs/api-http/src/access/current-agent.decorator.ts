import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError } from '@dob/domain';
import { clientBucketOf } from '@dob/rate-limit';
import type { AgentPrincipal, RequestWithAgent } from './agent-principal';

/** The calling agent `{ keyId, wallet, scopes, rateLimitRpm }` on a route guarded by @RequireScope. */
export const CurrentAgent = createParamDecorator((_data: unknown, ctx: ExecutionContext): AgentPrincipal => {
  const principal = ctx.switchToHttp().getRequest<RequestWithAgent>().agentAuth?.principal;
  if (!principal) throw new AppError('MISSING_API_KEY', 'API key is required. Include it in the X-API-Key header.');
  return principal;
});

/**
 * The client's address bucket (Fastify's request.ip — the socket's, or X-Forwarded-For's from a trusted proxy — an
 * IPv6 one per /64): who asks, for quotas per requester such as a wallet's challenges.
 */
export const ClientBucket = createParamDecorator((_data: unknown, ctx: ExecutionContext): string =>
  clientBucketOf(ctx.switchToHttp().getRequest<{ ip: string }>().ip),
);
