import type { Provider, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  CreateApiKeyCommand,
  CreateApiKeyHandler,
  IssueChallengeCommand,
  IssueChallengeHandler,
  IssueWalletTokenCommand,
  IssueWalletTokenHandler,
  ListApiKeysHandler,
  ListApiKeysQuery,
  RegisterAgentCommand,
  RegisterAgentHandler,
  RevokeApiKeyCommand,
  RevokeApiKeyHandler,
  RotateApiKeyCommand,
  RotateApiKeyHandler,
} from '@dob/auth';
import { command, query, type MessageBinding } from '../cqrs/message-bindings';
import { ApiKeyScopeGuard } from '../access/api-key-scope.guard';
import { API_AUTH, type ApiAuthDependencies } from '../access/api-auth.dependencies';
import { AuthController } from './auth.controller';
import { KeysController } from './keys.controller';
import { WalletJwtStrategy, WalletTokenIssuer } from '../access/wallet-jwt';

/** Controllers, providers and bus bindings ApiModule adds; without auth deps only the (fail-closed) scope guard is installed. */
export function authModuleParts(auth: ApiAuthDependencies | undefined): { controllers: Type[]; providers: Provider[]; bindings: MessageBinding[] } {
  const guard: Provider = { provide: APP_GUARD, useClass: ApiKeyScopeGuard };
  if (!auth) return { controllers: [], providers: [guard], bindings: [] };
  return {
    controllers: [AuthController, KeysController],
    providers: [guard, { provide: API_AUTH, useValue: auth }, WalletJwtStrategy],
    bindings: [
      command(IssueChallengeCommand, new IssueChallengeHandler(auth.challenges)),
      command(RegisterAgentCommand, new RegisterAgentHandler(auth.challenges, auth.keys)),
      command(IssueWalletTokenCommand, new IssueWalletTokenHandler(auth.challenges, new WalletTokenIssuer(auth))),
      command(CreateApiKeyCommand, new CreateApiKeyHandler(auth.keys)),
      command(RevokeApiKeyCommand, new RevokeApiKeyHandler(auth.keys)),
      command(RotateApiKeyCommand, new RotateApiKeyHandler(auth.keys)),
      query(ListApiKeysQuery, new ListApiKeysHandler(auth.keys)),
    ],
  };
}
