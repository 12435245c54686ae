import type { ModalView } from '@slack/types';
import type { BulkJob, BulkJobs } from '../store/bulk-jobs.js';
import { ERRORS_SHOWN, HELD_SHOWN, previewView } from './bulk-views.js';

/**
 * A draft's preview as stored: its first errors and, for a retry, the rows it holds back (read from the job
 * it retries, with what happened to them there).
 */
export async function readPreview(
  jobs: BulkJobs,
  job: BulkJob,
  options: { errorsSent?: boolean; dropped?: readonly BulkJob[] } = {},
): Promise<ModalView> {
  const errors = await jobs.rows(job.id, { statuses: ['invalid'], limit: ERRORS_SHOWN });
  const held =
    job.retryOf && job.heldRows > 0 ? await jobs.rows(job.retryOf, { statuses: ['unknown'], limit: HELD_SHOWN }) : [];
  return previewView(job, errors, { ...options, held });
}
