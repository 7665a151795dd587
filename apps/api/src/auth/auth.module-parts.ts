import type { Provider, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyScopeGuard } from './api-key-scope.guard';
import { API_AUTH, type ApiAuthDependencies } from './api-auth.dependencies';
import { AuthController } from './auth.controller';
import { KeysController } from './keys.controller';
import { WalletJwtStrategy, WalletTokenIssuer } from './wallet-jwt';

/** Controllers and providers ApiModule adds; without auth deps only the (fail-closed) scope guard is installed. */
export function authModuleParts(auth: ApiAuthDependencies | undefined): { controllers: Type[]; providers: Provider[] } {
  const guard: Provider = { provide: APP_GUARD, useClass: ApiKeyScopeGuard };
  if (!auth) return { controllers: [], providers: [guard] };
  return {
    controllers: [AuthController, KeysController],
    providers: [guard, { provide: API_AUTH, useValue: auth }, WalletTokenIssuer, WalletJwtStrategy],
  };
}
