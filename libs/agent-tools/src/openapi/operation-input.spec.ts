import { agentApiDocument } from '@dobprotocol/agent-client';
import { operationInput } from './operation-input';

describe("operationInput (from the agent client's OpenAPI document)", () => {
  it('merges path and query parameters into one schema, with the DTO constraints', () => {
    const input = operationInput(agentApiDocument, 'get', '/api/agent/pools/{address}/members', { network_id: 9 });
    expect(input.inputSchema.properties).toMatchObject({
      address: { type: 'string' },
      page: { minimum: 1 },
      limit: { maximum: 100 },
      network_id: { description: expect.stringContaining('Default: 9') },
    });
    expect(input.inputSchema.required).toEqual(['address']);
    expect(input.split({ address: 'CPOOL', limit: 5 })).toEqual({ path: { address: 'CPOOL' }, query: { network_id: 9, limit: 5 }, body: undefined });
  });

  it('takes a JSON body from the request DTO, and a default is not required of the caller', () => {
    const input = operationInput(agentApiDocument, 'post', '/api/agent/marketplace/prepare-list', { network_id: 9 });
    expect(Object.keys(input.inputSchema.properties).sort()).toEqual(
      ['network_id', 'pool_address', 'price_per_share', 'payment_token', 'shares_amount'].sort(),
    );
    expect(input.inputSchema.required).not.toContain('network_id');
    expect(input.split({ pool_address: 'C', shares_amount: 3, price_per_share: '1.5', payment_token: 'USDC', network_id: 10 }).body).toEqual({
      pool_address: 'C',
      shares_amount: 3,
      price_per_share: '1.5',
      payment_token: 'USDC',
      network_id: 10,
    });
  });

  it('names unknown and missing arguments', () => {
    const input = operationInput(agentApiDocument, 'post', '/api/agent/marketplace/prepare-buy', { network_id: 9 });
    expect(() => input.split({ listing_id: 'SALE_x', price: 1 })).toThrow('unknown argument "price"; this tool takes network_id, listing_id, amount');
    expect(() => input.split({})).toThrow('missing required argument: listing_id');
  });

  it('fails loudly for an operation the document does not have', () => {
    expect(() => operationInput(agentApiDocument, 'get', '/api/agent/nope')).toThrow('the OpenAPI document has no GET /api/agent/nope');
  });
});
