import { Keypair } from '@stellar/stellar-sdk';
import { ConfigError } from '@dob/runtime';
import { composeAgentToolkit } from './compose-toolkit';
import { isLoopbackHost, loadMcpConfig, signerPassphrase } from './mcp-config';

describe('MCP configuration', () => {
  it('refuses plain http to an API that is not on this machine, unless explicitly allowed', () => {
    for (const url of ['http://api.example.com', 'http://10.0.0.5:3000', 'http://[2001:db8::1]:3000', 'http://127.example.com']) {
      expect(() => loadMcpConfig({ DOB_API_URL: url })).toThrow(ConfigError);
      expect(() => loadMcpConfig({ DOB_API_URL: url })).toThrow('DOB_API_URL: plain http to');
      expect(loadMcpConfig({ DOB_API_URL: url, DOB_API_ALLOW_INSECURE_HTTP: 'true' }).DOB_API_URL).toBe(url);
    }
    for (const url of ['https://api.example.com', 'http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
      expect(loadMcpConfig({ DOB_API_URL: url }).DOB_API_URL).toBe(url);
    }
  });

  it('knows loopback names', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', 'localhost.example.com', '::ffff:10.0.0.1'].some(isLoopbackHost)).toBe(false);
  });

  it('pins the passphrase from local configuration: configured, else the published one of the network id', () => {
    expect(signerPassphrase(loadMcpConfig({}))).toBe('Test SDF Network ; September 2015');
    expect(signerPassphrase(loadMcpConfig({ DOB_NETWORK_ID: '10' }))).toBe('Public Global Stellar Network ; September 2015');
    expect(signerPassphrase(loadMcpConfig({ DOB_NETWORK_PASSPHRASE: 'Standalone Network ; February 2017' }))).toBe('Standalone Network ; February 2017');
    expect(() => signerPassphrase(loadMcpConfig({ DOB_NETWORK_ID: '3' }))).toThrow('DOB_NETWORK_PASSPHRASE: required');
  });

  it('takes a bearer token of at least 32 characters, and fee and validity caps', () => {
    expect(() => loadMcpConfig({ MCP_HTTP_TOKEN: 'short' })).toThrow('MCP_HTTP_TOKEN must be at least 32 characters');
    expect(loadMcpConfig({}).DOB_SIGNER_MAX_FEE_STROOPS).toBe(10_000_000n);
    expect(loadMcpConfig({ DOB_SIGNER_MAX_VALIDITY_SECONDS: '300' }).DOB_SIGNER_MAX_VALIDITY_SECONDS).toBe(300);
  });
});

describe('the local signer from configuration', () => {
  const secret = Keypair.random().secret();
  it('refuses to start when a daily limit names a token it has no contract for', () => {
    const config = loadMcpConfig({ DOB_SIGNER_SECRET: secret, DOB_POLICY_MAX_PER_DAY: 'USDC:10' });
    expect(() => composeAgentToolkit(config, () => undefined)).toThrow('DOB_SIGNER_TOKENS: the daily limit names USDC, which no token contract is set for');
  });
});
