// One helper for the tests and the sandbox (npm run sandbox), which lives in src/sandbox/.
export { freePort } from '../../src/sandbox/free-port.js';
