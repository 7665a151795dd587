import document from './generated/openapi.json';

/** The parts of an OpenAPI 3.0 document that tools built on this client read (operations, parameters, schemas). */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components?: { readonly schemas?: Record<string, unknown> };
}

/** The OpenAPI document the types were generated from (what the API serves at /api/agent/openapi.json). */
export const agentApiDocument: OpenApiDocument = document as OpenApiDocument;
