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
    pause: { actionId: 'bulk_pause', once: true },
    resume: { actionId: 'bulk_resume', once: true },
    cancel: { actionId: 'bulk_cancel', once: true },
    errorsFile: { actionId: 'bulk_errors_file', once: true },
    resendResults: { actionId: 'bulk_resend_results', once: true },
    retry: { actionId: 'bulk_retry', once: true },
  },
  forms: {
    check: { callbackId: 'bulk_form', title: 'Bulk create' },
    start: { callbackId: 'bulk_preview', title: 'Bulk create' },
  },
});
