// The structure rules (`npm run lint:deps`, run by CI), the layers of src/ from the top down:
//   src/*.ts (main, start-mintlink, app: the wiring, which knows of a capability only its register.ts;
//             deps: what a capability is given)
//   src/capabilities/<one>/   what a person does; never another capability
//   src/domain/               the words more than one capability says alike (a bulk job's rows counted); only the
//                             platform beneath it
//   src/operator/             the operator's commands; never a capability
//   src/tenancy/              which workspace, token, Mint account, settings; never a capability
//   src/platform/             what everything stands on; never a capability, the operator's commands or tenancy,
//                             except the Slack layer (platform/slack/): a request is authorized and assigned to its
//                             workspace there, through tenancy's installations and workspaces
// No import cycles anywhere, and nothing in src/ knows the sandbox (sandbox/), which runs the built app.
const top = '^src/[^/]+\\.ts$';
const wiring = ['^src/app\\.ts$', '^src/main\\.ts$', '^src/start-mintlink\\.ts$'];

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle (type-only imports included).',
      from: { path: '^(src|sandbox)/' },
      to: { circular: true },
    },
    {
      name: 'capabilities-stay-apart',
      severity: 'error',
      comment: 'A capability uses another only through what src/deps.ts gives it (the Home tab, the command registry).',
      from: { path: '^src/capabilities/([^/]+)/' },
      to: { path: '^src/capabilities/', pathNot: '^src/capabilities/$1/' },
    },
    {
      name: 'the-wiring-knows-only-register',
      severity: 'error',
      comment:
        'The wiring knows a capability only by its register(app, deps): what a capability keeps inside stays its own; what several parts share belongs to the platform (the App Home publisher) or the config (the bulk pace).',
      from: { path: wiring },
      to: { path: '^src/capabilities/', pathNot: '^src/capabilities/[^/]+/register\\.ts$' },
    },
    {
      name: 'only-the-wiring-knows-capabilities',
      severity: 'error',
      comment:
        'Tenancy, the platform, the operator commands and the dependency types are used by the capabilities, never the other way round.',
      from: { path: ['^src/(tenancy|platform|operator|domain)/', '^src/deps\\.ts$'] },
      to: { path: ['^src/capabilities/', ...wiring] },
    },
    {
      name: 'domain-words-stand-on-the-platform',
      severity: 'error',
      comment:
        'The words capabilities share use the platform only; the platform, tenancy and the operator commands never use them.',
      from: { path: '^src/domain/' },
      to: { path: ['^src/tenancy/', '^src/operator/', top] },
    },
    {
      name: 'nothing-beneath-knows-the-domain',
      severity: 'error',
      comment: 'The domain words are the capabilities’ (History and the flow that shows the same thing).',
      from: { path: '^src/(tenancy|platform|operator)/' },
      to: { path: '^src/domain/' },
    },
    {
      name: 'only-the-entry-runs-operator-commands',
      severity: 'error',
      comment: 'The operator commands are loaded by main.ts alone, and only when asked for.',
      from: { path: '^src/', pathNot: ['^src/operator/', '^src/main\\.ts$'] },
      to: { path: '^src/operator/' },
    },
    {
      name: 'platform-knows-no-tenancy',
      severity: 'error',
      comment:
        'The platform serves any workspace without knowing which: only its Slack layer (the Bolt app authorizing through the installations, the pipeline finding the request’s workspace) reaches tenancy.',
      from: { path: '^src/platform/', pathNot: '^src/platform/slack/' },
      to: { path: ['^src/tenancy/', '^src/operator/', top] },
    },
    {
      name: 'nothing-knows-the-sandbox',
      severity: 'error',
      comment:
        'The sandbox (npm run sandbox) starts the built app as production does: no part of the app may depend on it or branch on it.',
      from: { path: '^src/' },
      to: { path: '^sandbox/' },
    },
    {
      name: 'sandbox-runs-the-built-app',
      severity: 'error',
      comment:
        'The sandbox starts dist/mintlink.mjs in a process of its own; it may use the platform and the mock Mint service, never the app, tenancy or a capability in its own process.',
      from: { path: '^sandbox/' },
      to: { path: '^src/', pathNot: ['^src/platform/', '^src/operator/mock-mint-api/'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: { path: '^(src|sandbox)/' },
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
