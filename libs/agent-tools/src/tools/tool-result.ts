import { isAgentApiError } from '@dobprotocol/agent-client';
import { SignerRefusal } from '../signer/signer-refusal';

/** A tool's answer, independent of the protocol that carries it: text for the model, data for programs. */
export interface ToolOutcome {
  readonly text: string;
  readonly data?: Record<string, unknown>;
  readonly isError?: boolean;
}

export const success = (data: Record<string, unknown>, lead?: string): ToolOutcome => ({
  text: lead ? `${lead}\n\n${JSON.stringify(data)}` : JSON.stringify(data),
  data,
});

/**
 * Failures become tool errors the model can act on: the API's code and message (and details, e.g. the chain's
 * result codes), the signer's refusal as it is, or the argument problem.
 */
export function failure(e: unknown): ToolOutcome {
  if (isAgentApiError(e)) {
    const data = {
      code: e.code,
      status: e.status,
      message: e.message,
      ...(e.details ? { details: e.details } : {}),
      ...(e.retryAfterSeconds !== undefined ? { retry_after_seconds: e.retryAfterSeconds } : {}),
    };
    return { text: `${e.code} (HTTP ${e.status}): ${e.message}${e.details ? `\n${JSON.stringify(e.details)}` : ''}`, data, isError: true };
  }
  if (e instanceof SignerRefusal) return { text: e.message, data: { code: 'SIGNER_REFUSED', message: e.message }, isError: true };
  const message = e instanceof Error ? e.message : String(e);
  return { text: message, data: { code: 'TOOL_ERROR', message }, isError: true };
}
