import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Scope } from '@dob/auth';
import { AppError } from '@dob/domain';
import type { AgentAuthState, RequestWithAgent } from './agent-principal';
import { API_AUTH, type ApiAuthDependencies } from './api-auth.dependencies';
import { REQUIRED_SCOPE } from './require-scope.decorator';

export const MISSING_API_KEY_MESSAGE = 'API key is required. Include it in the X-API-Key header.';
export const INVALID_API_KEY_MESSAGE = 'The provided API key is not valid or has been revoked.';

/**
 * Global guard (APP_GUARD): routes without @RequireScope pass; the others need the request gate's verdict on
 * X-API-Key. The gate (a Fastify onRequest hook) already authenticated the key and charged its rate limit; if it
 * did not run (an app built without createApiApp) the guard authenticates itself, so it never fails open.
 */
@Injectable()
export class ApiKeyScopeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Optional() @Inject(API_AUTH) private readonly auth?: ApiAuthDependencies,
  ) {}

  /** Route metadata is fixed once the app is built: read it once per handler, not on every request. */
  private readonly scopes = new WeakMap<object, Scope | undefined>();

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let scope = this.scopes.get(handler);
    if (scope === undefined && !this.scopes.has(handler)) {
      scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, [handler, context.getClass()]);
      this.scopes.set(handler, scope);
    }
    if (!scope) return true;
    const request = context.switchToHttp().getRequest<RequestWithAgent & { headers: Record<string, unknown> }>();
    const state = request.agentAuth ?? (request.agentAuth = await this.authenticate(request.headers['x-api-key']));
    if (!state.keySent) throw new AppError('MISSING_API_KEY', MISSING_API_KEY_MESSAGE);
    if (!state.principal) throw new AppError('INVALID_API_KEY', INVALID_API_KEY_MESSAGE);
    if (!state.principal.scopes.includes(scope)) {
      throw new AppError('INSUFFICIENT_SCOPE', `This endpoint requires an API key with the '${scope}' scope.`, {
        required_scope: scope,
        key_scopes: state.principal.scopes,
      });
    }
    return true;
  }

  private async authenticate(header: unknown): Promise<AgentAuthState> {
    if (header === undefined) return { keySent: false, principal: null };
    const principal = typeof header === 'string' && this.auth ? await this.auth.authenticator.authenticate(header) : null;
    return { keySent: true, principal };
  }
}
