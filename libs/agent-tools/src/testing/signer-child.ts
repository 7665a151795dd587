/**
 * One signer process of the shared-ledger test (policy/shared-ledger.int-spec.ts): a LocalSigner on the ledger file
 * it is given, buying 1 USDC at a time against the API at argv[2] until it has tried argv[5] times. Prints one
 * line per attempt: "sent" or "refused".
 */
import { Keypair } from '@stellar/stellar-sdk';
import { createAgentClient } from '@dobprotocol/agent-client';
import { FileSpendLedger } from '../policy/spend-ledger';
import { parsePolicy } from '../policy/spending-policy';
import { LocalSigner } from '../signer/local-signer';
import { SignerRefusal } from '../signer/signer-refusal';
import { preparedBuy, testSettings } from './prepared-trades';

async function main(): Promise<void> {
  const [apiUrl, secret, ledgerFile, attempts, maxPerDay] = process.argv.slice(2);
  const wallet = Keypair.fromSecret(secret);
  const signer = new LocalSigner(wallet, parsePolicy({ maxPerDay }), new FileSpendLedger(ledgerFile), testSettings());
  const client = createAgentClient({ baseUrl: apiUrl, apiKey: 'svc_ak_child', retry: { retries: 0 } });
  for (let i = 0; i < Number(attempts); i++) {
    const trade = preparedBuy({ wallet, shares: 1n, total: '1.00', now: new Date() });
    signer.remember(trade);
    try {
      await signer.signAndSubmit(client, trade.hash);
      process.stdout.write('sent\n');
    } catch (e) {
      if (!(e instanceof SignerRefusal)) throw e;
      process.stdout.write('refused\n');
    }
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
