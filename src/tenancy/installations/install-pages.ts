import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Installation } from '@slack/bolt';
import { OAuthStateError, STATE_TTL_SECONDS } from './oauth-state.js';

/*
 * What an installer's browser is shown: the install page, and how the install ended. Each page says what
 * happened and what to do next, and links back to the start; it is one self-contained document (inline
 * styles and pictures, no script, nothing fetched from elsewhere) that reads on a phone as on a desktop.
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Pictures drawn inline (decorative: each page says in words what they show). */
const LOGO = `<svg class="logo" viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="#4a154b"/><path d="M9 22V10l7 8 7-8v12" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
const ICONS = {
  done: '<path d="M15 24.5l6 6 12-13" />',
  cancelled: '<path d="M17 17l14 14M31 17L17 31" />',
  expired: '<circle cx="24" cy="24" r="10" /><path d="M24 18v6l4 3" />',
  problem: '<path d="M24 14v12" /><path d="M24 33v.5" />',
} as const;
type Outcome = keyof typeof ICONS;

function icon(outcome: Outcome): string {
  return `<svg class="icon ${outcome}" viewBox="0 0 48 48" width="48" height="48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="24" class="disc"/><g fill="none" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round">${ICONS[outcome]}</g></svg>`;
}

const STYLE = `
  :root { color-scheme: light dark; --ink: #1d1c1d; --muted: #555459; --page: #f4f2f4; --card: #fff; --line: #dedcde;
    --brand: #4a154b; --on-brand: #fff; --focus: #1264a3; --done: #007a5a; --cancelled: #616061; --problem: #b35c00; }
  @media (prefers-color-scheme: dark) {
    :root { --ink: #e8e8e8; --muted: #b9b9bd; --page: #17181b; --card: #222529; --line: #3b3e44; --brand: #9d5ba3;
      --on-brand: #fff; --focus: #5ba8e8; --done: #2bac76; --cancelled: #9a999d; --problem: #e8912d; }
  }
  * { box-sizing: border-box; }
  body { margin: 0; padding: 3rem 1rem; background: var(--page); color: var(--ink);
    font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 34rem; margin: 0 auto; padding: 2rem 2.25rem; background: var(--card); border: 1px solid var(--line);
    border-radius: 12px; box-shadow: 0 1px 3px rgb(0 0 0 / .06); }
  .brand { display: flex; align-items: center; gap: .5rem; margin: 0 0 1.75rem; font-weight: 700; color: var(--muted); }
  .icon { display: block; margin-bottom: .75rem; }
  .icon g { stroke: #fff; }
  .done .disc { fill: var(--done); } .cancelled .disc { fill: var(--cancelled); }
  .expired .disc, .problem .disc { fill: var(--problem); }
  .status { margin: 0 0 .25rem; color: var(--problem); font-weight: 700; font-size: .9rem; text-transform: uppercase;
    letter-spacing: .04em; }
  h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; }
  h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
  p, ol { margin: 0 0 1rem; }
  ol { padding-left: 1.4rem; }
  li + li { margin-top: .4rem; }
  code { font: .95em ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--page); padding: .05em .3em;
    border-radius: 4px; }
  a { color: var(--focus); }
  a.button { display: inline-block; margin-top: .5rem; padding: .75rem 1.4rem; border-radius: 8px; background: var(--brand);
    color: var(--on-brand); font-weight: 700; text-decoration: none; }
  a.button:hover { filter: brightness(1.15); }
  a:focus-visible { outline: 3px solid var(--focus); outline-offset: 3px; }
  .note { margin: 1.5rem 0 0; padding-top: 1rem; border-top: 1px solid var(--line); color: var(--muted); font-size: .9rem; }
  @media (max-width: 30rem) {
    body { padding: 0; }
    main { min-height: 100vh; padding: 1.5rem 1.25rem; border: 0; border-radius: 0; box-shadow: none; }
    h1 { font-size: 1.4rem; }
    a.button { display: block; text-align: center; }
  }
`;

/**
 * A whole page: `title` is its heading too, after the outcome in a word (`status`, for a failure: the heading
 * says why); `body` is trusted HTML (every value in it escaped).
 */
function page(title: string, body: string, outcome?: Outcome, status?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${status ? `${escapeHtml(status)}: ` : ''}${escapeHtml(title)} · Mintlink for Slack</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="brand">${LOGO}<span>Mintlink for Slack</span></p>
${outcome ? icon(outcome) : ''}${status ? `<p class="status">${escapeHtml(status)}</p>` : ''}<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/**
 * The headers of every page: not cached (a page of the flow is only valid once), nothing loaded from
 * elsewhere and no framing (the button cannot be clicked through another site), and the callback's URL (code
 * and state) not sent on as a referrer.
 */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

function send(res: ServerResponse, status: number, html: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS });
  res.end(html);
}

/** Before Bolt writes the install page (it sets the state cookie and the content type itself). */
export function installPageHeaders(_req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
  return Promise.resolve(true);
}

const NOT_COMPLETED = 'Installation not completed';
const LINK_MINUTES = STATE_TTL_SECONDS / 60;
const START_AGAIN = (label: string) => `<p><a class="button" href="/slack/install">${label}</a></p>`;

/** /slack/install: one button to Slack's consent screen (Bolt made the URL and set the state cookie). */
export function installPage(authorizeUrl: string): string {
  return page(
    'Add Mintlink to your Slack workspace',
    `<p>Mintlink lets your team create mint links and wallets, approve customer deletions and export the audit
log without leaving Slack.</p>
<h2>How it works</h2>
<ol>
<li>Choose <strong>Add to Slack</strong>. Slack shows what Mintlink will be allowed to do, and in which workspace.</li>
<li>Choose <strong>Allow</strong>. Slack brings you back here to confirm the installation.</li>
<li>In Slack, open Mintlink's <strong>Home</strong> tab and connect your Mint account.</li>
</ol>
<p><a class="button" href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>
<p class="note">You need permission to add apps to your workspace. The button works for ${LINK_MINUTES} minutes;
after that, reload this page.</p>`,
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
  const orgWide = installation.isEnterpriseInstall
    ? `<p>An org admin chooses the organization's workspaces that get Mintlink, in Slack's admin dashboard.</p>`
    : '';
  send(
    res,
    200,
    page(
      'Mintlink is installed',
      `<p>Mintlink is now installed in <strong>${escapeHtml(where)}</strong>.</p>${orgWide}
<h2>What's next</h2>
<ol>
<li>Open Mintlink in Slack and go to its <strong>Home</strong> tab.</li>
<li>Choose <strong>Connect your Mint account</strong> and enter your Mint API key. You, as the installer, or a
settings admin can do this; until then, Mintlink's commands answer with how to connect.</li>
<li>Type <code>/mintlink help</code> in any channel to see what your team can do.</li>
</ol>
<p><a class="button" href="${escapeHtml(open)}">Open Mintlink in Slack</a></p>
<p class="note">You can close this page.</p>`,
      'done',
    ),
  );
}

/** What can tell a state the app made from a forged or expired one (oauth-state.ts), without using it up. */
export interface StateChecker {
  flaw(state: string): 'forged' | 'expired' | undefined;
}

/** Why a callback's state was refused, from Bolt's error or, when Bolt refused it first, the state itself. */
function stateProblem(
  error: Error & { code?: string },
  state: string | null,
  states: StateChecker,
): 'missing' | 'forged' | 'expired' | 'used' | undefined {
  if (error instanceof OAuthStateError) return error.reason === 'reused' ? 'used' : error.reason;
  if (error.code === 'slack_oauth_missing_state') return 'missing';
  // Bolt's own check: this browser has no cookie for this state (a link replayed after its install, opened
  // in another browser, or older than the cookie), or has the cookie of a newer install page.
  if (error.code === 'slack_oauth_invalid_state') return state ? (states.flaw(state) ?? 'used') : 'missing';
  return undefined;
}

/** How the install ended when it did not: each case says what happened and what to do. */
export function installFailed(
  error: Error & { code?: string },
  req: IncomingMessage,
  res: ServerResponse,
  states: StateChecker,
): void {
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  if (query.get('error') === 'access_denied') {
    return send(
      res,
      200,
      page(
        'Installation cancelled',
        `<p>You chose not to allow Mintlink on Slack's consent screen, so nothing was installed and nothing
changed in your workspace.</p>
<p>If that was a mistake, start again and choose <strong>Allow</strong>.</p>${START_AGAIN('Try again')}`,
        'cancelled',
      ),
    );
  }
  const problem = stateProblem(error, query.get('state'), states);
  if (problem === 'expired') {
    return send(
      res,
      400,
      page(
        'This installation link has expired',
        `<p>For your security, an installation link works for ${LINK_MINUTES} minutes, and this one is older.
Nothing was installed.</p>
<p>Start again: it takes a minute.</p>${START_AGAIN('Start again')}`,
        'expired',
        NOT_COMPLETED,
      ),
    );
  }
  if (problem === 'used') {
    return send(
      res,
      400,
      page(
        'This installation link no longer works',
        `<p>An installation link works once, and only in the browser that opened the install page. This one was
already used, or was opened elsewhere, so this page installed nothing.</p>
<p>If you finished installing Mintlink a moment ago, it is installed: open it in Slack. Otherwise, start
again.</p>${START_AGAIN('Start again')}`,
        'problem',
        NOT_COMPLETED,
      ),
    );
  }
  if (problem === 'forged') {
    return send(
      res,
      400,
      page(
        'This installation link is not valid',
        `<p>This link is not one the app made, or someone changed it. For your security, nothing was installed.</p>
<p>If someone sent you this link, do not use it. To install Mintlink, start from its install page.</p>
${START_AGAIN('Go to the install page')}`,
        'problem',
        NOT_COMPLETED,
      ),
    );
  }
  if (problem === 'missing' || error.code === 'slack_oauth_missing_code') {
    return send(
      res,
      400,
      page(
        'This installation link is incomplete',
        `<p>Part of the link back from Slack is missing, so the installation could not finish. Nothing was
installed.</p>
<p>Start again from the install page.</p>${START_AGAIN('Start again')}`,
        'problem',
        NOT_COMPLETED,
      ),
    );
  }
  send(
    res,
    502,
    page(
      'Slack could not finish the installation',
      `<p>Nothing was installed. This is usually temporary: wait a minute, then try again.</p>
<p>If it keeps happening, tell whoever runs Mintlink for your team when you tried.</p>${START_AGAIN('Try again')}`,
      'problem',
      NOT_COMPLETED,
    ),
  );
}
