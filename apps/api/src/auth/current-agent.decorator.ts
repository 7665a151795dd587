import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError } from '@dob/domain';
import type { AgentPrincipal, RequestWithAgent } from './agent-principal';

/** The calling agent `{ keyId, wallet, scopes, rateLimitRpm }` on a route guarded by @RequireScope. */
export const CurrentAgent = createParamDecorator((_data: unknown, ctx: ExecutionContext): AgentPrincipal => {
  const principal = ctx.switchToHttp().getRequest<RequestWithAgent>().agentAuth?.principal;
  if (!principal) throw new AppError('MISSING_API_KEY', 'API key is required. Include it in the X-API-Key header.');
  return principal;
});
