import { AgentApiError, isAgentApiError, unwrap } from './errors';

const response = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });

describe('unwrap', () => {
  it('returns the success body', async () => {
    await expect(unwrap(Promise.resolve({ data: { success: true, data: [1] }, response: response(200) }))).resolves.toEqual({ success: true, data: [1] });
  });

  it("throws AgentApiError carrying the envelope's code, message, details and Retry-After", async () => {
    const error = { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded. Retry after 3 seconds.', details: { limit: 60 } } };
    const thrown = await unwrap(Promise.resolve({ error, response: response(429, { 'retry-after': '3' }) })).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(AgentApiError);
    expect(thrown).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      status: 429,
      message: 'Rate limit exceeded. Retry after 3 seconds.',
      details: { limit: 60 },
      retryAfterSeconds: 3,
    });
    expect(isAgentApiError(thrown, 'RATE_LIMIT_EXCEEDED')).toBe(true);
    expect(isAgentApiError(thrown, 'CONFLICT')).toBe(false);
  });

  it('names a non-envelope answer (a proxy page) by its status', async () => {
    const thrown = await unwrap(Promise.resolve({ error: '<html>bad gateway</html>', response: response(502) })).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ code: 'INTERNAL_ERROR', status: 502 });
    const teapot = await unwrap(Promise.resolve({ error: 'nope', response: response(418) })).catch((e: unknown) => e);
    expect(teapot).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 418 });
  });
});
