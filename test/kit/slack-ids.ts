// The one Slack stand-in, shared by the tests and the sandbox (npm run sandbox), lives in sandbox/.
export * from '../../sandbox/src/slack-ids.js';
