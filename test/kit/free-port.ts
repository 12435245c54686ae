// One helper for the tests and the sandbox (npm run sandbox), which lives in sandbox/.
export { freePort } from '../../sandbox/src/free-port.js';
