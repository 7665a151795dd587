/**
 * Dependency rules, checked by `npm run lint` (dependency-cruiser). What may import what, and why, is the table in
 * docs/ARCHITECTURE.md#dependency-rules; test/dependency-rules.int-spec.ts proves each rule fails when broken.
 *
 * Production code is everything under apps/ and libs/ that is not a test (*.spec.ts, *.int-spec.ts, *.e2e-spec.ts)
 * or test support (a `testing/` folder). Tests may compose more (a devnet, several libs), never an app from a lib.
 */

/**
 * Each lib's declared dependencies: the only libs its production code may import. Adding one is a design
 * decision — change it here, in the table of docs/ARCHITECTURE.md, and check the rules still hold.
 */
const LIB_DEPENDENCIES = {
  // the base: no dependency of ours
  domain: [],
  // a lost server connection leaves the storage adapters as the domain's AppError (503 + Retry-After)
  sql: ['domain'],
  mongo: ['domain'],
  signatures: [],
  observability: [],
  'rate-limit': [],
  'devnet-manifest': [],
  // the Agent API as MCP tools: the agent client (a package) and the domain's JSON guard
  'agent-tools': ['domain'],
  // storage and the write side
  'event-store': ['domain', 'sql'],
  // single-writer work: lease rows with fencing tokens in the database that work writes
  leases: ['sql'],
  auth: ['domain', 'event-store', 'signatures', 'sql'],
  indexer: ['devnet-manifest', 'domain', 'event-store', 'leases'],
  // the local chain simulator: only its manifest format and signature checks
  devnet: ['devnet-manifest', 'signatures'],
  // the read side
  projections: ['event-store', 'leases', 'mongo', 'sql'],
  'read-models': ['domain', 'event-store', 'mongo', 'projections', 'sql'],
  trading: ['domain', 'read-models', 'signatures', 'sql'],
  // what apps compose: configuration, storage, health, the system's event catalog and chain settings
  runtime: ['auth', 'devnet-manifest', 'domain', 'event-store', 'leases', 'sql'],
  webhooks: ['domain', 'event-store', 'leases', 'projections', 'read-models', 'runtime', 'sql'],
  'kafka-relay': ['auth', 'domain', 'event-store', 'leases', 'projections', 'runtime', 'sql'],
  // the Agent API's HTTP transport (Nest): a lib so that the API alone and `npm start` compose the same one
  'api-http': ['auth', 'domain', 'event-store', 'observability', 'rate-limit', 'read-models', 'runtime', 'sql', 'trading', 'webhooks'],
  // one composition function per app, called by that app alone and by `npm start` (apps/all)
  compositions: [
    'api-http',
    'devnet-manifest',
    'indexer',
    'kafka-relay',
    'leases',
    'observability',
    'projections',
    'read-models',
    'runtime',
    'trading',
    'webhooks',
  ],
};

const TESTS = '\\.(spec|int-spec|e2e-spec)\\.ts$|/testing/';

/**
 * The compositions that run the local chain simulator: the devnet app and `npm start`'s embedded system (a seeded
 * chain in-process, docs/decisions.md#d14). Everything else follows a devnet through its manifest
 * (libs/devnet-manifest) and never loads libs/devnet.
 */
const DEVNET_COMPOSITIONS = ['^apps/devnet/', '^apps/all/'];

/**
 * libs/api-http's folders: an area serves one part of the API (its controllers, DTOs, response schemas, handlers);
 * the shared folders hold what several areas use (access: API keys, scopes and wallet tokens; openapi: schema parts
 * and the read models' response schemas; http: envelope, query DTOs, hardening). An area never imports another
 * area, so one can be changed, moved or dropped alone; the files at the top (api.module.ts, bootstrap.ts) compose them.
 */
const API_AREAS = ['auth', 'events', 'health', 'marketplace', 'pools', 'portfolio', 'trading', 'webhooks'];
const API_SHARED = ['access', 'cqrs', 'http', 'logging', 'openapi'];
const API_AREA_PATH = `^libs/api-http/src/(${API_AREAS.join('|')})/`;

const libRules = Object.entries(LIB_DEPENDENCIES).map(([lib, deps]) => ({
  name: `lib-deps:${lib}`,
  comment: `libs/${lib} may import only ${deps.length ? deps.map((d) => `libs/${d}`).join(', ') : 'nothing of ours'} (LIB_DEPENDENCIES)`,
  severity: 'error',
  from: { path: `^libs/${lib}/`, pathNot: TESTS },
  to: { path: '^libs/', pathNot: `^libs/(${[lib, ...deps].join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: neither can be understood, tested or moved alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-imports-app',
      comment: 'Libs are plain TypeScript the apps compose; a lib that imports an app inverts that.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'app-imports-app',
      comment: 'Apps are thin composition roots; what two apps share belongs in a lib (npm start composes the others through libs/compositions).',
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: TESTS },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'devnet-outside-dev-compositions',
      comment: 'The chain simulator is for development: production code follows a devnet through its manifest (DEVNET_COMPOSITIONS).',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: [TESTS, '^libs/devnet/', ...DEVNET_COMPOSITIONS] },
      to: { path: '^libs/devnet/' },
    },
    {
      name: 'domain-imports-ours',
      comment: 'The domain (events, money, errors) is the base everything shares; it imports nothing of ours.',
      severity: 'error',
      from: { path: '^libs/domain/' },
      to: { path: '^(apps|libs|packages|test|bench|scripts)/', pathNot: '^libs/domain/' },
    },
    {
      name: 'production-imports-tests',
      comment: 'Test helpers (testing/ folders, test/) are not shipped: production code must not need them.',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: TESTS },
      to: { path: `${TESTS}|^test/|^bench/` },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing (a moved file, a typo in a path alias).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'api-area-imports-area',
      comment: "An area of the API (API_AREAS) uses the shared folders, never another area's files: what two areas share moves to a shared folder.",
      severity: 'error',
      from: { path: API_AREA_PATH },
      to: { path: API_AREA_PATH, pathNot: '^libs/api-http/src/$1/' },
    },
    {
      name: 'api-shared-imports-area',
      comment: 'The shared folders of the API (API_SHARED) serve every area, so they import none.',
      severity: 'error',
      from: { path: `^libs/api-http/src/(${API_SHARED.join('|')})/` },
      to: { path: API_AREA_PATH },
    },
    {
      name: 'notifier-reaches-trading',
      comment:
        "The notifier's library (libs/webhooks) and its composition announce what the chain did; they never load trading, not even through another lib (libs/runtime once did, for two types).",
      severity: 'error',
      from: { path: ['^libs/webhooks/', '^libs/compositions/src/notifier\\.composition\\.ts$'], pathNot: TESTS },
      to: { path: '^libs/trading/', reachable: true },
    },
    ...libRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|coverage|\\.data)/' },
    // `@dob/*` and `@dobprotocol/agent-client` resolve through tsconfig.json's paths
    tsConfig: { fileName: 'tsconfig.json' },
    // type-only imports count: a type cycle is still a cycle in the design
    tsPreCompilationDeps: true,
    // packages that publish through `exports` (uuid, the MCP SDK's subpaths) resolve as Node resolves them
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default', 'import'] },
  },
};
