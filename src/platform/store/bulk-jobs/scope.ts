import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { ChangeFeed } from '../../changes/change-feed.js';
import type { Tables } from '../tables.js';

/**
 * What every statement on bulk jobs keeps to: the connection (a transaction's, or the database's) and the
 * workspace the repository is limited to (see BulkJobs.inTeam).
 */
export class JobScope {
  constructor(
    protected readonly db: Kysely<Tables>,
    protected readonly engine: 'sqlite' | 'postgres',
    /** Where a job given work for the background is announced, for every replica's bulk worker. */
    protected readonly changes: Pick<ChangeFeed, 'announce' | 'engine'>,
    /** The workspace every statement is limited to; undefined: every workspace. */
    readonly teamId?: string,
  ) {}

  /** On a statement on bulk_jobs: the job is in this repository's workspace (any job when it has none). */
  protected ownJobs(eb: ExpressionBuilder<Tables, 'bulk_jobs'>): Expression<SqlBool> {
    return this.teamId === undefined ? sql<SqlBool>`1 = 1` : eb('bulk_jobs.team_id', '=', this.teamId);
  }

  /**
   * Job `id`, when it is in this repository's workspace: the subquery that statements on a job's rows and
   * draft filter their job_id by.
   */
  protected ownJob(id: string) {
    return this.db
      .selectFrom('bulk_jobs')
      .select('bulk_jobs.id')
      .where('bulk_jobs.id', '=', id)
      .where((eb) => this.ownJobs(eb));
  }

  /** The workspace of a repository limited to one; work that only makes sense for one workspace asks for it. */
  protected requireTeam(what: string): string {
    if (this.teamId === undefined) throw new Error(`${what} is done for one workspace: use inTeam(teamId)`);
    return this.teamId;
  }

  /** Runs `work` in a transaction: this one's when the repository is part of one already. */
  protected inTransaction<T>(work: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this.db);
    return this.db.transaction().execute((trx) => work(trx));
  }
}
