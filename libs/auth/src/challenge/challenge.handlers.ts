import type { CreatedKey, WalletKeyService } from '../wallet/wallet-key.service';
import type { IssuedChallenge, WalletChallenges } from './wallet-challenges';

/**
 * The wallet flows as commands: issuing a challenge stores it, and a signed challenge is consumed (single use) to buy
 * either an API key (register) or a key-management token. Plain handlers over WalletChallenges/WalletKeyService.
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

/** Signs key-management tokens (the API's JWT issuer); the token format is the transport's business. */
export interface WalletTokenSigner {
  issue(wallet: string): Promise<{ token: string; expiresAt: Date }>;
}

type Challenges = Pick<WalletChallenges, 'issue' | 'consume'>;

export class IssueChallengeHandler {
  constructor(private readonly challenges: Challenges) {}
  execute(c: IssueChallengeCommand): Promise<IssuedChallenge> {
    return this.challenges.issue(c.wallet, c.requester);
  }
}

export class RegisterAgentHandler {
  constructor(
    private readonly challenges: Challenges,
    private readonly keys: Pick<WalletKeyService, 'createKey'>,
  ) {}
  async execute(c: RegisterAgentCommand): Promise<CreatedKey> {
    await this.challenges.consume(c.wallet, c.signature);
    return this.keys.createKey(c.wallet, { label: c.key.label, scopes: c.key.scopes, origin: 'register' });
  }
}

export class IssueWalletTokenHandler {
  constructor(
    private readonly challenges: Challenges,
    private readonly tokens: WalletTokenSigner,
  ) {}
  async execute(c: IssueWalletTokenCommand): Promise<{ token: string; expiresAt: Date }> {
    await this.challenges.consume(c.wallet, c.signature);
    return this.tokens.issue(c.wallet);
  }
}
