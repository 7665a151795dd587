import type { WalletKey } from './wallet-keys.aggregate';
import type { CreatedKey, ListedKey, WalletKeyService } from './wallet-key.service';

/** Key management of a wallet (the JWT's subject) as commands and one query, over WalletKeyService. */
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

type Keys = Pick<WalletKeyService, 'createKey' | 'revokeKey' | 'rotateKey' | 'listKeys'>;

export class CreateApiKeyHandler {
  constructor(private readonly keys: Keys) {}
  execute(c: CreateApiKeyCommand): Promise<CreatedKey> {
    return this.keys.createKey(c.wallet, { label: c.key.label, scopes: c.key.scopes, origin: 'key_management' });
  }
}

export class RevokeApiKeyHandler {
  constructor(private readonly keys: Keys) {}
  execute(c: RevokeApiKeyCommand): Promise<WalletKey> {
    return this.keys.revokeKey(c.wallet, c.keyId);
  }
}

export class RotateApiKeyHandler {
  constructor(private readonly keys: Keys) {}
  execute(c: RotateApiKeyCommand): Promise<CreatedKey> {
    return this.keys.rotateKey(c.wallet, c.keyId);
  }
}

export class ListApiKeysHandler {
  constructor(private readonly keys: Keys) {}
  execute(q: ListApiKeysQuery): Promise<ListedKey[]> {
    return this.keys.listKeys(q.wallet);
  }
}
