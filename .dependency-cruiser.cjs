// The structure rules of src/ (`npm run lint:deps`, run by CI): no import cycles, capabilities never reach
// into each other, and the shared parts never depend on a capability or on the app's wiring.
const capabilities =
  '(links|wallets|bulk|templates|deletion-approval|audit-export|home|settings|mint-account|setup-checklist)';
const shared =
  '(admission|approvers|audit|commands|config|csv|health|lifecycle|logging|metrics|mint-api|mock-mint-api|observability|slack-api|slack-ui|store|http-front|workflow-steps|workspace-settings|installations|secrets|mint-accounts|setup-checks)';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle (type-only imports included).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'capabilities-stay-apart',
      severity: 'error',
      comment: 'A capability uses another only through what src/deps.ts gives it (the Home tab, the command registry).',
      from: { path: `^src/${capabilities}/` },
      to: { path: `^src/${capabilities}/`, pathNot: '^src/$1/' },
    },
    {
      name: 'shared-parts-know-no-capability',
      severity: 'error',
      comment: 'Shared parts and the dependency types are used by the capabilities, never the other way round.',
      from: { path: [`^src/${shared}/`, '^src/deps\\.ts$'] },
      to: { path: [`^src/${capabilities}/`, '^src/app\\.ts$', '^src/main\\.ts$'] },
    },
    {
      name: 'nothing-knows-the-sandbox',
      severity: 'error',
      comment:
        'The sandbox (npm run sandbox) starts the built app as production does: no part of the app may depend on it or branch on it.',
      from: { path: '^src/', pathNot: '^src/sandbox/' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'sandbox-runs-the-built-app',
      severity: 'error',
      comment:
        'The sandbox starts dist/mintlink.mjs in a process of its own; it may use shared parts (the mock Mint service), never the app or a capability in its own process.',
      from: { path: '^src/sandbox/' },
      to: { path: [`^src/${capabilities}/`, '^src/app\\.ts$', '^src/main\\.ts$'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
