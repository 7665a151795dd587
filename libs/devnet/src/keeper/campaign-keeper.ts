import type { Keypair } from '@stellar/stellar-sdk';
import type { DevnetChain } from '../chain/devnet-chain';
import { submitWalletCall } from '../chain/wallet-call';
import { FAUCET_XLM_STROOPS } from '../faucet/faucet';

/** crowdfunding errors (docs/contracts.md §4): finalize before the deadline, or on a settled campaign. */
const DEADLINE_NOT_REACHED = 'Error(Contract, #6)';
const ALREADY_FINALIZED = 'Error(Contract, #5)';

/**
 * The devnet's stand-in for whoever calls `finalize` on a real network (it is permissionless): once a seeded
 * campaign's deadline has passed on the ledger clock, a keeper account finalizes it, so its outcome shows up live
 * (cf_done → crowdfunding_finalized when the soft cap was reached, crowdfunding_failed otherwise). Only the seeded
 * campaigns are watched: campaigns that agents or tests open stay theirs to finalize.
 *
 * Each closed ledger it simulates `finalize` for the campaigns still open (a failed simulation costs nothing on
 * chain), submits the first that would succeed, and forgets campaigns that are settled.
 */
export function startCampaignKeeper(chain: DevnetChain, campaigns: readonly string[], keeper: Keypair): () => void {
  const open = new Set(campaigns);
  if (open.size === 0) return () => undefined;
  if (!chain.hostView.getAccount(keeper.publicKey())) chain.createAccount(keeper.publicKey(), FAUCET_XLM_STROOPS);
  return chain.onLedgerClosed(() => {
    for (const campaign of open) {
      let r: ReturnType<typeof submitWalletCall>;
      try {
        r = submitWalletCall(chain, keeper, campaign, 'finalize', []);
      } catch {
        return; // an unexpected build error: try again next ledger, never break the close loop
      }
      // Submitted: the next ledger's simulation answers AlreadyFinalized and forgets it. One tx per source per ledger.
      if (r.ok || r.stage === 'submission') return;
      if (r.error.includes(ALREADY_FINALIZED) || !r.error.includes(DEADLINE_NOT_REACHED)) open.delete(campaign);
    }
  });
}
