import type { ModalView } from '@slack/types';
import type { BulkJob, BulkJobs } from '../../platform/store/bulk-jobs/jobs.js';
import { ERRORS_SHOWN, FAILED_SHOWN, HELD_SHOWN, previewView } from './bulk-views.js';

/**
 * A draft's preview as stored: its first errors and, for a retry, the failed rows it sends again and the rows
 * it holds back (read from the job it retries, with what happened to them there).
 */
export async function readPreview(
  jobs: BulkJobs,
  job: BulkJob,
  options: { errorsSent?: boolean; dropped?: readonly BulkJob[] } = {},
): Promise<ModalView> {
  const errors = await jobs.rows(job.id, { statuses: ['invalid'], limit: ERRORS_SHOWN });
  if (!job.retryOf) return previewView(job, errors, options);
  const held = job.heldRows > 0 ? await jobs.rows(job.retryOf, { statuses: ['unknown'], limit: HELD_SHOWN }) : [];
  const counts = await jobs.counts(job.retryOf);
  const failed = counts.failed > 0 ? await jobs.rows(job.retryOf, { statuses: ['failed'], limit: FAILED_SHOWN }) : [];
  const retried = { failed, failedCount: counts.failed, invalidCount: counts.invalid };
  return previewView(job, errors, { ...options, held, retried });
}
