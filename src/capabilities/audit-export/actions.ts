import { declare } from '../../platform/slack/pipeline/declarations.js';

/** Everything the audit export answers in Slack, declared once (register.ts gives each its listener). */
export const AUDIT_EXPORT = declare('audit-export', {
  buttons: { exportFromHome: { actionId: 'home_export_audit', label: 'Export audit log' } },
  forms: { export: { callbackId: 'audit_export_form', title: 'Export audit log' } },
});
