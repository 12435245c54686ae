// `npx vitest run <file>` from the project's root finds this: the tests' one configuration (test/vitest.config.ts).
export { default } from './test/vitest.config.ts';
