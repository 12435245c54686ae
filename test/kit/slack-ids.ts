// The one Slack stand-in, shared by the tests and the sandbox (npm run sandbox), lives in src/sandbox/.
export * from '../../src/sandbox/slack-ids.js';
