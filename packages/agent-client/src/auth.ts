import type { Keypair } from '@stellar/stellar-sdk';
import type { AgentClient } from './client';
import { unwrap } from './errors';
import type { components } from './generated/openapi';
import { requireObject, requireString } from './shape';

/**
 * How the challenge is signed (both are accepted by the API): `sep53` — Keypair.signMessage, ed25519 over
 * sha256("Stellar Signed Message:\n" + message) (SEP-53); `raw` — ed25519 over the message's UTF-8 bytes.
 */
export type ChallengeSignature = 'sep53' | 'raw';

/**
 * The API's challenge, whole (docs/auth.md: `<service> Agent Auth\nAddress: G…\nNonce: <64 hex>\nTimestamp: <ms>`),
 * for this wallet. Raw mode signs the bytes as they are, with no SEP-53 prefix to separate them from anything else
 * the key signs (a transaction hash is 32 bytes: a message of this shape is never one), so a message of any other
 * shape — whatever a compromised API or a man in the middle would like signed — is refused.
 */
const CHALLENGE = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63} Agent Auth\nAddress: (G[A-Z2-7]{55})\nNonce: [0-9a-f]{64}\nTimestamp: \d{1,16}$/;

/** The hex signature POST /auth/register and /auth/token expect. */
export function signChallenge(message: string, keypair: Keypair, scheme: ChallengeSignature = 'sep53'): string {
  if (scheme === 'raw' && CHALLENGE.exec(message)?.[1] !== keypair.publicKey()) {
    throw new Error(
      `refusing to sign raw bytes that are not the API's sign-in challenge for ${keypair.publicKey()} ("<service> Agent Auth\\nAddress: …\\nNonce: …\\nTimestamp: …")`,
    );
  }
  const signature = scheme === 'sep53' ? keypair.signMessage(message) : keypair.sign(Buffer.from(message, 'utf8'));
  return Buffer.from(signature).toString('hex');
}

export interface RegisteredAgent {
  readonly wallet: string;
  /** Shown once by the API: store it. */
  readonly apiKey: string;
  readonly keyId: string;
  readonly keyPrefix: string;
  readonly scopes: readonly string[];
  readonly rateLimitRpm: number | undefined;
}

type Scopes = components['schemas']['RegisterDto']['scopes'];

/**
 * challenge → sign locally → register: the wallet's secret never leaves this process. The new key is also set on
 * the client, so the next calls are authenticated.
 */
export async function registerAgent(
  client: AgentClient,
  keypair: Keypair,
  options: { label: string; scopes?: Scopes; signature?: ChallengeSignature },
): Promise<RegisteredAgent> {
  const wallet = keypair.publicKey();
  const challenge = await unwrap(client.api.GET('/api/agent/auth/challenge/{wallet}', { params: { path: { wallet } } }));
  const message = requireString(requireObject(challenge, 'data', 'challenge'), 'message', 'challenge');
  const body = await unwrap(
    client.api.POST('/api/agent/auth/register', {
      body: { wallet, signature: signChallenge(message, keypair, options.signature), label: options.label, scopes: options.scopes ?? ['read', 'trade'] },
    }),
  );
  const key = requireObject(requireObject(body, 'data', 'register'), 'api_key', 'register');
  const registered: RegisteredAgent = {
    wallet,
    apiKey: requireString(key, 'key', 'register'),
    keyId: requireString(key, 'key_id', 'register'),
    keyPrefix: requireString(key, 'key_prefix', 'register'),
    scopes: Array.isArray(key.scopes) ? (key.scopes as string[]) : [],
    rateLimitRpm: typeof key.rate_limit_rpm === 'number' ? key.rate_limit_rpm : undefined,
  };
  client.setApiKey(registered.apiKey);
  return registered;
}
