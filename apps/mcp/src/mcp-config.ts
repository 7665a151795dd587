import { z } from 'zod';
import { ConfigError } from '@dob/runtime';

const blankIsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optional = z.preprocess(blankIsUnset, z.string().trim().optional());

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
});

export type McpConfig = z.infer<typeof mcpConfigSchema>;

export function loadMcpConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const parsed = mcpConfigSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(`invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  if (parsed.data.DOB_SIGNER_SECRET && parsed.data.DOB_SIGNER_SECRET_FILE)
    throw new ConfigError('invalid configuration:\n  DOB_SIGNER_SECRET_FILE: set either it or DOB_SIGNER_SECRET, not both');
  return parsed.data;
}
