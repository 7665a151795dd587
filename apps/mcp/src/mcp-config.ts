import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError } from '@dob/runtime';

const blankIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optional = z.preprocess(blankIsUnset, z.string().trim().optional());
const flag = z.preprocess(blankIsUnset, z.enum(['true', 'false', '1', '0']).default('false')).transform((v) => v === 'true' || v === '1');

/** Stellar's published passphrases of the network ids 9 (testnet) and 10 (mainnet), docs/agent-api.md#networks. */
const PASSPHRASE_OF: Record<number, string> = { 9: 'Test SDF Network ; September 2015', 10: 'Public Global Stellar Network ; September 2015' };

/**
 * The MCP server's settings, all optional against `npm start` on this machine. A local signer is opt-in: with
 * DOB_SIGNER_SECRET or DOB_SIGNER_SECRET_FILE set it signs within DOB_POLICY_* limits, and DOB_POLICY_MAX_PER_DAY is
 * then required (libs/agent-tools spending-policy.ts). Invalid values stop the process with a message naming the variable.
 */
export const mcpConfigSchema = z.object({
  DOB_API_URL: z.preprocess(blankIsUnset, z.string().url().default('http://localhost:3000')),
  DOB_API_KEY: z.preprocess(blankIsUnset, z.string().startsWith('svc_ak_', 'DOB_API_KEY must be an Agent API key (svc_ak_…)').optional()),
  DOB_NETWORK_ID: z.preprocess(blankIsUnset, z.coerce.number().int().min(1).default(9)),
  DOB_SIGNER_SECRET: z.preprocess(
    blankIsUnset,
    z
      .string()
      .regex(/^S[A-Z2-7]{55}$/, 'DOB_SIGNER_SECRET must be a Stellar secret seed (S…)')
      .optional(),
  ),
  DOB_SIGNER_SECRET_FILE: optional,
  DOB_POLICY_MAX_PER_DAY: optional,
  DOB_POLICY_MAX_PRICE_PER_SHARE: optional,
  DOB_POLICY_ALLOWED_POOLS: optional,
  /** Where the local signer keeps its spend ledger and API key file; default ./.data/mcp beside npm start's data. */
  DOB_MCP_STATE_DIR: z.preprocess(blankIsUnset, z.string().default('./.data/mcp')),
  MCP_HTTP_PORT: z.preprocess(blankIsUnset, z.coerce.number().int().min(0).max(65535).optional()),
  MCP_HTTP_HOST: z.preprocess(blankIsUnset, z.string().default('127.0.0.1')),
  /** Required on every Streamable HTTP request when set; required to bind off loopback while a signer is configured. */
  MCP_HTTP_TOKEN: z.preprocess(blankIsUnset, z.string().min(32, 'MCP_HTTP_TOKEN must be at least 32 characters').optional()),
  /** Plain http to an API that is not on this machine lets anyone on the path rewrite its answers and read the key. */
  DOB_API_ALLOW_INSECURE_HTTP: flag,
  /** The only network the local signer signs for; default: the published passphrase of DOB_NETWORK_ID. */
  DOB_NETWORK_PASSPHRASE: optional,
  /** The local signer's tokens: SYMBOL=C…contract[:decimals], never taken from the API. */
  DOB_SIGNER_TOKENS: optional,
  /** The highest fee (stroops, resource fee included) the local signer signs: 1 XLM by default. */
  DOB_SIGNER_MAX_FEE_STROOPS: z.preprocess(blankIsUnset, z.coerce.bigint().positive().default(10_000_000n)),
  /** The latest expiry the local signer signs, seconds from now (the API prepares 600 s envelopes). */
  DOB_SIGNER_MAX_VALIDITY_SECONDS: z.preprocess(blankIsUnset, z.coerce.number().int().min(1).max(86_400).default(900)),
});

export type McpConfig = z.infer<typeof mcpConfigSchema>;

export function loadMcpConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const parsed = mcpConfigSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(`invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  if (parsed.data.DOB_SIGNER_SECRET && parsed.data.DOB_SIGNER_SECRET_FILE)
    throw new ConfigError('invalid configuration:\n  DOB_SIGNER_SECRET_FILE: set either it or DOB_SIGNER_SECRET, not both');
  const api = new URL(parsed.data.DOB_API_URL);
  if (api.protocol === 'http:' && !isLoopbackHost(api.hostname) && !parsed.data.DOB_API_ALLOW_INSECURE_HTTP) {
    throw new ConfigError(
      `invalid configuration:\n  DOB_API_URL: plain http to ${api.hostname}, which is not this machine, lets anyone on the way rewrite the API's answers and read its key; use https (or set DOB_API_ALLOW_INSECURE_HTTP=true to accept that)`,
    );
  }
  return parsed.data;
}

/** The passphrase the local signer pins: configured, or the published one of the configured network id. */
export function signerPassphrase(config: McpConfig): string {
  const passphrase = config.DOB_NETWORK_PASSPHRASE ?? PASSPHRASE_OF[config.DOB_NETWORK_ID];
  if (!passphrase) throw new ConfigError(`invalid configuration:\n  DOB_NETWORK_PASSPHRASE: required with a local signer on network ${config.DOB_NETWORK_ID}`);
  return passphrase;
}

/** localhost, 127.0.0.0/8 and ::1: the names that cannot leave this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && (host === '::1' || host === '0:0:0:0:0:0:0:1');
}
