import type { Provider, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyScopeGuard } from '../access/api-key-scope.guard';
import { API_AUTH, type ApiAuthDependencies } from '../access/api-auth.dependencies';
import { WalletJwtStrategy, WalletTokenIssuer } from '../access/wallet-jwt';
import { AuthController } from './auth.controller';
import { authHandlers } from './auth.handlers';
import { KeysController } from './keys.controller';

/** Controllers and providers (command and query handlers among them) ApiModule adds; without auth deps only the (fail-closed) scope guard is installed. */
export function authModuleParts(auth: ApiAuthDependencies | undefined): { controllers: Type[]; providers: Provider[] } {
  const guard: Provider = { provide: APP_GUARD, useClass: ApiKeyScopeGuard };
  if (!auth) return { controllers: [], providers: [guard] };
  return {
    controllers: [AuthController, KeysController],
    providers: [guard, { provide: API_AUTH, useValue: auth }, WalletJwtStrategy, WalletTokenIssuer, ...authHandlers],
  };
}
