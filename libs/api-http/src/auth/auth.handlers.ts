import type { Provider } from '@nestjs/common';
import { issueWalletToken, registerAgent } from '@dob/auth';
import { API_AUTH, type ApiAuthDependencies } from '../access/api-auth.dependencies';
import { WalletTokenIssuer } from '../access/wallet-jwt';
import { commandHandler, queryHandler } from '../cqrs/message-handler';

/**
 * The wallet flows as commands: issuing a challenge stores it, and a signed challenge is consumed (single use) to buy
 * either an API key (register) or a key-management token (libs/auth's registerAgent, issueWalletToken).
 */
export class IssueChallengeCommand {
  constructor(
    readonly wallet: string,
    /** Who asks: the client's address bucket (a challenge may only be replaced by its own requester's next one). */
    readonly requester: string,
  ) {}
}

export class RegisterAgentCommand {
  constructor(
    readonly wallet: string,
    readonly signature: string,
    readonly key: { label: string; scopes: readonly string[] },
  ) {}
}

export class IssueWalletTokenCommand {
  constructor(
    readonly wallet: string,
    readonly signature: string,
  ) {}
}

/** Key management of a wallet (the JWT's subject) as commands and one query on WalletKeyService. */
export class CreateApiKeyCommand {
  constructor(
    readonly wallet: string,
    readonly key: { label: string; scopes: readonly string[] },
  ) {}
}

export class RevokeApiKeyCommand {
  constructor(
    readonly wallet: string,
    readonly keyId: string,
  ) {}
}

export class RotateApiKeyCommand {
  constructor(
    readonly wallet: string,
    readonly keyId: string,
  ) {}
}

export class ListApiKeysQuery {
  constructor(readonly wallet: string) {}
}

/** What the auth handlers call: the host's challenges and keys (createApiAuth), and the API's JWT issuer. */
interface AuthUseCases {
  readonly challenges: ApiAuthDependencies['challenges'];
  readonly keys: ApiAuthDependencies['keys'];
  readonly tokens: WalletTokenIssuer;
}
const AUTH_USE_CASES = Symbol('AUTH_USE_CASES');

/** Each wallet flow and key management message and the use case that answers it, then what they are given. */
export const authHandlers: Provider[] = [
  commandHandler(IssueChallengeCommand, AUTH_USE_CASES, (a: AuthUseCases, c) => a.challenges.issue(c.wallet, c.requester)),
  commandHandler(RegisterAgentCommand, AUTH_USE_CASES, (a: AuthUseCases, c) => registerAgent(a.challenges, a.keys, c)),
  commandHandler(IssueWalletTokenCommand, AUTH_USE_CASES, (a: AuthUseCases, c) => issueWalletToken(a.challenges, a.tokens, c)),
  commandHandler(CreateApiKeyCommand, AUTH_USE_CASES, (a: AuthUseCases, c) =>
    a.keys.createKey(c.wallet, { label: c.key.label, scopes: c.key.scopes, origin: 'key_management' }),
  ),
  commandHandler(RevokeApiKeyCommand, AUTH_USE_CASES, (a: AuthUseCases, c) => a.keys.revokeKey(c.wallet, c.keyId)),
  commandHandler(RotateApiKeyCommand, AUTH_USE_CASES, (a: AuthUseCases, c) => a.keys.rotateKey(c.wallet, c.keyId)),
  queryHandler(ListApiKeysQuery, AUTH_USE_CASES, (a: AuthUseCases, q) => a.keys.listKeys(q.wallet)),
  {
    provide: AUTH_USE_CASES,
    useFactory: (auth: ApiAuthDependencies, tokens: WalletTokenIssuer): AuthUseCases => ({ challenges: auth.challenges, keys: auth.keys, tokens }),
    inject: [API_AUTH, WalletTokenIssuer],
  },
];
