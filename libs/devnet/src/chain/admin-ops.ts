import type { ContractKind, LedgerInfo, SorobanHost } from '../host/host.port';

/**
 * Devnet-only state changes made outside transactions (genesis, friendbot account creation, contract deployment).
 * They are logged with the ledger they precede so that a restart replays them in the same place.
 */
export type AdminOp =
  | { readonly op: 'createAccount'; readonly accountId: string; readonly balance: string; readonly ledgerSequence: number }
  | { readonly op: 'deployContract'; readonly kind: ContractKind; readonly salt: string; readonly ledger: SerializedLedgerInfo; readonly address: string }
  | {
      readonly op: 'deployStellarAsset';
      readonly code: string;
      readonly issuer: string | null;
      readonly ledger: SerializedLedgerInfo;
      readonly address: string;
    };

export interface SerializedLedgerInfo {
  readonly sequence: number;
  readonly closeTime: string;
}

/** Host capabilities beyond the port that the concrete devnet host offers (used when present). */
export interface HostExtras {
  deployStellarAsset?(code: string, issuer: string | undefined, ledger: LedgerInfo): string;
}

export function applyAdminOp(host: SorobanHost & HostExtras, op: AdminOp, networkPassphrase: string): string | undefined {
  switch (op.op) {
    case 'createAccount':
      host.createAccount(op.accountId, BigInt(op.balance), op.ledgerSequence);
      return undefined;
    case 'deployContract': {
      const address = host.deployContract(op.kind, Buffer.from(op.salt, 'hex'), ledgerInfo(op.ledger, networkPassphrase));
      if (address !== op.address) throw new Error(`replayed deployment gave ${address}, log says ${op.address}`);
      return address;
    }
    case 'deployStellarAsset': {
      if (!host.deployStellarAsset) throw new Error('this host cannot deploy Stellar Asset Contracts');
      const address = host.deployStellarAsset(op.code, op.issuer ?? undefined, ledgerInfo(op.ledger, networkPassphrase));
      if (address !== op.address) throw new Error(`replayed asset deployment gave ${address}, log says ${op.address}`);
      return address;
    }
  }
}

function ledgerInfo(ledger: SerializedLedgerInfo, networkPassphrase: string): LedgerInfo {
  return { sequence: ledger.sequence, closeTime: BigInt(ledger.closeTime), networkPassphrase };
}
