import { existsSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { httpManifest, slackEventsUrl } from '../../src/operator/http-manifest.js';

/*
 * `npm run -s manifest -- --http https://host` (the command itself, from the build: npm-run-manifest.e2e.test.ts):
 * manifest.yml turned to HTTP mode, checked against Slack's official
 * manifest schema (v1, slackapi/manifest-schema v0.5.0: the shared copy next to the repository when there is
 * one, else the identical copy beside these tests; Ajv needs strict:false for its non-standard keywords).
 */
const sharedSchema = new URL('../../../shared/slack-manifest-schema/manifest.schema.1.0.0.json', import.meta.url);
const schemaFile = existsSync(sharedSchema)
  ? sharedSchema
  : new URL('./slack-manifest.schema.1.0.0.json', import.meta.url);
const validate = new Ajv({ strict: false, allErrors: true, logger: false }).compile(
  JSON.parse(readFileSync(schemaFile, 'utf8')) as object,
);
const manifestYaml = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');
const EVENTS_URL = 'https://mintlink.example.com/slack/events';

/** Every string in the manifest under a key that names a URL (`url`, `request_url`, `..._url`), with its path. */
function urlsIn(value: unknown, path = ''): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((item, i) => urlsIn(item, `${path}/${i}`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) =>
      /(^|_)urls?$/.test(key) && typeof item === 'string' ? [[`${path}/${key}`, item]] : urlsIn(item, `${path}/${key}`),
    );
  return [];
}

const generated = await httpManifest(manifestYaml, EVENTS_URL);

describe('the HTTP-mode manifest', () => {
  const manifest = parse(generated) as Record<string, any>;

  it("is valid against Slack's manifest schema", () => {
    expect(validate(manifest), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('turns Socket Mode off and sends the command, interactivity and events to /slack/events', () => {
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(manifest.features.slash_commands.map((c: Record<string, unknown>) => [c.command, c.url])).toEqual([
      ['/mintlink', EVENTS_URL],
    ]);
    expect(manifest.settings.interactivity).toEqual({
      is_enabled: true,
      request_url: EVENTS_URL,
      message_menu_options_url: EVENTS_URL,
    });
    expect(manifest.settings.event_subscriptions).toEqual({
      request_url: EVENTS_URL,
      bot_events: [
        'app_home_opened',
        'function_executed',
        'app_uninstalled',
        'tokens_revoked',
        'team_access_revoked',
        'team_access_granted',
      ],
    });
  });

  it('has exactly these four URLs, all https://host/slack/events', () => {
    expect(urlsIn(manifest)).toEqual([
      ['/features/slash_commands/0/url', EVENTS_URL],
      ['/settings/event_subscriptions/request_url', EVENTS_URL],
      ['/settings/interactivity/request_url', EVENTS_URL],
      ['/settings/interactivity/message_menu_options_url', EVENTS_URL],
    ]);
    expect(generated).not.toContain('http://');
  });

  it('keeps everything else of manifest.yml as it is', () => {
    const expected = parse(manifestYaml) as Record<string, any>;
    expected.features.slash_commands[0].url = EVENTS_URL;
    expected.settings.interactivity.request_url = EVENTS_URL;
    expected.settings.event_subscriptions.request_url = EVENTS_URL;
    expected.settings.interactivity.message_menu_options_url = EVENTS_URL;
    expected.settings.socket_mode_enabled = false;
    expect(manifest).toEqual(expected);
  });

  it('says in its header what it is, and asks for no edit by hand (no placeholder host)', () => {
    const header = generated.slice(0, generated.indexOf('_metadata:'));
    expect(header).toContain('HTTP mode');
    expect(header).toContain(EVENTS_URL);
    expect(header).not.toContain('YOUR-HOST');
    expect(header.split('\n').every((line) => line === '' || line.startsWith('#'))).toBe(true);
  });
});

describe('manifest.yml header', () => {
  const header = manifestYaml.slice(0, manifestYaml.indexOf('_metadata:'));
  it('names the right fields for HTTP mode and points to the generator', () => {
    expect(header).toContain('npm run -s manifest -- --http');
    expect(header).toContain('socket_mode_enabled');
    expect(header).toMatch(/`url: https:\/\/YOUR-HOST\/slack\/events` to the \/mintlink command/);
    expect(header).toMatch(/`request_url: https:\/\/YOUR-HOST\/slack\/events` under settings\.interactivity and/);
    expect(header).toContain('settings.event_subscriptions');
  });
});

describe('the public URL given with --http', () => {
  it.each([
    ['https://mintlink.example.com', 'https://mintlink.example.com/slack/events'],
    ['https://mintlink.example.com/', 'https://mintlink.example.com/slack/events'],
    ['https://mintlink.example.com:8443', 'https://mintlink.example.com:8443/slack/events'],
    ['https://example.com/mintlink/', 'https://example.com/mintlink/slack/events'],
    ['https://mintlink.example.com/slack/events', 'https://mintlink.example.com/slack/events'],
    ['HTTPS://Mintlink.Example.com', 'https://mintlink.example.com/slack/events'],
  ])('%s -> %s', (input, url) => {
    expect(slackEventsUrl(input)).toEqual({ ok: true, url });
  });

  it.each([
    ['http://mintlink.example.com', 'Slack sends its requests only to https:// URLs'],
    ['mintlink.example.com', 'it is not a URL'],
    ['', 'it is not a URL'],
    ['ftp://mintlink.example.com', 'only to https:// URLs'],
    ['https://user:secret@mintlink.example.com', 'user name or password'],
    ['https://mintlink.example.com/?x=1', 'query'],
    ['https://mintlink.example.com/#top', 'fragment'],
  ])('refuses %j', (input, why) => {
    const result = slackEventsUrl(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(why);
    expect(!result.ok && result.message).toContain('for example https://');
    expect(!result.ok && result.message).not.toContain('secret');
  });
});
