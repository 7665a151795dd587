import { SetMetadata } from '@nestjs/common';
import type { Scope } from '@dob/auth';

export const REQUIRED_SCOPE = 'dob:required-scope';

/**
 * Marks a controller or route as an agent endpoint: it needs an `X-API-Key` carrying `scope`
 * (401 MISSING_API_KEY / 401 INVALID_API_KEY / 403 INSUFFICIENT_SCOPE otherwise). Enforced by the global
 * ApiKeyScopeGuard; a route-level scope overrides the controller's.
 */
export const RequireScope = (scope: Scope): ClassDecorator & MethodDecorator => SetMetadata(REQUIRED_SCOPE, scope);
