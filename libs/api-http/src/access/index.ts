export { RequireScope } from './require-scope.decorator';
export { CurrentAgent } from './current-agent.decorator';
export type { AgentPrincipal } from './agent-principal';
export type { ApiAuthDependencies, JwtSettings } from './api-auth.dependencies';
export { createApiAuth, type ApiAuthOptions } from './create-api-auth';
