/* global module */
// Layer rules of src (docs/architecture.md): transports -> use cases and read side -> domain; shared below all.
// A wallet flow (src/wallet/<flow>/) holds its routes (transport edge) beside its use case and read side.
const transports = '^src/(http|realtime)/';
const useCases = '^src/(commands|auth|audit|leaderboards)/|^src/wallet/.+[.](use-case|decide)[.]ts$';
const readSide = '^src/(read-models|projections)/|^src/wallet/.+[.](projection|queries|migration)[.]ts$';
const application = '^src/(commands|auth|audit|leaderboards|read-models|projections|http|realtime|domain|wallet)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle ties its modules into one unit: break it by moving the shared piece below both.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain imports only domain and shared code.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(domain|shared)/' },
    },
    {
      name: 'shared-is-below-all',
      severity: 'error',
      comment: 'src/shared is imported by every layer, so it imports none of them.',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'infra-imports-no-application-code',
      severity: 'error',
      comment: 'Adapters know nothing of use cases, read models or transports; the composition root wires them.',
      from: { path: '^src/infra/' },
      to: { path: [application, '^src/(main|schema)\\.ts$'] },
    },
    {
      name: 'use-cases-know-no-transport',
      severity: 'error',
      comment: 'Use cases answer transport-neutral values; HTTP and sockets map them.',
      from: { path: useCases },
      to: { path: transports },
    },
    {
      name: 'read-side-knows-no-transport',
      severity: 'error',
      from: { path: readSide },
      to: { path: transports },
    },
    {
      name: 'read-side-knows-no-use-case',
      severity: 'error',
      comment: 'Projections and queries depend on the domain events, not on the code that writes them.',
      from: { path: readSide },
      to: { path: useCases },
    },
    {
      name: 'transports-apart',
      severity: 'error',
      comment: 'src/http and src/realtime do not import each other: what both need lives below both.',
      from: { path: '^src/(http|realtime)/' },
      to: { path: '^src/(http|realtime)/', pathNot: '^src/$1/' },
    },
    {
      name: 'only-the-root-imports-the-root',
      severity: 'error',
      comment: 'main.ts and schema.ts compose everything; nothing in src depends on them.',
      from: { path: '^src/', pathNot: '^src/(main|schema)\\.ts$' },
      to: { path: '^src/(main|schema)\\.ts$' },
    },
    {
      name: 'wallet-flows-apart',
      severity: 'error',
      comment: 'One flow does not reach into another: what two flows share lives below both.',
      from: { path: '^src/wallet/([^/]+)/' },
      to: { path: '^src/wallet/', pathNot: '^src/wallet/($1/|[^/]+[.]ts$)' },
    },
    {
      name: 'use-case-folders-one-way',
      comment:
        'Authentication builds on the user and credential stores of commands/; the audit tools read the ledger. ' +
        'Neither is imported back: commands/ and wallet/ import no auth/ or audit/ module, and audit/ no auth/ module.',
      severity: 'error',
      from: { path: '^src/(commands|wallet)/' },
      to: { path: '^src/(auth|audit)/' },
    },
    {
      name: 'audit-knows-no-auth',
      severity: 'error',
      from: { path: '^src/audit/' },
      to: { path: '^src/auth/' },
    },
    {
      name: 'use-cases-and-read-side-know-no-route',
      severity: 'error',
      comment: "A flow's routes are its transport edge: nothing below them imports them.",
      from: { path: [useCases, readSide] },
      to: { path: '[.]routes[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
