import type { ContractIdentity } from './contract-identity';
import type { DomainEventDraft, RawChainEvent } from './chain-event';

export interface DecodeContext {
  readonly networkId: number;
  /** Identity of the emitting contract. */
  readonly identity: ContractIdentity;
  /** Identity of any other watched contract (to tell whether a token transfer touches a pool or campaign). */
  readonly identityOf: (contractId: string) => ContractIdentity | undefined;
}

/** Decodes one symbol's layout; throws DecodeError when the event does not fit it. */
export type SymbolDecoder = (e: RawChainEvent, ctx: DecodeContext) => DomainEventDraft[];
