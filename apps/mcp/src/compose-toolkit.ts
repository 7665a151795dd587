import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { agentApiDocument, createAgentClient } from '@dobprotocol/agent-client';
import { AgentToolkit, apiKeyFromFile, FileSpendLedger, LocalSigner, parsePolicy, parseSignerTokens, type SignerSettings } from '@dob/agent-tools';
import { ConfigError } from '@dob/runtime';
import { signerPassphrase, type McpConfig } from './mcp-config';

/** The local signer's secret: the variable or the file's first line; it is read here and never sent anywhere. */
function signerKeypair(config: McpConfig): Keypair | undefined {
  const secret =
    config.DOB_SIGNER_SECRET ?? (config.DOB_SIGNER_SECRET_FILE ? readFileSync(config.DOB_SIGNER_SECRET_FILE, 'utf8').split('\n')[0].trim() : undefined);
  if (!secret) return undefined;
  try {
    return Keypair.fromSecret(secret);
  } catch {
    throw new ConfigError(
      `invalid configuration:\n  ${config.DOB_SIGNER_SECRET ? 'DOB_SIGNER_SECRET' : 'DOB_SIGNER_SECRET_FILE'}: not a valid Stellar secret seed`,
    );
  }
}

/**
 * Everything behind the MCP server, from its config: the typed client of the Agent API, the tool catalogue on
 * the client's OpenAPI document and, when a secret is configured, the local signer with its policy, spend ledger
 * and API key file. Logs go to `log` (stderr: on stdio, stdout belongs to the protocol).
 */
export function composeAgentToolkit(config: McpConfig, log: (line: string) => void): AgentToolkit {
  const client = createAgentClient({ baseUrl: config.DOB_API_URL, apiKey: config.DOB_API_KEY });
  const keypair = signerKeypair(config);
  if (!keypair) return new AgentToolkit({ client, document: agentApiDocument, networkId: config.DOB_NETWORK_ID });

  let policy;
  let settings: SignerSettings;
  try {
    policy = parsePolicy({
      maxPerDay: config.DOB_POLICY_MAX_PER_DAY,
      maxPricePerShare: config.DOB_POLICY_MAX_PRICE_PER_SHARE,
      allowedPools: config.DOB_POLICY_ALLOWED_POOLS,
    });
    settings = {
      networkPassphrase: signerPassphrase(config),
      tokens: parseSignerTokens(config.DOB_SIGNER_TOKENS),
      maxFeeStroops: config.DOB_SIGNER_MAX_FEE_STROOPS,
      maxValiditySeconds: config.DOB_SIGNER_MAX_VALIDITY_SECONDS,
    };
    const known = new Set([...settings.tokens.values()].map((t) => t.symbol));
    const unmapped = [...policy.maxTotalPerDay.keys()].filter((symbol) => !known.has(symbol));
    if (unmapped.length) {
      throw new Error(
        `DOB_SIGNER_TOKENS: the daily limit names ${unmapped.join(', ')}, which no token contract is set for (SYMBOL=C…); the signer takes token contracts from its own configuration, never from the API`,
      );
    }
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`invalid configuration:\n  ${(e as Error).message}`);
  }
  const stateDir = resolve(config.DOB_MCP_STATE_DIR);
  const wallet = keypair.publicKey();
  const signer = new LocalSigner(keypair, policy, new FileSpendLedger(join(stateDir, `spending-${wallet}.jsonl`)), settings);
  const tokens = [...settings.tokens].map(([address, t]) => `${t.symbol}=${address}`).join(', ') || 'none (it spends nothing)';
  log(`local signer ${wallet}: signs within the spending policy on "${settings.networkPassphrase}", tokens ${tokens}; ledger in ${stateDir}`);
  return new AgentToolkit({
    client,
    document: agentApiDocument,
    networkId: config.DOB_NETWORK_ID,
    signer,
    provisionApiKey: config.DOB_API_KEY ? undefined : apiKeyFromFile(client, keypair, join(stateDir, `api-key-${wallet}`), log),
  });
}
