import type { Logger } from '../../platform/ops/telemetry/create-logger.js';
import { WorkspaceGone } from '../../tenancy/workspaces/workspaces.js';

/** Workspaces remembered as gone at most: beyond it the oldest are forgotten (and logged again if met). */
const REMEMBERED = 10_000;

/**
 * Background bulk work of a workspace that has no installation any more (removed, or never completed) is
 * skipped: its progress messages and results cannot be posted. Each such workspace is logged once by this
 * process, not at every turn of the ticker.
 */
export class GoneWorkspaces {
  private readonly logged = new Set<string>();

  constructor(private readonly logger: Logger) {}

  /** True (and logged the first time) when `error` says the workspace is gone: the caller skips the work. */
  skip(teamId: string | undefined, error: unknown, what: string): boolean {
    if (!(error instanceof WorkspaceGone)) return false;
    const key = teamId ?? '';
    if (!this.logged.has(key)) {
      if (this.logged.size >= REMEMBERED) this.logged.delete(this.logged.values().next().value ?? '');
      this.logged.add(key);
      this.logger.info({ team: teamId, skipped: what }, 'bulk work of a workspace without an installation is skipped');
    }
    return true;
  }

  /** The workspace answered again (installed again): the next time it is gone is logged again. */
  back(teamId: string | undefined): void {
    this.logged.delete(teamId ?? '');
  }
}
