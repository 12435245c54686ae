import type { QueryExecutorProvider } from 'kysely';

/** What the in-process feed is given to announce through: it sends no statement, so this one refuses any. */
export const fakeExecutor: QueryExecutorProvider = {
  getExecutor: () => {
    throw new Error('the in-process change feed sends no statement');
  },
};
