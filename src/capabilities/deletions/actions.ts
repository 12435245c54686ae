import { declare } from '../../platform/slack/pipeline/declarations.js';

/**
 * Everything the deletions capability answers in Slack, declared once: register.ts gives each its listener,
 * the approval message, the request form and the Home entry make their buttons from it.
 */
export const DELETIONS = declare('deletions', {
  shortcuts: { request: { callbackId: 'request_customer_deletion' } },
  messageShortcuts: { requestFromMessage: { callbackId: 'request_deletion_from_message' } },
  buttons: {
    requestFromHome: { actionId: 'home_request_deletion', label: 'Request deletion' },
    addIdsBox: { actionId: 'deletion_add_ids_box', label: 'Add another box for IDs' },
    approve: { actionId: 'deletion_approve', label: 'Approve…', style: 'primary' },
    reject: { actionId: 'deletion_reject', label: 'Reject…', style: 'danger' },
    // The same click delivered twice must not send the deletion twice (after a failure both would win).
    retry: { actionId: 'deletion_retry', label: 'Try the deletion again', style: 'danger', once: true },
    cancel: { actionId: 'deletion_cancel', label: 'Cancel request' },
    // Home's "See all": its label says how many.
    allApprovals: { actionId: 'home_all_approvals' },
    allOwnRequests: { actionId: 'home_all_own_requests' },
  },
  forms: {
    request: { callbackId: 'deletion_request_form', title: 'Request deletion' },
    approve: { callbackId: 'deletion_approve_form', title: 'Approve deletion' },
    reject: { callbackId: 'deletion_reject_form', title: 'Reject deletion' },
  },
  steps: { requestDeletion: { callbackId: 'request_customer_deletion_step', thing: 'the deletion request' } },
});
