/**
 * Credentials for the Schemathesis run (scripts/schemathesis.sh), obtained the way an agent does
 * (examples/agent-buy.ts): a fresh wallet signs the challenge locally (SEP-53) and registers for a read+trade key;
 * a second fresh wallet signs a nonce for a key-management JWT — a different wallet, so the key operations the run
 * fuzzes (rotate, revoke) can never touch the run's own API key.
 *   register <api-url>   → {"wallet","key","key_id"}
 *   jwt <api-url>        → the JWT on one line
 */
import { Keypair } from '@stellar/stellar-sdk';

async function post(api: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (!json.success) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(json.error)}`);
  return json;
}

async function main(): Promise<void> {
  const [mode, api] = process.argv.slice(2);
  if (!api || (mode !== 'register' && mode !== 'jwt')) throw new Error('usage: register <api-url> | jwt <api-url>');
  const wallet = Keypair.random();
  if (mode === 'register') {
    const challenge = (await (await fetch(`${api}/auth/challenge/${wallet.publicKey()}`)).json()) as any;
    const signature = Buffer.from(wallet.signMessage(challenge.data.message)).toString('hex');
    const r = await post(api, '/auth/register', { wallet: wallet.publicKey(), signature, label: 'schemathesis', scopes: ['read', 'trade'] });
    console.log(JSON.stringify({ wallet: wallet.publicKey(), key: r.data.api_key.key, key_id: r.data.api_key.key_id }));
  } else {
    const nonce = await post(api, '/auth/nonce', { wallet_address: wallet.publicKey() });
    const signature = Buffer.from(wallet.signMessage(nonce.data.message)).toString('hex');
    console.log((await post(api, '/auth/token', { wallet: wallet.publicKey(), signature })).data.token);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
