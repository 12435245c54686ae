import { readFileSync } from 'node:fs';
import { DELETIONS } from '../../src/capabilities/deletions/actions.js';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REQUEST_DELETION_STEP_INPUTS } from '../../src/capabilities/deletions/deletion-step.js';
import { DELETION_STEP_OUTPUTS } from '../../src/capabilities/deletions/step-completion.js';
import { CREATE_LINK_STEP_INPUTS } from '../../src/capabilities/links/create-link-step.js';
import { LIST_TEMPLATES_STEP_INPUTS } from '../../src/capabilities/templates/list-templates-step.js';
import { CREATE_WALLET_STEP_INPUTS } from '../../src/capabilities/wallets/create-wallet-step.js';
import { WALLETS } from '../../src/capabilities/wallets/actions.js';
import { BULK } from '../../src/capabilities/bulk/actions.js';
import { TEMPLATES } from '../../src/capabilities/templates/actions.js';
import { LINKS } from '../../src/capabilities/links/actions.js';

/*
 * manifest.yml against Slack's official manifest schema (slackapi/manifest-schema v0.5.0, copied beside this
 * test; Ajv needs strict:false for its non-standard keywords).
 */
const schema = JSON.parse(
  readFileSync(new URL('./slack-manifest.schema.1.0.0.json', import.meta.url), 'utf8'),
) as object;
const validate = new Ajv({ strict: false, allErrors: true, logger: false }).compile(schema);
const manifest = parse(readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8')) as Record<string, any>;

/** Every bot scope and why; a new one must be added here with its reason. */
const NEEDED_BOT_SCOPES = {
  commands: '/mintlink',
  'chat:write': 'DMs with results to the requester; deletion requests in the approval channel',
  'usergroups:read': 'user groups named in DELETION_APPROVERS',
  'files:read': 'the CSV a user attaches to the bulk form',
  'files:write': "bulk jobs' results and errors files, and audit exports, uploaded to the asker's DM",
  'users:read':
    "settings admins by default: the workspace's admins and owners (users.info is_admin, is_owner); History's search by a maker's name (users.info names) and its days in the reader's time zone (users.info tz)",
  'channels:read': 'the settings check that the app is in the approval channel chosen (conversations.info, public)',
  'groups:read': 'the same check for a private approval channel (conversations.info)',
};

describe('manifest.yml', () => {
  it("is valid against Slack's manifest schema", () => {
    expect(validate(manifest), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('would be caught by the schema if it broke a rule', () => {
    const broken = structuredClone(manifest);
    broken.display_information.name = 'x'.repeat(36);
    broken.features.slash_commands[0].command = 'mintlink';
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['/display_information/name', '/features/slash_commands/0/command']),
    );
  });

  it('declares /mintlink with a description and usage hint naming every subcommand', () => {
    const [command] = manifest.features.slash_commands;
    expect(command).toMatchObject({ command: '/mintlink', should_escape: false });
    expect(command.description.length).toBeGreaterThan(10);
    for (const sub of ['help', 'link', 'wallet', 'bulk', 'delete', 'templates', 'audit', 'history'])
      expect(command.usage_hint).toContain(sub);
  });

  it('declares the shortcuts the app listens for', () => {
    expect(
      manifest.features.shortcuts.map((s: { callback_id: string; type: string }) => [s.callback_id, s.type]),
    ).toEqual([
      [LINKS.shortcuts.create.callbackId, 'global'],
      [WALLETS.shortcuts.create.callbackId, 'global'],
      [BULK.shortcuts.create.callbackId, 'global'],
      [TEMPLATES.shortcuts.browse.callbackId, 'global'],
      [DELETIONS.shortcuts.request.callbackId, 'global'],
      [DELETIONS.messageShortcuts.requestFromMessage.callbackId, 'message'],
    ]);
  });

  it('declares each workflow step the app listens for, with the inputs the code reads, titled alike', () => {
    const steps: Record<string, Record<string, string>> = {
      [LINKS.steps.createLink.callbackId]: CREATE_LINK_STEP_INPUTS,
      [WALLETS.steps.createWallet.callbackId]: CREATE_WALLET_STEP_INPUTS,
      [DELETIONS.steps.requestDeletion.callbackId]: REQUEST_DELETION_STEP_INPUTS,
      [TEMPLATES.steps.listTemplates.callbackId]: LIST_TEMPLATES_STEP_INPUTS,
    };
    expect(Object.keys(manifest.functions).sort()).toEqual(Object.keys(steps).sort());
    for (const [callbackId, inputs] of Object.entries(steps)) {
      const declared = manifest.functions[callbackId];
      expect(declared.title.length, callbackId).toBeGreaterThan(3);
      expect(declared.description.length, callbackId).toBeGreaterThan(10);
      const params = declared.input_parameters as Record<string, { name: string; title: string; type: string }>;
      expect(Object.fromEntries(Object.entries(params).map(([key, p]) => [key, p.title]))).toEqual(inputs);
      for (const [key, param] of Object.entries(params)) expect(param.name).toBe(key);
    }
    const deletionOutputs = manifest.functions[DELETIONS.steps.requestDeletion.callbackId].output_parameters as Record<
      string,
      { title: string }
    >;
    expect(Object.fromEntries(Object.entries(deletionOutputs).map(([key, p]) => [key, p.title]))).toEqual(
      DELETION_STEP_OUTPUTS,
    );
  });

  it('makes the steps available the way Slack requires: org-ready, run by this app, function_executed delivered', () => {
    expect(manifest.settings).toMatchObject({ org_deploy_enabled: true, function_runtime: 'remote' });
    expect(manifest.settings.event_subscriptions.bot_events).toContain('function_executed');
  });

  it('has a bot user, App Home, interactivity and Socket Mode on', () => {
    expect(manifest.features.bot_user.display_name).toBe('Mintlink');
    expect(manifest.features.app_home).toMatchObject({ home_tab_enabled: true, messages_tab_enabled: true });
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([
      'app_home_opened',
      'function_executed',
      'app_uninstalled',
      'tokens_revoked',
      'team_access_revoked',
      'team_access_granted',
    ]);
    expect(manifest.settings).toMatchObject({ interactivity: { is_enabled: true }, socket_mode_enabled: true });
  });

  it('asks for the bot scopes the app needs and no more', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(Object.keys(NEEDED_BOT_SCOPES).sort());
    expect(manifest.oauth_config.scopes.user).toBeUndefined();
  });
});
