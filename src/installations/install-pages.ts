import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Installation } from '@slack/bolt';
import { OAuthStateError } from './oauth-state.js';

/** What an installer's browser is shown: the install page, and how the install ended. */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Mintlink for Slack</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; color: #1d1c1d; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; }
  h1 { font-size: 1.5rem; }
  a.button { display: inline-block; padding: .6rem 1.2rem; border-radius: 6px; background: #4a154b; color: #fff; text-decoration: none; font-weight: 600; }
  .note { color: #616061; font-size: .9rem; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

function send(res: ServerResponse, status: number, html: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'referrer-policy': 'no-referrer',
  });
  res.end(html);
}

/** /slack/install: one button to Slack's consent screen (Bolt made the URL and set the state cookie). */
export function installPage(authorizeUrl: string): string {
  return page(
    'Add Mintlink to your Slack workspace',
    `<p>Mintlink lets your team create mint links and wallets, approve customer deletions and export the audit
log without leaving Slack.</p>
<p><a class="button" href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>
<p class="note">Slack asks you to review what the app may do. After installing, open the app's Home tab in
Slack to connect your Mint account.</p>`,
  );
}

/** After Slack's consent screen: the installation is stored. */
export function installSucceeded(installation: Installation, _req: IncomingMessage, res: ServerResponse): void {
  const where = installation.isEnterpriseInstall
    ? `the ${installation.enterprise?.name ?? 'Enterprise Grid'} organization`
    : (installation.team?.name ?? 'your workspace');
  const team = installation.team?.id ?? installation.enterprise?.id ?? '';
  const open = installation.appId
    ? `https://slack.com/app_redirect?app=${encodeURIComponent(installation.appId)}&team=${encodeURIComponent(team)}`
    : 'https://slack.com/';
  send(
    res,
    200,
    page(
      'Mintlink is installed',
      `<p>Mintlink is now installed in ${escapeHtml(where)}.</p>
<p><a class="button" href="${escapeHtml(open)}">Open Mintlink in Slack</a></p>
<p class="note">Next: on the app's Home tab, the installer or a settings admin connects your Mint account.</p>`,
    ),
  );
}

/** How the install ended when it did not: each case says what happened and what to do. */
export function installFailed(error: Error & { code?: string }, req: IncomingMessage, res: ServerResponse): void {
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  const again = '<p><a class="button" href="/slack/install">Start the installation again</a></p>';
  if (query.get('error') === 'access_denied') {
    return send(
      res,
      200,
      page(
        'Installation cancelled',
        `<p>You chose not to allow Mintlink on Slack's consent screen, so nothing was installed.</p>${again}`,
      ),
    );
  }
  if (
    error instanceof OAuthStateError ||
    error.code === 'slack_oauth_invalid_state' ||
    error.code === 'slack_oauth_missing_state'
  ) {
    const why =
      error instanceof OAuthStateError && error.reason === 'expired'
        ? 'This installation link has expired (it works for 10 minutes).'
        : error instanceof OAuthStateError && error.reason === 'reused'
          ? 'This installation link was already used.'
          : 'This installation link was not started from this browser, or is not one the app made.';
    return send(res, 400, page('Installation not completed', `<p>${why} Nothing was installed.</p>${again}`));
  }
  if (error.code === 'slack_oauth_missing_code') {
    return send(
      res,
      400,
      page(
        'Installation not completed',
        `<p>Slack did not send an authorization code. Nothing was installed.</p>${again}`,
      ),
    );
  }
  send(
    res,
    502,
    page(
      'Installation not completed',
      `<p>Slack did not complete the installation. Nothing was installed; please try again in a minute.</p>${again}`,
    ),
  );
}
