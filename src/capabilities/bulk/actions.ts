import { declare } from '../../platform/slack/pipeline/declarations.js';

/**
 * Everything bulk jobs answer in Slack, declared once (register.ts gives each its listener). A job's buttons
 * change a job or send a file: the same click delivered twice does that once.
 */
export const BULK = declare('bulk', {
  shortcuts: { create: { callbackId: 'bulk_create' } },
  buttons: {
    createFromHome: { actionId: 'home_bulk_create', label: 'Bulk create' },
    sampleCsv: { actionId: 'bulk_sample_csv', label: 'Download a sample CSV', once: true },
    pause: { actionId: 'bulk_pause', label: 'Pause', once: true },
    resume: { actionId: 'bulk_resume', label: 'Resume', style: 'primary', once: true },
    cancel: { actionId: 'bulk_cancel', label: 'Cancel', style: 'danger', once: true },
    // Its label says how many errors the file holds.
    errorsFile: { actionId: 'bulk_errors_file', once: true },
    resendResults: { actionId: 'bulk_resend_results', label: 'Send the results file', once: true },
    retry: { actionId: 'bulk_retry', label: 'Retry failed rows', once: true },
  },
  forms: {
    check: { callbackId: 'bulk_form', title: 'Bulk create' },
    start: { callbackId: 'bulk_preview', title: 'Bulk create' },
  },
});
